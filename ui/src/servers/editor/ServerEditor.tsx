// The form to add or edit a server. Every keystroke is checked by the backend (debounced), which
// answers with problems and warnings by field and the exact diff a save would write.
import { ErrorNotice } from "../../shared/ErrorNotice";
import { useEffect, useRef, useState } from "react";
import type { ApiError, DraftCheck, DraftNote, EntryRef, KeyValue, PastedDrafts, Scope, ServerDraft, TransportKind } from "../../bindings";
import type { Outcome } from "../../ipc/api";
import { Button } from "../../shared/Button";
import { TRANSPORT_LABEL } from "../present";
import { applySuggestion, emptyRow, move, notesFor, setRowValue, type RowList } from "./draft";
import { PasteBox } from "./PasteBox";

export interface DraftApi {
  check: (draft: ServerDraft, original: EntryRef | null) => Promise<Outcome<DraftCheck>>;
  save: (draft: ServerDraft, original: EntryRef | null) => Promise<Outcome<string[]>>;
  load: (entry: EntryRef) => Promise<Outcome<ServerDraft>>;
  /** Keeps an OAuth client secret in the OS keychain, after the entry is saved. */
  storeClientSecret?: (name: string, secret: string) => Promise<Outcome<null>>;
  /** Reads a pasted snippet (`claude mcp add …`, `{"mcpServers": …}`, …) into drafts. */
  paste?: (text: string, scope: Scope) => Promise<Outcome<PastedDrafts>>;
}

const SCOPES: Array<{ scope: Scope; label: string }> = [
  { scope: "local", label: "Local — only you, this project (~/.claude.json)" },
  { scope: "project", label: "Project — shared through .mcp.json" },
  { scope: "user", label: "User — only you, every project (~/.claude.json)" },
];

const TRANSPORTS: TransportKind[] = ["stdio", "http", "sse", "ws"];

