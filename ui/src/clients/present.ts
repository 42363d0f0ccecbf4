// What the client view says in words: a server's tools in Claude Code, counted and labelled.
import type { ClaudeCodeTool, Fate, ServerClientView } from "../bindings";

export const FATE_LABEL: Record<Fate, string> = {
  upfront: "sent upfront",
  deferred: "deferred",
  dropped: "dropped",
};

export const FATE_TITLE: Record<Fate, string> = {
  upfront: "Its whole definition is in every request",
  deferred: "Its name only, until the model searches for it with ToolSearch",
  dropped: "Claude Code never sends it to the model",
};

/** "Claude Code 2.1.332 sends 12 of 14 tools (10 deferred behind tool search) and drops 2." */
export function summary(view: ServerClientView): string {
  const count = (fate: Fate) => view.tools.filter((t) => t.fate === fate).length;
  const sent = count("upfront") + count("deferred");
  const deferred = count("deferred");
  const dropped = count("dropped");
  const changed = view.tools.filter((t) => t.fate !== "dropped" && t.notes.length > 0).length;
  const parts = [`Claude Code ${view.claudeCode.version} sends ${sent} of ${plural(view.tools.length, "tool")}`];
  if (deferred > 0) parts[0] += ` (${deferred} deferred behind tool search)`;
  if (changed > 0) parts.push(`changes ${changed}`);
  parts.push(dropped > 0 ? `drops ${dropped}` : "drops none");
  return `${parts.join(", ")}.`;
}

export function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}

/** The tools worth a look first: dropped, then changed, then the rest, each in listed order. */
export function ordered(tools: ClaudeCodeTool[]): ClaudeCodeTool[] {
  const rank = (t: ClaudeCodeTool) => (t.fate === "dropped" ? 0 : t.notes.length > 0 ? 1 : 2);
  return tools.map((t, i) => ({ t, i })).sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i).map(({ t }) => t);
}
