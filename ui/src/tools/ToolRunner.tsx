// One tool, tried by hand: what it is (names, description as a model sees it, schemas,
// annotations, _meta), its Allow / Ask / Deny rule, the form generated from its inputSchema
// (or its arguments as raw JSON), Run with progress and Cancel, and the result. Arguments are
// checked against the schema before anything is sent.
import { lazy, Suspense, useEffect, useMemo, useState } from "react";
import type { ApiError, CallRecord, Progress, ToolCallView, ToolView } from "../bindings";
import type { ToolsApi } from "./api";
import type { BrowseApi } from "../browse/api";
import { describe, type JsonObject } from "./form/schema";
import { fromJson, initial, parseArguments, toJson, type FormState } from "./form/value";
import { validate, type Problems } from "./form/validate";
import { ToolForm } from "./form/ToolForm";
import { ResultView } from "./ResultView";
import { Permission } from "./Permission";
import { toolUi } from "../apps/view";
import { appsApi } from "../apps/api";
import { AddToCollection } from "../collections/AddToCollection";
import { collectionsApi } from "../collections/api";

// The App's frame and bridge (ext-apps) load only when a tool with an App is run.
const AppFrame = lazy(() => import("../apps/AppFrame"));

function Details({ title, text, testId }: { title: string; text: string; testId: string }) {
  return (
    <details data-testid={testId} className="min-w-0 max-w-full">
      <summary className="cursor-pointer text-slate-600 dark:text-slate-400">{title}</summary>
      <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap rounded bg-slate-50 p-2 font-mono dark:bg-slate-900">{text}</pre>
    </details>
  );
}

