// Every login in one place: where each is kept, its issuer and scopes, when it expires, its
// refresh token, client registration and last refresh, and what the keeper does next; refresh
// now, log in again, log out, move to the other store. Below, the keeper's settings: what
// closing the window does and starting at login.
import { useCallback, useEffect, useRef, useState } from "react";
import type { ApiError, KeeperView, Login } from "../bindings";
import { Button } from "../shared/Button";
import { ErrorNotice } from "../shared/ErrorNotice";
import type { LoginsApi } from "./api";
import { clientText, expiresText, keeperText, lastRefreshText, needsPerson, otherStore, storeText } from "./present";

export function LoginsView({ api, focus }: { api: LoginsApi; focus?: string | null }) {
  const [logins, setLogins] = useState<Login[] | null>(null);
  const [settings, setSettings] = useState<KeeperView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());

  // Loads overlap (an event, an action's own reload): only the latest one is shown, so that a
  // slow answer asked for before a change never shows the state from before it.
  const latest = useRef(0);
  // When the next login falls due: the list is read again then (and every 5 s while one is
  // due), to show what the keeper did with it, or that it is left to a running Claude Code.
  const nextDue = useRef<number | null>(null);
  const load = useCallback(async () => {
    const mine = ++latest.current;
    const [list, keeper] = await Promise.all([api.list(), api.settings()]);
    if (mine !== latest.current) return;
    if (list.ok) {
      setLogins(list.value);
      const due = list.value.flatMap((login) => (login.refreshAtMs === null ? [] : [login.refreshAtMs]));
      nextDue.current = due.length ? Math.min(...due) : null;
    } else setError(list.error);
    if (keeper.ok) setSettings(keeper.value);
    setNow(Date.now());
  }, [api]);

  useEffect(() => {
    void load();
    const stop = api.onChanged(() => void load());
    const tick = setInterval(() => {
      setNow(Date.now());
      if (nextDue.current !== null && nextDue.current <= Date.now()) void load();
    }, 5000);
    return () => {
      clearInterval(tick);
      void stop.then((s) => s());
    };
  }, [api, load]);

  const act = async (what: string, server: string, run: () => Promise<{ ok: boolean; error?: ApiError }>, done: string) => {
    setBusy(`${what}:${server}`);
    setError(null);
    setSaid(null);
    const outcome = await run();
    setBusy(null);
    if (outcome.ok) setSaid(done);
    else if (outcome.error) setError(outcome.error);
    await load();
  };

  return (
    <section data-testid="logins-view" aria-label="Logins" className="flex flex-col gap-3">
      <h2 className="text-lg font-semibold">Logins</h2>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Each login is refreshed by MCP Manager five minutes before it expires (three fifths of its life for tokens that live under eight minutes), at the
        authorization server it came from, while the app runs, in the tray too. A login kept in Claude Code's store is refreshed in the background only
        if you switch it on below, and only while no Claude Code runs: a running Claude Code session refreshes it itself, and a rotation beside it could
        race its own.
      </p>
      {error && <ErrorNotice error={error} testId="logins-error" />}
      {said && (
        <p role="status" data-testid="logins-said" className="text-sm text-emerald-700 dark:text-emerald-400">
          {said}
        </p>
      )}
      {logins === null && !error && (
        <p data-testid="logins-reading" className="text-sm text-slate-500">
          Reading the logins…
        </p>
      )}
      {logins?.length === 0 && (
        <p data-testid="logins-none" className="text-sm text-slate-500">
          No login is held for the servers of this project and of your own configuration. Log in to a remote server from its pane.
        </p>
      )}
      <ul className="flex flex-col gap-2">
        {logins?.map((login) => {
          const needs = needsPerson(login, now);
          return (
            <li
              key={login.server}
              data-testid={`login-${login.server}`}
              data-needs-person={needs}
              aria-label={`Login of ${login.server}`}
              className={`rounded-md border p-3 text-sm ${needs ? "border-amber-500" : "border-slate-200 dark:border-slate-800"} ${focus === login.server ? "ring-2 ring-indigo-500" : ""}`}
            >
              <div className="flex flex-wrap items-center gap-2">
                <strong>{login.server}</strong>
                <span className="text-xs text-slate-500">{login.scope} scope</span>
                <span data-testid={`login-${login.server}-store`} className="rounded bg-slate-100 px-1 text-xs dark:bg-slate-800">
                  {storeText(login.store)}
                </span>
                {login.dpopBound && <span className="rounded bg-slate-100 px-1 text-xs dark:bg-slate-800">DPoP-bound</span>}
              </div>
              <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 text-xs">
                <dt>Issuer</dt>
                <dd>{login.issuer ?? "not recorded"}</dd>
                <dt>Scopes</dt>
                <dd>{login.scopes.length ? login.scopes.join(" ") : "none said"}</dd>
                <dt>Expires</dt>
                <dd data-testid={`login-${login.server}-expires`}>{expiresText(login, now)}</dd>
                <dt>Refresh token</dt>
                <dd data-testid={`login-${login.server}-refresh-token`}>{login.hasRefreshToken ? "yes" : "no"}</dd>
                <dt>Client</dt>
                <dd>{clientText(login.client)}</dd>
                <dt>Last refresh</dt>
                <dd data-testid={`login-${login.server}-last`}>{lastRefreshText(login, now)}</dd>
              </dl>
              <p data-testid={`login-${login.server}-keeper`} className={`mt-1 text-xs ${needs ? "font-semibold text-amber-700 dark:text-amber-400" : "text-slate-600 dark:text-slate-400"}`}>
                {keeperText(login, now)}
              </p>
              <div className="mt-2 flex flex-wrap gap-2">
                <Button
                  testId={`login-${login.server}-refresh`}
                  disabled={busy !== null || !login.hasRefreshToken}
                  onClick={() => void act("refresh", login.server, () => api.refresh(login.server), `${login.server}: refreshed`)}
                >
                  {busy === `refresh:${login.server}` ? "Refreshing…" : "Refresh now"}
                </Button>
                <Button
                  testId={`login-${login.server}-log-in`}
                  tone={needs ? "primary" : "plain"}
                  disabled={busy !== null}
                  onClick={() => void act("log-in", login.server, () => api.logIn(login.server), `${login.server}: logged in again`)}
                >
                  {busy === `log-in:${login.server}` ? "Waiting for the browser…" : "Log in again"}
                </Button>
                <Button
                  testId={`login-${login.server}-log-out`}
                  tone="danger"
                  disabled={busy !== null}
                  onClick={() => void act("log-out", login.server, () => api.logOut(login.server), `${login.server}: logged out`)}
                >
                  Log out
                </Button>
                <Button
                  testId={`login-${login.server}-move`}
                  disabled={busy !== null}
                  onClick={() =>
                    void act(
                      "move",
                      login.server,
                      () => api.move(login.server, otherStore(login.store)),
                      `${login.server}: moved to ${storeText(otherStore(login.store))}`,
                    )
                  }
                >
                  Move to {storeText(otherStore(login.store))}
                </Button>
              </div>
            </li>
          );
        })}
      </ul>
      {settings && (
        <fieldset className="mt-2 flex flex-col gap-2 rounded-md border border-slate-200 p-3 text-sm dark:border-slate-800">
          <legend className="px-1 font-semibold">The keeper</legend>
          {settings.problem && (
            <p role="alert" data-testid="keeper-settings-problem" className="text-xs text-red-700 dark:text-red-400">
              {settings.problem}
            </p>
          )}
          {!settings.tray && (
            <p data-testid="keeper-no-tray" className="text-xs text-slate-600 dark:text-slate-400">
              No tray icon could be shown on this desktop (libayatana-appindicator3-1 is needed): closing the window quits, and logins are kept fresh
              only while the window is open.
            </p>
          )}
          <label className="flex items-center gap-2">
            When the window closes
            <select
              data-testid="keeper-on-close"
              aria-label="When the window closes"
              disabled={!settings.tray}
              value={settings.keepRunningWhenClosed === null ? "ask" : settings.keepRunningWhenClosed ? "keep" : "quit"}
              onChange={(e) => {
                const keep = e.target.value === "ask" ? null : e.target.value === "keep";
                void api.setKeepRunning(keep).then((outcome) => {
                  if (!outcome.ok) setError(outcome.error);
                  void load();
                });
              }}
              className="rounded-md border border-slate-300 bg-transparent px-1 py-0.5 dark:border-slate-700"
            >
              <option value="ask">Ask me</option>
              <option value="keep">Keep logins fresh in the tray</option>
              <option value="quit">Quit</option>
            </select>
          </label>
          <label className="flex items-center gap-2">
            <input
              type="checkbox"
              data-testid="keeper-start-at-login"
              aria-label="Start at login, in the tray"
              checked={settings.startsAtLogin}
              onChange={(e) =>
                void api.setStartAtLogin(e.target.checked).then((outcome) => {
                  if (!outcome.ok) setError(outcome.error);
                  void load();
                })
              }
            />
            Start at login, in the tray
          </label>
          <label className="flex items-center gap-2">
            <input
              type="checkbox"
              data-testid="keeper-claude-code"
              aria-label="Refresh the logins kept in Claude Code's store too"
              checked={settings.refreshClaudeCodeLogins}
              onChange={(e) =>
                void api.setRefreshClaudeCode(e.target.checked).then((outcome) => {
                  if (!outcome.ok) setError(outcome.error);
                  void load();
                })
              }
            />
            Refresh the logins kept in Claude Code's store too, while no Claude Code runs
          </label>
        </fieldset>
      )}
    </section>
  );
}

