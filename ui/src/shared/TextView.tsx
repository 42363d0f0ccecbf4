// Text a server sent, in the view that suits it: JSON as a tree when it is JSON, Markdown
// rendered when asked for (or when its type says so), plain otherwise; any of them on a click.
// Long text is painted a piece at a time, and the heavy views are not offered beyond a size.
import { useMemo, useState } from "react";
import { JsonTree } from "./JsonTree";
import { LongText } from "./LongText";
import { Markdown, MARKDOWN_LIMIT } from "./Markdown";

type Mode = "plain" | "markdown" | "json";

/** Above this, text is not parsed as JSON for the tree. */
const JSON_LIMIT = 8 * 1024 * 1024;

export function TextView({ text, mimeType, testId }: { text: string; mimeType?: string; testId: string }) {
  const json = useMemo(() => {
    if (text.length > JSON_LIMIT) return undefined;
    const start = text.trimStart()[0];
    if (start !== "{" && start !== "[") return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }, [text]);
  const markdownOk = text.length <= MARKDOWN_LIMIT;
  const [mode, setMode] = useState<Mode>(json !== undefined ? "json" : mimeType === "text/markdown" && markdownOk ? "markdown" : "plain");
  const modes: Mode[] = ["plain", ...(markdownOk ? (["markdown"] as const) : []), ...(json !== undefined ? (["json"] as const) : [])];
  return (
    <div data-testid={`${testId}-view`} data-mode={mode} className="flex flex-col gap-1">
      {modes.length > 1 && (
        <div role="group" aria-label="Show as" className="flex gap-1 text-xs">
          {modes.map((m) => (
            <button
              key={m}
              type="button"
              data-testid={`view-${m}`}
              aria-pressed={mode === m}
              onClick={() => setMode(m)}
              className={`rounded border px-1.5 ${mode === m ? "border-indigo-600 font-semibold" : "border-slate-300 dark:border-slate-700"}`}
            >
              {m === "plain" ? "Text" : m === "markdown" ? "Markdown" : "JSON"}
            </button>
          ))}
        </div>
      )}
      {mode === "json" ? (
        <JsonTree value={json as never} />
      ) : mode === "markdown" ? (
        <Markdown text={text} />
      ) : (
        <LongText text={text} testId={testId} />
      )}
    </div>
  );
}
