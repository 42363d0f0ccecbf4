// Where a login from the window is: its phase, and while the browser is awaited, the page's
// address to copy or open again, and Cancel.
import { useState } from "react";
import type { LoginApi } from "./api";
import { describePhase, inProgress } from "./activityStore";
import { useActivity } from "./useActivity";

export function LoginProgress({ server, api, started }: { server: string; api: LoginApi; started: boolean }) {
  const { activity } = useActivity(server, api);
  const [copied, setCopied] = useState(false);
  const phase = activity?.phase ?? null;
  // Only a login of this window's run is shown; a finished one stays until the next.
  if (!phase || (!started && !inProgress(phase) && phase.phase !== "failed")) return null;
  const failed = phase.phase === "failed";
  return (
    <div
      data-testid="login-progress"
      data-phase={phase.phase}
      role="status"
      className={`rounded-md border p-3 text-sm ${failed ? "border-red-300 bg-red-50 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100" : "border-indigo-200 bg-indigo-50 dark:border-indigo-900 dark:bg-indigo-950"}`}
    >
      <p data-testid="login-phase">{describePhase(phase)}</p>
      {phase.phase === "waiting-for-browser" && (
        <div className="mt-2 flex flex-col gap-2">
          <div className="flex items-center gap-2">
            <input
              readOnly
              data-testid="login-url"
              aria-label="The login page's address"
              value={phase.url}
              onFocus={(e) => e.currentTarget.select()}
              className="min-w-0 flex-1 rounded border border-slate-300 bg-white px-2 py-1 font-mono text-xs dark:border-slate-700 dark:bg-slate-900"
            />
            <button
              type="button"
              data-testid="copy-login-url"
              onClick={() => void navigator.clipboard?.writeText(phase.url).then(() => setCopied(true))}
              className="rounded border border-slate-300 px-2 py-1 text-xs dark:border-slate-700"
            >
              {copied ? "Copied" : "Copy"}
            </button>
          </div>
          <div className="flex gap-2">
            <button
              type="button"
              data-testid="open-login-page"
              onClick={() => void api.openPage(server)}
              className="rounded border border-slate-300 px-2 py-1 text-xs dark:border-slate-700"
            >
              Open in browser again
            </button>
            <button
              type="button"
              data-testid="cancel-login"
              onClick={() => void api.cancel(server)}
              className="rounded border border-red-300 px-2 py-1 text-xs text-red-700 dark:border-red-800 dark:text-red-300"
            >
              Cancel
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
