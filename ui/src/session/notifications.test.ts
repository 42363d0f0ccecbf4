import { describe, expect, it } from "vitest";
import type { LoggedMessage } from "../bindings";
import { notices } from "./notifications";

const msg = (seq: number, direction: "in" | "out", kind: LoggedMessage["kind"], body: object): LoggedMessage => ({
  seq,
  atMs: seq,
  direction,
  kind,
  method: "method" in body ? String(body.method) : null,
  id: null,
  text: JSON.stringify({ jsonrpc: "2.0", ...body }),
  size: 0,
  truncated: false,
});

describe("notices", () => {
  const log = [
    msg(1, "out", "notification", { method: "notifications/initialized" }),
    msg(2, "in", "notification", { method: "notifications/message", params: { level: "error", logger: "db", data: "lost" } }),
    msg(3, "in", "request", { method: "roots/list", id: 1 }),
    msg(4, "in", "notification", { method: "notifications/resources/updated", params: { uri: "x://1" } }),
    msg(5, "in", "notification", { method: "notifications/message", params: { level: "info", data: { n: 1 } } }),
  ];

  it("keeps what the server sent as notifications, newest first, log messages read out", () => {
    const shown = notices(log, false);
    expect(shown.map((n) => n.seq)).toEqual([5, 4, 2]);
    expect(shown[0]!.log).toEqual({ level: "info", logger: null, data: '{"n":1}' });
    expect(shown[1]!.params).toBe('{"uri":"x://1"}');
    expect(shown[2]!.log).toEqual({ level: "error", logger: "db", data: "lost" });
  });

  it("can keep only the log messages", () => {
    expect(notices(log, true).map((n) => n.seq)).toEqual([5, 2]);
  });
});
