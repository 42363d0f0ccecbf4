// A server's tools, tried by hand: the list (searchable, with the annotations as badges), the
// chosen tool's form generated from its inputSchema (or its arguments as raw JSON), Run, and
// the result. Arguments are checked against the schema before anything is sent.
import { useEffect, useState } from "react";
import type { ApiError, CallRecord, DroppedTool, ToolView } from "../bindings";
import type { ToolsApi } from "./api";
import type { BrowseApi } from "../browse/api";
import { HistoryPane } from "./HistoryPane";
import { ToolRunner } from "./ToolRunner";
import { Badges, badgesOf, clientBadges } from "./Badges";
import { firstLine } from "./catalog";

/** `listed`: how many tools the server lists now; the list is read again when it changes (a
 * server said its tool list changed, and it was fetched again). `tasks`: the server offers
 * tasks. */
export function ToolsPanel({
  server,
  api,
  browse,
  listed,
  tasks = false,
}: {
  server: string;
  api: ToolsApi;
  browse?: BrowseApi;
  listed?: number | null;
  tasks?: boolean;
}) {
  const [tools, setTools] = useState<ToolView[] | null>(null);
  const [dropped, setDropped] = useState<DroppedTool[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const [search, setSearch] = useState("");
  const [chosen, setChosen] = useState<string | null>(null);
  // A past call loaded into the form (and maybe run again); its id remounts the runner.
  const [loaded, setLoaded] = useState<{ call: CallRecord; run: boolean; id: number } | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let current = true;
    void api.list(server).then(async (outcome) => {
      if (!current) return;
      if (!outcome.ok) return setError(outcome.error);
      setTools(outcome.value);
      const left = await api.dropped(server);
      if (current && left.ok) setDropped(left.value);
    });
    return () => {
      current = false;
    };
  }, [server, api, listed]);
  if (error) return <p className="text-sm text-red-700 dark:text-red-300">{error.message}</p>;
  if (!tools) return <p className="text-sm text-slate-500">Loading the tools…</p>;
  const needle = search.trim().toLowerCase();
  const shown = tools.filter(
    (t) => !needle || t.name.toLowerCase().includes(needle) || t.nameForModel.toLowerCase().includes(needle) || (t.description ?? "").toLowerCase().includes(needle),
  );
  const tool = tools.find((t) => t.name === chosen) ?? null;
  return (
    <div data-testid="tools-panel" className="flex flex-col gap-3">
      <input
        type="search"
        data-testid="tool-search"
        aria-label="Search tools"
        placeholder={`Search ${tools.length} tools by name, mcp__${server}__… or description`}
        value={search}
        onChange={(e) => setSearch(e.target.value)}
        className="rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700"
      />
      <ul className="flex max-h-56 flex-col overflow-auto rounded border border-slate-200 dark:border-slate-800">
        {shown.map((t) => {
          return (
            <li key={t.name}>
              <button
                type="button"
                data-testid="tool-row"
                data-tool={t.name}
                aria-pressed={t.name === chosen}
                onClick={() => {
                  setChosen(t.name);
                  setLoaded(null);
                }}
                className={`flex w-full items-baseline gap-2 px-2 py-1 text-left text-sm hover:bg-slate-50 dark:hover:bg-slate-800/60 ${t.name === chosen ? "bg-indigo-50 dark:bg-indigo-950" : ""}`}
              >
                <code className="shrink-0 whitespace-nowrap font-semibold">{t.name}</code>
                <Badges badges={[...badgesOf(t.annotations, t.meta), ...clientBadges(t.clientNotes)]} />
                <span className="min-w-0 truncate text-xs text-slate-500">{firstLine(t.description)}</span>
              </button>
            </li>
          );
        })}
      </ul>
      {dropped.length > 0 && (
        <details data-testid="dropped-tools" data-count={dropped.length} className="rounded border border-amber-300 px-2 py-1 text-sm dark:border-amber-800">
          <summary className="cursor-pointer text-amber-800 dark:text-amber-300">
            {dropped.length === 1 ? "1 tool the server lists is" : `${dropped.length} tools the server lists are`} not offered: its parameter
            headers (x-mcp-header) break the rules of streamable HTTP
          </summary>
          <ul className="mt-1 flex flex-col gap-1">
            {dropped.map((t) => (
              <li key={t.name} data-testid="dropped-tool" data-tool={t.name}>
                <code className="font-semibold">{t.name}</code>: <span data-testid="dropped-reason">{t.reason}</span>
              </li>
            ))}
          </ul>
          <p className="mt-1 text-xs text-slate-500">The server must fix the tool's inputSchema; until then it cannot be called over HTTP.</p>
        </details>
      )}
      {tool && (
        <ToolRunner
          key={`${tool.name}:${loaded?.id ?? 0}`}
          server={server}
          tool={tool}
          api={api}
          browse={browse}
          tasks={tasks}
          loaded={loaded && loaded.call.tool === tool.name ? loaded : null}
          onCalled={() => setVersion((v) => v + 1)}
        />
      )}
      <HistoryPane
        server={server}
        api={api}
        version={version}
        onLoad={(call, run) => {
          setChosen(call.tool);
          setLoaded({ call, run, id: Date.now() });
        }}
      />
    </div>
  );
}

