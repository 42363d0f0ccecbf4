// The doctor, per server: run the checkup, see each step with its evidence, and for the step
// that failed, what to do next.
import { useEffect, useState } from "react";
import type { ApiError, Checkup } from "../bindings";
import type { DoctorApi } from "./api";

const MARK = { passed: "✓", warning: "!", failed: "✗" } as const;
const TONE = { passed: "text-emerald-600", warning: "text-amber-600", failed: "text-red-600" } as const;

export function DoctorPanel({ server, api }: { server: string; api: DoctorApi }) {
  const [checkup, setCheckup] = useState<Checkup | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [running, setRunning] = useState(false);
  useEffect(() => {
    setCheckup(null);
    setError(null);
  }, [server]);
  const run = async () => {
    setRunning(true);
    const outcome = await api.examine(server);
    setRunning(false);
    if (outcome.ok) {
      setCheckup(outcome.value);
      setError(null);
    } else setError(outcome.error);
  };
  return (
    <div data-testid="doctor-panel" className="flex flex-col gap-3">
      <div className="flex items-center gap-3">
        <button
          type="button"
          data-testid="run-doctor"
          disabled={running}
          onClick={() => void run()}
          className="whitespace-nowrap rounded-md border border-indigo-600 bg-indigo-600 px-3 py-1 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
        >
          {running ? "Checking…" : checkup ? "Check again" : "Run checkup"}
        </button>
        <p className="text-xs text-slate-500 dark:text-slate-400">
          Tries each thing the server needs, in order, and stops at the first that fails.
        </p>
      </div>
      {error && <p className="text-sm text-red-700 dark:text-red-300">{error.message}</p>}
      {checkup && (
        <>
          <p data-testid="doctor-summary" data-healthy={checkup.healthy} className="text-sm font-semibold">
            {checkup.healthy ? "Healthy: every step passed." : "Stopped at the step below that failed."}
          </p>
          <ol className="flex flex-col gap-2">
            {checkup.checks.map((check) => (
              <li key={check.id} data-testid="doctor-check" data-check-id={check.id} data-verdict={check.verdict} className="rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
                <p className="flex items-baseline gap-2">
                  <span aria-label={check.verdict} className={`font-bold ${TONE[check.verdict]}`}>
                    {MARK[check.verdict]}
                  </span>
                  <span className="font-medium">{check.title}</span>
                </p>
                <ul className="ml-5 font-mono text-xs text-slate-600 dark:text-slate-400">
                  {check.evidence.map((fact, i) => (
                    <li key={i} className="break-all">
                      {fact}
                    </li>
                  ))}
                </ul>
                {check.next && (
                  <p data-testid="doctor-next" className="ml-5 mt-1">
                    {check.next}
                  </p>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
