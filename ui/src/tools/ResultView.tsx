// A tool's result as the server sent it: each content item in its own view (text plain, as
// Markdown or as a JSON tree; images; audio with a player; resource links, read on a click;
// embedded resources), structuredContent as a tree with the check against the tool's
// outputSchema, isError marked plainly, and the exact JSON-RPC exchange. A 50 MB result is
// painted a piece at a time (see LongText and JsonTree), and can be saved whole to a file.
import { useMemo, useState } from "react";
import type { ApiError, TaskRun, ToolCallView } from "../bindings";
import type { ToolsApi } from "./api";
import type { BrowseApi } from "../browse/api";
import { ResourceView } from "../browse/ResourceView";
import { TextView } from "../shared/TextView";
import { LongText } from "../shared/LongText";

type Item = { type?: string; text?: string; data?: string; mimeType?: string; uri?: string; name?: string; resource?: { uri?: string; text?: string; blob?: string; mimeType?: string } };

export function ResultView({ call, server, tool, api, browse }: { call: ToolCallView; server: string; tool: string; api: ToolsApi; browse?: BrowseApi }) {
  const result = useMemo(() => JSON.parse(call.result) as { content?: Item[]; structuredContent?: unknown; isError?: boolean }, [call.result]);
  const size = useMemo(() => new Blob([call.result]).size, [call.result]);
  const [raw, setRaw] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const save = async () => {
    const outcome = await api.save(server, tool, call.result);
    if (outcome.ok) setSaved(outcome.value);
    else setSaveError(outcome.error);
  };
  return (
    <section data-testid="tool-result" data-is-error={call.isError} className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className={`font-semibold ${call.isError ? "text-red-700 dark:text-red-300" : "text-emerald-700 dark:text-emerald-400"}`}>
          {call.isError ? "The tool reported an error" : "Result"}
        </span>
        <span className="whitespace-nowrap text-xs text-slate-500">
          {call.elapsedMs} ms · <span data-testid="result-size" data-bytes={size}>{size.toLocaleString()} bytes</span> a model would be sent
        </span>
        <button type="button" data-testid="save-result" onClick={() => void save()} className="ml-auto shrink-0 whitespace-nowrap rounded border border-slate-300 px-2 text-xs dark:border-slate-700">
          Save to a file
        </button>
        <button type="button" data-testid="show-exchange" onClick={() => setRaw(!raw)} className="shrink-0 whitespace-nowrap rounded border border-slate-300 px-2 text-xs dark:border-slate-700">
          {raw ? "Show the result" : "Show the JSON-RPC exchange"}
        </button>
      </div>
      {saved && (
        <p className="flex items-center gap-2 text-xs">
          Saved as <code data-testid="saved-path" className="break-all">{saved}</code>
          <button type="button" data-testid="open-saved" onClick={() => void api.openSaved(saved)} className="shrink-0 rounded border border-slate-300 px-2 dark:border-slate-700">
            Open
          </button>
        </p>
      )}
      {saveError && <p className="text-xs text-red-700 dark:text-red-300">{saveError.message}</p>}
      {call.inputRounds.length > 0 && <InputRounds rounds={call.inputRounds} />}
      {call.task && <TaskSummary task={call.task} />}
      {call.historyProblem && (
        <p data-testid="history-problem" className="text-xs text-amber-800 dark:text-amber-300">
          Not kept in the history: {call.historyProblem}
        </p>
      )}
      {call.forClaudeCode !== null && (
        <p data-testid="for-claude-code" className="text-xs text-slate-600 dark:text-slate-400">
          {call.forClaudeCode}
        </p>
      )}
      {raw ? (
        <div className="flex flex-col gap-2">
          <Pre testId="exchange-request" title="Request" text={pretty(call.request ?? "(not in the protocol log)")} />
          <Pre testId="exchange-response" title="Response" text={pretty(call.response ?? "(not in the protocol log)")} />
        </div>
      ) : (
        <>
          {(result.content ?? []).map((item, i) => (
            <ContentItem key={i} item={item} server={server} browse={browse} />
          ))}
          {result.structuredContent !== undefined && (
            <div>
              <div className="text-xs font-semibold text-slate-500">structuredContent</div>
              <TextView testId="structured-content" text={JSON.stringify(result.structuredContent, null, 2)} />
              {call.schemaErrors.length > 0 ? (
                <p data-testid="schema-errors" className="text-xs text-red-700 dark:text-red-300">
                  Does not match the tool's outputSchema: {call.schemaErrors.join("; ")}
                </p>
              ) : (
                <p className="text-xs text-slate-500">Matches the tool's outputSchema (when it declares one).</p>
              )}
            </div>
          )}
        </>
      )}
    </section>
  );
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function Pre({ title, text, testId }: { title: string; text: string; testId: string }) {
  return (
    <div>
      <div className="text-xs font-semibold text-slate-500">{title}</div>
      <LongText testId={testId} text={text} />
    </div>
  );
}

function ContentItem({ item, server, browse }: { item: Item; server: string; browse?: BrowseApi }) {
  switch (item.type) {
    case "text":
      return (
        <div>
          <div className="text-xs font-semibold text-slate-500">Text</div>
          <TextView testId="content-text" text={item.text ?? ""} />
        </div>
      );
    case "image":
      return (
        <figure data-testid="content-image">
          <img alt={`An image (${item.mimeType})`} src={`data:${item.mimeType};base64,${item.data}`} className="max-h-64 rounded border border-slate-200 dark:border-slate-800" />
          <figcaption className="text-xs text-slate-500">{item.mimeType}</figcaption>
        </figure>
      );
    case "audio":
      return (
        <div data-testid="content-audio">
          <audio controls src={`data:${item.mimeType};base64,${item.data}`} />
          <p className="text-xs text-slate-500">{item.mimeType}</p>
        </div>
      );
    case "resource_link":
      return <ResourceLink item={item} server={server} browse={browse} />;
    case "resource":
      return item.resource?.text !== undefined ? (
        <div data-testid="content-resource">
          <div className="text-xs font-semibold text-slate-500">Embedded resource {item.resource.uri ?? ""}</div>
          <TextView testId="content-resource-text" text={item.resource.text} mimeType={item.resource.mimeType} />
        </div>
      ) : item.resource?.mimeType?.startsWith("image/") ? (
        <figure data-testid="content-resource">
          <img alt={`Embedded ${item.resource.uri ?? ""}`} src={`data:${item.resource.mimeType};base64,${item.resource.blob ?? ""}`} className="max-h-64" />
          <figcaption className="text-xs text-slate-500">{item.resource.uri}</figcaption>
        </figure>
      ) : (
        <Pre testId="content-resource" title={`Embedded resource ${item.resource?.uri ?? ""}`} text={`(${item.resource?.mimeType ?? "binary"}, ${item.resource?.blob?.length ?? 0} base64 characters)`} />
      );
    default:
      return <Pre testId="content-other" title={`Content of type ${item.type ?? "?"}`} text={JSON.stringify(item, null, 2)} />;
  }
}

/** A link to a resource of the server: what it is, and a click reads it here. */
function ResourceLink({ item, server, browse }: { item: Item; server: string; browse?: BrowseApi }) {
  const [open, setOpen] = useState(false);
  return (
    <div data-testid="content-link" data-uri={item.uri} className="flex flex-col gap-1 text-sm">
      <p className="flex items-center gap-2">
        Resource link: <code>{item.name ?? ""}</code> <code className="min-w-0 truncate text-xs text-slate-500">{item.uri}</code>
        {browse && item.uri && (
          <button type="button" data-testid="read-link" onClick={() => setOpen(!open)} className="ml-auto shrink-0 rounded border border-slate-300 px-2 text-xs dark:border-slate-700">
            {open ? "Close" : "Read it"}
          </button>
        )}
      </p>
      {open && browse && item.uri && <ResourceView server={server} uri={item.uri} api={browse} />}
    </div>
  );
}

/** The task the server made of the call: its id, how it ended, and each status it went through. */
function TaskSummary({ task }: { task: TaskRun }) {
  return (
    <details data-testid="task-run" data-status={task.status} data-polls={task.polls} className="text-xs">
      <summary className="cursor-pointer text-slate-600 dark:text-slate-400">
        Ran as task <code>{task.taskId}</code>: {task.status}, polled {task.polls} time{task.polls === 1 ? "" : "s"}
        {task.updates > 0 ? `, input sent ${task.updates} time${task.updates === 1 ? "" : "s"}` : ""}
      </summary>
      <ol className="mt-1 flex flex-col gap-1">
        {task.seen.map((seen, i) => (
          <li key={i} data-testid="task-status">
            {seen}
          </li>
        ))}
      </ol>
    </details>
  );
}

/** What a 2026-07-28 server asked for in the middle of the call, round by round. */
function InputRounds({ rounds }: { rounds: string[] }) {
  return (
    <details data-testid="input-rounds" data-count={rounds.length} className="text-xs">
      <summary className="cursor-pointer text-slate-600 dark:text-slate-400">
        The server asked for input in {rounds.length} round{rounds.length === 1 ? "" : "s"} before answering
      </summary>
      <ol className="mt-1 flex flex-col gap-1">
        {rounds.map((round, i) => {
          const parsed = JSON.parse(round) as { inputRequests?: Record<string, { method?: string }> };
          const asked = Object.entries(parsed.inputRequests ?? {}).map(([key, request]) => `${key}: ${request.method ?? "?"}`);
          return (
            <li key={i} data-testid="input-round">
              Round {i + 1}: {asked.join(", ") || "state only"}
            </li>
          );
        })}
      </ol>
    </details>
  );
}
