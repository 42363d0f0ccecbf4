import { describe, expect, it } from "vitest";
import type { Login } from "../bindings";
import { clientText, expiresText, keeperText, lastRefreshText, needsPerson, otherStore, span, storeText } from "./present";

const login = (over: Partial<Login> = {}): Login => ({
  server: "remote",
  scope: "user",
  store: "keychain",
  issuer: "http://localhost:1/",
  scopes: ["mcp:tools"],
  expiresAtMs: 1_000_000 + 600_000,
  hasRefreshToken: true,
  client: "dynamic",
  lastRefresh: null,
  lapsed: null,
  refreshAtMs: 1_000_000 + 300_000,
  notKept: null,
  dpopBound: false,
  leftForClaudeCode: false,
  ...over,
});

describe("the Logins view's words", () => {
  it("says spans in the unit that reads best", () => {
    expect(span(45_000)).toBe("45 s");
    expect(span(600_000)).toBe("10 min");
    expect(span(3 * 3600_000)).toBe("3 h");
    expect(span(3 * 86400_000)).toBe("3 days");
  });

  it("says when a token expires, or that it did", () => {
    expect(expiresText(login(), 1_000_000)).toBe("in 10 min");
    expect(expiresText(login({ expiresAtMs: 900_000 }), 1_000_000)).toBe("100 s ago (expired)");
    expect(expiresText(login({ expiresAtMs: null }), 1_000_000)).toBe("not said by the server");
  });

  it("says what the keeper does next, a lapse first", () => {
    expect(keeperText(login(), 1_000_000)).toBe("Refreshed by the keeper in 5 min");
    expect(keeperText(login({ lapsed: "the authorization server refused the refresh token" }), 1_000_000)).toBe(
      "Needs a new login: the authorization server refused the refresh token",
    );
    expect(keeperText(login({ refreshAtMs: null, notKept: "no refresh token" }), 1_000_000)).toBe("no refresh token");
    expect(keeperText(login({ store: "claude-code", refreshAtMs: 900_000, leftForClaudeCode: true }), 1_000_000)).toBe(
      "Due, and left to Claude Code, which runs now: it refreshes this login itself when it needs it",
    );
  });

  it("names stores, clients and the last refresh", () => {
    expect(storeText("claude-code")).toBe("Claude Code's store");
    expect(otherStore("keychain")).toBe("claude-code");
    expect(clientText("metadata-document")).toBe("client metadata document");
    expect(lastRefreshText(login(), 1)).toBe("none yet");
    expect(lastRefreshText(login({ lastRefresh: { atMs: 940_000, ok: true, words: "refreshed" } }), 1_000_000)).toBe("60 s ago: refreshed");
  });

  it("needs the person for a lapse, or an expired token that cannot be refreshed", () => {
    expect(needsPerson(login(), 1_000_000)).toBe(false);
    expect(needsPerson(login({ lapsed: "refused" }), 1_000_000)).toBe(true);
    expect(needsPerson(login({ hasRefreshToken: false, expiresAtMs: 1 }), 1_000_000)).toBe(true);
  });
});
