import { describe, expect, it } from "vitest";
import type { FedEvents } from "../bindings";
import { EventFeed, type FeedSource } from "./feed";

/** A source that answers `next` with the batches given, in turn, then waits forever. */
function source(cursor: number, batches: (FedEvents | null | Error)[]) {
  const asked: number[] = [];
  const from: FeedSource = {
    cursor: async () => cursor,
    next: async (at) => {
      asked.push(at);
      const batch = batches.shift();
      if (batch === undefined) return new Promise<never>(() => {});
      if (batch instanceof Error) throw batch;
      return batch;
    },
  };
  return { from, asked };
}

const event = (seq: number, name: string, payload: unknown) => ({ seq, name, payload });
const settle = () => new Promise((r) => setTimeout(r, 5));

describe("EventFeed", () => {
  it("hands each event to the listeners of its name, in order, and asks from where the last answer ended", async () => {
    const { from, asked } = source(7, [
      { events: [event(7, "config-changed", { servers: ["a"] }), event(8, "asks-changed", null)], next: 9, missed: false },
      { events: [event(9, "config-changed", { servers: ["b"] })], next: 10, missed: false },
    ]);
    const feed = new EventFeed(from, () => {}, 1);
    const configs: unknown[] = [];
    const asks: unknown[] = [];
    await Promise.all([feed.listen("config-changed", (e) => configs.push(e.payload)), feed.listen("asks-changed", (e) => asks.push(e.payload))]);
    await settle();
    expect(configs).toEqual([{ servers: ["a"] }, { servers: ["b"] }]);
    expect(asks).toEqual([null]);
    expect(asked).toEqual([7, 9, 10]);
    feed.close();
  });

  it("stops handing events to a listener that stopped listening", async () => {
    let release: (batch: FedEvents) => void = () => {};
    const feed = new EventFeed(
      { cursor: async () => 0, next: () => new Promise<FedEvents>((r) => (release = r)) },
      () => {},
      1,
    );
    const seen: unknown[] = [];
    const stop = await feed.listen("surface-changed", (e) => seen.push(e.payload));
    await settle();
    stop();
    release({ events: [event(0, "surface-changed", 1)], next: 1, missed: false });
    await settle();
    expect(seen).toEqual([]);
    feed.close();
  });

  it("says when events were dropped before the page asked for them", async () => {
    const { from } = source(0, [{ events: [event(4096, "asks-changed", null)], next: 4097, missed: true }]);
    let missed = 0;
    const feed = new EventFeed(from, () => missed++, 1);
    await feed.listen("asks-changed", () => {});
    await settle();
    expect(missed).toBe(1);
    feed.close();
  });

  it("asks again from the same place after a failed call, and a failing listener stops no other", async () => {
    const { from, asked } = source(3, [
      new Error("the IPC failed"),
      null,
      { events: [event(3, "project-opened", { projectDir: "/p" })], next: 4, missed: false },
    ]);
    const feed = new EventFeed(from, () => {}, 1);
    const seen: unknown[] = [];
    await Promise.all([
      feed.listen("project-opened", () => {
        throw new Error("a broken listener");
      }),
      feed.listen("project-opened", (e) => seen.push(e.payload)),
    ]);
    await new Promise((r) => setTimeout(r, 30));
    expect(asked.slice(0, 4)).toEqual([3, 3, 3, 4]);
    expect(seen).toEqual([{ projectDir: "/p" }]);
    feed.close();
  });
});
