import { describe, expect, it } from "vitest";
import type { ProjectBudget, ServerUsage, UsageReport } from "../bindings";
import { connectionTroubles, countsText, unused } from "./present";

const zero = { calls: 0, failures: 0, denied: 0, notSent: 0 };
const server = (name: string, extra: Partial<ServerUsage> = {}): ServerUsage => ({
  server: name,
  prefix: name,
  configured: true,
  sharesPrefixWith: [],
  week: zero,
  month: zero,
  medianMs: null,
  lastUsedMs: null,
  tools: [],
  connections: null,
  ...extra,
});
const report = (servers: ServerUsage[], neverUsed: string[]): UsageReport => ({
  project: "/p",
  days: 30,
  servers,
  neverUsed,
  sessions: 1,
  skippedLines: 0,
  oldestMs: null,
});

describe("usage words", () => {
  it("names only the outcomes that happened", () => {
    expect(countsText({ calls: 3, failures: 0, denied: 0, notSent: 0 })).toBe("3");
    expect(countsText({ calls: 5, failures: 2, denied: 1, notSent: 0 })).toBe("5 (2 failed, 1 denied)");
  });

  it("puts the heaviest unused server first, and one not connected here last", () => {
    const budget = { servers: [{ server: "a", upfront: 100 }, { server: "b", upfront: 900 }] } as unknown as ProjectBudget;
    expect(unused(report([], ["c", "a", "b"]), budget)).toEqual([
      { server: "b", upfront: 900 },
      { server: "a", upfront: 100 },
      { server: "c", upfront: null },
    ]);
  });

  it("says how often Claude Code could not connect", () => {
    const failing = server("gamma", {
      connections: { sessions: 10, failed: 4, lastFailureMs: 1, lastFailure: "it did not answer in time", skippedTools: [] },
    });
    expect(connectionTroubles(report([failing, server("ok")], []))).toEqual([
      "Claude Code could not connect to gamma in 4 of its last 10 sessions: it did not answer in time.",
    ]);
  });
});
