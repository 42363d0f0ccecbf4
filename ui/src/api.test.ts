import { describe, expect, it } from "vitest";
import { toApiError } from "./api";

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
