import { describe, expect, it } from "vitest";
import { AskStore } from "./askStore";
import type { PendingAsk } from "../bindings";
import type { Outcome } from "../ipc/api";

const ask = (id: number): PendingAsk => ({ id, server: "s", kind: "form", request: "{}", receivedMs: 0 });

describe("AskStore", () => {
  it("keeps the newest load's answer when loads overlap", async () => {
    const answers: ((o: Outcome<PendingAsk[]>) => void)[] = [];
    const store = new AskStore(() => new Promise((resolve) => answers.push(resolve)));
    let heard = 0;
    store.subscribe(() => heard++);
    const first = store.load();
    const second = store.load();
    answers[1]!({ ok: true, value: [ask(2)] });
    await second;
    answers[0]!({ ok: true, value: [ask(1)] });
    await first;
    expect(store.getSnapshot().map((a) => a.id)).toEqual([2]);
    expect(heard).toBe(1);
  });

  it("keeps what it had and says why when a load fails", async () => {
    let fail = false;
    const store = new AskStore(async () =>
      fail ? { ok: false, error: { code: "internal", message: "gone" } } : { ok: true, value: [ask(1)] },
    );
    await store.load();
    fail = true;
    await store.load();
    expect(store.getSnapshot().map((a) => a.id)).toEqual([1]);
    expect(store.problem()).toBe("gone");
  });
});
