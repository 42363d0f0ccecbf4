// A tool's result as the server sent it: each content item in its own view (text, images,
// audio with a player, resource links, embedded resources), structuredContent with the check
// against the tool's outputSchema, isError marked plainly, and the exact JSON-RPC exchange.
import { useState } from "react";
import type { ApiError, ToolCallView } from "../bindings";
import type { ToolsApi } from "./api";

type Item = { type?: string; text?: string; data?: string; mimeType?: string; uri?: string; name?: string; resource?: { uri?: string; text?: string; blob?: string; mimeType?: string } };

export function ResultView({ call, server, tool, api }: { call: ToolCallView; server: string; tool: string; api: ToolsApi }) {
  const result = JSON.parse(call.result) as { content?: Item[]; structuredContent?: unknown; isError?: boolean };
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
      <div className="flex items-center gap-2 text-sm">
        <span className={`font-semibold ${call.isError ? "text-red-700 dark:text-red-300" : "text-emerald-700 dark:text-emerald-400"}`}>
          {call.isError ? "The tool reported an error" : "Result"}
        </span>
        <span className="text-xs text-slate-500">
          {call.elapsedMs} ms · {new Blob([call.result]).size.toLocaleString()} bytes a model would be sent
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
      {raw ? (
        <div className="flex flex-col gap-2">
          <Pre testId="exchange-request" title="Request" text={pretty(call.request ?? "(not in the protocol log)")} />
          <Pre testId="exchange-response" title="Response" text={pretty(call.response ?? "(not in the protocol log)")} />
        </div>
      ) : (
        <>
          {(result.content ?? []).map((item, i) => (
            <ContentItem key={i} item={item} />
          ))}
          {result.structuredContent !== undefined && (
            <div>
              <Pre testId="structured-content" title="structuredContent" text={JSON.stringify(result.structuredContent, null, 2)} />
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
      <pre data-testid={testId} className="max-h-96 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 font-mono text-xs dark:bg-slate-900">
        {text}
      </pre>
    </div>
  );
}

function ContentItem({ item }: { item: Item }) {
  switch (item.type) {
    case "text":
      return <Pre testId="content-text" title="Text" text={item.text ?? ""} />;
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
      return (
        <p data-testid="content-link" className="text-sm">
          Resource link: <code>{item.name ?? ""}</code> <code className="text-xs text-slate-500">{item.uri}</code>
        </p>
      );
    case "resource":
      return <Pre testId="content-resource" title={`Embedded resource ${item.resource?.uri ?? ""}`} text={item.resource?.text ?? `(${item.resource?.mimeType ?? "binary"}, ${item.resource?.blob?.length ?? 0} base64 characters)`} />;
    default:
      return <Pre testId="content-other" title={`Content of type ${item.type ?? "?"}`} text={JSON.stringify(item, null, 2)} />;
  }
}
