import { describe, expect, it } from "vitest";
import type { ServerSummary } from "./bindings";
import { errorTitle, groupByScope } from "./servers";

function server(name: string, scope: ServerSummary["scope"]): ServerSummary {
  return {
    name,
    scope,
    transport: "stdio",
    target: "node server.js",
    source: "/p/.mcp.json",
    shadowedBy: null,
  };
}

describe("groupByScope", () => {
  it("orders scopes by precedence: local, project, user", () => {
    const groups = groupByScope([server("a", "user"), server("b", "project"), server("c", "local")]);
    expect(groups.map((g) => g.scope), "the winning scope comes first").toEqual([
      "local",
      "project",
      "user",
    ]);
  });

  it("keeps every scope, even an empty one, so the person sees where servers could go", () => {
    const groups = groupByScope([server("only", "project")]);
    expect(groups.map((g) => g.servers.length)).toEqual([0, 1, 0]);
  });

  it("keeps file order inside a scope", () => {
    const groups = groupByScope([server("z", "user"), server("a", "user")]);
    expect(groups[2]?.servers.map((s) => s.name)).toEqual(["z", "a"]);
  });
});

describe("errorTitle", () => {
  it("branches on the code, not on the message", () => {
    const missing = errorTitle({ code: "project-not-found", message: "anything" });
    const internal = errorTitle({ code: "internal", message: "project-not-found" });
    expect(missing).toMatch(/project folder/);
    expect(internal, "a message that mentions a code must not change the title").not.toMatch(
      /project folder/,
    );
  });
});
