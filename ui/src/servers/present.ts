// Pure presentation logic for the server list, kept out of components so it is unit-tested.
import type { ApiError, ListCounts, ListenState, Scope, ServerStatus, ServerSummary, Standing } from "../bindings";

export interface ScopeGroup {
  scope: Scope;
  title: string;
  description: string;
  servers: ServerSummary[];
}

const SCOPES: ReadonlyArray<Omit<ScopeGroup, "servers">> = [
  {
    scope: "managed",
    title: "Managed",
    description: "Set by your administrator — managed-mcp.json, read-only",
  },
  {
    scope: "local",
    title: "Local",
    description: "Only you, only this project — ~/.claude.json",
  },
  {
    scope: "project",
    title: "Project",
    description: "Shared with the project — .mcp.json",
  },
  {
    scope: "user",
    title: "User",
    description: "Only you, every project — ~/.claude.json",
  },
  {
    scope: "plugin",
    title: "Plugins",
    description: "From Claude Code plugins — read-only; on and off with their plugin",
  },
  {
    scope: "agent",
    title: "Subagents",
    description: "Defined in subagents' files — Claude Code runs one only while its subagent runs; approve it to try it here",
  },
];

/**
 * Servers grouped by scope in precedence order, plugin servers last (they rank below user
 * servers). Local, project and user are always present,
 * even when empty, so the person sees where servers could go; managed only when it exists.
 */
export function groupByScope(servers: readonly ServerSummary[]): ScopeGroup[] {
  return SCOPES.map((group) => ({
    ...group,
    servers: servers.filter((server) => server.scope === group.scope),
  })).filter((group) => !(group.scope === "managed" || group.scope === "plugin" || group.scope === "agent") || group.servers.length > 0);
}

/**
 * Claude Code's status words (`claude mcp list`) for a server that will not start, and ours,
 * in the same manner, for what it hides (a server blocked by policy, set aside by
 * managed-mcp.json).
 */
export const STANDING_WORDS: Record<Exclude<Standing, "starts">, string> = {
  shadowed: "shadowed",
  duplicate: "↷ Skipped: same server as one before it",
  "set-aside-by-managed": "⊘ Set aside by managed-mcp.json",
  blocked: "⊗ Blocked by enterprise policy",
  "pending-approval": "⏸ Pending approval",
  rejected: "✘ Rejected",
  "awaiting-trust": "⏸ Approved in your settings; trust the folder to start it",
  "changed-since-approval": "⏸ Changed since you approved it",
  "disabled-here": "⊘ Disabled for this project",
};

/**
 * Why a shadowed entry is not used. A project entry loses its name to the user's entry of it
 * while it is not approved in a trusted folder: Claude Code leaves such entries out before it
 * merges the scopes.
 */
export function shadowedWords(server: ServerSummary): string {
  const by = server.shadowedBy;
  if (server.scope === "project" && by === "user") {
    return `Not used: your user scope defines “${server.name}” too, and Claude Code uses that entry as long as this one is not approved in a trusted folder.`;
  }
  return `Not used: the ${by} scope defines “${server.name}” too, and that entry is used whole.`;
}

/** The words for why a server will not start (none when it starts, or is only shadowed). */
export function stateBadges(server: ServerSummary): string[] {
  switch (server.standing) {
    case "starts":
    case "shadowed":
      return [];
    case "duplicate":
      return [server.skipped ?? STANDING_WORDS.duplicate];
    case "blocked":
      return [server.blocked?.denied === false ? "⊗ Not allowed by enterprise policy" : STANDING_WORDS.blocked];
    case "pending-approval":
      return [server.waitingForTrust ? "⏸ Pending approval · needs trust" : STANDING_WORDS["pending-approval"]];
    default:
      return [STANDING_WORDS[server.standing]];
  }
}

export const TRANSPORT_LABEL: Record<ServerSummary["transport"], string> = {
  stdio: "stdio",
  http: "HTTP",
  sse: "SSE",
  ws: "WebSocket",
};

