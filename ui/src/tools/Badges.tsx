// A tool's annotations as badges (read-only, destructive, idempotent, open-world), and its
// App: "App" when it has a view, "hidden from Claude" when only its App may call it.
import { toolUi } from "../apps/view";

const ANNOTATIONS: Array<[string, string]> = [
  ["readOnlyHint", "read-only"],
  ["destructiveHint", "destructive"],
  ["idempotentHint", "idempotent"],
  ["openWorldHint", "open-world"],
];

const QUIET = "bg-slate-100 text-slate-600 dark:bg-slate-800 dark:text-slate-300";
/** What every badge is drawn with: its text's size, and 4 px each side of it. */
export const BADGE = "shrink-0 whitespace-nowrap rounded px-1 text-[10px]";
/** The padding `BADGE` gives a badge, in pixels, both sides together. */
export const BADGE_PADDING = 8;

export interface Badge {
  testid: string;
  key: string;
  text: string;
  tone: string;
  title?: string;
}

/** The badges of the annotations that are true, and of the App (`annotations`, `meta`: JSON text, as listed). */
export function badgesOf(annotations: string | null, meta: string | null = null): Badge[] {
  const ui = toolUi(meta);
  let parsed: Record<string, unknown> = {};
  try {
    parsed = annotations ? (JSON.parse(annotations) as Record<string, unknown>) : {};
  } catch {
    parsed = {};
  }
  const badges: Badge[] = ANNOTATIONS.filter(([key]) => parsed[key] === true).map(([key, text]) => ({
    testid: "badge",
    key,
    text,
    tone: key === "destructiveHint" ? "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200" : QUIET,
  }));
  if (ui.resourceUri) {
    badges.push({ testid: "app-badge", key: "app", text: "App", title: `Has an App: ${ui.resourceUri}`, tone: "bg-indigo-100 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200" });
  }
  if (!ui.model) {
    badges.push({ testid: "app-only-badge", key: "app-only", text: "hidden from Claude", title: "_meta.ui.visibility leaves out the model: only its App calls it", tone: QUIET });
  }
  return badges;
}

/** What clients drop or change of a tool, a badge each: "Claude Code drops" / "Claude Code changes". */
export function clientBadges(notes: ReadonlyArray<{ client: string; effect: string; words: string }>): Badge[] {
  return notes.map((note) => ({
    testid: "client-badge",
    key: `client-${note.client}-${note.effect}`,
    text: `${note.client} ${note.effect === "dropped" ? "drops" : "changes"}`,
    title: note.words,
    tone: note.effect === "dropped" ? "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200" : "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-200",
  }));
}

/** A tool's badges: from its `annotations` and `meta`, or `badges` already made of them. */
export function Badges({ annotations = null, meta = null, badges = badgesOf(annotations, meta) }: { annotations?: string | null; meta?: string | null; badges?: Badge[] }) {
  return (
    <>
      {badges.map((badge) => (
        <span key={badge.key} data-testid={badge.testid} title={badge.title} className={`${BADGE} ${badge.tone}`}>
          {badge.text}
        </span>
      ))}
    </>
  );
}
