// What Claude Code really used: its sessions' calls of each server and tool (from its own
// records, read-only), how they ended, how its connections went, and the servers it never
// called beside what they cost in every request (the budget's upfront figures).
import { useEffect, useState } from "react";
import type { ApiError, ProjectBudget, UsageReport } from "../bindings";
import type { ClientsApi } from "../clients/api";
import type { UsageApi } from "./api";
import { connectionTroubles, countsText, unused, when } from "./present";

const n = (value: number) => value.toLocaleString("en-US");

export function UsageView({ api, clients }: { api: UsageApi; clients?: ClientsApi }) {
  const [days, setDays] = useState(30);
  const [all, setAll] = useState(false);
  const [report, setReport] = useState<UsageReport | null>(null);
  const [budget, setBudget] = useState<ProjectBudget | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [reading, setReading] = useState(true);

  useEffect(() => {
    let current = true;
    setReading(true);
    setError(null);
    void api.report(days, all).then((outcome) => {
      if (!current) return;
      setReading(false);
      if (outcome.ok) setReport(outcome.value);
      else setError(outcome.error);
    });
    return () => {
      current = false;
    };
  }, [api, days, all]);
  useEffect(() => {
    if (!clients) return;
    void clients.budget(false).then((outcome) => outcome.ok && setBudget(outcome.value));
  }, [clients]);

  const used = report?.servers.filter((s) => s.month.calls > 0) ?? [];
  const never = report ? unused(report, budget) : [];
  const troubles = report ? connectionTroubles(report) : [];
  return (
    <section data-testid="usage-view" aria-label="What Claude Code used" className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="text-lg font-semibold">What Claude Code used</h2>
        <label className="text-sm">
          Where{" "}
          <select
            data-testid="usage-where"
            aria-label="Which folders' sessions"
            value={all ? "all" : "project"}
            onChange={(e) => setAll(e.target.value === "all")}
            className="rounded-md border border-slate-300 bg-transparent px-1 py-0.5 dark:border-slate-700"
          >
            <option value="project">This project</option>
            <option value="all">All projects</option>
          </select>
        </label>
        <label className="text-sm">
          Over{" "}
          <select
            data-testid="usage-days"
            aria-label="Over how many days"
            value={days}
            onChange={(e) => setDays(Number(e.target.value))}
            className="rounded-md border border-slate-300 bg-transparent px-1 py-0.5 dark:border-slate-700"
          >
            <option value={7}>7 days</option>
            <option value={30}>30 days</option>
            <option value={90}>90 days</option>
          </select>
        </label>
        {reading && (
          <span data-testid="usage-reading" className="text-sm text-slate-500">
            Reading Claude Code's records…
          </span>
        )}
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        From Claude Code's own session records and connection logs, read and never changed. Only names, times and outcomes are kept; nothing of a
        conversation.
      </p>
      {error && (
        <p data-testid="usage-error" role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error.message}
        </p>
      )}
      {report && (
        <>
          <p data-testid="usage-summary" className="text-sm font-semibold">
            {report.sessions === 0
              ? `No Claude Code session called an MCP tool ${all ? "" : "in this project "}in the last ${report.days} days.`
              : `${n(report.sessions)} Claude Code session${report.sessions === 1 ? "" : "s"} called MCP tools ${all ? "" : "in this project "}in the last ${report.days} days.`}
          </p>
          {troubles.map((text) => (
            <p key={text} data-testid="usage-connection-trouble" className="text-sm text-amber-800 dark:text-amber-300">
              {text}
            </p>
          ))}
          {used.length > 0 && (
            <table data-testid="usage-servers" className="w-full border-collapse text-left text-sm">
              <caption className="text-left font-semibold">Called, most first</caption>
              <thead>
                <tr className="border-b border-slate-200 text-xs text-slate-500 dark:border-slate-800">
                  <th className="py-1">Server / tool</th>
                  <th>Calls, 7 days</th>
                  <th>Calls, {report.days} days</th>
                  <th>Median</th>
                  <th>Last used</th>
                </tr>
              </thead>
              <tbody>
                {used.flatMap((s) => [
                  <tr key={s.server} data-testid="usage-server" data-server={s.server} className="border-b border-slate-100 font-medium dark:border-slate-900">
                    <td className="py-1">
                      {s.server}
                      {!s.configured && <span className="ml-2 text-xs font-normal text-slate-500">not configured here</span>}
                      {s.sharesPrefixWith.length > 0 && (
                        <span data-testid="usage-shared-prefix" className="ml-2 text-xs font-normal text-amber-800 dark:text-amber-300">
                          named like {s.sharesPrefixWith.join(", ")}: their calls cannot be told apart
                        </span>
                      )}
                    </td>
                    <td data-testid="usage-week">{countsText(s.week)}</td>
                    <td data-testid="usage-month">{countsText(s.month)}</td>
                    <td>{s.medianMs === null ? "—" : `${n(s.medianMs)} ms`}</td>
                    <td>{when(s.lastUsedMs)}</td>
                  </tr>,
                  ...s.tools.map((t) => (
                    <tr key={`${s.server}/${t.tool}`} data-testid="usage-tool" data-tool={`${s.server}/${t.tool}`} className="text-slate-700 dark:text-slate-300">
                      <td className="py-0.5 pl-4 font-mono text-xs">{t.tool}</td>
                      <td data-testid="usage-week">{countsText(t.week)}</td>
                      <td data-testid="usage-month">{countsText(t.month)}</td>
                      <td>{t.medianMs === null ? "—" : `${n(t.medianMs)} ms`}</td>
                      <td>{when(t.lastUsedMs)}</td>
                    </tr>
                  )),
                ])}
              </tbody>
            </table>
          )}
          {never.length > 0 && (
            <div data-testid="usage-never" className="rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
              <p className="font-semibold">Never called in {report.days} days</p>
              <ul>
                {never.map((u) => (
                  <li key={u.server} data-testid="usage-never-server" data-server={u.server}>
                    {u.server}
                    {u.upfront !== null
                      ? ` — ${n(u.upfront)} tokens upfront in every request`
                      : " — not connected here, so its cost is not known"}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {report.skippedLines > 0 && (
            <p data-testid="usage-skipped" className="text-xs text-slate-500">
              {n(report.skippedLines)} line{report.skippedLines === 1 ? "" : "s"} of Claude Code's records could not be read and
              {report.skippedLines === 1 ? " was" : " were"} passed over.
            </p>
          )}
        </>
      )}
    </section>
  );
}
