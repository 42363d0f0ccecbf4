// A server's prompts: the list, a form of the chosen prompt's arguments with the server's
// `completion/complete` suggestions as each is typed, and the messages it gives, by role.
import { useEffect, useState } from "react";
import type { ApiError } from "../bindings";
import type { BrowseApi } from "./api";

interface Argument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}
interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: Argument[];
}
interface Message {
  role: string;
  content: { type: string; text?: string; data?: string; mimeType?: string; resource?: { uri?: string; text?: string } };
}

export function PromptsPanel({ server, api }: { server: string; api: BrowseApi }) {
  const [prompts, setPrompts] = useState<Prompt[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [chosen, setChosen] = useState<Prompt | null>(null);
  useEffect(() => {
    let current = true;
    void api.prompts(server).then((outcome) => {
      if (!current) return;
      if (outcome.ok) setPrompts(JSON.parse(outcome.value) as Prompt[]);
      else setError(outcome.error);
    });
    return () => {
      current = false;
    };
  }, [server, api]);
  if (error) return <p className="text-sm text-red-700 dark:text-red-300">{error.message}</p>;
  if (!prompts) return <p className="text-sm text-slate-500">Loading the prompts…</p>;
  return (
    <div data-testid="prompts-panel" className="flex flex-col gap-3">
      <ul className="flex flex-col rounded border border-slate-200 dark:border-slate-800">
        {prompts.map((p) => (
          <li key={p.name}>
            <button type="button" data-testid="prompt-row" data-prompt={p.name} aria-pressed={chosen?.name === p.name} onClick={() => setChosen(p)} className={`flex w-full items-baseline gap-2 px-2 py-1 text-left text-sm hover:bg-slate-50 dark:hover:bg-slate-800/60 ${chosen?.name === p.name ? "bg-indigo-50 dark:bg-indigo-950" : ""}`}>
              <code className="shrink-0 font-semibold">{p.name}</code>
              <span className="min-w-0 truncate text-xs text-slate-500">{p.description ?? ""}</span>
            </button>
          </li>
        ))}
      </ul>
      {chosen && <PromptForm key={chosen.name} server={server} prompt={chosen} api={api} />}
    </div>
  );
}

function PromptForm({ server, prompt, api }: { server: string; prompt: Prompt; api: BrowseApi }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [suggestions, setSuggestions] = useState<Record<string, string[]>>({});
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const missing = (prompt.arguments ?? []).filter((a) => a.required && !values[a.name]);
  const suggest = async (argument: string, value: string) => {
    const context: Record<string, string> = {};
    for (const [name, given] of Object.entries(values)) if (name !== argument && given) context[name] = given;
    const outcome = await api.complete(server, prompt.name, argument, value, JSON.stringify(context));
    if (outcome.ok) setSuggestions((s) => ({ ...s, [argument]: outcome.value }));
  };
  const get = async () => {
    const outcome = await api.getPrompt(server, prompt.name, JSON.stringify(values));
    if (outcome.ok) {
      setMessages((JSON.parse(outcome.value) as { messages?: Message[] }).messages ?? []);
      setFailure(null);
    } else {
      setMessages(null);
      setFailure(outcome.error);
    }
  };
  return (
    <div data-testid="prompt-form" data-prompt={prompt.name} className="flex flex-col gap-2 border-t border-slate-200 pt-3 dark:border-slate-800">
      {(prompt.arguments ?? []).map((argument) => (
        <label key={argument.name} className="flex flex-col gap-0.5 text-sm">
          <span>
            {argument.title ?? argument.name}
            {argument.required && <span className="text-red-600"> *</span>}
          </span>
          {argument.description && <span className="text-xs text-slate-600 dark:text-slate-400">{argument.description}</span>}
          <input
            data-testid="prompt-argument"
            data-name={argument.name}
            list={`suggest-${argument.name}`}
            value={values[argument.name] ?? ""}
            onFocus={(e) => void suggest(argument.name, e.target.value)}
            onChange={(e) => {
              setValues({ ...values, [argument.name]: e.target.value });
              void suggest(argument.name, e.target.value);
            }}
            className="rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
          />
          <datalist id={`suggest-${argument.name}`}>
            {(suggestions[argument.name] ?? []).map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
          {(suggestions[argument.name] ?? []).length > 0 && (
            <span data-testid="prompt-suggestions" data-name={argument.name} className="flex flex-wrap gap-1 text-xs">
              {(suggestions[argument.name] ?? []).map((s) => (
                <button key={s} type="button" data-testid="prompt-suggestion" onClick={() => setValues({ ...values, [argument.name]: s })} className="rounded border border-slate-300 px-1 dark:border-slate-700">
                  {s}
                </button>
              ))}
            </span>
          )}
        </label>
      ))}
      <div>
        <button type="button" data-testid="get-prompt" disabled={missing.length > 0} onClick={() => void get()} className="rounded-md border border-indigo-600 bg-indigo-600 px-3 py-1 text-sm font-medium text-white disabled:opacity-50">
          Get
        </button>
        {missing.length > 0 && <span className="ml-2 text-xs text-slate-500">Required: {missing.map((a) => a.name).join(", ")}</span>}
      </div>
      {failure && <p className="text-sm text-red-700 dark:text-red-300">{failure.message}</p>}
      {messages && (
        <ol data-testid="prompt-messages" className="flex flex-col gap-2">
          {messages.map((m, i) => (
            <li key={i} data-testid="prompt-message" data-role={m.role} className="rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
              <div className="text-xs font-semibold uppercase text-slate-500">{m.role}</div>
              {m.content.type === "text" ? (
                <p className="whitespace-pre-wrap">{m.content.text}</p>
              ) : m.content.type === "image" ? (
                <img alt="" src={`data:${m.content.mimeType};base64,${m.content.data}`} className="max-h-48" />
              ) : m.content.type === "resource" ? (
                <pre className="whitespace-pre-wrap font-mono text-xs">
                  {m.content.resource?.uri}
                  {"\n"}
                  {m.content.resource?.text ?? ""}
                </pre>
              ) : (
                <pre className="font-mono text-xs">{JSON.stringify(m.content, null, 2)}</pre>
              )}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
