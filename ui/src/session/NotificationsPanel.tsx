// A server's notifications as they come (log messages by level, list changes, resource
// updates, progress), and the logging level the server is asked to send from.
import { useState } from "react";
import type { ApiError } from "../bindings";
import { clock, useProtocolLog, type FollowLog } from "../logs/ProtocolLog";
import { ErrorNotice } from "../shared/ErrorNotice";
import type { SessionApi } from "./api";
import { LEVELS, notices } from "./notifications";

/** The level last set per server in this window (the server is not asked what it uses). */
const chosen = new Map<string, string>();

const LEVEL_TONE: Record<string, string> = {
  debug: "text-slate-500",
  info: "text-sky-700 dark:text-sky-300",
  notice: "text-sky-700 dark:text-sky-300",
  warning: "text-amber-700 dark:text-amber-300",
};

export function NotificationsPanel({
  server,
  follow,
  api,
  logging,
}: {
  server: string;
  follow: FollowLog;
  api: SessionApi;
  /** Whether the server offers logging (so a level can be set). */
  logging: boolean;
}) {
  const messages = useProtocolLog(server, follow);
  const [onlyLogs, setOnlyLogs] = useState(false);
  const [level, setLevel] = useState(chosen.get(server) ?? "");
  const [refusal, setRefusal] = useState<ApiError | null>(null);
  const shown = notices(messages, onlyLogs);

  const choose = async (next: string) => {
    setLevel(next);
    const outcome = await api.setLogLevel(server, next);
    if (outcome.ok) {
      chosen.set(server, next);
      setRefusal(null);
    } else setRefusal(outcome.error);
  };

  return (
    <div data-testid="notifications" className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        {logging ? (
          <label className="flex items-center gap-2">
            Log level
            <select
              data-testid="log-level"
              value={level}
              onChange={(e) => void choose(e.target.value)}
              className="rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700"
            >
              <option value="" disabled>
                server's default
              </option>
              {LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l} and above
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="text-xs text-slate-500">This server offers no logging level.</span>
        )}
        <label className="flex items-center gap-1 text-xs">
          <input type="checkbox" data-testid="only-logs" checked={onlyLogs} onChange={(e) => setOnlyLogs(e.target.checked)} />
          Log messages only
        </label>
      </div>
      {refusal && <ErrorNotice error={refusal} testId="log-level-refused" />}
      <p className="text-xs text-slate-500 dark:text-slate-400">
        {shown.length} notification{shown.length === 1 ? "" : "s"} from the server · newest first
      </p>
      <ol className="flex flex-col divide-y divide-slate-200 rounded border border-slate-200 text-xs dark:divide-slate-800 dark:border-slate-800">
        {shown.map((n) => (
          <li key={n.seq} data-testid="notification" data-seq={n.seq} data-method={n.method} data-level={n.log?.level} className="flex flex-col gap-0.5 px-2 py-1">
            <div className="flex gap-2">
              <span className="font-mono text-slate-500">{n.atMs !== null ? clock(n.atMs) : ""}</span>
              {n.log ? (
                <span className={`font-semibold uppercase ${LEVEL_TONE[n.log.level] ?? "text-red-700 dark:text-red-300"}`}>{n.log.level}</span>
              ) : (
                <span className="font-mono">{n.method}</span>
              )}
              {n.log?.logger && <span className="text-slate-500">{n.log.logger}</span>}
            </div>
            <span data-testid="notification-text" className="whitespace-pre-wrap break-all font-mono">
              {n.log ? n.log.data : n.params}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}
