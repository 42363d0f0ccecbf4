// Words for the Logins view, kept out of the component so they can be tested alone.
import type { ClientRegistration, Login, LoginStore } from "../bindings";

/** "in 4 min", "12 s ago", "in 3 h", as a span from `now`. */
export function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min`;
  if (s < 172800) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} days`;
}

/** When the token expires, from `now`. */
export function expiresText(login: Login, now: number): string {
  if (login.expiresAtMs === null) return "not said by the server";
  const left = login.expiresAtMs - now;
  return left > 0 ? `in ${span(left)}` : `${span(left)} ago (expired)`;
}

export function storeText(store: LoginStore): string {
  return store === "claude-code" ? "Claude Code's store" : "MCP Manager's keychain";
}

export function otherStore(store: LoginStore): LoginStore {
  return store === "claude-code" ? "keychain" : "claude-code";
}

export function clientText(client: ClientRegistration): string {
  switch (client) {
    case "pre-registered":
      return "pre-registered (oauth.clientId)";
    case "metadata-document":
      return "client metadata document";
    case "dynamic":
      return "registered dynamically";
    case "machine":
      return "machine grant";
    default:
      return "registered elsewhere";
  }
}

/** The last refresh: "3 min ago: refreshed", or its failure. */
export function lastRefreshText(login: Login, now: number): string {
  const last = login.lastRefresh;
  if (!last || last.atMs === null) return "none yet";
  return `${span(now - last.atMs)} ago: ${last.words}`;
}

/** What the keeper does next with the login. */
export function keeperText(login: Login, now: number): string {
  if (login.lapsed) return `Needs a new login: ${login.lapsed}`;
  if (login.leftForClaudeCode) {
    return "Due, and left to Claude Code, which runs now: it refreshes this login itself when it needs it";
  }
  if (login.refreshAtMs !== null) {
    const left = login.refreshAtMs - now;
    return left > 0 ? `Refreshed by the keeper in ${span(left)}` : "Being refreshed by the keeper";
  }
  return login.notKept ?? "";
}

/** Whether the login needs the person now. */
export function needsPerson(login: Login, now: number): boolean {
  return !!login.lapsed || (!login.hasRefreshToken && login.expiresAtMs !== null && login.expiresAtMs <= now);
}
