// The window's events, fetched rather than pushed (src-tauri/feed.rs). Tauri delivers an event,
// and registers a listener, by evaluating a script in the page, which keeps JavaScriptCore's
// code in the app's own process (4 MiB of it idle). Here one loop asks for the events after the
// last one it saw (`next_events`, which answers as soon as there is one) and hands each to the
// listeners of its name, in the order they were sent. The events and their payloads are the
// ones `ui/src/bindings.ts` declares.
import {
  commands,
  type AsksChanged,
  type CloseAsked,
  type LoginsChanged,
  type ShowLogins,
  type ConfigChanged,
  type FedEvents,
  type LoginActivityChanged,
  type ProjectOpened,
  type ServerStatusChanged,
  type SurfaceChanged,
  type PinChecked,
} from "../bindings";

/** An event as a listener gets it: its payload, as with Tauri's events. */
export type FedEventOf<T> = { payload: T };

/** Where the events come from: the app, or a test. */
export interface FeedSource {
  /** The place of the next event to be sent: listening starts there. */
  cursor(): Promise<number>;
  /** The events from `from` on, once there is one (or none, after a while); null on a failure. */
  next(from: number): Promise<FedEvents | null>;
}

type Handler = (event: FedEventOf<unknown>) => void;

export class EventFeed {
  private readonly handlers = new Map<string, Set<Handler>>();
  private started: Promise<void> | null = null;
  private closed = false;

  /**
   * `onMissed`: the page fell so far behind that events were dropped before it asked for them,
   * so what it shows may be stale (by default it loads again, and reads everything anew).
   */
  constructor(
    private readonly source: FeedSource,
    private readonly onMissed: () => void = () => location.reload(),
    private readonly retryMs = 1000,
  ) {}

  /** Calls `handler` with each event of that name sent from now on; resolves once listening. */
  async listen<T>(name: string, handler: (event: FedEventOf<T>) => void): Promise<() => void> {
    const wrapped = handler as Handler;
    let set = this.handlers.get(name);
    if (!set) this.handlers.set(name, (set = new Set()));
    set.add(wrapped);
    await this.start();
    return () => {
      this.handlers.get(name)?.delete(wrapped);
    };
  }

  /** Stops asking (tests; the window's page asks for as long as it lives). */
  close() {
    this.closed = true;
  }

  private start(): Promise<void> {
    this.started ??= (async () => {
      let from: number | null = null;
      while (from === null && !this.closed) {
        try {
          from = await this.source.cursor();
        } catch {
          await new Promise((r) => setTimeout(r, this.retryMs));
        }
      }
      if (from !== null) void this.follow(from);
    })();
    return this.started;
  }

  private async follow(from: number) {
    while (!this.closed) {
      const batch = await this.source.next(from).catch(() => null);
      if (this.closed) return;
      if (!batch) {
        await new Promise((r) => setTimeout(r, this.retryMs));
        continue;
      }
      if (batch.missed) this.onMissed();
      for (const event of batch.events) {
        for (const handler of [...(this.handlers.get(event.name) ?? [])]) {
          try {
            handler({ payload: event.payload });
          } catch (err) {
            console.error(`a listener of ${event.name} failed`, err);
          }
        }
      }
      from = batch.next;
    }
  }
}

const app: FeedSource = {
  cursor: () => commands.eventsCursor(),
  next: async (from) => {
    const answer = await commands.nextEvents(from);
    return answer.status === "ok" ? answer.data : null;
  },
};

const feed = new EventFeed(app);

function event<T>(name: string) {
  return { listen: (handler: (event: FedEventOf<T>) => void) => feed.listen<T>(name, handler) };
}

/** The window's events by name, as `events` in the bindings names them. */
export const fedEvents = {
  asksChanged: event<AsksChanged>("asks-changed"),
  configChanged: event<ConfigChanged>("config-changed"),
  loginActivityChanged: event<LoginActivityChanged>("login-activity-changed"),
  projectOpened: event<ProjectOpened>("project-opened"),
  serverStatusChanged: event<ServerStatusChanged>("server-status-changed"),
  surfaceChanged: event<SurfaceChanged>("surface-changed"),
  pinChecked: event<PinChecked>("pin-checked"),
  loginsChanged: event<LoginsChanged>("logins-changed"),
  closeAsked: event<CloseAsked>("close-asked"),
  showLogins: event<ShowLogins>("show-logins"),
};