export function ToolRunner({
  server,
  tool,
  api,
  loaded,
  onCalled,
  browse,
  tasks = false,
}: {
  server: string;
  tool: ToolView;
  api: ToolsApi;
  browse?: BrowseApi;
  /** The server offers tasks (2026-07-28's extension): a call may be offered to run as one. */
  tasks?: boolean;
  loaded: { call: CallRecord; run: boolean } | null;
  onCalled: () => void;
}) {
  const schema = useMemo(() => JSON.parse(tool.inputSchema) as JsonObject, [tool.inputSchema]);
  const field = useMemo(() => describe(schema, schema), [schema]);
  const [state, setState] = useState<FormState>(() =>
    loaded ? fromJson(field, JSON.parse(loaded.call.arguments) as JsonObject) : initial(field),
  );
  const [raw, setRaw] = useState<string | null>(null);
  const [rawProblem, setRawProblem] = useState<string | null>(null);
  const [problems, setProblems] = useState<Problems>({});
  // After the first Run, problems follow the values as they change.
  const [tried, setTried] = useState(false);
  const edit = (next: FormState) => {
    setState(next);
    if (tried) setProblems(validate(schema, toJson(next)));
  };
  const [running, setRunning] = useState(false);
  const [call, setCall] = useState<ToolCallView | null>(null);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [callId, setCallId] = useState<number | null>(null);
  const [asTask, setAsTask] = useState(false);
  const annotations = tool.annotations ? (JSON.parse(tool.annotations) as Record<string, unknown>) : {};
  const destructive = annotations.destructiveHint === true;
  const ui = useMemo(() => toolUi(tool.meta), [tool.meta]);
  // Each run shows its App afresh, with that run's arguments.
  const [appRun, setAppRun] = useState<{ n: number; args: JsonObject } | null>(null);
  // The arguments of the last call sent, for "Add to collection".
  const [sent, setSent] = useState<JsonObject | null>(null);

  const arguments_ = (): JsonObject | null => {
    if (raw === null) return toJson(state);
    const parsed = parseArguments(raw);
    if ("error" in parsed) {
      setRawProblem(parsed.error);
      return null;
    }
    return parsed.value;
  };

  const run = async (confirmed: boolean) => {
    const args = arguments_();
    if (!args) return;
    const found = validate(schema, args);
    setProblems(found);
    setTried(true);
    if (Object.keys(found).length > 0) return;
    if (destructive && !confirmed) {
      setConfirming(true);
      return;
    }
    setConfirming(false);
    setSent(args);
    setRunning(true);
    setFailure(null);
    setProgress(null);
    if (ui.resourceUri) {
      // The new App must not be given the last run's result.
      setCall(null);
      setAppRun((last) => ({ n: (last?.n ?? 0) + 1, args }));
    }
    const outcome = await api.call(server, tool.name, JSON.stringify(args), tasks && asTask, setProgress, setCallId);
    setRunning(false);
    setCallId(null);
    onCalled();
    if (outcome.ok) setCall(outcome.value);
    else {
      setCall(null);
      setFailure(outcome.error);
    }
  };

  // "Run again": once, as soon as the form holds the past call's arguments.
  const [autoRun, setAutoRun] = useState(loaded?.run ?? false);
  useEffect(() => {
    if (!autoRun) return;
    setAutoRun(false);
    void run(true);
  });

  return (
    <div data-testid="tool-runner" data-tool={tool.name} className="flex flex-col gap-3 border-t border-slate-200 pt-3 dark:border-slate-800">
      <div>
        <h3 className="font-mono text-sm font-semibold">
          {tool.title ?? tool.name} <span className="font-normal text-slate-500">{tool.nameForModel}</span>
        </h3>
        {tool.description && <p className="whitespace-pre-wrap text-xs text-slate-600 dark:text-slate-400">{tool.description}</p>}
        <div className="mt-1 flex flex-wrap gap-3 text-xs">
          {tool.descriptionForModel !== null && tool.descriptionForModel !== tool.description && (
            <Details testId="model-description" title={`As Claude Code sends it (${tool.descriptionForModel.length} characters)`} text={tool.descriptionForModel} />
          )}
          <Details testId="input-schema" title="Input schema" text={JSON.stringify(schema, null, 2)} />
          {tool.outputSchema && <Details testId="output-schema" title="Output schema" text={JSON.stringify(JSON.parse(tool.outputSchema), null, 2)} />}
          {tool.annotations && <Details testId="annotations" title="Annotations" text={JSON.stringify(JSON.parse(tool.annotations), null, 2)} />}
          {tool.meta && <Details testId="tool-meta" title="_meta" text={JSON.stringify(JSON.parse(tool.meta), null, 2)} />}
        </div>
      </div>
      <Permission server={server} tool={tool.name} api={api} />
      <div className="flex gap-2 text-xs">
        <button
          type="button"
          data-testid="form-mode"
          aria-pressed={raw === null}
          onClick={() => {
            if (raw === null) return;
            const parsed = parseArguments(raw);
            if ("error" in parsed) return setRawProblem(parsed.error);
            setState(fromJson(field, parsed.value));
            setRaw(null);
            setRawProblem(null);
          }}
          className={`rounded border px-2 ${raw === null ? "border-indigo-600 font-semibold" : "border-slate-300 dark:border-slate-700"}`}
        >
          Form
        </button>
        <button
          type="button"
          data-testid="json-mode"
          aria-pressed={raw !== null}
          onClick={() => raw === null && setRaw(JSON.stringify(toJson(state), null, 2))}
          className={`rounded border px-2 ${raw !== null ? "border-indigo-600 font-semibold" : "border-slate-300 dark:border-slate-700"}`}
        >
          JSON
        </button>
      </div>
      {raw === null ? (
        <ToolForm field={field} state={state} onChange={edit} problems={problems} />
      ) : (
        <div>
          <textarea
            data-testid="raw-arguments"
            aria-label="The arguments as JSON"
            value={raw}
            rows={Math.min(16, Math.max(4, raw.split("\n").length))}
            onChange={(e) => {
              setRaw(e.target.value);
              setRawProblem(null);
            }}
            className="w-full rounded border border-slate-300 bg-white p-2 font-mono text-xs dark:border-slate-700 dark:bg-slate-900"
          />
          {rawProblem && (
            <p data-testid="raw-problem" className="text-xs text-red-700 dark:text-red-300">
              {rawProblem}
            </p>
          )}
          {Object.entries(problems).map(([path, messages]) => (
            <p key={path} data-testid="field-problem" data-path={path} className="text-xs text-red-700 dark:text-red-300">
              {path || "/"}: {messages.join(" ")}
            </p>
          ))}
        </div>
      )}
      {confirming && (
        <div data-testid="destructive-confirm" className="rounded-md border border-red-300 bg-red-50 p-2 text-sm dark:border-red-800 dark:bg-red-950">
          <p>The server marks “{tool.name}” as destructive. Run it?</p>
          <div className="mt-1 flex gap-2">
            <button type="button" data-testid="destructive-yes" onClick={() => void run(true)} className="rounded border border-red-400 px-2 text-xs">
              Run it
            </button>
            <button type="button" onClick={() => setConfirming(false)} className="rounded border border-slate-300 px-2 text-xs">
              Cancel
            </button>
          </div>
        </div>
      )}
      <div>
        {!ui.model && (
          <p data-testid="app-only" className="mb-1 text-xs text-slate-600 dark:text-slate-400">
            Hidden from Claude: its _meta.ui.visibility lets only its App call it. Run a tool of this server that has the App to use it.
          </p>
        )}
        {ui.problem && (
          <p data-testid="app-problem" role="alert" className="mb-1 text-xs text-red-700 dark:text-red-300">
            Its App is not shown: {ui.problem}.
          </p>
        )}
        <button
          type="button"
          data-testid="run-tool"
          disabled={running || !ui.model}
          onClick={() => void run(false)}
          className="rounded-md border border-indigo-600 bg-indigo-600 px-3 py-1 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
        >
          {running ? "Running…" : "Run"}
        </button>
        {tasks && (
          <label className="ml-3 inline-flex items-center gap-1 text-xs text-slate-600 dark:text-slate-400" title="The server decides: it may answer at once, or make a task that is polled until it ends">
            <input type="checkbox" data-testid="run-as-task" checked={asTask} disabled={running} onChange={(e) => setAsTask(e.target.checked)} />
            Offer to run as a task
          </label>
        )}
        {running && callId !== null && (
          <button
            type="button"
            data-testid="cancel-call"
            onClick={() => void api.cancel(callId)}
            className="ml-2 rounded-md border border-red-300 px-3 py-1 text-sm text-red-700 dark:border-red-800 dark:text-red-300"
          >
            Cancel
          </button>
        )}
      </div>
      {running && progress && (
        <div data-testid="call-progress" data-progress={progress.progress ?? 0} data-total={progress.total ?? ""} className="flex flex-col gap-1 text-xs">
          {progress.total ? (
            <progress value={progress.progress ?? 0} max={progress.total} className="w-full" />
          ) : (
            <progress className="w-full" />
          )}
          <span className="text-slate-600 dark:text-slate-400">
            {progress.total ? `${progress.progress} of ${progress.total}` : `${progress.progress}`}
            {progress.message ? ` · ${progress.message}` : ""}
          </span>
        </div>
      )}
      {failure && (
        <div className="flex flex-col gap-1">
          <p data-testid="call-failure" className="text-sm text-red-700 dark:text-red-300">
            {failure.message}
          </p>
          {sent && (
            <AddToCollection
              api={collectionsApi}
              tool={tool.name}
              save={(collection, shared, caseName) => collectionsApi.add(collection, shared, caseName, server, tool.name, JSON.stringify(sent), null, failure.message)}
            />
          )}
        </div>
      )}
      <div className="flex flex-wrap items-start gap-3">
        {call && (
          <div className="min-w-[320px] flex-1">
            <ResultView call={call} server={server} tool={tool.name} api={api} browse={browse} />
            {sent && (
              <AddToCollection
                api={collectionsApi}
                tool={tool.name}
                save={(collection, shared, caseName) => collectionsApi.add(collection, shared, caseName, server, tool.name, JSON.stringify(sent), call.result, null)}
              />
            )}
          </div>
        )}
        {appRun && (
          <Suspense fallback={<p className="text-xs text-slate-500">Loading the App host…</p>}>
            <AppFrame key={appRun.n} server={server} tool={tool} args={appRun.args} call={call} api={appsApi} onClose={() => setAppRun(null)} />
          </Suspense>
        )}
      </div>
    </div>
  );
}
