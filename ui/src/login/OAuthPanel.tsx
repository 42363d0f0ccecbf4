// The OAuth debugger: the stored token (never its value) and every recorded exchange of this
// server's logins, refreshes and logouts, step by step, with the RFC each follows and, for a
// step that went wrong, what was expected and what came.
import { useState } from "react";
import type { ApiError, Exchange, LoginStore, TokenState, Trace } from "../bindings";
import type { LoginApi } from "./api";
import type { Outcome } from "../ipc/api";
import { describePhase } from "./activityStore";
import { useActivity } from "./useActivity";

const KIND_LABEL: Record<Trace["kind"], string> = {
  login: "Login",
  connect: "Connection with the stored token",
  logout: "Logout",
  refresh: "Refresh (the keeper, or Refresh now)",
};

export function OAuthPanel({ server, api }: { server: string; api: LoginApi }) {
  const { activity, error } = useActivity(server, api);
  if (error && !activity) {
    return (
      <p data-testid="oauth-error" className="text-sm text-red-700 dark:text-red-300">
        {error.message}
      </p>
    );
  }
  if (!activity) return <p className="text-sm text-slate-500">Loading…</p>;
  const traces = [...activity.traces].reverse();
  return (
    <div data-testid="oauth-panel" className="flex flex-col gap-4">
      <TokenCard token={activity.token} />
      <LoginStoreChoice server={server} token={activity.token} api={api} />
      {traces.length === 0 ? (
        <p data-testid="oauth-no-traces" className="text-sm text-slate-500">
          No OAuth exchange yet in this run of the app. Log in, or restart the server, and every
          request of it shows here.
        </p>
      ) : (
        traces.map((trace) => <TraceView key={trace.id} trace={trace} />)
      )}
    </div>
  );
}

function TokenCard({ token }: { token: TokenState }) {
  const expires = token.expiresAtMs ? new Date(token.expiresAtMs) : null;
  return (
    <dl data-testid="token-state" data-has-token={token.hasToken} className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 rounded-md border border-slate-200 p-3 text-sm dark:border-slate-800">
      <dt className="text-slate-500">Token</dt>
      <dd data-testid="token-held">{token.hasToken ? "Stored" : "None: log in to get one"}</dd>
      {token.hasToken && (
        <>
          <dt className="text-slate-500">Scopes</dt>
          <dd data-testid="token-scopes">{token.scopes.length ? token.scopes.join(" ") : "(none named)"}</dd>
          <dt className="text-slate-500">Expires</dt>
          <dd data-testid="token-expiry">
            {expires ? `${expires.toLocaleString()}${expires.getTime() < Date.now() ? " (expired; refreshed on the next request)" : ""}` : "not said"}
          </dd>
          <dt className="text-slate-500">Refresh token</dt>
          <dd data-testid="token-refresh">{token.hasRefreshToken ? "yes" : "no"}</dd>
          <dt className="text-slate-500">Bound to</dt>
          <dd data-testid="token-binding">
            {token.dpopBound ? "DPoP-bound: useless without this login's key, which the keychain keeps beside it" : "bearer: whoever holds the token can use it"}
          </dd>
          <dt className="text-slate-500">Client</dt>
          <dd className="font-mono text-xs">{token.clientId ?? "—"}</dd>
          <dt className="text-slate-500">Issuer</dt>
          <dd className="font-mono text-xs">{token.issuer ?? "—"}</dd>
        </>
      )}
      <dt className="text-slate-500">Kept in</dt>
      <dd data-testid="token-kept-in">
        {token.keptIn}, account <span className="font-mono text-xs">{token.account}</span>
      </dd>
    </dl>
  );
}

const STORE_LABEL: Record<LoginStore, string> = {
  keychain: "MCP Manager's keychain",
  "claude-code": "Claude Code's store (shared with Claude Code)",
};

/**
 * Where this server's login lives, as the person chooses: in Claude Code's store, one login
 * serves both programs (and a login Claude Code made is used here). Also "Register a new
 * client", for an authorization server that forgot the one registered before.
 */
