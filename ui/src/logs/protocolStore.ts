// A framework-free store of one server's protocol log, fed in batches by a backend channel
// (newest last, as they happened); what is shown is filtered and newest first.
import type { Direction, LoggedMessage } from "../bindings";

/** How many messages the window keeps for one server (the backend keeps its own ring). */
export const KEPT = 2000;

export interface ProtocolFilter {
  /** Part of the method, ignoring case; empty for every method. */
  method: string;
  direction: Direction | "both";
}

export class ProtocolStore {
  private messages: readonly LoggedMessage[] = [];
  private readonly listeners = new Set<() => void>();

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): readonly LoggedMessage[] => this.messages;

  /** The sequence number of the newest message held (0 when none). */
  get last(): number {
    return this.messages[this.messages.length - 1]?.seq ?? 0;
  }

  /** Appends a batch; messages already held (by sequence number) are skipped. */
  append(batch: readonly LoggedMessage[]): void {
    const fresh = batch.filter((m) => m.seq > this.last);
    if (fresh.length === 0) return;
    const next = [...this.messages, ...fresh];
    this.messages = next.length > KEPT ? next.slice(next.length - KEPT) : next;
    for (const listener of this.listeners) listener();
  }
}

/** The messages to show: matching the filter, newest first. */
export function visible(messages: readonly LoggedMessage[], filter: ProtocolFilter): LoggedMessage[] {
  const needle = filter.method.trim().toLowerCase();
  const out: LoggedMessage[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (filter.direction !== "both" && message.direction !== filter.direction) continue;
    if (needle && !(message.method ?? "").toLowerCase().includes(needle)) continue;
    out.push(message);
  }
  return out;
}

/** The message pretty-printed when it is whole JSON; as sent otherwise. */
export function pretty(message: LoggedMessage): string {
  if (message.truncated) return `${message.text}\n… (${message.size} bytes in all; the rest is not kept)`;
  try {
    return JSON.stringify(JSON.parse(message.text), null, 2);
  } catch {
    return message.text;
  }
}
