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

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A `_meta.ui` that cannot be read grants an App nothing: the tool is the model's only. */
export function toolUi(metaJson: string | null): ToolUi {
  const modelOnly = (problem: string): ToolUi => ({ resourceUri: null, problem, model: true, app: false });
  let meta: unknown = {};
  try {
    meta = metaJson ? JSON.parse(metaJson) : {};
  } catch {
    return modelOnly("its _meta is not JSON");
  }
  if (meta === null) meta = {};
  if (!isObject(meta)) return modelOnly("its _meta is not an object");
  if (meta.ui !== undefined && meta.ui !== null && !isObject(meta.ui)) return modelOnly("its _meta.ui is not an object");
  const ui = isObject(meta.ui) ? meta.ui : {};
  const uri = ui.resourceUri ?? meta["ui/resourceUri"];
  const good = typeof uri === "string" && uri.startsWith("ui://") && uri.length > 5;
  if (uri !== undefined && uri !== null && !good) return modelOnly(`its view ${JSON.stringify(uri)} is not a ui:// resource`);
  const said = ui.visibility;
  if (said !== undefined && said !== null && !(Array.isArray(said) && said.every((who) => typeof who === "string"))) {
    return modelOnly('its _meta.ui.visibility is not a list of "model" and "app"');
  }
  const visibility = Array.isArray(said) ? (said as string[]) : null;
  return {
    resourceUri: good ? uri : null,
    problem: null,
    model: visibility ? visibility.includes("model") : true,
    app: visibility ? visibility.includes("app") : true,
  };
}