/** The first close's question: keep the keeper running in the tray, or quit. */
export function CloseQuestion({ api, onAnswered }: { api: LoginsApi; onAnswered: () => void }) {
  const [remember, setRemember] = useState(true);
  const answer = (keep: boolean) => {
    onAnswered();
    void api.answerClose(keep, remember);
  };
  return (
    <div role="dialog" aria-modal="true" aria-labelledby="close-question-title" data-testid="close-question" className="fixed inset-0 z-50 flex items-center justify-center bg-black/40">
      <div className="max-w-md rounded-lg bg-white p-5 text-sm shadow-xl dark:bg-slate-900">
        <h2 id="close-question-title" className="mb-2 text-base font-semibold">
          Keep logins fresh after the window closes?
        </h2>
        <p className="mb-3">
          MCP Manager can stay in the tray with the window closed and refresh your servers' logins before they expire, so that they never need a new
          login for a token that was left to lapse. Its servers stop either way; the tray opens the window again.
        </p>
        <label className="mb-3 flex items-center gap-2">
          <input type="checkbox" data-testid="close-question-remember" aria-label="Remember my choice" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
          Remember my choice (change it in Logins)
        </label>
        <div className="flex justify-end gap-2">
          <Button testId="close-question-quit" onClick={() => answer(false)}>
            Quit
          </Button>
          <Button testId="close-question-keep" tone="primary" onClick={() => answer(true)}>
            Keep running in the tray
          </Button>
        </div>
      </div>
    </div>
  );
}
