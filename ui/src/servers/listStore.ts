// A framework-free store for the server list: React reads it through useSyncExternalStore,
// tests drive it with any loader; the `config-changed` event calls `refresh()`.
import type { ApiError, ServerList } from "../bindings";
import type { Outcome } from "../ipc/api";

export type ServerListState =
  | { status: "loading" }
  | { status: "ready"; list: ServerList }
  | { status: "error"; error: ApiError };

export class ServerListStore {
  private state: ServerListState = { status: "loading" };
  private readonly listeners = new Set<() => void>();
  private generation = 0;

  constructor(private readonly load: () => Promise<Outcome<ServerList>>) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): ServerListState => this.state;

  /** Loads again. An answer that arrives after a newer request started is dropped. */
  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const outcome = await this.load();
    if (generation !== this.generation) return;
    this.state = outcome.ok
      ? { status: "ready", list: outcome.value }
      : { status: "error", error: outcome.error };
    for (const listener of this.listeners) listener();
  }
}
