import { describe, expect, it } from "vitest";
import { server } from "./fixtures";
import { describeListening, errorTitle, groupByScope, shadowedWords, stateBadges } from "./present";


describe("groupByScope", () => {
  it("orders scopes by precedence: local, project, user", () => {
    const groups = groupByScope([server("a", "user"), server("b", "project"), server("c", "local")]);
    expect(groups.map((g) => g.scope), "the winning scope comes first").toEqual([
      "local",
      "project",
      "user",
    ]);
  });

  it("keeps every writable scope, even an empty one, so the person sees where servers could go", () => {
    const groups = groupByScope([server("only", "project")]);
    expect(groups.map((g) => g.servers.length)).toEqual([0, 1, 0]);
  });

  it("shows the managed scope first, and only when it exists", () => {
    const groups = groupByScope([server("mine", "user"), server("corp", "managed")]);
    expect(groups.map((g) => g.scope)).toEqual(["managed", "local", "project", "user"]);
  });

  it("keeps file order inside a scope", () => {
    const groups = groupByScope([server("z", "user"), server("a", "user")]);
    expect(groups[2]?.servers.map((s) => s.name)).toEqual(["z", "a"]);
  });
});

describe("stateBadges", () => {
  it("says why a server will not start in Claude Code's words", () => {
    expect(stateBadges(server("s", "project", { standing: "pending-approval", approval: "pending" }))).toEqual([
      "⏸ Pending approval",
    ]);
    expect(
      stateBadges(server("s", "project", { standing: "pending-approval", approval: "pending", waitingForTrust: "/p/.claude/settings.json" })),
    ).toEqual(["⏸ Pending approval · needs trust"]);
    expect(stateBadges(server("s", "project", { standing: "rejected", approval: "rejected" }))).toEqual(["✘ Rejected"]);
    expect(
      stateBadges(server("s", "project", { standing: "awaiting-trust", approval: "approved", willStart: false })),
      "approved in the person's settings, but the folder is not trusted",
    ).toEqual(["⏸ Approved in your settings; trust the folder to start it"]);
    expect(stateBadges(server("s", "user", { standing: "disabled-here", enabled: false }))).toEqual([
      "⊘ Disabled for this project",
    ]);
    expect(
      stateBadges(server("s", "user", { standing: "blocked", blocked: { denied: false, rule: "allowedMcpServers", files: [] } })),
    ).toEqual(["⊗ Not allowed by enterprise policy"]);
    expect(stateBadges(server("s", "user", { standing: "shadowed", shadowedBy: "local" })), "shadowed has its own label").toEqual([]);
    expect(stateBadges(server("s", "user")), "a plain user server has none").toEqual([]);
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

describe("describeListening", () => {
  it("names what is followed live, and why nothing is", () => {
    expect(describeListening({ state: "listening", lists: ["tools", "resources"], resources: ["modern://counter"] })).toBe(
      "tools list, resources list, modern://counter, over subscriptions/listen",
    );
    expect(describeListening({ state: "opening", attempt: 3 })).toBe("reopening subscriptions/listen (try 3)");
    expect(describeListening({ state: "gave-up", reason: "the server does not offer subscriptions/listen (-32601)" })).toBe(
      "not followed: the server does not offer subscriptions/listen (-32601)",
    );
  });
});

describe("shadowedWords", () => {
  it("says a project entry waits for its approval while the user's entry of its name is used", () => {
    expect(shadowedWords(server("pu", "project", { shadowedBy: "user", approval: "pending", willStart: false }))).toBe(
      "Not used: your user scope defines “pu” too, and Claude Code uses that entry as long as this one is not approved in a trusted folder.",
    );
    expect(shadowedWords(server("same", "project", { shadowedBy: "local" }))).toBe(
      "Not used: the local scope defines “same” too, and that entry is used whole.",
    );
  });
});
