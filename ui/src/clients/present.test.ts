import { describe, expect, it } from "vitest";
import type { ClaudeCodeTool, ServerClientView } from "../bindings";
import { ordered, summary } from "./present";

const tool = (name: string, fate: ClaudeCodeTool["fate"], notes: string[] = []): ClaudeCodeTool => ({
  tool: name,
  name: `mcp__s__${name}`,
  fate,
  notes,
  fixes: [],
  description: null,
  inputSchema: null,
  definition: null,
  listedDescription: null,
  listedSchema: "{}",
  results: null,
  others: [],
});

const view = (tools: ClaudeCodeTool[]): ServerClientView => ({
  server: "s",
  claudeCode: { version: "2.1.332", toolSearch: "", knobs: [] },
  tools,
  notes: [],
  findings: [],
});

describe("the client view in words", () => {
  it("counts what is sent, deferred, changed and dropped", () => {
    const v = view([tool("a", "deferred"), tool("b", "deferred", ["cut"]), tool("c", "upfront"), tool("d", "dropped", ["too long"])]);
    expect(summary(v)).toBe("Claude Code 2.1.332 sends 3 of 4 tools (2 deferred behind tool search), changes 1, drops 1.");
    expect(summary(view([tool("a", "upfront")]))).toBe("Claude Code 2.1.332 sends 1 of 1 tool, drops none.");
  });

  it("shows dropped tools first, then changed ones, each in the server's order", () => {
    const tools = [tool("a", "upfront"), tool("b", "deferred", ["cut"]), tool("c", "dropped", ["x"]), tool("d", "upfront", ["cut"])];
    expect(ordered(tools).map((t) => t.tool)).toEqual(["c", "b", "d", "a"]);
  });
});
