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

/** Servers grouped by scope in precedence order; every scope is present, even when empty. */
export function groupByScope(servers: readonly ServerSummary[]): ScopeGroup[] {
  return SCOPES.map((group) => ({
    ...group,
    servers: servers.filter((server) => server.scope === group.scope),
  }));
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
    case "internal":
      return "Something went wrong inside MCP Manager";
  }
}
