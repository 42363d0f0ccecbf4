// A framework-free store of each server's live status, fed by the backend's
// `server-status-changed` events (one per supervisor transition, in order) and by one snapshot
// at start. Events that arrive before the snapshot answers are kept: the snapshot fills in
// only servers no event has spoken for, so an older snapshot never undoes a newer event.
import type { ServerStatus, StatusEvent } from "../bindings";
import type { Outcome } from "../ipc/api";

export type Statuses = ReadonlyMap<string, ServerStatus>;

export class StatusStore {
  private statuses: Statuses = new Map();
  private readonly heard = new Set<string>();
  private readonly listeners = new Set<() => void>();

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): Statuses => this.statuses;

  /** One transition of one server. */
  apply(event: StatusEvent): void {
    this.heard.add(event.server);
    this.set([[event.server, event.status]]);
  }

  /** Every status as the backend holds it now, for servers no event has spoken for yet. */
  async load(snapshot: () => Promise<Outcome<StatusEvent[]>>): Promise<void> {
    const outcome = await snapshot();
    if (!outcome.ok) return;
    this.set(
      outcome.value
        .filter((event) => !this.heard.has(event.server))
        .map((event) => [event.server, event.status]),
    );
  }

  private set(entries: Array<[string, ServerStatus]>): void {
    if (entries.length === 0) return;
    const next = new Map(this.statuses);
    for (const [server, status] of entries) next.set(server, status);
    this.statuses = next;
    for (const listener of this.listeners) listener();
  }
}
