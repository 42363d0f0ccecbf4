// What servers ask of the person, shown as it comes and answered here: a form (elicitation,
// rendered by the tools' form engine), a page to open (URL elicitation, opened only on a
// click, after the address is shown), or a completion to write by hand or refuse (sampling,
// shown in full). The server's request waits until one of these buttons is pressed.
import { useMemo, useState, useSyncExternalStore } from "react";
import type { PendingAsk } from "../bindings";
import type { Outcome } from "../ipc/api";
import type { AsksApi } from "./api";
import type { AskStore } from "./askStore";
import { describe, type JsonObject } from "../tools/form/schema";
import { initial, toJson, type FormState } from "../tools/form/value";
import { validate, type Problems } from "../tools/form/validate";
import { ToolForm } from "../tools/form/ToolForm";

const BUTTON = "rounded border border-slate-300 px-2 py-1 text-xs dark:border-slate-700";
const PRIMARY = "rounded bg-indigo-600 px-2 py-1 text-xs font-semibold text-white";

export function AsksDock({ store, api }: { store: AskStore; api: AsksApi }) {
  const asks = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const ask = asks[0];
  if (!ask) return null;
  return (
    <section
      role="dialog"
      aria-label={`${ask.server} asks`}
      data-testid="ask"
      data-kind={ask.kind}
      data-server={ask.server}
      className="fixed bottom-4 right-4 z-50 flex max-h-[85vh] w-[34rem] flex-col gap-3 overflow-y-auto rounded-lg border-2 border-amber-500 bg-white p-4 shadow-xl dark:bg-slate-900"
    >
      <header className="flex items-baseline gap-2">
        <h2 className="text-sm font-semibold">
          <span className="font-mono">{ask.server}</span> {HEADING[ask.kind]}
        </h2>
        {asks.length > 1 && (
          <span data-testid="asks-waiting" className="ml-auto text-xs text-slate-500">
            1 of {asks.length} waiting
          </span>
        )}
        {asks.filter((a) => a.server === ask.server).length > 1 && (
          <button
            type="button"
            data-testid="ask-decline-all"
            className={BUTTON}
            onClick={() => void api.declineAll(ask.server)}
          >
            Decline all from {ask.server}
          </button>
        )}
      </header>
      <AskBody key={ask.id} ask={ask} api={api} />
    </section>
  );
}

const HEADING: Record<PendingAsk["kind"], string> = {
  form: "asks you to fill in a form",
  url: "asks you to open a page",
  sampling: "asks for a completion (sampling)",
};

function AskBody({ ask, api }: { ask: PendingAsk; api: AsksApi }) {
  const request = useMemo(() => {
    try {
      return JSON.parse(ask.request) as JsonObject;
    } catch {
      return {} as JsonObject;
    }
  }, [ask.request]);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async (answer: () => Promise<Outcome<null>>) => {
    setBusy(true);
    setProblem(null);
    const outcome = await answer();
    setBusy(false);
    if (!outcome.ok) setProblem(outcome.error.message);
  };
  const props = { ask, request, api, send, busy };
  return (
    <>
      {typeof request.message === "string" && (
        <p data-testid="ask-message" className="whitespace-pre-wrap text-sm">
          {request.message}
        </p>
      )}
      {ask.kind === "form" && <FormAsk {...props} />}
      {ask.kind === "url" && <UrlAsk {...props} failed={problem !== null} />}
      {ask.kind === "sampling" && <SamplingAsk {...props} />}
      {problem && (
        <p data-testid="ask-problem" role="alert" className="text-xs text-red-700 dark:text-red-300">
          {problem}
        </p>
      )}
    </>
  );
}

interface BodyProps {
  ask: PendingAsk;
  request: JsonObject;
  api: AsksApi;
  send: (answer: () => Promise<Outcome<null>>) => Promise<void>;
  busy: boolean;
}

function DeclineCancel({ ask, api, send, busy }: BodyProps) {
  return (
    <>
      <button type="button" data-testid="ask-decline" disabled={busy} className={BUTTON} onClick={() => void send(() => api.answer(ask.id, { reply: "decline" }))}>
        Decline
      </button>
      <button type="button" data-testid="ask-cancel" disabled={busy} className={BUTTON} onClick={() => void send(() => api.answer(ask.id, { reply: "cancel" }))}>
        Dismiss
      </button>
    </>
  );
}

function FormAsk(props: BodyProps) {
  const { ask, request, api, send, busy } = props;
  const schema = useMemo(
    () => (typeof request.requestedSchema === "object" && request.requestedSchema !== null ? (request.requestedSchema as JsonObject) : { type: "object", properties: {} }),
    [request],
  );
  const field = useMemo(() => describe(schema, schema), [schema]);
  const [state, setState] = useState<FormState>(() => initial(field));
  const [problems, setProblems] = useState<Problems>({});
  const [tried, setTried] = useState(false);
  const accept = () => {
    const content = toJson(state);
    const found = validate(schema, content);
    setProblems(found);
    setTried(true);
    if (Object.keys(found).length > 0) return;
    void send(() => api.answer(ask.id, { reply: "accept", content: JSON.stringify(content) }));
  };
  return (
    <>
      <ToolForm
        field={field}
        state={state}
        onChange={(next) => {
          setState(next);
          if (tried) setProblems(validate(schema, toJson(next)));
        }}
        problems={problems}
      />
      <div className="flex gap-2">
        <button type="button" data-testid="ask-accept" disabled={busy} className={PRIMARY} onClick={accept}>
          Send
        </button>
        <DeclineCancel {...props} />
      </div>
    </>
  );
}

