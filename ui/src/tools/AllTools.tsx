// Every connected server's tools in one list, grouped by server and searchable by name, by
// `mcp__server__tool` and by description, with the annotations as badges. The list is
// virtualized (only the rows in view exist), so 5,000 tools filter as fast as 50, and each
// row's description is cut to its width here (fit.ts), not by WebKit's costlier ellipsis.
// Choosing a tool opens it beside the list, as in a server's Tools tab.
//
// Each keystroke's cost is kept for the tools benchmark (tests/bench/tools-filter.mjs), the
// last 1,000 of each, from the input event: to the list filtered and rendered
// (`window.__mcpToolsRenderMs`), laid out again (`__mcpToolsFilterMs`), the next frame begun
// (`__mcpToolsFrameMs`), and that frame painted (`__mcpToolsPaintMs`).
import { type ReactNode, memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { ApiError, ServerTools, ToolView } from "../bindings";
import type { ToolsApi } from "./api";
import { BADGE, BADGE_PADDING, Badges, badgesOf, clientBadges, type Badge } from "./Badges";
import { catalog, cut, fits, rows, type Row } from "./catalog";
import { canvasWidths, fitLine, widthOf, type GlyphWidth } from "./fit";
import { inView } from "./inView";

declare global {
  interface Window {
    __mcpToolsRenderMs?: number[];
    __mcpToolsFilterMs?: number[];
    __mcpToolsFrameMs?: number[];
    __mcpToolsPaintMs?: number[];
  }
}

const ROW = 30;
// A row: 12 px each side (px-3), and 8 px between its parts (gap-2).
const ROW_PADDING = 24;
const GAP = 8;
const NAME = "shrink-0 whitespace-nowrap font-semibold";
const LINE = "min-w-0 truncate text-xs text-slate-500";

/** The glyph widths of a row's three faces: the tool's name, a badge and the description. */
interface Faces {
  name: GlyphWidth;
  badge: GlyphWidth;
  line: GlyphWidth;
}

/** The faces the elements in `probe` are drawn with, measured by a canvas; null without one. */
function facesOf(probe: HTMLElement): Faces | null {
  const font = (selector: string) => {
    const style = getComputedStyle(probe.querySelector(selector)!);
    return `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  };
  const name = canvasWidths(font("[data-face=name]"));
  const badge = canvasWidths(font("[data-face=badge]"));
  const line = canvasWidths(font("[data-face=line]"));
  return name && badge && line ? { name, badge, line } : null;
}

/** What of a tool's description its row has room for, `width` pixels wide. */
function lineFor(row: Extract<Row, { kind: "tool" }>, badges: Badge[], width: number, faces: Faces): string {
  // 2 px to spare for what adding glyphs up leaves out: rounding, and a pair kerned wider.
  let room = width - ROW_PADDING - widthOf(row.tool.name, faces.name) - GAP - 2;
  for (const badge of badges) room -= widthOf(badge.text, faces.badge) + BADGE_PADDING + GAP;
  return fitLine(row.line, room, faces.line);
}

function keep(timings: number[], ms: number) {
  timings.push(ms);
  if (timings.length > 1000) timings.shift();
}

export interface Chosen {
  server: string;
  tool: ToolView;
}

export function AllTools({
  api,
  refreshKey,
  chosen,
  onChoose,
  beside,
}: {
  api: ToolsApi;
  /** What else the search finds (the servers' skills), under the count. */
  beside?: (query: string) => ReactNode;
  /** Changes when a server connects, leaves or lists a different number of tools. */
  refreshKey: string;
  chosen: Chosen | null;
  onChoose: (chosen: Chosen) => void;
}) {
  const [lists, setLists] = useState<ServerTools[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [query, setQuery] = useState("");
  useEffect(() => {
    let current = true;
    void api.all().then((outcome) => {
      if (!current) return;
      if (outcome.ok) {
        setLists(outcome.value);
        setError(null);
      } else setError(outcome.error);
    });
    return () => {
      current = false;
    };
  }, [api, refreshKey]);

  const list = useMemo(() => catalog(lists ?? []), [lists]);
  const shown = useMemo(() => rows(list, query), [list, query]);
  const matches = shown.reduce((n, r) => n + (r.kind === "tool" ? 1 : 0), 0);

  const scroller = useRef<HTMLDivElement>(null);
  // The list's width, so that a row is given no more of its description than it can show,
  // and its height and scroll position, for the rows in view.
  const [width, setWidth] = useState(() => window.innerWidth);
  const [height, setHeight] = useState(() => window.innerHeight);
  const [top, setTop] = useState(0);
  const listed = lists !== null;
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      setWidth(entry!.contentRect.width);
      setHeight(entry!.contentRect.height);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [listed]);
  const chars = fits(width);
  // The faces are read once the list is drawn; until then a line is cut by `fits`, generously,
  // and the CSS ellipsis cuts it again.
  const probe = useRef<HTMLDivElement>(null);
  const [faces, setFaces] = useState<Faces | null>(null);
  useLayoutEffect(() => {
    if (probe.current) setFaces(facesOf(probe.current));
  }, [listed]);
  // Each row's badges and line, made once for as long as the width and faces stay.
  const drawn = useMemo(() => new WeakMap<Row, { badges: Badge[]; line: string }>(), [width, faces]);
  const partsOf = (row: Extract<Row, { kind: "tool" }>) => {
    let parts = drawn.get(row);
    if (!parts) {
      const badges = [...badgesOf(row.tool.annotations, row.tool.meta), ...clientBadges(row.tool.clientNotes)];
      parts = { badges, line: faces ? lineFor(row, badges, width, faces) : cut(row.line, chars) };
      drawn.set(row, parts);
    }
    return parts;
  };

  // Rows drawn beyond the view are laid out and painted again on every keystroke that changes
  // them: 3 each side, not 12, took the tools benchmark's p95 from 12 to 8 ms to the list laid
  // out and from 23 to 17 ms to its painted frame (descriptions left out, to see it alone).
  const view = inView(shown.length, ROW, top, height, 3);

  const typed = useRef<number | null>(null);
  useLayoutEffect(() => {
    const began = typed.current;
    if (began === null) return;
    typed.current = null;
    keep((window.__mcpToolsRenderMs ??= []), performance.now() - began); // the list filtered and rendered
    void scroller.current?.offsetHeight; // the list laid out again
    keep((window.__mcpToolsFilterMs ??= []), performance.now() - began);
    // The frame's callbacks run before its paint; a task queued from one runs after it.
    requestAnimationFrame(() => {
      keep((window.__mcpToolsFrameMs ??= []), performance.now() - began);
      setTimeout(() => keep((window.__mcpToolsPaintMs ??= []), performance.now() - began));
    });
  }, [query]);

  if (error) return <p className="text-sm text-red-700 dark:text-red-300">{error.message}</p>;
  if (!lists) return <p className="text-sm text-slate-500">Listing every server's tools…</p>;
  return (
    <div data-testid="all-tools" className="flex h-full min-h-0 flex-col gap-2">
      <input
        type="search"
        data-testid="all-tools-search"
        aria-label="Search every server's tools"
        placeholder={`Search ${list.total.toLocaleString()} tools of ${lists.length} servers by name, mcp__server__tool or description`}
        value={query}
        onChange={(e) => {
          typed.current = performance.now();
          setQuery(e.target.value);
        }}
        className="rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700"
      />
      <p data-testid="all-tools-count" data-matches={matches} className="text-xs text-slate-500">
        {query.trim() ? `${matches.toLocaleString()} of ${list.total.toLocaleString()} tools` : `${list.total.toLocaleString()} tools`} · {lists.length} connected server{lists.length === 1 ? "" : "s"} with tools
      </p>
      {beside?.(query)}
      <div ref={probe} hidden className="text-sm">
        <code data-face="name" className={NAME} />
        <span data-face="badge" className={BADGE} />
        <span data-face="line" className={LINE} />
      </div>
      <div
        ref={scroller}
        data-testid="all-tools-list"
        onScroll={(e) => setTop(e.currentTarget.scrollTop)}
        className="min-h-0 flex-1 overflow-auto rounded border border-slate-200 dark:border-slate-800"
      >
        <div style={{ height: view.total, position: "relative" }}>
          {shown.slice(view.first, view.end).map((row, i) => {
            const style = { position: "absolute" as const, top: 0, left: 0, right: 0, height: ROW, transform: `translateY(${(view.first + i) * ROW}px)` };
            if (row.kind === "server") {
              return (
                <div key={row.key} style={style} data-testid="tools-group" data-server={row.server} className="flex items-center gap-2 border-b border-slate-200 bg-slate-100 px-2 text-xs font-semibold dark:border-slate-800 dark:bg-slate-800">
                  <span className="font-mono">{row.server}</span>
                  <span className="font-normal text-slate-500">{query.trim() ? `${row.shown} of ${row.count}` : row.count} tools</span>
                  {row.problem && <span className="min-w-0 truncate font-normal text-red-700 dark:text-red-300">{row.problem}</span>}
                </div>
              );
            }
            const selected = chosen?.server === row.server && chosen.tool.name === row.tool.name;
            return (
              <button
                key={row.key}
                type="button"
                style={style}
                data-testid="tool-row"
                data-server={row.server}
                data-tool={row.tool.name}
                aria-pressed={selected}
                title={row.tool.nameForModel}
                onClick={() => onChoose({ server: row.server, tool: row.tool })}
                className={`flex items-center gap-2 px-3 text-left text-sm hover:bg-slate-50 dark:hover:bg-slate-800/60 ${selected ? "bg-indigo-50 dark:bg-indigo-950" : ""}`}
              >
                <ToolLine row={row} {...partsOf(row)} />
              </button>
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** What a tool's row shows; the same row (catalog.ts keeps them) is not drawn again. */
const ToolLine = memo(function ToolLine({ row, badges, line }: { row: Extract<Row, { kind: "tool" }>; badges: Badge[]; line: string }) {
  return (
    <>
      <code className={NAME}>{row.tool.name}</code>
      <Badges badges={badges} />
      <span data-testid="tool-line" className={LINE}>
        {line}
      </span>
    </>
  );
});
