import { describe, expect, it } from "vitest";
import { call, toApiError } from "./api";

describe("toApiError", () => {
  it("keeps a backend ApiError as it is", () => {
    expect(toApiError({ code: "config-syntax", message: "x line 1 column 2" })).toEqual({
      code: "config-syntax",
      message: "x line 1 column 2",
    });
  });

  it("turns a framework string rejection into code internal", () => {
    expect(toApiError("command list_servers not found")).toEqual({
      code: "internal",
      message: "command list_servers not found",
    });
  });

  it("turns a thrown Error into code internal with its message", () => {
    expect(toApiError(new Error("boom"))).toEqual({ code: "internal", message: "boom" });
  });
});

describe("call", () => {
  it("passes data through and folds typed and thrown failures into an outcome", async () => {
    expect(await call(() => Promise.resolve({ status: "ok" as const, data: 3 }))).toEqual({
      ok: true,
      value: 3,
    });
    const typed = await call(() =>
      Promise.resolve({
        status: "error" as const,
        error: { code: "server-not-found" as const, message: "no x" },
      }),
    );
    expect(typed).toEqual({ ok: false, error: { code: "server-not-found", message: "no x" } });
    const thrown = await call(() => Promise.reject(new Error("ipc gone")));
    expect(thrown).toEqual({ ok: false, error: { code: "internal", message: "ipc gone" } });
  });
});