function UrlAsk(props: BodyProps & { failed: boolean }) {
  const { ask, request, api, send, busy, failed } = props;
  const url = typeof request.url === "string" ? request.url : "";
  let host = "";
  try {
    host = new URL(url).host;
  } catch {
    host = "";
  }
  return (
    <>
      <p className="text-xs">
        It leads to <strong data-testid="ask-host">{host || "an address that is not a web page"}</strong>. Open it only if you trust it.
      </p>
      <code data-testid="ask-url" className="block break-all rounded bg-slate-100 p-2 text-xs dark:bg-slate-800">
        {url}
      </code>
      <div className="flex flex-wrap gap-2">
        <button type="button" data-testid="ask-open" disabled={busy || !host} className={PRIMARY} onClick={() => void send(() => api.openUrl(ask.id))}>
          Open in browser
        </button>
        <button type="button" data-testid="ask-copy" className={BUTTON} onClick={() => void navigator.clipboard?.writeText(url)}>
          Copy address
        </button>
        {failed && (
          <button type="button" data-testid="ask-accept" disabled={busy} className={BUTTON} onClick={() => void send(() => api.answer(ask.id, { reply: "accept", content: "{}" }))}>
            I opened it myself
          </button>
        )}
        <DeclineCancel {...props} />
      </div>
    </>
  );
}

interface Message {
  role?: string;
  content?: unknown;
}

function SamplingAsk({ ask, request, api, send, busy }: BodyProps) {
  const [text, setText] = useState("");
  const [model, setModel] = useState("written by hand in MCP Manager");
  const [reason, setReason] = useState("The person declined this request in MCP Manager.");
  const messages = Array.isArray(request.messages) ? (request.messages as Message[]) : [];
  const { messages: _m, systemPrompt, ...rest } = request;
  return (
    <>
      {typeof systemPrompt === "string" && (
        <div>
          <h3 className="text-xs font-semibold text-slate-500">System prompt</h3>
          <p data-testid="sampling-system" className="whitespace-pre-wrap text-sm">
            {systemPrompt}
          </p>
        </div>
      )}
      <ol data-testid="sampling-messages" className="flex flex-col gap-2">
        {messages.map((message, index) => (
          <li key={index} data-testid="sampling-message" data-role={message.role} className="rounded border border-slate-200 p-2 text-sm dark:border-slate-700">
            <span className="text-xs font-semibold uppercase text-slate-500">{message.role}</span>
            {contentsOf(message.content).map((part, i) => (
              <Part key={i} part={part} />
            ))}
          </li>
        ))}
      </ol>
      <details data-testid="sampling-parameters" className="text-xs">
        <summary className="cursor-pointer">Parameters ({Object.keys(rest).join(", ") || "none"})</summary>
        <pre className="overflow-x-auto whitespace-pre-wrap">{JSON.stringify(rest, null, 2)}</pre>
      </details>
      <label className="flex flex-col gap-1 text-xs font-medium">
        Your answer, as the assistant
        <textarea
          data-testid="sampling-reply"
          rows={4}
          value={text}
          onChange={(e) => setText(e.target.value)}
          className="rounded border border-slate-300 bg-white p-2 text-sm font-normal dark:border-slate-700 dark:bg-slate-900"
        />
      </label>
      <label className="flex items-center gap-2 text-xs">
        Model name sent
        <input data-testid="sampling-model" value={model} onChange={(e) => setModel(e.target.value)} className="flex-1 rounded border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900" />
      </label>
      <div className="flex gap-2">
        <button
          type="button"
          data-testid="sampling-send"
          disabled={busy || text.trim() === ""}
          className={PRIMARY}
          onClick={() => void send(() => api.answer(ask.id, { reply: "complete", text, model: model.trim() || "written by hand in MCP Manager" }))}
        >
          Send answer
        </button>
      </div>
      <div className="flex items-center gap-2 border-t border-slate-200 pt-2 text-xs dark:border-slate-700">
        <input
          data-testid="sampling-reason"
          aria-label="Why it is refused"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          className="flex-1 rounded border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900"
        />
        <button type="button" data-testid="sampling-reject" disabled={busy} className={BUTTON} onClick={() => void send(() => api.answer(ask.id, { reply: "reject", reason }))}>
          Refuse
        </button>
      </div>
    </>
  );
}

type PartValue = { type?: string; text?: string; data?: string; mimeType?: string };

function contentsOf(content: unknown): PartValue[] {
  if (Array.isArray(content)) return content as PartValue[];
  if (typeof content === "object" && content !== null) return [content as PartValue];
  return [];
}

function Part({ part }: { part: PartValue }) {
  if (part.type === "text") return <p className="whitespace-pre-wrap">{part.text}</p>;
  if (part.type === "image" && part.data) return <img alt="An image in the request" src={`data:${part.mimeType};base64,${part.data}`} className="max-h-48" />;
  if (part.type === "audio" && part.data) return <audio controls src={`data:${part.mimeType};base64,${part.data}`} />;
  return <pre className="overflow-x-auto whitespace-pre-wrap text-xs">{JSON.stringify(part, null, 2)}</pre>;
}
