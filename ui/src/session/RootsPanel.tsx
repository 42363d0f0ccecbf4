// The roots: the folders every server of the project is told it may work in (`roots/list`).
// The project folder until changed here; each change is sent to every live server at once
// (`notifications/roots/list_changed`). Kept while the project is open, as Claude Code keeps
// its working folder.
import { useEffect, useState } from "react";
import type { ApiError } from "../bindings";
import { ErrorNotice } from "../shared/ErrorNotice";
import { Button } from "../shared/Button";
import type { SessionApi } from "./api";

export function RootsPanel({
  api,
  chooseFolder,
  onClose,
}: {
  api: SessionApi;
  chooseFolder?: () => Promise<string | null>;
  onClose: () => void;
}) {
  const [saved, setSaved] = useState<string[] | null>(null);
  const [folders, setFolders] = useState<string[]>([]);
  const [typed, setTyped] = useState("");
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [told, setTold] = useState(false);

  useEffect(() => {
    void api.roots().then((outcome) => {
      if (outcome.ok) {
        setSaved(outcome.value);
        setFolders(outcome.value);
      } else setFailure(outcome.error);
    });
  }, [api]);

  const add = (folder: string) => {
    const clean = folder.trim();
    if (clean && !folders.includes(clean)) setFolders([...folders, clean]);
    setTyped("");
    setTold(false);
  };
  const changed = saved !== null && JSON.stringify(saved) !== JSON.stringify(folders);
  const apply = async () => {
    const outcome = await api.setRoots(folders);
    if (outcome.ok) {
      setSaved(outcome.value);
      setFolders(outcome.value);
      setFailure(null);
      setTold(true);
    } else setFailure(outcome.error);
  };

  return (
    <section data-testid="roots" aria-label="Roots" className="flex flex-col gap-3">
      <div className="flex items-center">
        <h2 className="text-lg font-semibold">Roots</h2>
        <button type="button" data-testid="close-roots" onClick={onClose} className="ml-auto text-sm text-slate-500 hover:text-slate-800">
          Close
        </button>
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        The folders the servers of this project are told they may work in. Servers that ask for roots (filesystem servers, for one) hear of a change at once.
      </p>
      <ul className="flex flex-col gap-1">
        {folders.map((folder) => (
          <li key={folder} data-testid="root" data-folder={folder} className="flex items-center gap-2 rounded border border-slate-200 px-2 py-1 text-sm dark:border-slate-800">
            <code className="min-w-0 flex-1 break-all">{folder}</code>
            <button
              type="button"
              data-testid="remove-root"
              aria-label={`Remove ${folder}`}
              onClick={() => {
                setFolders(folders.filter((f) => f !== folder));
                setTold(false);
              }}
              className="text-xs text-red-700 hover:underline dark:text-red-300"
            >
              Remove
            </button>
          </li>
        ))}
        {folders.length === 0 && <li className="text-xs text-slate-500">No roots: servers are told of no folder.</li>}
      </ul>
      <div className="flex gap-2">
        <input
          data-testid="new-root"
          aria-label="A folder to add"
          placeholder="/path/to/a/folder"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          onKeyDown={(e) => e.key === "Enter" && add(typed)}
          className="min-w-0 flex-1 rounded border border-slate-300 bg-white px-2 py-1 font-mono text-xs dark:border-slate-700 dark:bg-slate-900"
        />
        <Button testId="add-root" onClick={() => add(typed)} disabled={typed.trim() === ""}>
          Add
        </Button>
        {chooseFolder && (
          <Button testId="choose-root" onClick={() => void chooseFolder().then((f) => f && add(f))}>
            Choose…
          </Button>
        )}
      </div>
      <div className="flex items-center gap-2">
        <Button testId="apply-roots" tone="primary" disabled={!changed} onClick={() => void apply()}>
          Tell the servers
        </Button>
        {told && (
          <span data-testid="roots-told" className="text-xs text-emerald-700 dark:text-emerald-300">
            Every running server was told.
          </span>
        )}
      </div>
      {failure && <ErrorNotice error={failure} testId="roots-refused" />}
    </section>
  );
}