/** A headline for a failed call, chosen by code only; the message gives the details. */
export function errorTitle(error: ApiError): string {
  switch (error.code) {
    case "project-not-found":
      return "The project folder could not be opened";
    case "no-home":
      return "No home folder is known";
    case "config-syntax":
    case "config-invalid":
    case "config-unreadable":
      return "A configuration file could not be used";
    case "config-unwritable":
      return "A configuration file could not be written";
    case "invalid-name":
    case "invalid-request":
      return "That request cannot be carried out";
    case "server-exists":
      return "A server of that name already exists";
    case "server-not-found":
      return "No such server";
    case "ambiguous-scope":
      return "That server exists in several scopes";
    case "managed-exclusive":
      return "Your administrator manages MCP servers here";
    case "keychain":
      return "The OS keychain could not be used";
    case "untrusted":
      return "This folder is not trusted yet";
    case "set-aside":
      return "A file above the project was not used";
    case "not-allowed":
      return "That server may not start";
    case "blocked-by-policy":
      return "Enterprise policy does not allow that server";
    case "internal":
      return "Something went wrong inside MCP Manager";
  }
}

/** The states a person sees in the header, in the order shown. */
export const STATE_ORDER = ["connected", "pending", "needs-auth", "failed", "disabled"] as const;
export type StateName = (typeof STATE_ORDER)[number];

export const STATE_LABEL: Record<StateName, string> = {
  connected: "connected",
  pending: "connecting",
  "needs-auth": "needs login",
  failed: "failed",
  disabled: "not running",
};

/** Claude Code's words for a live state, as the detail shows them. */
export const LIVE_WORDS: Record<Exclude<StateName, "disabled">, string> = {
  connected: "✔ Connected",
  pending: "Connecting…",
  "needs-auth": "! Needs authentication",
  failed: "✘ Failed to connect",
};

/**
 * How many of the servers that are used (not shadowed) are in each state. A server with no
 * status yet counts as pending when it will start and as not running when it will not.
 */
export function countStates(
  servers: readonly ServerSummary[],
  statuses: ReadonlyMap<string, ServerStatus>,
): Record<StateName, number> {
  const counts: Record<StateName, number> = {
    connected: 0,
    pending: 0,
    "needs-auth": 0,
    failed: 0,
    disabled: 0,
  };
  for (const server of servers) {
    if (server.shadowedBy) continue;
    counts[stateOf(server, statuses.get(server.name))] += 1;
  }
  return counts;
}

/** The state to show for an entry: the live status, or what its configuration implies. */
export function stateOf(server: ServerSummary, status: ServerStatus | undefined): StateName {
  if (!server.willStart) return "disabled";
  return status?.state ?? "pending";
}

/** Whether a server matches the search: by name, command line or URL, ignoring case. */
export function matches(server: ServerSummary, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (needle === "") return true;
  return (
    server.name.toLowerCase().includes(needle) || server.target.toLowerCase().includes(needle)
  );
}

/** "12 tools · 3 resources" for a connected server; lists it does not offer are left out. */
export function describeCounts(counts: ListCounts): string {
  const parts: string[] = [];
  const add = (n: number | null, one: string, many: string) => {
    if (n !== null) parts.push(`${n} ${n === 1 ? one : many}`);
  };
  add(counts.tools, "tool", "tools");
  add(counts.resources, "resource", "resources");
  add(counts.prompts, "prompt", "prompts");
  return parts.join(" · ");
}

/** What a 2026-07-28 session follows live over subscriptions/listen, or why nothing. */
export function describeListening(listening: ListenState): string {
  switch (listening.state) {
    case "idle":
      return "none: the server announces no list changes";
    case "opening":
      return listening.attempt > 1 ? `reopening subscriptions/listen (try ${listening.attempt})` : "opening subscriptions/listen";
    case "listening": {
      const followed = [...listening.lists.map((list) => `${list} list`), ...listening.resources];
      return `${followed.join(", ") || "nothing"}, over subscriptions/listen`;
    }
    case "gave-up":
      return `not followed: ${listening.reason}`;
  }
}
