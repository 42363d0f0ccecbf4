// The Collections view: every collection (the project's, then the private ones) with its
// cases; Run all, a collection or a case, in order; each case's pass/fail and time, and for
// a failure what was expected and what came, with a line diff; Accept as the new snapshot;
// edit a case's expectations; remove a case.
import { useCallback, useEffect, useState } from "react";
import type { Case, CaseReport, CollectionView } from "../bindings";
import type { CollectionsApi } from "./api";
import { ExpectationsForm } from "./ExpectationsForm";

const key = (path: string, name: string) => `${path}\u0000${name}`;

function Diff({ text }: { text: string }) {
  return (
    <pre data-testid="failure-diff" className="max-h-72 overflow-auto rounded bg-slate-50 p-2 font-mono text-[11px] dark:bg-slate-900">
      {text.split("\n").map((line, i) => (
        <div key={i} className={line.startsWith("-") ? "bg-red-50 text-red-800 dark:bg-red-950 dark:text-red-200" : line.startsWith("+") ? "bg-emerald-50 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200" : ""}>
          {line || " "}
        </div>
      ))}
    </pre>
  );
}

function Status({ report }: { report: CaseReport | undefined }) {
  if (!report) return <span className="text-slate-400">not run yet</span>;
  const tone = report.status === "passed" ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200" : report.status === "failed" ? "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200" : "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-200";
  const words = report.status === "passed" ? "passed" : report.status === "failed" ? "failed" : "not run";
  return (
    <span data-testid="case-status" data-status={report.status} className={`rounded px-1 ${tone}`}>
      {words}
      {report.status !== "not-run" && ` · ${report.elapsedMs} ms`}
    </span>
  );
}

