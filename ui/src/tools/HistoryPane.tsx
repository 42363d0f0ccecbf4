// The calls kept of this server (SQLite, in the app's data folder): newest first, searchable,
// filtered by outcome; each can be loaded into its tool's form, run again, or saved under a
// name. A history that could not be opened says why; calls still work without it.
import { AddToCollection } from "../collections/AddToCollection";
import { collectionsApi } from "../collections/api";
import { useEffect, useState } from "react";
import type { ApiError, CallRecord, CallStatus } from "../bindings";
import type { ToolsApi } from "./api";

const STATUS_LABEL: Record<CallStatus, string> = { ok: "ok", "tool-error": "tool error", failed: "failed" };

export function HistoryPane({
  server,
  api,
  version,
  onLoad,
}: {
  server: string;
  api: ToolsApi;
  /** Bumped after each call, to list it. */
  version: number;
  onLoad: (call: CallRecord, run: boolean) => void;
}) {
  const [confirmingClear, setConfirmingClear] = useState(false);
  const [cleared, setCleared] = useState<string | null>(null);
  const [calls, setCalls] = useState<CallRecord[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [text, setText] = useState("");
  const [status, setStatus] = useState<CallStatus | "">("");
  const [saved, setSaved] = useState(false);
  const [naming, setNaming] = useState<number | null>(null);
  const [name, setName] = useState("");
  const [named, setNamed] = useState(0);
  useEffect(() => {
    let current = true;
    void api.history({ server, tool: null, text: text || null, status: status || null, saved, limit: 50 }).then((outcome) => {
      if (!current) return;
      if (outcome.ok) {
        setCalls(outcome.value);
        setError(null);
      } else setError(outcome.error);
    });
    return () => {
      current = false;
    };
  }, [server, api, version, text, status, saved, named]);

  return (
    <section data-testid="call-history" aria-label="History" className="flex flex-col gap-2 border-t border-slate-200 pt-3 dark:border-slate-800">
      <div className="flex items-center gap-2">
        <h3 className="text-sm font-semibold">History</h3>
        <span className="flex-1" />
        {cleared && <span data-testid="history-cleared" className="text-xs text-slate-500">{cleared}</span>}
        {confirmingClear ? (
          <span className="flex items-center gap-1 text-xs">
            Remove every call not saved under a name, of every server?
            <button
              type="button"
              data-testid="history-clear-yes"
              onClick={() =>
                void api.clear().then((outcome) => {
                  setConfirmingClear(false);
                  setCleared(outcome.ok ? `Removed ${outcome.value.removed} calls; kept ${outcome.value.keptNamed} saved ones.` : outcome.error.message);
                  setNamed((n) => n + 1);
                })
              }
              className="rounded border border-red-400 px-1.5 text-red-700 dark:text-red-300"
            >
              Clear
            </button>
            <button type="button" onClick={() => setConfirmingClear(false)} className="rounded border border-slate-300 px-1.5 dark:border-slate-700">
              Keep
            </button>
          </span>
        ) : (
          <button type="button" data-testid="history-clear" onClick={() => setConfirmingClear(true)} className="rounded border border-slate-300 px-1.5 text-xs dark:border-slate-700">
            Clear history…
          </button>
        )}
      </div>
      {error ? (
        <p data-testid="history-error" className="text-sm text-amber-800 dark:text-amber-300">
          {error.message}
        </p>
      ) : (
        <>
          <div className="flex gap-2">
            <input
              type="search"
              data-testid="history-search"
              aria-label="Search the history"
              placeholder="Search tool, arguments, result or name"
              value={text}
              onChange={(e) => setText(e.target.value)}
              className="min-w-0 flex-1 rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700"
            />
            <select data-testid="history-status" aria-label="Outcome" value={status} onChange={(e) => setStatus(e.target.value as CallStatus | "")} className="rounded-md border border-slate-300 bg-transparent px-2 text-sm dark:border-slate-700">
              <option value="">Any outcome</option>
              <option value="ok">ok</option>
              <option value="tool-error">tool error</option>
              <option value="failed">failed</option>
            </select>
            <label className="flex items-center gap-1 text-xs">
              <input type="checkbox" data-testid="history-saved" checked={saved} onChange={(e) => setSaved(e.target.checked)} />
              Saved
            </label>
          </div>
          {calls && calls.length === 0 && <p className="text-sm text-slate-500">No call kept yet{text || status || saved ? " that matches" : ""}.</p>}
          <ol className="flex flex-col divide-y divide-slate-200 rounded border border-slate-200 dark:divide-slate-800 dark:border-slate-800">
            {(calls ?? []).map((call) => (
              <li key={call.id} data-testid="history-call" data-tool={call.tool} data-status={call.status} className="flex flex-col gap-1 px-2 py-1 text-xs">
                <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
                  <span className="whitespace-nowrap text-slate-500">{new Date(call.atMs ?? 0).toLocaleString()}</span>
                  <code className="font-semibold">{call.tool}</code>
                  {call.name && <span data-testid="history-name" className="rounded bg-indigo-100 px-1 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200">{call.name}</span>}
                  <span className={call.status === "ok" ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-300"}>{STATUS_LABEL[call.status]}</span>
                  <span className="whitespace-nowrap text-slate-500">{call.durationMs} ms</span>
                  <span className="ml-auto flex gap-1">
                    <button type="button" data-testid="history-load" onClick={() => onLoad(call, false)} className="whitespace-nowrap rounded border border-slate-300 px-1.5 dark:border-slate-700">
                      Load
                    </button>
                    <button type="button" data-testid="history-rerun" onClick={() => onLoad(call, true)} className="whitespace-nowrap rounded border border-slate-300 px-1.5 dark:border-slate-700">
                      Run again
                    </button>
                    <button type="button" data-testid="history-save" onClick={() => (setNaming(call.id), setName(call.name ?? ""))} className="whitespace-nowrap rounded border border-slate-300 px-1.5 dark:border-slate-700">
                      Save as…
                    </button>
                  </span>
                </div>
                <code data-testid="history-arguments" className="truncate text-slate-600 dark:text-slate-400" title={call.arguments}>
                  {call.arguments}
                </code>
                {call.error && <p className="text-red-700 dark:text-red-300">{call.error}</p>}
                {call.cutSha256 && (
                  <p data-testid="history-cut" className="text-slate-500">
                    Result kept in part: {Math.round((call.resultBytes ?? 0) / 1024)} KiB whole, cut to the history’s limit (SHA-256 of the rest {call.cutSha256.slice(0, 12)}…).
                  </p>
                )}
                <AddToCollection api={collectionsApi} tool={call.tool} save={(collection, shared, caseName) => collectionsApi.addFromHistory(call.id, collection, shared, caseName)} />
                {naming === call.id && (
                  <form
                    className="flex gap-1"
                    onSubmit={(e) => {
                      e.preventDefault();
                      void api.name(call.id, name.trim() || null).then(() => {
                        setNaming(null);
                        setNamed((n) => n + 1);
                      });
                    }}
                  >
                    <input data-testid="history-name-input" aria-label="Name" value={name} onChange={(e) => setName(e.target.value)} className="rounded border border-slate-300 px-1 dark:border-slate-700" />
                    <button type="submit" data-testid="history-name-save" className="whitespace-nowrap rounded border border-slate-300 px-1.5 dark:border-slate-700">
                      Save
                    </button>
                  </form>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
