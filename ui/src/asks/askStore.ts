// The requests servers are waiting on the person for, as the window shows them: loaded once,
// then again on each `asks-changed` event. Framework-free; components read it through
// useSyncExternalStore.
import type { PendingAsk } from "../bindings";
import type { Outcome } from "../ipc/api";

export class AskStore {
  private asks: PendingAsk[] = [];
  private error: string | null = null;
  private listeners = new Set<() => void>();
  private loading = 0;

  constructor(private readonly fetch: () => Promise<Outcome<PendingAsk[]>>) {}

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = () => this.asks;

  /** Why the last load failed, if it did. */
  problem = () => this.error;

  /** Reads the waiting requests again; a late answer of an older load is dropped. */
  async load() {
    const turn = ++this.loading;
    const outcome = await this.fetch();
    if (turn !== this.loading) return;
    if (outcome.ok) {
      this.asks = outcome.value;
      this.error = null;
    } else {
      this.error = outcome.error.message;
    }
    this.listeners.forEach((listener) => listener());
  }
}
