// Test data shared by the unit tests: a complete ServerSummary with overridable fields.
import type { ServerSummary } from "../bindings";

export function server(
  name: string,
  scope: ServerSummary["scope"],
  more: Partial<ServerSummary> = {},
): ServerSummary {
  const approval = more.approval !== undefined ? more.approval : scope === "project" ? "approved" : null;
  const standing: ServerSummary["standing"] = more.shadowedBy
    ? "shadowed"
    : approval === "pending"
      ? "pending-approval"
      : approval === "rejected"
        ? "rejected"
        : more.enabled === false
          ? "disabled-here"
          : "starts";
  return {
    name,
    scope,
    transport: "stdio",
    target: "node server.js",
    source: "/p/.mcp.json",
    shadowedBy: null,
    approval: scope === "project" ? "approved" : null,
    waitingForTrust: null,
    changedSinceApproval: false,
    enabled: true,
    readOnly: scope === "managed",
    willStart: true,
    blocked: null,
    standing,
    plugin: null,
    skipped: null,
    hash: "0".repeat(64),
    missingVariables: [],
    ...more,
  } as ServerSummary;
}
