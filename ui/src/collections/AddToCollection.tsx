// "Add to collection": a call tried by hand kept as a case, its outcome and result (the
// snapshot) proposed as what is expected. Shared collections go to the project's
// .mcp-collections/ (committed with .mcp.json); private ones to the app's data folder.
import { useEffect, useId, useState } from "react";
import type { AddedCase } from "../bindings";
import type { CollectionsApi } from "./api";

type Props = {
  api: CollectionsApi;
  /** The default case name (the tool's). */
  tool: string;
  /** Saves into `collection`; the window's call or the history entry is the caller's. */
  save: (collection: string, shared: boolean, caseName: string | null) => ReturnType<CollectionsApi["add"]>;
};

export function AddToCollection({ api, tool, save }: Props) {
  const [open, setOpen] = useState(false);
  const [collection, setCollection] = useState("");
  const [shared, setShared] = useState(true);
  const [caseName, setCaseName] = useState("");
  const [known, setKnown] = useState<string[]>([]);
  const [saved, setSaved] = useState<AddedCase | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [trusted, setTrusted] = useState(true);
  const id = useId();

  useEffect(() => {
    if (!open) return;
    void api.list().then((outcome) => {
      if (!outcome.ok) return;
      const names = outcome.value.map((c) => c.name);
      setKnown(names);
      setCollection((now) => now || names[0] || "smoke");
    });
    void api.folderTrusted().then((yes) => {
      setTrusted(yes);
      // A folder not trusted yet takes no file of ours: keep the case privately unless asked.
      if (!yes) setShared(false);
    });
  }, [api, open]);

  if (!open) {
    return (
      <div className="flex flex-col gap-1">
        <button type="button" data-testid="add-to-collection" onClick={() => setOpen(true)} className="self-start rounded border border-slate-300 px-2 text-xs dark:border-slate-700">
          Add to collection…
        </button>
        {saved && (
          <p data-testid="added-to-collection" className="text-xs text-emerald-700 dark:text-emerald-300">
            Kept as “{saved.name}” in {saved.path}.
            {saved.variables.length > 0 && ` Secret arguments were written as ${saved.variables.map((v) => `\${${v}}`).join(", ")}: set them before running.`}
          </p>
        )}
        {saved?.runsAfterTrust && (
          <p data-testid="added-runs-after-trust" role="status" className="text-xs text-amber-800 dark:text-amber-200">
            {saved.runsAfterTrust}
          </p>
        )}
      </div>
    );
  }
  return (
    <form
      data-testid="add-to-collection-form"
      aria-label="Add to collection"
      className="flex flex-wrap items-end gap-2 rounded-md border border-slate-200 p-2 text-xs dark:border-slate-800"
      onSubmit={(event) => {
        event.preventDefault();
        setProblem(null);
        void save(collection.trim(), shared, caseName.trim() || null).then((outcome) => {
          if (!outcome.ok) return setProblem(outcome.error.message);
          setSaved(outcome.value);
          setOpen(false);
        });
      }}
    >
      <label htmlFor={`${id}-collection`} className="flex flex-col">
        Collection
        <input id={`${id}-collection`} list={`${id}-known`} data-testid="collection-name" value={collection} onChange={(e) => setCollection(e.target.value)} required className="rounded border border-slate-300 bg-transparent px-1 dark:border-slate-700" />
        <datalist id={`${id}-known`}>
          {known.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </label>
      <label htmlFor={`${id}-case`} className="flex flex-col">
        Case name
        <input id={`${id}-case`} data-testid="case-name" placeholder={tool} value={caseName} onChange={(e) => setCaseName(e.target.value)} className="rounded border border-slate-300 bg-transparent px-1 dark:border-slate-700" />
      </label>
      <label htmlFor={`${id}-where`} className="flex flex-col">
        Kept
        <select id={`${id}-where`} data-testid="collection-where" value={shared ? "shared" : "private"} onChange={(e) => setShared(e.target.value === "shared")} className="rounded border border-slate-300 bg-transparent px-1 dark:border-slate-700">
          <option value="shared">{trusted ? "with the project (.mcp-collections/)" : "with the project (once you trust this folder)"}</option>
          <option value="private">privately (this computer)</option>
        </select>
      </label>
      <button type="submit" data-testid="save-to-collection" className="rounded border border-indigo-600 bg-indigo-600 px-2 py-0.5 text-white">
        Save case
      </button>
      <button type="button" onClick={() => setOpen(false)} className="rounded border border-slate-300 px-2 py-0.5 dark:border-slate-700">
        Cancel
      </button>
      {!trusted && (
        <p data-testid="collection-untrusted" role="status" className="w-full text-amber-800 dark:text-amber-200">
          {shared
            ? "This folder is not trusted yet: a case kept with the project is written, and runs, only after you trust it. Trust the folder first, or keep the case privately."
            : "This folder is not trusted yet: the case is kept privately now, and a case of one of the folder's own servers runs only after you trust it."}
        </p>
      )}
      {problem && (
        <p data-testid="add-to-collection-problem" role="alert" className="w-full text-red-700 dark:text-red-300">
          {problem}
        </p>
      )}
    </form>
  );
}
