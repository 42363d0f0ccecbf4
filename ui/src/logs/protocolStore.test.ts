import { describe, expect, it } from "vitest";
import type { LoggedMessage } from "../bindings";
import { KEPT, pretty, ProtocolStore, visible } from "./protocolStore";

function message(seq: number, more: Partial<LoggedMessage> = {}): LoggedMessage {
  return {
    seq,
    atMs: 1_700_000_000_000 + seq,
    direction: "out",
    kind: "request",
    method: "tools/list",
    id: String(seq),
    text: `{"jsonrpc":"2.0","id":${seq},"method":"tools/list"}`,
    size: 40,
    truncated: false,
    ...more,
  };
}

describe("ProtocolStore", () => {
  it("appends batches once each, and keeps a bounded tail", () => {
    const store = new ProtocolStore();
    store.append([message(1), message(2)]);
    store.append([message(2), message(3)]);
    expect(store.getSnapshot().map((m) => m.seq)).toEqual([1, 2, 3]);
    store.append(Array.from({ length: KEPT + 5 }, (_, i) => message(i + 4)));
    expect(store.getSnapshot()).toHaveLength(KEPT);
    expect(store.last).toBe(KEPT + 8);
  });
});

describe("visible", () => {
  const all = [
    message(1),
    message(2, { direction: "in", kind: "response" }),
    message(3, { method: "notifications/progress", kind: "notification", direction: "in" }),
  ];

  it("shows the newest first and filters by method and direction", () => {
    expect(visible(all, { method: "", direction: "both" }).map((m) => m.seq)).toEqual([3, 2, 1]);
    expect(visible(all, { method: "PROGRESS", direction: "both" }).map((m) => m.seq)).toEqual([3]);
    expect(visible(all, { method: "tools", direction: "in" }).map((m) => m.seq)).toEqual([2]);
  });

  it("pretty-prints whole JSON and says what was cut", () => {
    expect(pretty(message(1))).toContain('\n  "method": "tools/list"');
    expect(pretty(message(1, { text: '{"a":', truncated: true, size: 900000 }))).toContain("900000 bytes");
  });
});

describe("clock", () => {
  it("shows the time of day to the millisecond", async () => {
    const { clock } = await import("./ProtocolLog");
    const at = new Date(2026, 10, 30, 9, 5, 7, 42).getTime();
    expect(clock(at)).toBe("09:05:07.042");
  });
});
