// What a tool's _meta says about its App (the same rules as crates/apps/src/view.rs, which
// is the one that decides): its view, and who may call it.
export type ToolUi = {
  /** The view (a ui:// URI), or why it is not one. */
  resourceUri: string | null;
  problem: string | null;
  /** Claude (the model) may call it. */
  model: boolean;
  /** Its App may call it. */
  app: boolean;
};

export function toolUi(metaJson: string | null): ToolUi {
  let meta: Record<string, unknown> = {};
  try {
    meta = metaJson ? (JSON.parse(metaJson) as Record<string, unknown>) : {};
  } catch {
    meta = {};
  }
  const ui = (meta.ui && typeof meta.ui === "object" ? meta.ui : {}) as Record<string, unknown>;
  const uri = ui.resourceUri ?? meta["ui/resourceUri"];
  const visibility = Array.isArray(ui.visibility) ? (ui.visibility as unknown[]) : null;
  const good = typeof uri === "string" && uri.startsWith("ui://") && uri.length > 5;
  return {
    resourceUri: good ? uri : null,
    problem: uri === undefined || uri === null || good ? null : `its view ${JSON.stringify(uri)} is not a ui:// resource`,
    model: visibility ? visibility.includes("model") : true,
    app: visibility ? visibility.includes("app") : true,
  };
}
