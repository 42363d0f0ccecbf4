// A tool's annotations as badges: read-only, destructive, idempotent, open-world.
const BADGES: Array<[string, string]> = [
  ["readOnlyHint", "read-only"],
  ["destructiveHint", "destructive"],
  ["idempotentHint", "idempotent"],
  ["openWorldHint", "open-world"],
];

/** The badges of the annotations that are true (`annotations`: JSON text, as listed). */
export function Badges({ annotations }: { annotations: string | null }) {
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
          className={`shrink-0 whitespace-nowrap rounded px-1 text-[10px] ${key === "destructiveHint" ? "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200" : "bg-slate-100 text-slate-600 dark:bg-slate-800 dark:text-slate-300"}`}
        >
          {text}
        </span>
      ))}
    </>
  );
}
