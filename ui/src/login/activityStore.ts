// A framework-free store of one remote server's login activity: loaded once, then again each
// time the backend says that server's login moved on or an OAuth exchange was recorded.
// Reloads that overlap keep the newest answer only.
import type { ApiError, OAuthActivity, Phase } from "../bindings";
import type { Outcome } from "../ipc/api";

export interface ActivitySource {
  activity: (server: string) => Promise<Outcome<OAuthActivity>>;
  onChanged: (changed: (server: string) => void) => Promise<() => void>;
}

export interface ActivityView {
  activity: OAuthActivity | null;
  error: ApiError | null;
}

export class LoginActivityStore {
  private view: ActivityView = { activity: null, error: null };
  private readonly listeners = new Set<() => void>();
  private asked = 0;

  constructor(
    private readonly server: string,
    private readonly source: ActivitySource,
  ) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): ActivityView => this.view;

  /** Listens for changes, then loads; returns what stops listening. */
  async connect(): Promise<() => void> {
    const stop = await this.source.onChanged((server) => {
      if (server === this.server) void this.load();
    });
    await this.load();
    return stop;
  }

  async load(): Promise<void> {
    const ticket = ++this.asked;
    const outcome = await this.source.activity(this.server);
    if (ticket !== this.asked) return;
    this.view = outcome.ok ? { activity: outcome.value, error: null } : { activity: this.view.activity, error: outcome.error };
    for (const listener of this.listeners) listener();
  }
}

/** What a login phase means, in words for the person. */
export function describePhase(phase: Phase): string {
  switch (phase.phase) {
    case "discovering":
      return "Finding the server's authorization server…";
    case "registering":
      return "Registering MCP Manager with the authorization server…";
    case "waiting-for-browser":
      return phase.opened
        ? "Waiting for you to log in in your browser."
        : "No browser opened. Open this address in a browser to log in:";
    case "exchanging":
      return "Exchanging the authorization code for tokens…";
    case "connecting":
      return "Logged in. Connecting with the new token…";
    case "connected":
      return "Logged in and connected.";
    case "failed":
      return `The login failed: ${phase.message}`;
    case "cancelled":
      return "The login was cancelled.";
  }
}

/** Whether the phase is a login still under way. */
export function inProgress(phase: Phase | null | undefined): boolean {
  return !!phase && ["discovering", "registering", "waiting-for-browser", "exchanging", "connecting"].includes(phase.phase);
}
