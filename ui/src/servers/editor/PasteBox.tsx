// Paste from a README: a `claude mcp add …` line, a `{"mcpServers": …}` or VS Code
// `{"servers": …}` block, or one entry, read by the backend (crates/core config::snippet, the
// parser `mcpctl add` shares). One server fills the editor's form; several are listed and
// added together, each through the same save as the form.
import { useState } from "react";
import type { ApiError, PastedDrafts, Scope, ServerDraft } from "../../bindings";
import { Button } from "../../shared/Button";
import { ErrorNotice } from "../../shared/ErrorNotice";
import type { DraftApi } from "./ServerEditor";

const INPUT = "w-full rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700";

/** A snippet from a README: one server fills the form; several are listed and added together. */
export function PasteBox({
  paste,
  scope,
  save,
  onDraft,
  onAddedAll,
}: {
  paste: NonNullable<DraftApi["paste"]>;
  scope: Scope;
  save: DraftApi["save"];
  onDraft: (draft: ServerDraft) => void;
  onAddedAll: () => void;
}) {
  const [text, setText] = useState("");
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [many, setMany] = useState<PastedDrafts | null>(null);
  const [added, setAdded] = useState<string[]>([]);
  const read = async () => {
    const outcome = await paste(text, scope);
    if (!outcome.ok) return setFailure(outcome.error);
    setFailure(null);
    if (outcome.value.drafts.length === 1) {
      setMany(null);
      const only = outcome.value.drafts[0];
      if (only) onDraft(only);
    } else setMany(outcome.value);
  };
  const addAll = async () => {
    if (!many) return;
    const done: string[] = [];
    for (const draft of many.drafts) {
      const outcome = await save(draft, null);
      if (!outcome.ok) {
        setAdded(done);
        return setFailure({ ...outcome.error, message: `${draft.name}: ${outcome.error.message}` });
      }
      done.push(draft.name);
    }
    setAdded(done);
    onAddedAll();
  };
  return (
    <details className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
      <summary className="cursor-pointer text-sm font-medium">Paste from a README</summary>
      <label htmlFor="draft-paste" className="mt-2 block text-xs text-slate-600 dark:text-slate-400">
        A <span className="font-mono">claude mcp add …</span> line, a <span className="font-mono">{'{"mcpServers": …}'}</span> or VS Code <span className="font-mono">{'{"servers": …}'}</span> block, or one entry
      </label>
      <textarea id="draft-paste" data-testid="draft-paste" rows={4} value={text} onChange={(e) => setText(e.target.value)} className={`${INPUT} mt-1 font-mono text-xs`} />
      <div className="mt-2">
        <Button testId="draft-paste-read" onClick={() => void read()} disabled={text.trim() === ""}>
          Fill the form
        </Button>
      </div>
      {many && (
        <div data-testid="draft-paste-many" className="mt-2 text-sm">
          <p>
            {many.drafts.length} servers ({many.form}), added to the {many.drafts[0]?.scope} scope:
          </p>
          <ul className="ml-4 list-disc font-mono text-xs">
            {many.drafts.map((d) => (
              <li key={d.name}>
                {d.name}: {d.transport === "stdio" ? [d.command, ...d.args].join(" ") : d.url}
                {added.includes(d.name) ? " — added" : ""}
              </li>
            ))}
          </ul>
          <Button testId="draft-paste-add-all" tone="primary" onClick={() => void addAll()}>
            Add these {many.drafts.length} servers
          </Button>
        </div>
      )}
      {failure && <ErrorNotice error={failure} testId="draft-paste-error" />}
    </details>
  );
}
