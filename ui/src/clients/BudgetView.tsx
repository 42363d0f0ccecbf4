// The project's context budget: what every connected server's tools cost in Claude's context
// as Claude Code loads them (upfront, and once loaded through tool search), the heaviest tools,
// and what the project would cost with each server turned off. Estimated offline, with the
// tokenizer and its measured error named; "Count exactly" asks the model API with the person's
// own key, which never reaches the window.
import { useEffect, useState } from "react";
import type { ApiError, ProjectBudget } from "../bindings";
import type { ClientsApi } from "./api";

const n = (value: number) => value.toLocaleString("en-US");

export function BudgetView({ api, refreshKey }: { api: ClientsApi; refreshKey?: string }) {
  const [budget, setBudget] = useState<ProjectBudget | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [counting, setCounting] = useState<"estimate" | "exact" | null>("estimate");
  const load = async (exact: boolean) => {
    setCounting(exact ? "exact" : "estimate");
    setError(null);
    const outcome = await api.budget(exact);
    setCounting(null);
    if (outcome.ok) setBudget(outcome.value);
    else setError(outcome.error);
  };
  useEffect(() => {
    void load(false);
  }, [api, refreshKey]);
  return (
    <section data-testid="budget-view" aria-label="Context budget" className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="text-lg font-semibold">Context budget</h2>
        <button
          type="button"
          data-testid="count-exactly"
          disabled={counting !== null}
          onClick={() => void load(true)}
          className="rounded-md border border-slate-300 px-2 py-1 text-sm dark:border-slate-700"
        >
          {counting === "exact" ? "Counting with the model API…" : "Count exactly with my API key"}
        </button>
        {budget?.exact && (
          <button type="button" data-testid="back-to-estimate" onClick={() => void load(false)} className="text-sm underline">
            Back to the estimate
          </button>
        )}
      </div>
      {counting === "estimate" && !budget && <p className="text-sm text-slate-500">Reading every connected server's tools…</p>}
      {error && (
        <p data-testid="budget-error" role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error.message}
        </p>
      )}
      {budget && (
        <>
          <div className="rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
            <p data-testid="budget-total" className="font-semibold">
              {n(budget.totalUpfront)} tokens upfront for MCP tools in every request; {n(budget.totalLoaded)} with every tool loaded.
            </p>
            <p className="text-xs text-slate-600 dark:text-slate-400">
              Plus {n(budget.overhead)} for the tool-use system prompt, paid once (Claude Code pays it for its own tools anyway).
            </p>
            <p data-testid="budget-counted-by" className="text-xs text-slate-500">
              {budget.exact ? "Counted by the model API: " : "Estimated: "}
              {budget.countedBy}
            </p>
            <p data-testid="budget-tool-search" className="text-xs text-slate-600 dark:text-slate-400">
              {budget.claudeCode.toolSearch}
            </p>
            {budget.auto && (
              <p data-testid="budget-auto" className="text-xs text-slate-600 dark:text-slate-400">
                {budget.auto}
              </p>
            )}
            {budget.problems.map((problem, i) => (
              <p key={i} data-testid="budget-problem" className="text-xs text-amber-800 dark:text-amber-300">
                Left out: {problem}
              </p>
            ))}
          </div>
          <table data-testid="budget-servers" className="w-full border-collapse text-left text-sm">
            <caption className="text-left font-semibold">By server, heaviest first</caption>
            <thead>
              <tr className="text-xs text-slate-500">
                <th className="font-normal">Server</th>
                <th className="text-right font-normal">Upfront</th>
                <th className="text-right font-normal">All loaded</th>
                <th className="text-right font-normal">Tools upfront · deferred</th>
                <th className="text-right font-normal">Project without it</th>
              </tr>
            </thead>
            <tbody>
              {budget.servers.map((s) => (
                <tr key={s.server} data-testid="budget-server" data-server={s.server} className="border-t border-slate-200 dark:border-slate-800">
                  <td className="font-mono">{s.server}</td>
                  <td data-testid="server-upfront" className="text-right tabular-nums">{n(s.upfront)}</td>
                  <td className="text-right tabular-nums">{n(s.loaded)}</td>
                  <td className="text-right tabular-nums">
                    {s.upfrontTools} · {s.deferredTools}
                  </td>
                  <td data-testid="server-without" className="text-right tabular-nums">{n(s.without)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table data-testid="budget-tools" className="w-full border-collapse text-left text-sm">
            <caption className="text-left font-semibold">The heaviest tools</caption>
            <thead>
              <tr className="text-xs text-slate-500">
                <th className="font-normal">Tool</th>
                <th className="text-right font-normal">Whole definition</th>
                <th className="text-right font-normal">Once loaded</th>
                <th className="text-right font-normal">Paid upfront</th>
              </tr>
            </thead>
            <tbody>
              {budget.tools.map((t) => (
                <tr key={t.name} data-testid="budget-tool" data-tool={t.name} className="border-t border-slate-200 dark:border-slate-800">
                  <td className="break-all font-mono text-xs">{t.name}</td>
                  <td className="text-right tabular-nums">{n(t.upfront)}</td>
                  <td className="text-right tabular-nums">{n(t.loaded)}</td>
                  <td className="text-right tabular-nums" title={t.deferred ? "Deferred: only its name is sent until tool search loads it" : "Sent whole in every request"}>
                    {t.deferred ? `${n(t.nameOnly)} (name only)` : n(t.upfront)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
