// Words and rows for the usage view, kept out of the component so they can be tested alone.
import type { Counts, ProjectBudget, UsageReport } from "../bindings";

/** "12", or "12 (2 failed, 1 denied)". */
export function countsText(counts: Counts): string {
  const also = [
    counts.failures ? `${counts.failures} failed` : "",
    counts.denied ? `${counts.denied} denied` : "",
    counts.notSent ? `${counts.notSent} not sent` : "",
  ].filter(Boolean);
  return also.length ? `${counts.calls} (${also.join(", ")})` : `${counts.calls}`;
}

/** A moment as the person's local date and time, to the minute. */
export function when(ms: number | null): string {
  if (ms === null) return "—";
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export interface Unused {
  server: string;
  /** Tokens its tools cost upfront in every request, when it is connected here. */
  upfront: number | null;
}

/** The servers never called in the window, heaviest upfront first, with what they cost. */
export function unused(report: UsageReport, budget: ProjectBudget | null): Unused[] {
  const cost = new Map((budget?.servers ?? []).map((s) => [s.server, s.upfront]));
  return report.neverUsed
    .map((server) => ({ server, upfront: cost.get(server) ?? null }))
    .sort((a, b) => (b.upfront ?? -1) - (a.upfront ?? -1) || a.server.localeCompare(b.server));
}

/** "Claude Code could not connect to X in 4 of its last 10 sessions: …", one per server. */
export function connectionTroubles(report: UsageReport): string[] {
  return report.servers.flatMap((s) => {
    const c = s.connections;
    if (!c || c.failed === 0) return [];
    const why = c.lastFailure ? `: ${c.lastFailure}` : "";
    return [`Claude Code could not connect to ${s.server} in ${c.failed} of its last ${c.sessions} session${c.sessions === 1 ? "" : "s"}${why}.`];
  });
}
