import { describe, expect, it } from "vitest";
import { applySuggestion, emptyDraft, move, notesFor, setRowValue } from "./draft";

describe("move", () => {
  it("reorders arguments without losing or duplicating any, clamped at the ends", () => {
    expect(move(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    expect(move(["a", "b", "c"], 0, -1)).toEqual(["a", "b", "c"]);
    expect(move(["a", "b", "c"], 1, 5)).toEqual(["a", "c", "b"]);
  });
});

describe("rows", () => {
  it("a kept secret stops being kept once the person types a new value", () => {
    const rows = setRowValue([{ key: "TOKEN", value: "", kept: true }], 0, "${TOKEN}");
    expect(rows).toEqual([{ key: "TOKEN", value: "${TOKEN}", kept: false }]);
  });

  it("a secret warning's suggestion replaces the value it is about", () => {
    const draft = { ...emptyDraft("project", "http"), headers: [{ key: "Authorization", value: "Bearer ghp_x", kept: false }] };
    const note = { field: "headers.0.value", message: "looks like a secret", suggestion: "Bearer ${GH_TOKEN}" };
    expect(applySuggestion(draft, note).headers[0]?.value).toBe("Bearer ${GH_TOKEN}");
    expect(notesFor([note], "headers.0.value")).toEqual([note]);
    expect(notesFor([note], "headers.1.value")).toEqual([]);
  });
});
