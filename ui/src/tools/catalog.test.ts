import { describe, expect, it } from "vitest";
import type { ServerTools, ToolView } from "../bindings";
import { catalog, cut, firstLine, fits, rows } from "./catalog";

const tool = (name: string, description: string | null = null, server = "github"): ToolView => ({
  name,
  title: null,
  description,
  descriptionForModel: description,
  clientNotes: [],
  nameForModel: `mcp__${server}__${name}`,
  inputSchema: "{}",
  outputSchema: null,
  annotations: null,
  meta: null,
});

const lists: ServerTools[] = [
  { server: "github", tools: [tool("create_issue", "Opens an issue"), tool("search_code", "Finds CODE")], problem: null },
  { server: "fs", tools: [tool("read_file", "Reads a file", "fs")], problem: null },
  { server: "broken", tools: [], problem: "no answer within 5 s" },
];

describe("every server's tools in one list", () => {
  const list = catalog(lists);

  it("groups by server, each header counting what it shows", () => {
    const all = rows(list, "");
    expect(all.map((r) => r.kind === "server" ? `[${r.server} ${r.shown}/${r.count}]` : r.tool.name)).toEqual([
      "[github 2/2]",
      "create_issue",
      "search_code",
      "[fs 1/1]",
      "read_file",
      "[broken 0/0]",
    ]);
    expect(list.total).toBe(3);
  });

  it("finds by name, by mcp__server__tool and by description, ignoring case", () => {
    const names = (q: string) => rows(list, q).flatMap((r) => (r.kind === "tool" ? [`${r.server}/${r.tool.name}`] : []));
    expect(names("ISSUE")).toEqual(["github/create_issue"]);
    expect(names("mcp__fs__")).toEqual(["fs/read_file"]);
    expect(names("code")).toEqual(["github/search_code"]);
    expect(names("a file")).toEqual(["fs/read_file"]);
    expect(rows(list, "nothing like it")).toEqual([]);
    // A server whose list failed is shown only while nothing is searched.
    expect(rows(list, "read").some((r) => r.server === "broken")).toBe(false);
  });

  it("narrows from the last query and gives back the same rows for a query seen before", () => {
    const fresh = catalog(lists);
    const names = (q: string) => rows(fresh, q).flatMap((r) => (r.kind === "tool" ? [r.tool.name] : []));
    expect(names("e")).toEqual(["create_issue", "search_code", "read_file"]);
    expect(names("ea")).toEqual(["create_issue", "search_code", "read_file"]);
    expect(names("ear")).toEqual(["search_code"]);
    // Erasing: the very rows shown before, not a search again.
    expect(rows(fresh, "ea")).toBe(rows(fresh, "ea"));
    expect(names("")).toHaveLength(3);
    // A query that does not extend a kept one searches everything.
    expect(names("file")).toEqual(["read_file"]);
  });
});


describe("a row's share of its description", () => {
  it("is the first line, cut where the row's width ends, with an ellipsis that says so", () => {
    expect(firstLine("Reads a file.\nArgs: path")).toBe("Reads a file.");
    expect(firstLine(null)).toBe("");
    expect(firstLine("\n                        Read contents from files and URLs.\n     More")).toBe("Read contents from files and URLs.");
    expect(firstLine("  \n \t")).toBe("");
    const long = "x".repeat(844);
    const chars = fits(1078);
    // Enough for the widest run of ordinary 12 px glyphs (about 6 px each), not the whole line.
    expect(chars).toBeGreaterThan(1078 / 6);
    expect(chars).toBeLessThan(400);
    expect(cut(long, chars)).toHaveLength(chars);
    expect(cut(long, chars).endsWith("…")).toBe(true);
    expect(cut("Opens an issue", chars)).toBe("Opens an issue");
    expect(fits(2400)).toBeGreaterThan(fits(1078));
  });

  it("keeps the whole line searchable", () => {
    const long = `${"word ".repeat(200)}needle at the end`;
    const list = catalog([{ server: "s", tools: [tool("t", long)], problem: null }]);
    const found = rows(list, "needle at the end");
    expect(found.map((r) => r.kind)).toEqual(["server", "tool"]);
    expect(found[1]!.kind === "tool" && found[1]!.line).toBe(long);
  });
});
