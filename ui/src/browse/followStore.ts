// The resources the window follows (`resources/subscribe`), for as long as the project is
// open or until the person stops: a person follows a resource, goes to run the tool that
// changes it, and comes back to it read again. Framework-free; the views read it through
// useSyncExternalStore and re-read a resource when its count of updates moves.
import type { ApiError } from "../bindings";
import type { Outcome } from "../ipc/api";

export interface Followed {
  /** The backend's id of the subscription; null while it is being made. */
  id: number | null;
  updates: number;
  lastMs: number | null;
}

export interface FollowApi {
  follow: (server: string, uri: string, updated: () => void) => Promise<Outcome<number>>;
  unfollow: (id: number) => Promise<Outcome<null>>;
}

const key = (server: string, uri: string) => `${server}\n${uri}`;

export class FollowStore {
  private follows: ReadonlyMap<string, Followed> = new Map();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly api: FollowApi) {}

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = () => this.follows;

  /** How `uri` of `server` is followed, if it is. */
  of(server: string, uri: string): Followed | undefined {
    return this.follows.get(key(server, uri));
  }

  private set(k: string, value: Followed | undefined) {
    const next = new Map(this.follows);
    if (value) next.set(k, value);
    else next.delete(k);
    this.follows = next;
    this.listeners.forEach((l) => l());
  }

  /** Subscribes; the reason when the server refuses. */
  async follow(server: string, uri: string): Promise<ApiError | null> {
    const k = key(server, uri);
    if (this.follows.has(k)) return null;
    this.set(k, { id: null, updates: 0, lastMs: null });
    const outcome = await this.api.follow(server, uri, () => {
      const now = this.follows.get(k);
      if (now) this.set(k, { ...now, updates: now.updates + 1, lastMs: Date.now() });
    });
    if (!outcome.ok) {
      this.set(k, undefined);
      return outcome.error;
    }
    const now = this.follows.get(k);
    if (now) this.set(k, { ...now, id: outcome.value });
    else void this.api.unfollow(outcome.value); // stopped while it was being made
    return null;
  }

  /** Unsubscribes. */
  async unfollow(server: string, uri: string): Promise<void> {
    const k = key(server, uri);
    const now = this.follows.get(k);
    this.set(k, undefined);
    if (now?.id != null) await this.api.unfollow(now.id);
  }
}
