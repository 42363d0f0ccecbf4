// Every server's tools as one list: grouped by server, each row ready to filter by name, by
// `mcp__server__tool` and by description. What a keystroke costs is kept small, so that the
// list of 5,000 tools follows typing frame by frame: the lower-cased text each row is
// matched against, and the row itself, are made once per list; a query that extends the last
// one searches only what the last one found; and the rows of the last queries are kept, so
// erasing a key costs nothing.
import type { ServerTools, ToolView } from "../bindings";

export type Row =
  | { kind: "server"; key: string; server: string; count: number; shown: number; problem: string | null }
  | { kind: "tool"; key: string; server: string; tool: ToolView };

interface Entry {
  haystack: string;
  row: Extract<Row, { kind: "tool" }>;
}

interface Group {
  server: string;
  problem: string | null;
  entries: Entry[];
}

/** What a query found: per group (by index), the entries that match. */
interface Found {
  needle: string;
  groups: Entry[][];
  rows: Row[];
}

export interface Catalog {
  groups: Group[];
  total: number;
  /** The last queries' results, newest last. */
  found: Found[];
}

/** How many queries' rows are kept. */
const KEPT = 64;

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
        haystack: `${qualified(list.server, tool.name)}\n${tool.title ?? ""}\n${tool.description ?? ""}`.toLowerCase(),
        row: { kind: "tool" as const, key: `t:${list.server}\n${tool.name}`, server: list.server, tool },
      })),
    };
  });
  return { groups, total, found: [] };
}

/** The rows to show for `query`: each server with a match, then its matching tools. */
export function rows(list: Catalog, query: string): Row[] {
  const needle = query.trim().toLowerCase();
  const kept = list.found.findIndex((found) => found.needle === needle);
  if (kept !== -1) {
    const [found] = list.found.splice(kept, 1);
    list.found.push(found!);
    return found!.rows;
  }
  // The longest kept query this one extends: only its matches can match.
  let from: Found | undefined;
  for (const found of list.found) {
    if (needle.startsWith(found.needle) && (!from || found.needle.length > from.needle.length)) from = found;
  }
  const matched = list.groups.map((group, i) => {
    const candidates = from ? from.groups[i]! : group.entries;
    return needle ? candidates.filter((entry) => entry.haystack.includes(needle)) : candidates;
  });
  const out: Row[] = [];
  list.groups.forEach((group, i) => {
    const shown = matched[i]!;
    if (shown.length === 0 && (needle || !group.problem)) return;
    out.push({ kind: "server", key: `s:${group.server}`, server: group.server, count: group.entries.length, shown: shown.length, problem: group.problem });
    for (const entry of shown) out.push(entry.row);
  });
  list.found.push({ needle, groups: matched, rows: out });
  if (list.found.length > KEPT) list.found.shift();
  return out;
}
