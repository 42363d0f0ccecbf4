// Bring servers over from another MCP client (with a preview of what is added, skipped and in
// conflict), or write this project's servers into another client's file.
import { ErrorNotice } from "../shared/ErrorNotice";
import { useState } from "react";
import type { ApiError, Client, ExportReport, ImportPreview, Scope } from "../bindings";
import { Button } from "../shared/Button";
import { TRANSPORT_LABEL } from "../servers/present";
import { CLIENTS, type InteropApi } from "./api";

export function ImportExport({ api, onClose }: { api: InteropApi; onClose: () => void }) {
  const [client, setClient] = useState<Client>("claude-desktop");
  const [scope, setScope] = useState<Scope>("local");
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [added, setAdded] = useState<string[] | null>(null);
  const [exported, setExported] = useState<ExportReport | null>(null);
  const [failure, setFailure] = useState<ApiError | null>(null);

  const reset = () => {
    setPreview(null);
    setAdded(null);
    setExported(null);
    setFailure(null);
  };
  const look = async () => {
    reset();
    const outcome = await api.preview(client, scope);
    if (outcome.ok) setPreview(outcome.value);
    else setFailure(outcome.error);
  };
  const apply = async () => {
    const rows = Object.entries(inputs).map(([key, value]) => ({ key, value, kept: false }));
    const outcome = await api.apply(client, scope, rows);
    if (outcome.ok) {
      setAdded(outcome.value);
      setPreview(null);
    } else setFailure(outcome.error);
  };
  const exportNow = async () => {
    reset();
    const outcome = await api.exportTo(client);
    if (outcome.ok) setExported(outcome.value);
    else setFailure(outcome.error);
  };

  return (
    <section data-testid="import-export" aria-label="Import and export" className="flex flex-col gap-4">
      <h2 className="text-lg font-semibold">Import and export</h2>
      <div className="grid grid-cols-2 gap-3">
        <label className="text-xs font-medium text-slate-500">
          Other client
          <select data-testid="interop-client" value={client} onChange={(e) => { setClient(e.target.value as Client); reset(); }} className="mt-1 block w-full rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm text-slate-900 dark:border-slate-700 dark:text-slate-100">
            {CLIENTS.map((c) => (
              <option key={c.client} value={c.client}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <label className="text-xs font-medium text-slate-500">
          Import into
          <select data-testid="interop-scope" value={scope} onChange={(e) => { setScope(e.target.value as Scope); reset(); }} className="mt-1 block w-full rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm text-slate-900 dark:border-slate-700 dark:text-slate-100">
            <option value="local">Local scope</option>
            <option value="project">Project scope (.mcp.json)</option>
            <option value="user">User scope</option>
          </select>
        </label>
      </div>
      <div className="flex gap-2">
        <Button testId="interop-preview" tone="primary" onClick={() => void look()}>
          Preview import
        </Button>
        <Button testId="interop-export" onClick={() => void exportNow()}>
          Export this project's servers
        </Button>
        <Button testId="interop-close" onClick={onClose}>
          Close
        </Button>
      </div>

      {failure && (
        <ErrorNotice error={failure} testId="interop-error" />
      )}

      {preview && (
        <div data-testid="import-preview" className="flex flex-col gap-3 text-sm">
          <p className="text-xs text-slate-500">From {preview.source} into the {preview.scope} scope. Nothing is written until you import.</p>
          <List title="Added" testId="import-add" items={preview.add.map((i) => ({ name: i.name, note: `${TRANSPORT_LABEL[i.transport]} · ${i.target}`, detail: i.entry }))} />
          <List title="Skipped" testId="import-skipped" items={preview.skipped.map((i) => ({ name: i.name, note: i.reason }))} />
          <List title="In conflict (left as they are)" testId="import-conflict" items={preview.conflicts.map((i) => ({ name: i.name, note: i.reason }))} />
          {preview.inputs.map((input) => (
            <label key={input.id} className="text-xs font-medium text-slate-500">
              {input.description ?? input.id}
              <input
                data-testid="import-input"
                type={input.password ? "password" : "text"}
                value={inputs[input.id] ?? ""}
                onChange={(e) => setInputs({ ...inputs, [input.id]: e.target.value })}
                className="mt-1 block w-full rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700"
              />
            </label>
          ))}
          <Button testId="import-apply" tone="primary" disabled={preview.add.length === 0} onClick={() => void apply()}>
            Import {preview.add.length} server{preview.add.length === 1 ? "" : "s"}
          </Button>
        </div>
      )}
      {added && (
        <p data-testid="import-done" className="text-sm">
          Added {added.length === 0 ? "nothing" : added.join(", ")}.
        </p>
      )}
      {exported && (
        <div data-testid="export-report" className="flex flex-col gap-2 text-sm">
          {exported.printed === null ? (
            <p>
              Wrote {exported.written.length === 0 ? "no servers" : exported.written.join(", ")} to <span className="font-mono">{exported.target}</span>.
            </p>
          ) : (
            <>
              <p>{exported.target} has comments, so it was not changed. Paste this in (secrets are masked here; `mcpctl export` prints them whole):</p>
              <pre className="overflow-auto rounded bg-slate-100 p-2 font-mono text-xs dark:bg-slate-900">{exported.printed}</pre>
            </>
          )}
          {exported.notExpressible.length > 0 && (
            <List title="Not expressible there" testId="export-lost" items={exported.notExpressible.map((n) => ({ name: n, note: "" }))} />
          )}
        </div>
      )}
    </section>
  );
}

function List({ title, testId, items }: { title: string; testId: string; items: Array<{ name: string; note: string; detail?: string }> }) {
  if (items.length === 0) return null;
  return (
    <div>
      <h3 className="text-xs font-semibold uppercase text-slate-500">{title}</h3>
      <ul className="mt-1 flex flex-col gap-1">
        {items.map((item) => (
          <li key={item.name} data-testid={testId} data-name={item.name}>
            <span className="font-mono font-semibold">{item.name}</span> <span className="text-xs text-slate-500">{item.note}</span>
            {item.detail && (
              <details>
                <summary className="cursor-pointer text-xs text-slate-500">Entry</summary>
                <pre className="overflow-auto rounded bg-slate-100 p-2 font-mono text-xs dark:bg-slate-900">{item.detail}</pre>
              </details>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
