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

  it("reads a _meta.ui it cannot read as for the model only (as crates/apps does)", () => {
    for (const meta of ['{"ui":{"visibility":"model"}}', '{"ui":{"visibility":[{"app":true}]}}', '{"ui":"app"}', '{"ui":{"resourceUri":7,"visibility":["app"]}}', '{"ui":', '["app"]']) {
      const ui = toolUi(meta);
      expect([meta, ui.model, ui.app]).toEqual([meta, true, false]);
      expect(ui.problem).not.toBeNull();
    }
  });
});
