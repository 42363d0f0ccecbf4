import { describe, expect, it } from "vitest";
import { toolUi } from "./view";

describe("toolUi", () => {
  it("finds the view, nested before flat, and who may call", () => {
    expect(toolUi(JSON.stringify({ ui: { resourceUri: "ui://a/v" }, "ui/resourceUri": "ui://b/v" }))).toEqual({
      resourceUri: "ui://a/v",
      problem: null,
      model: true,
      app: true,
    });
    expect(toolUi(JSON.stringify({ "ui/resourceUri": "ui://b/v" })).resourceUri).toBe("ui://b/v");
    const appOnly = toolUi(JSON.stringify({ ui: { resourceUri: "ui://a/v", visibility: ["app"] } }));
    expect([appOnly.model, appOnly.app]).toEqual([false, true]);
    expect(toolUi(null)).toMatchObject({ resourceUri: null, problem: null, model: true, app: true });
  });

  it("says why a view that is not ui:// is not shown", () => {
    const bad = toolUi(JSON.stringify({ ui: { resourceUri: "https://evil.example/x.html" } }));
    expect(bad.resourceUri).toBeNull();
    expect(bad.problem).toMatch(/not a ui:\/\/ resource/);
  });
});
