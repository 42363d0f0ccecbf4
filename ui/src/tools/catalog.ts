// Every server's tools as one list: grouped by server, each row ready to filter by name, by
// `mcp__server__tool` and by description. The lower-cased text each row is matched against is
// made once per list, so a keystroke costs one pass of `includes` over the rows.
import type { ServerTools, ToolView } from "../bindings";

export type Row =
  | { kind: "server"; key: string; server: string; count: number; shown: number; problem: string | null }
  | { kind: "tool"; key: string; server: string; tool: ToolView };

interface Entry {
  server: string;
  tool: ToolView;
  haystack: string;
}

export interface Catalog {
  groups: { server: string; problem: string | null; entries: Entry[] }[];
  total: number;
  /** The rows with nothing searched, made once (erasing the search is a keystroke too). */
  everything?: Row[];
}

/** Claude Code's name for a tool: `mcp__server__tool`. */
export const qualified = (server: string, tool: string) => `mcp__${server}__${tool}`;

export function catalog(lists: readonly ServerTools[]): Catalog {
  let total = 0;
  const groups = lists.map((list) => {
    total += list.tools.length;
    return {
      server: list.server,
      problem: list.problem,
      entries: list.tools.map((tool) => ({
        server: list.server,
        tool,
        haystack: `${qualified(list.server, tool.name)}\n${tool.title ?? ""}\n${tool.description ?? ""}`.toLowerCase(),
      })),
    };
  });
  return { groups, total };
}

/** The rows to show for `query`: each server with a match, then its matching tools. */
export function rows(list: Catalog, query: string): Row[] {
  const needle = query.trim().toLowerCase();
  if (!needle && list.everything) return list.everything;
  const out: Row[] = [];
  for (const group of list.groups) {
    const header = out.length;
    out.push({ kind: "server", key: `s:${group.server}`, server: group.server, count: group.entries.length, shown: 0, problem: group.problem });
    let shown = 0;
    for (const entry of group.entries) {
      if (needle && !entry.haystack.includes(needle)) continue;
      shown++;
      out.push({ kind: "tool", key: `t:${group.server}\n${entry.tool.name}`, server: group.server, tool: entry.tool });
    }
    if (shown === 0 && (needle || !group.problem)) out.pop();
    else out[header] = { ...(out[header] as Extract<Row, { kind: "server" }>), shown };
  }
  if (!needle) list.everything = out;
  return out;
}
