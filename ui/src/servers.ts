// Pure presentation logic for the server list, kept out of components so it is unit-tested.
import type { ApiError, Scope, ServerSummary } from "./bindings";

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
];

/**
 * Servers grouped by scope in precedence order. Local, project and user are always present,
 * even when empty, so the person sees where servers could go; managed only when it exists.
 */
export function groupByScope(servers: readonly ServerSummary[]): ScopeGroup[] {
  return SCOPES.map((group) => ({
    ...group,
    servers: servers.filter((server) => server.scope === group.scope),
  })).filter((group) => group.scope !== "managed" || group.servers.length > 0);
}

/** Short labels for why a server will not start, in the order they matter. */
export function stateBadges(server: ServerSummary): string[] {
  const badges: string[] = [];
  if (server.shadowedBy) badges.push(`shadowed by ${server.shadowedBy}`);
  if (!server.enabled) badges.push("disabled");
  if (server.approval === "pending") badges.push("needs approval");
  if (server.approval === "rejected") badges.push("rejected");
  return badges;
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
    case "internal":
      return "Something went wrong inside MCP Manager";
  }
}
