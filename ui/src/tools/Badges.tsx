// A tool's annotations as badges (read-only, destructive, idempotent, open-world), and its
// App: "App" when it has a view, "hidden from Claude" when only its App may call it.
import { toolUi } from "../apps/view";

const BADGES: Array<[string, string]> = [
  ["readOnlyHint", "read-only"],
  ["destructiveHint", "destructive"],
  ["idempotentHint", "idempotent"],
  ["openWorldHint", "open-world"],
];

const QUIET = "bg-slate-100 text-slate-600 dark:bg-slate-800 dark:text-slate-300";

/** The badges of the annotations that are true, and of the App (`annotations`, `meta`: JSON text, as listed). */
export function Badges({ annotations, meta = null }: { annotations: string | null; meta?: string | null }) {
  const ui = toolUi(meta);
  let parsed: Record<string, unknown> = {};
  try {
    parsed = annotations ? (JSON.parse(annotations) as Record<string, unknown>) : {};
  } catch {
    parsed = {};
  }
  return (
    <>
      {BADGES.filter(([key]) => parsed[key] === true).map(([key, text]) => (
        <span
          key={key}
          data-testid="badge"
          className={`shrink-0 whitespace-nowrap rounded px-1 text-[10px] ${key === "destructiveHint" ? "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200" : QUIET}`}
        >
          {text}
        </span>
      ))}
      {ui.resourceUri && (
        <span data-testid="app-badge" title={`Has an App: ${ui.resourceUri}`} className="shrink-0 whitespace-nowrap rounded bg-indigo-100 px-1 text-[10px] text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200">
          App
        </span>
      )}
      {!ui.model && (
        <span data-testid="app-only-badge" title="_meta.ui.visibility leaves out the model: only its App calls it" className={`shrink-0 whitespace-nowrap rounded px-1 text-[10px] ${QUIET}`}>
          hidden from Claude
        </span>
      )}
    </>
  );
}
