// A framework-free store for the server list: React reads it through useSyncExternalStore,
// tests drive it with any loader; the `config-changed` event calls `refresh()`.
import type { ApiError, ServerList } from "../bindings";
import type { Outcome } from "../ipc/api";

export type ServerListState =
  | { status: "loading" }
  | { status: "ready"; list: ServerList }
  | { status: "error"; error: ApiError };

export class ServerListStore {
  private state: ServerListState;
  private readonly listeners = new Set<() => void>();
  private generation = 0;

  /** `first`: a list already read (at start-up, before the first render), shown at once. */
  constructor(
    private readonly load: () => Promise<Outcome<ServerList>>,
    first?: Outcome<ServerList>,
  ) {
    this.state = first ? stateOf(first) : { status: "loading" };
  }

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
    // The very list shown already (the start-up one): nothing to draw again.
    if (outcome.ok && this.state.status === "ready" && this.state.list === outcome.value) return;
    this.state = stateOf(outcome);
    for (const listener of this.listeners) listener();
  }
}

function stateOf(outcome: Outcome<ServerList>): ServerListState {
  return outcome.ok ? { status: "ready", list: outcome.value } : { status: "error", error: outcome.error };
}
