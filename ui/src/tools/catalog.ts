// Every server's tools as one list: grouped by server, each row ready to filter by name, by
// `mcp__server__tool` and by description. What a keystroke costs is kept small, so that the
// list of 5,000 tools follows typing frame by frame: the lower-cased text each row is
// matched against, and the row itself, are made once per list; a query that extends the last
// one searches only what the last one found; and the rows of the last queries are kept, so
// erasing a key costs nothing.
import type { ServerTools, ToolView } from "../bindings";

export type Row =
  | { kind: "server"; key: string; server: string; count: number; shown: number; problem: string | null }
  | { kind: "tool"; key: string; server: string; tool: ToolView; line: string };

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

/**
 * A description's first line with words on it, without the spaces around it: what a row shows
 * of it. Some servers indent their descriptions from a line break (desktop-commander's all
 * begin "\n" and 24 spaces), and their rows showed nothing.
 */
export function firstLine(description: string | null): string {
  const text = description ?? "";
  const start = text.search(/\S/);
  if (start === -1) return "";
  const end = text.indexOf("\n", start);
  return (end === -1 ? text.slice(start) : text.slice(start, end)).trimEnd();
}

/**
 * How many characters of a line fill `width` pixels of a row's small text, with room to
 * spare: a glyph of the 12 px faces is 5 pixels wide or more, save the narrowest letters.
 * Laying out text costs by its length even where it is cut off, and a published server's
 * first line runs to 844 characters (252 on average in tests/fixtures/schemas), while a row
 * 700 pixels wide shows about 110.
 */
export const fits = (width: number) => Math.ceil(width / 5) + 8;

/** `line` cut to `chars` characters, "…" where it was cut. */
export const cut = (line: string, chars: number) => (line.length > chars ? `${line.slice(0, chars - 1)}…` : line);

/** Claude Code's name for a tool: `mcp__server__tool`. */

export function catalog(lists: readonly ServerTools[]): Catalog {
  let total = 0;
  const groups = lists.map((list) => {
    total += list.tools.length;
    return {
      server: list.server,
      problem: list.problem,
      entries: list.tools.map((tool) => ({
        haystack: `${tool.nameForModel}\n${tool.title ?? ""}\n${tool.description ?? ""}`.toLowerCase(),
        row: { kind: "tool" as const, key: `t:${list.server}\n${tool.name}`, server: list.server, tool, line: firstLine(tool.description) },
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
