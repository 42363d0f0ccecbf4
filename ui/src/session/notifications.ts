// The notifications a server sent, read out of its protocol log: what a person watches while
// trying a server (log messages, list changes, resource updates, progress).
import type { LoggedMessage } from "../bindings";

export const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type Level = (typeof LEVELS)[number];

export interface Notice {
  seq: number;
  atMs: number | null;
  method: string;
  /** For `notifications/message`: its level, logger and data; otherwise null. */
  log: { level: string; logger: string | null; data: string } | null;
  /** The params, as JSON text (empty when none). */
  params: string;
}

/** The incoming notifications among `messages`, newest first, optionally only log messages. */
export function notices(messages: readonly LoggedMessage[], onlyLogs: boolean): Notice[] {
  const out: Notice[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.direction !== "in" || m.kind !== "notification" || !m.method) continue;
    if (onlyLogs && m.method !== "notifications/message") continue;
    let params: unknown = undefined;
    try {
      params = (JSON.parse(m.text) as { params?: unknown }).params;
    } catch {
      params = undefined;
    }
    const p = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
    const log =
      m.method === "notifications/message"
        ? {
            level: typeof p.level === "string" ? p.level : "info",
            logger: typeof p.logger === "string" ? p.logger : null,
            data: typeof p.data === "string" ? p.data : JSON.stringify(p.data),
          }
        : null;
    out.push({ seq: m.seq, atMs: m.atMs, method: m.method, log, params: params === undefined ? "" : JSON.stringify(params) });
  }
  return out;
}