export function ServerEditor({
  initial,
  original,
  projectDir,
  api,
  changedOnDisk,
  onClose,
  notes: told = [],
  beforeSave,
}: {
  initial: ServerDraft;
  /** The entry being edited; null when adding. */
  original: EntryRef | null;
  projectDir: string;
  api: DraftApi;
  /** Goes up each time the edited entry changes on disk while the form is open. */
  changedOnDisk: number;
  /** With the entry as saved, or null when cancelled. */
  onClose: (saved: EntryRef | null) => void;
  /** What the person should know about this entry (where it came from, what to set). */
  notes?: string[];
  /** Runs before the entry is saved (a registry install's keychain headers); a failure stops the save. */
  beforeSave?: () => Promise<Outcome<unknown>>;
}) {
  const [draft, setDraft] = useState(initial);
  const [checked, setChecked] = useState<DraftCheck | null>(null);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [saving, setSaving] = useState(false);
  // Kept apart from the draft: it is never checked, previewed or written to a file, only
  // handed to the keychain once the entry is saved.
  const [clientSecret, setClientSecret] = useState("");
  const [staleSince, setStaleSince] = useState(changedOnDisk);
  const generation = useRef(0);

  useEffect(() => {
    const mine = ++generation.current;
    const timer = setTimeout(() => {
      void api.check(draft, original).then((outcome) => {
        if (mine !== generation.current) return;
        if (outcome.ok) {
          setChecked(outcome.value);
          setFailure(null);
        } else setFailure(outcome.error);
      });
    }, 120);
    return () => clearTimeout(timer);
  }, [draft, original, api, changedOnDisk]);

  const update = (change: Partial<ServerDraft>) => setDraft((d) => ({ ...d, ...change }));
  const problems = checked?.problems ?? [];
  const warnings = checked?.warnings ?? [];
  const notes = (field: string) => (
    <FieldNotes problems={notesFor(problems, field)} warnings={notesFor(warnings, field)} onApply={(n) => setDraft((d) => applySuggestion(d, n))} />
  );
  const externalChange = changedOnDisk !== staleSince;

  const save = async () => {
    setSaving(true);
    if (beforeSave) {
      const before = await beforeSave();
      if (!before.ok) {
        setSaving(false);
        setFailure(before.error);
        return;
      }
    }
    const outcome = await api.save(draft, original);
    if (outcome.ok && clientSecret !== "" && draft.transport !== "stdio" && api.storeClientSecret) {
      const stored = await api.storeClientSecret(draft.name, clientSecret);
      if (!stored.ok) {
        setSaving(false);
        setFailure(stored.error);
        return;
      }
    }
    setSaving(false);
    if (outcome.ok) onClose({ name: draft.name, scope: draft.scope });
    else setFailure(outcome.error);
  };

  const reload = async () => {
    if (!original) return;
    const outcome = await api.load(original);
    if (outcome.ok) setDraft(outcome.value);
    setStaleSince(changedOnDisk);
  };

  return (
    <form
      data-testid="server-editor"
      aria-label={original ? `Edit ${original.name}` : "Add a server"}
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <h2 className="text-lg font-semibold">{original ? `Edit “${original.name}”` : "Add a server"}</h2>

      {externalChange && (
        <div role="alert" data-testid="changed-on-disk" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950">
          <p>“{original?.name}” was changed on disk while you were editing it (by an editor, Claude Code or mcpctl).</p>
          <div className="mt-2 flex gap-2">
            <Button testId="changed-reload" onClick={() => void reload()}>
              Load the version on disk
            </Button>
            <Button testId="changed-keep" onClick={() => setStaleSince(changedOnDisk)}>
              Keep my changes
            </Button>
          </div>
        </div>
      )}

      {told.length > 0 && (
        <ul role="status" data-testid="draft-told" className="rounded-md border border-indigo-200 bg-indigo-50 p-3 text-sm dark:border-indigo-900 dark:bg-indigo-950">
          {told.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}

      {!original && api.paste && <PasteBox paste={api.paste} scope={draft.scope} save={api.save} onDraft={(pasted) => setDraft((d) => ({ ...pasted, name: pasted.name || d.name }))} onAddedAll={() => onClose(null)} />}

      <Labeled label="Name" htmlFor="draft-name">
        <input id="draft-name" data-testid="draft-name" value={draft.name} onChange={(e) => update({ name: e.target.value })} className={INPUT} autoFocus={!original} />
        {notes("name")}
      </Labeled>

      <Labeled label="Scope" htmlFor="draft-scope">
        <select id="draft-scope" data-testid="draft-scope" value={draft.scope} onChange={(e) => update({ scope: e.target.value as Scope })} className={INPUT}>
          {SCOPES.map((s) => (
            <option key={s.scope} value={s.scope}>
              {s.label}
            </option>
          ))}
        </select>
        {original && draft.scope !== original.scope && (
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Saving moves it from the {original.scope} scope to the {draft.scope} scope.</p>
        )}
        {notes("scope")}
      </Labeled>

      <fieldset>
        <legend className="mb-1 text-xs font-medium text-slate-500 dark:text-slate-400">Transport</legend>
        <div className="flex gap-1" role="radiogroup">
          {TRANSPORTS.map((t) => (
            <label key={t} data-testid={`draft-transport-${t}`} className={`cursor-pointer rounded-md border px-3 py-1 text-sm ${draft.transport === t ? "border-indigo-600 bg-indigo-50 dark:bg-indigo-950" : "border-slate-300 dark:border-slate-700"}`}>
              <input type="radio" name="transport" value={t} checked={draft.transport === t} onChange={() => update({ transport: t })} className="sr-only" />
              {TRANSPORT_LABEL[t]}
            </label>
          ))}
        </div>
      </fieldset>

      {draft.transport === "stdio" ? (
        <>
          <Labeled label="Command" htmlFor="draft-command">
            <input id="draft-command" data-testid="draft-command" value={draft.command} onChange={(e) => update({ command: e.target.value })} placeholder="npx" className={`${INPUT} font-mono`} />
            {notes("command")}
          </Labeled>
          <ArgumentList args={draft.args} onChange={(args) => update({ args })} notes={notes} />
          <Rows title="Environment" list="env" rows={draft.env} onChange={(env) => update({ env })} notes={notes} />
          <p className="text-xs text-slate-500 dark:text-slate-400">
            Runs in the project folder, <span className="font-mono">{projectDir}</span>, as in Claude Code (which has no setting for another folder).
          </p>
        </>
      ) : (
        <>
          <Labeled label="URL" htmlFor="draft-url">
            <input id="draft-url" data-testid="draft-url" value={draft.url} onChange={(e) => update({ url: e.target.value })} placeholder={draft.transport === "ws" ? "wss://…" : "https://…/mcp"} className={`${INPUT} font-mono`} />
            {notes("url")}
          </Labeled>
          <Rows title="Headers" list="headers" rows={draft.headers} onChange={(headers) => update({ headers })} notes={notes} />
          <Labeled label="Headers helper (a command whose output adds headers)" htmlFor="draft-helper">
            <input id="draft-helper" data-testid="draft-headers-helper" value={draft.headersHelper} onChange={(e) => update({ headersHelper: e.target.value })} className={`${INPUT} font-mono`} />
          </Labeled>
          <details className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
            <summary className="cursor-pointer text-sm font-medium">OAuth</summary>
            <div className="mt-2 grid grid-cols-2 gap-3">
              <Labeled label="Client ID" htmlFor="draft-client-id">
                <input id="draft-client-id" data-testid="draft-client-id" value={draft.clientId} onChange={(e) => update({ clientId: e.target.value })} className={INPUT} />
              </Labeled>
              <Labeled label="Callback port" htmlFor="draft-callback-port">
                <input id="draft-callback-port" data-testid="draft-callback-port" inputMode="numeric" value={draft.callbackPort} onChange={(e) => update({ callbackPort: e.target.value })} className={INPUT} />
                {notes("callbackPort")}
              </Labeled>
              <Labeled label="Authorization server metadata URL" htmlFor="draft-metadata">
                <input id="draft-metadata" data-testid="draft-metadata-url" value={draft.authServerMetadataUrl} onChange={(e) => update({ authServerMetadataUrl: e.target.value })} className={INPUT} />
                {notes("authServerMetadataUrl")}
              </Labeled>
              <Labeled label="Scopes (space-separated)" htmlFor="draft-scopes">
                <input id="draft-scopes" data-testid="draft-scopes" value={draft.scopes} onChange={(e) => update({ scopes: e.target.value })} className={INPUT} />
              </Labeled>
            </div>
            <div className="mt-3" />
            <Labeled label="How it logs in" htmlFor="draft-grant">
              <select id="draft-grant" data-testid="draft-grant" value={draft.grant} onChange={(e) => update({ grant: e.target.value })} className={INPUT}>
                <option value="">A person, in the browser</option>
                <option value="client_credentials">Client credentials (no person; secret or key in the keychain)</option>
                <option value="workload">Workload identity (a JWT the platform issues this workload)</option>
                <option value="cross-app">Enterprise cross-app access (identity provider's ID token)</option>
              </select>
            </Labeled>
            {draft.grant === "workload" && (
              <div className="mt-2 grid grid-cols-2 gap-3">
                <Labeled label="Workload token file (read at each login)" htmlFor="draft-assertion-file">
                  <input id="draft-assertion-file" data-testid="draft-assertion-file" value={draft.assertionFile} onChange={(e) => update({ assertionFile: e.target.value })} placeholder="/var/run/secrets/tokens/mcp" className={`${INPUT} font-mono`} />
                  {notes("assertionFile")}
                </Labeled>
                <Labeled label="…or a command that prints it" htmlFor="draft-assertion-command">
                  <input id="draft-assertion-command" data-testid="draft-assertion-command" value={draft.assertionCommand} onChange={(e) => update({ assertionCommand: e.target.value })} className={`${INPUT} font-mono`} />
                </Labeled>
              </div>
            )}
            <Labeled label="Client secret (kept in your OS keychain, never in a file)" htmlFor="draft-client-secret">
              <input id="draft-client-secret" data-testid="draft-client-secret" type="password" autoComplete="off" value={clientSecret} onChange={(e) => setClientSecret(e.target.value)} className={INPUT} />
            </Labeled>
          </details>
        </>
      )}

      {notes("entry")}
      {failure && (
        <ErrorNotice error={failure} testId="save-error" />
      )}

      {checked && checked.changes.length > 0 && <Preview check={checked} />}

      {/* Kept in view at the bottom of the pane, so the buttons stay put while the check's
          answer (notes, the diff) changes the form above them. */}
      <div className="sticky -bottom-4 -mx-5 flex gap-2 border-t border-slate-200 bg-white px-5 py-3 dark:border-slate-800 dark:bg-slate-900">
        <Button testId="draft-save" type="submit" tone="primary" disabled={saving || !checked || problems.length > 0}>
          {original ? "Save" : "Add server"}
        </Button>
        <Button testId="draft-cancel" onClick={() => onClose(null)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

const INPUT = "w-full rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700";

function Labeled({ label, htmlFor, children }: { label: string; htmlFor: string; children: React.ReactNode }) {
  return (
    <div>
      <label htmlFor={htmlFor} className="mb-1 block text-xs font-medium text-slate-500 dark:text-slate-400">
        {label}
      </label>
      {children}
    </div>
  );
}

function FieldNotes({ problems, warnings, onApply }: { problems: DraftNote[]; warnings: DraftNote[]; onApply: (note: DraftNote) => void }) {
  if (problems.length === 0 && warnings.length === 0) return null;
  return (
    <ul className="mt-1 flex flex-col gap-1 text-xs">
      {problems.map((p) => (
        <li key={p.message} data-testid="draft-problem" data-field={p.field} className="text-red-700 dark:text-red-300">
          {p.message}
        </li>
      ))}
      {warnings.map((w) => (
        <li key={w.message} data-testid="draft-warning" data-field={w.field} className="text-amber-800 dark:text-amber-300">
          {w.message}
          {w.suggestion !== null && (
            <button type="button" data-testid="draft-apply-suggestion" onClick={() => onApply(w)} className="ml-2 rounded border border-amber-400 px-1.5 font-mono">
              Use {w.suggestion}
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

function ArgumentList({ args, onChange, notes }: { args: string[]; onChange: (args: string[]) => void; notes: (field: string) => React.ReactNode }) {
  return (
    <fieldset>
      <legend className="mb-1 text-xs font-medium text-slate-500 dark:text-slate-400">Arguments, in order</legend>
      <ol className="flex flex-col gap-1">
        {args.map((arg, i) => (
          <li key={i} className="flex items-center gap-1">
            <input aria-label={`Argument ${i + 1}`} data-testid="draft-arg" value={arg} onChange={(e) => onChange(args.map((a, j) => (j === i ? e.target.value : a)))} className={`${INPUT} font-mono`} />
            <IconButton label={`Move argument ${i + 1} up`} onClick={() => onChange(move(args, i, -1))}>↑</IconButton>
            <IconButton label={`Move argument ${i + 1} down`} onClick={() => onChange(move(args, i, 1))}>↓</IconButton>
            <IconButton label={`Remove argument ${i + 1}`} onClick={() => onChange(args.filter((_, j) => j !== i))}>×</IconButton>
            {notes(`args.${i}`)}
          </li>
        ))}
      </ol>
      <button type="button" data-testid="draft-add-arg" onClick={() => onChange([...args, ""])} className="mt-1 text-xs text-indigo-700 hover:underline dark:text-indigo-300">
        + Add argument
      </button>
    </fieldset>
  );
}

function Rows({ title, list, rows, onChange, notes }: { title: string; list: RowList; rows: KeyValue[]; onChange: (rows: KeyValue[]) => void; notes: (field: string) => React.ReactNode }) {
  return (
    <fieldset>
      <legend className="mb-1 text-xs font-medium text-slate-500 dark:text-slate-400">{title}</legend>
      <ul className="flex flex-col gap-1">
        {rows.map((row, i) => (
          <li key={i}>
            <div className="flex items-center gap-1">
              <input aria-label={`${title} ${i + 1} name`} data-testid={`draft-${list}-key`} value={row.key} onChange={(e) => onChange(rows.map((r, j) => (j === i ? { ...r, key: e.target.value } : r)))} className={`${INPUT} w-2/5 font-mono`} />
              <input
                aria-label={`${title} ${i + 1} value`}
                data-testid={`draft-${list}-value`}
                value={row.value}
                placeholder={row.kept ? "•••••••• kept as it is in the file" : ""}
                onChange={(e) => onChange(setRowValue(rows, i, e.target.value))}
                className={`${INPUT} font-mono`}
              />
              <IconButton label={`Remove ${title.toLowerCase()} ${i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>×</IconButton>
            </div>
            {notes(`${list}.${i}.key`)}
            {notes(`${list}.${i}.value`)}
          </li>
        ))}
      </ul>
      <button type="button" data-testid={`draft-add-${list}`} onClick={() => onChange([...rows, emptyRow()])} className="mt-1 text-xs text-indigo-700 hover:underline dark:text-indigo-300">
        + Add {list === "env" ? "variable" : "header"}
      </button>
    </fieldset>
  );
}

function IconButton({ label, onClick, children }: { label: string; onClick: () => void; children: React.ReactNode }) {
  return (
    <button type="button" aria-label={label} title={label} onClick={onClick} className="rounded border border-slate-300 px-1.5 text-sm hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800">
      {children}
    </button>
  );
}

function Preview({ check }: { check: DraftCheck }) {
  const unchanged = check.changes.every((change) => change.lines.every((line) => line.sign === " "));
  if (unchanged) {
    return (
      <p data-testid="draft-preview" className="text-sm text-slate-500">
        No changes to save.
      </p>
    );
  }
  return (
    <div data-testid="draft-preview">
      <h3 className="mb-1 text-sm font-semibold">What saving changes</h3>
      {check.changes.map((change) => (
        <div key={change.path} className="mb-2">
          <p className="font-mono text-xs text-slate-500">{change.path}</p>
          <pre className="max-h-72 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 font-mono text-xs dark:border-slate-800 dark:bg-slate-900">
            {change.lines.map((line, i) => (
              <div
                key={i}
                data-testid="diff-line"
                data-sign={line.sign}
                className={line.sign === "+" ? "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200" : line.sign === "-" ? "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200" : ""}
              >
                {line.sign} {line.text}
              </div>
            ))}
          </pre>
        </div>
      ))}
    </div>
  );
}