export function CollectionsView({ api }: { api: CollectionsApi }) {
  const [collections, setCollections] = useState<CollectionView[] | null>(null);
  const [reports, setReports] = useState<Map<string, CaseReport>>(new Map());
  const [running, setRunning] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [summary, setSummary] = useState<string | null>(null);

  const load = useCallback(async () => {
    const outcome = await api.list();
    if (outcome.ok) setCollections(outcome.value);
    else setProblem(outcome.error.message);
  }, [api]);
  useEffect(() => {
    void load();
  }, [load]);

  const run = async (path: string | null, caseName: string | null, what: string) => {
    setRunning(what);
    setProblem(null);
    const outcome = await api.run(path, caseName);
    setRunning(null);
    if (!outcome.ok) return setProblem(outcome.error.message);
    setReports((now) => {
      const next = new Map(now);
      for (const report of outcome.value) next.set(key(report.path, report.case), report);
      return next;
    });
    const count = (status: string) => outcome.value.filter((r) => r.status === status).length;
    setSummary(`${count("passed")} passed, ${count("failed")} failed, ${count("not-run")} not run`);
  };

  const change = async (done: Promise<{ ok: boolean; error?: { message: string } }>) => {
    const outcome = await done;
    if (!outcome.ok) setProblem(outcome.error?.message ?? "the change failed");
    await load();
  };

  return (
    <div data-testid="collections" className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="text-base font-semibold">Collections</h2>
        <button type="button" data-testid="run-all-collections" disabled={running !== null || !collections?.length} onClick={() => void run(null, null, "every collection")} className="rounded-md border border-indigo-600 bg-indigo-600 px-3 py-1 text-sm text-white disabled:opacity-50">
          Run all
        </button>
        {running && <span className="text-xs text-slate-500">Running {running}…</span>}
        {summary && !running && (
          <span data-testid="run-summary" className="text-xs">
            {summary}
          </span>
        )}
        <span className="text-xs text-slate-500">
          Shared collections are files in the project’s .mcp-collections/ (commit them); run them in CI with <code>mcpctl test</code>.
        </span>
      </div>
      {problem && (
        <p role="alert" data-testid="collections-problem" className="text-sm text-red-700 dark:text-red-300">
          {problem}
        </p>
      )}
      {collections?.length === 0 && (
        <p data-testid="no-collections" className="text-sm text-slate-500">
          No collections yet. Run a tool, then “Add to collection…” under its result (or on a call of the history).
        </p>
      )}
      {collections?.map((collection) => (
        <section key={collection.path} data-testid="collection" data-name={collection.name} aria-label={`Collection ${collection.name}`} className="rounded-md border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
          <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-2 dark:border-slate-800">
            <span className="font-semibold">{collection.name}</span>
            <span className="rounded bg-slate-100 px-1 text-[10px] text-slate-600 dark:bg-slate-800 dark:text-slate-300">{collection.shared ? "shared with the project" : "private"}</span>
            <span className="truncate font-mono text-[11px] text-slate-500">{collection.path}</span>
            <span className="flex-1" />
            <button type="button" data-testid="run-collection" disabled={running !== null || !!collection.problem} onClick={() => void run(collection.path, null, collection.name)} className="rounded border border-slate-300 px-2 text-xs disabled:opacity-50 dark:border-slate-700">
              Run
            </button>
          </header>
          {collection.problem && (
            <p role="alert" className="px-3 py-2 text-sm text-red-700 dark:text-red-300">
              {collection.problem}
            </p>
          )}
          <ul>
            {collection.cases.map((item: Case) => {
              const report = reports.get(key(collection.path, item.name));
              const id = key(collection.path, item.name);
              const snapshotFailed = report?.failures.some((f) => f.check === "snapshot");
              return (
                <li key={item.name} data-testid="case" data-name={item.name} className="flex flex-col gap-1 border-b border-slate-100 px-3 py-2 text-sm last:border-b-0 dark:border-slate-800">
                  <div className="flex flex-wrap items-center gap-2">
                    <span className="font-medium">{item.name}</span>
                    <span className="font-mono text-xs text-slate-500">
                      {item.server} · {item.tool ? `tool ${item.tool}` : item.resource ? `resource ${item.resource}` : `prompt ${item.prompt ?? ""}`}
                    </span>
                    <span className="flex-1" />
                    <Status report={report} />
                    <button type="button" data-testid="run-case" disabled={running !== null} onClick={() => void run(collection.path, item.name, item.name)} className="rounded border border-slate-300 px-2 text-xs disabled:opacity-50 dark:border-slate-700">
                      Run
                    </button>
                    <button type="button" data-testid="edit-case" onClick={() => setEditing(editing === id ? null : id)} className="rounded border border-slate-300 px-2 text-xs dark:border-slate-700">
                      Edit expectations
                    </button>
                    <button type="button" data-testid="remove-case" onClick={() => void change(api.remove(collection.path, item.name))} className="rounded border border-slate-300 px-2 text-xs dark:border-slate-700">
                      Remove
                    </button>
                  </div>
                  {report?.problem && (
                    <p data-testid="case-problem" className="text-xs text-amber-800 dark:text-amber-200">
                      Not run: {report.problem}
                    </p>
                  )}
                  {report?.failures.map((failure, i) => (
                    <div key={i} data-testid="case-failure" data-check={failure.check} className="flex flex-col gap-0.5 text-xs">
                      <p>
                        <span className="font-semibold">{failure.check}</span>: expected {failure.expected}
                      </p>
                      <p className="break-all text-slate-600 dark:text-slate-400">got {failure.actual}</p>
                      {failure.diff && <Diff text={failure.diff} />}
                    </div>
                  ))}
                  {snapshotFailed && report?.result && (
                    <button
                      type="button"
                      data-testid="accept-snapshot"
                      onClick={() =>
                        void change(api.accept(collection.path, item.name, report.result!)).then(() =>
                          setReports((now) => {
                            const next = new Map(now);
                            next.delete(id);
                            return next;
                          }),
                        )
                      }
                      className="self-start rounded border border-emerald-600 px-2 text-xs text-emerald-800 dark:text-emerald-200"
                    >
                      Accept as the new snapshot
                    </button>
                  )}
                  {editing === id && (
                    <ExpectationsForm
                      value={item}
                      onCancel={() => setEditing(null)}
                      onSave={(updated) =>
                        void change(api.update(collection.path, item.name, updated)).then(() => setEditing(null))
                      }
                    />
                  )}
                </li>
              );
            })}
          </ul>
        </section>
      ))}
    </div>
  );
}