function LoginStoreChoice({ server, token, api }: { server: string; token: TokenState; api: LoginApi }) {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<Outcome<null>>) => {
    setBusy(true);
    const outcome = await action();
    setBusy(false);
    setError(outcome.ok ? null : outcome.error);
  };
  const id = `login-store-${server}`;
  return (
    <div className="flex flex-col gap-2 rounded-md border border-slate-200 p-3 text-sm dark:border-slate-800">
      <label htmlFor={id} className="font-medium">
        Keep this server's login in
      </label>
      <select
        id={id}
        data-testid="login-store"
        value={token.store}
        disabled={busy}
        onChange={(e) => void run(() => api.setStore(server, e.target.value as LoginStore))}
        className="rounded border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900"
      >
        {(Object.keys(STORE_LABEL) as LoginStore[]).map((store) => (
          <option key={store} value={store}>
            {STORE_LABEL[store]}
          </option>
        ))}
      </select>
      <p className="text-xs text-slate-500">
        {token.store === "claude-code"
          ? "Logging in here writes to ~/.claude/.credentials.json, where Claude Code reads it: you log in once for both. Logging out here logs Claude Code out too."
          : "Claude Code cannot see a login kept here: it asks for its own. Choose Claude Code's store to log in once for both."}
      </p>
      {token.hasRegistration && (
        <button
          type="button"
          data-testid="forget-registration"
          disabled={busy}
          onClick={() => void run(() => api.forgetRegistration(server))}
          className="self-start rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800"
        >
          Register a new client
        </button>
      )}
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {error.message}
        </p>
      )}
    </div>
  );
}

function TraceView({ trace }: { trace: Trace }) {
  const started = trace.startedMs ? new Date(trace.startedMs).toLocaleTimeString() : "";
  return (
    <section data-testid="oauth-trace" data-kind={trace.kind} aria-label={`${KIND_LABEL[trace.kind]} at ${started}`}>
      <h3 className="mb-1 text-sm font-semibold">
        {KIND_LABEL[trace.kind]} <span className="font-normal text-slate-500">· {started}</span>
        {trace.phase && <span className="ml-2 font-normal text-slate-600 dark:text-slate-400">{describePhase(trace.phase)}</span>}
      </h3>
      <ol className="flex flex-col divide-y divide-slate-200 rounded border border-slate-200 dark:divide-slate-800 dark:border-slate-800">
        {trace.exchanges.map((exchange, i) => (
          <StepView key={i} index={i + 1} exchange={exchange} />
        ))}
      </ol>
    </section>
  );
}

const MARK = { ok: "✓", miss: "–", failed: "✗" } as const;
const MARK_TONE = { ok: "text-emerald-600", miss: "text-slate-400", failed: "text-red-600" } as const;

function StepView({ index, exchange }: { index: number; exchange: Exchange }) {
  const [open, setOpen] = useState(exchange.outcome === "failed");
  return (
    <li data-testid="oauth-step" data-step={exchange.step} data-outcome={exchange.outcome}>
      <button
        type="button"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        className="flex w-full items-baseline gap-2 px-2 py-1 text-left text-xs hover:bg-slate-50 dark:hover:bg-slate-800/60"
      >
        <span className="w-5 text-right text-slate-400">{index}.</span>
        <span aria-label={exchange.outcome} className={MARK_TONE[exchange.outcome]}>
          {MARK[exchange.outcome]}
        </span>
        <span className="font-medium">{exchange.title}</span>
        <span data-testid="oauth-rfc" className="rounded bg-slate-100 px-1 text-[10px] text-slate-600 dark:bg-slate-800 dark:text-slate-300">
          {exchange.rfc}
        </span>
        <span className="ml-auto font-mono text-slate-500">
          {exchange.status ?? ""} {exchange.millis ? `${exchange.millis} ms` : ""}
        </span>
      </button>
      {open && (
        <div className="flex flex-col gap-1 px-8 pb-2 font-mono text-xs">
          <p className="break-all">
            {exchange.method} {exchange.url}
          </p>
          {exchange.expected && (
            <p data-testid="oauth-mismatch" className="font-sans text-red-700 dark:text-red-300">
              Expected {exchange.expected}; came {exchange.came ?? "nothing"}.
            </p>
          )}
          <Headers title="Sent" headers={exchange.requestHeaders} body={exchange.requestBody} />
          <Headers title="Received" headers={exchange.responseHeaders} body={exchange.responseBody} />
        </div>
      )}
    </li>
  );
}

function Headers({ title, headers, body }: { title: string; headers: Exchange["requestHeaders"]; body: string | null }) {
  if (headers.length === 0 && !body) return null;
  return (
    <div>
      <div className="font-sans text-[11px] font-semibold text-slate-500">{title}</div>
      <pre className="max-h-60 overflow-auto whitespace-pre-wrap rounded bg-slate-50 p-2 dark:bg-slate-900">
        {headers.map((h) => `${h.name}: ${h.value}`).join("\n")}
        {headers.length > 0 && body ? "\n\n" : ""}
        {body ?? ""}
      </pre>
    </div>
  );
}
