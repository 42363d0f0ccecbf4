// A server's tools as clients see them: for each tool, the server's listing beside exactly what
// Claude Code sends its model (or why it sends nothing), with what to change when something is
// lost. Dropped and changed tools come first.
import { useEffect, useState } from "react";
import type { ApiError, ClaudeCodeTool, ServerClientView } from "../bindings";
import type { ClientsApi } from "./api";
import { FATE_LABEL, FATE_TITLE, ordered, summary } from "./present";
import { LongText } from "../shared/LongText";

const FATE_TONE = {
  upfront: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200",
  deferred: "bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200",
  dropped: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
} as const;

/** `listed`: how many tools the server lists now; the view is read again when it changes. */
export function ClientsPanel({ server, api, listed }: { server: string; api: ClientsApi; listed?: number | null }) {
  const [view, setView] = useState<ServerClientView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [search, setSearch] = useState("");
  useEffect(() => {
    let current = true;
    setError(null);
    void api.view(server).then((outcome) => {
      if (!current) return;
      if (outcome.ok) setView(outcome.value);
      else setError(outcome.error);
    });
    return () => {
      current = false;
    };
  }, [server, api, listed]);
  if (error) return <p className="text-sm text-red-700 dark:text-red-300">{error.message}</p>;
  if (!view) return <p className="text-sm text-slate-500">Reading the tools as each client sees them…</p>;
  const needle = search.trim().toLowerCase();
  const shown = ordered(view.tools).filter((t) => !needle || t.tool.toLowerCase().includes(needle) || t.name.toLowerCase().includes(needle));
  return (
    <div data-testid="clients-panel" className="flex flex-col gap-3">
      <div className="rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
        <p data-testid="clients-summary" className="font-semibold">
          {summary(view)}
        </p>
        <p data-testid="tool-search-mode" className="text-xs text-slate-600 dark:text-slate-400">
          {view.claudeCode.toolSearch}
        </p>
        <ul className="mt-1 flex flex-wrap gap-x-4 text-xs text-slate-500">
          {view.claudeCode.knobs.map((knob) => (
            <li key={knob.name} data-testid="knob" data-knob={knob.name}>
              <code>{knob.name}</code>={knob.value === null ? <span>unset</span> : <code data-testid="knob-value">{knob.value}</code>}
              {knob.from && <span> (from {knob.from})</span>}
            </li>
          ))}
        </ul>
        {view.notes.map((note, i) => (
          <p key={i} data-testid="server-note" role="alert" className="mt-1 text-xs font-semibold text-red-800 dark:text-red-300">
            {note}
          </p>
        ))}
      </div>
      {view.findings.length > 0 && (
        <details data-testid="client-findings" className="rounded border border-slate-200 px-2 py-1 text-xs dark:border-slate-800">
          <summary className="cursor-pointer font-semibold">Other clients, for this server and the whole project ({view.findings.length})</summary>
          <ul className="mt-1 flex flex-col gap-1">
            {view.findings.map((f, i) => (
              <li key={i} data-testid="client-finding" data-client={f.client} data-effect={f.effect}>
                <span className="font-semibold">{f.client}</span> ({f.effect}): {f.words} <span className="text-slate-500">To fix: {f.fix}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
      <input
        type="search"
        data-testid="client-tool-search"
        aria-label="Search tools in the client view"
        placeholder={`Search ${view.tools.length} tools by name or mcp__… name`}
        value={search}
        onChange={(e) => setSearch(e.target.value)}
        className="rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700"
      />
      <ul className="flex flex-col gap-1">
        {shown.map((tool) => (
          <ToolRow key={tool.tool} tool={tool} />
        ))}
      </ul>
    </div>
  );
}

/** The other clients that drop or cut the tool, for its row's badges. */
function othersLosing(tool: ClaudeCodeTool): string[] {
  return tool.others.filter((o) => o.findings.some((f) => f.effect === "dropped" || f.effect === "cut")).map((o) => `${o.client} ${o.findings.some((f) => f.effect === "dropped") ? "drops" : "cuts"}`);
}

function ToolRow({ tool }: { tool: ClaudeCodeTool }) {
  return (
    <li data-testid="client-tool" data-tool={tool.tool} data-fate={tool.fate} className="rounded border border-slate-200 dark:border-slate-800">
      <details>
        <summary className="flex cursor-pointer flex-wrap items-baseline gap-2 px-2 py-1 text-sm">
          <code className="min-w-0 break-all font-semibold">{tool.tool}</code>
          <span className="text-xs text-slate-500">→</span>
          <code data-testid="model-name" className="min-w-0 break-all text-xs">
            {tool.name}
          </code>
          <span data-testid="fate" title={FATE_TITLE[tool.fate]} className={`rounded px-1 text-[10px] ${FATE_TONE[tool.fate]}`}>
            {FATE_LABEL[tool.fate]}
          </span>
          {tool.fate !== "dropped" && tool.notes.length > 0 && (
            <span data-testid="changed" className="rounded bg-amber-100 px-1 text-[10px] text-amber-800 dark:bg-amber-950 dark:text-amber-200">
              changed
            </span>
          )}
          {othersLosing(tool).map((client) => (
            <span key={client} data-testid="other-client-badge" className="rounded bg-slate-100 px-1 text-[10px] text-slate-700 dark:bg-slate-800 dark:text-slate-200">
              {client}
            </span>
          ))}
        </summary>
        <div className="flex flex-col gap-2 px-2 pb-2 text-xs [overflow-wrap:anywhere]">
          {tool.notes.map((note, i) => (
            <p key={i} data-testid="client-note" className="text-amber-900 dark:text-amber-200">
              {note}
            </p>
          ))}
          {tool.fixes.map((fix, i) => (
            <p key={i} data-testid="client-fix">
              <span className="font-semibold">To fix: </span>
              {fix}
            </p>
          ))}
          {tool.results && (
            <p data-testid="result-limits" className="text-slate-600 dark:text-slate-400">
              {tool.results}
            </p>
          )}
          <table data-testid="other-clients" className="w-full border-collapse text-left">
            <caption className="text-left font-semibold">In other clients</caption>
            <thead>
              <tr className="text-slate-500">
                <th className="pr-2 font-normal">Client</th>
                <th className="pr-2 font-normal">Name its model sees</th>
                <th className="font-normal">What happens</th>
              </tr>
            </thead>
            <tbody>
              {tool.others.map((other) => (
                <tr key={other.client} data-testid="other-client" data-client={other.client} className="align-top">
                  <td className="whitespace-nowrap pr-2" title={`Rules read from ${other.holdsFor}`}>
                    {other.client}
                  </td>
                  <td className="break-all pr-2 font-mono">{other.name ?? <span className="font-sans text-red-700 dark:text-red-300">not sent</span>}</td>
                  <td>
                    {other.findings.length === 0
                      ? "Sent as listed."
                      : other.findings.map((f, i) => (
                          <p key={i} data-testid="other-finding" data-effect={f.effect}>
                            {f.words} <span className="text-slate-500">To fix: {f.fix}</span>
                          </p>
                        ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="grid grid-cols-1 gap-2 lg:grid-cols-2">
            <section aria-label={`${tool.tool} as the server lists it`}>
              <h4 className="font-semibold">As the server lists it</h4>
              {tool.listedDescription !== null && <LongText testId="listed-description" text={tool.listedDescription} />}
              <LongText testId="listed-schema" text={tool.listedSchema} />
            </section>
            <section aria-label={`${tool.tool} as Claude Code sends it`}>
              <h4 className="font-semibold">As Claude Code sends it to the model</h4>
              {tool.definition !== null ? (
                <LongText testId="sent-definition" text={tool.definition} />
              ) : (
                <p className="text-slate-500">Not sent.</p>
              )}
            </section>
          </div>
        </div>
      </details>
    </li>
  );
}
