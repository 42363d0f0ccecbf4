// A registry server's page: every version, each package and remote with what it asks for,
// and the install form (the tools' form engine, fed from the server.json inputs), the scope,
// and where secrets go. "Review" hands the entry to the server editor, which shows the diff.
import { useEffect, useMemo, useState } from "react";
import type { ApiError, Choice, InstallDraft, InstallForm, Input, Listed, Scope, SecretPlacement, ServerJson } from "../bindings";
import type { Outcome } from "../ipc/api";
import { Button } from "../shared/Button";
import { ErrorNotice } from "../shared/ErrorNotice";
import { ToolForm } from "../tools/form/ToolForm";
import { describe, type JsonObject } from "../tools/form/schema";
import { initial, toJson, type FormState } from "../tools/form/value";
import { validate, type Problems } from "../tools/form/validate";
import type { RegistryApi } from "./api";

/** An install ready for the editor: the draft, what it runs, and what to do before saving. */
export interface InstallReady {
  install: InstallDraft;
  /** Keeps secret headers in the keychain; run before the entry is saved. */
  beforeSave?: () => Promise<Outcome<unknown>>;
}

const INPUT = "w-full rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700";

function describeInput(input: Input): string {
  const parts: string[] = [];
  if (input.isRequired) parts.push("required");
  if (input.isSecret) parts.push("secret");
  if (input.format) parts.push(input.format);
  if (input.default) parts.push(`default ${input.default}`);
  if (input.choices?.length) parts.push(`one of ${input.choices.join(", ")}`);
  if (input.value) parts.push(`fixed: ${input.value}`);
  return parts.join(" · ");
}

function choiceKey(choice: Choice): string {
  return `${choice.kind}:${choice.index}`;
}

export function ServerPage({ api, server: latest, onBack, onReady }: { api: RegistryApi; server: ServerJson; onBack: () => void; onReady: (ready: InstallReady) => void }) {
  const [versions, setVersions] = useState<Listed[] | null>(null);
  const [version, setVersion] = useState(latest.version);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const shown: ServerJson = useMemo(() => {
    const found = versions?.find((v) => v.kind === "valid" && v.server.version === version);
    return found && found.kind === "valid" ? found.server : latest;
  }, [versions, version, latest]);
  const choices: Array<{ choice: Choice; label: string; unsupported?: string }> = useMemo(
    () => [
      ...(shown.packages ?? []).map((p, index) => ({
        choice: { kind: "package", index } as Choice,
        label: `${p.registryType} · ${p.identifier}${p.version ? ` ${p.version}` : ""}`,
        unsupported: p.registryType === "mcpb" ? "MCPB bundles cannot be installed yet" : p.transport.type !== "stdio" ? `serves ${p.transport.type} once started` : undefined,
      })),
      ...(shown.remotes ?? []).map((r, index) => ({ choice: { kind: "remote", index } as Choice, label: `remote · ${r.type} · ${r.url ?? ""}` })),
    ],
    [shown],
  );
  const [choice, setChoice] = useState<Choice | null>(null);
  const [scope, setScope] = useState<Scope>("local");
  const [secrets, setSecrets] = useState<SecretPlacement>("variable");
  const [entryName, setEntryName] = useState(latest.name.split("/").pop() ?? latest.name);
  const [form, setForm] = useState<InstallForm | null>(null);
  const [state, setState] = useState<FormState | null>(null);
  const [problems, setProblems] = useState<Problems>({});
  const [working, setWorking] = useState<string | null>("Reading the versions…");

  useEffect(() => {
    void api.versions(latest.name).then((outcome) => {
      setWorking(null);
      if (outcome.ok) setVersions(outcome.value);
      else setFailure(outcome.error);
    });
  }, [api, latest.name]);

  useEffect(() => {
    const first = choices.find((c) => !c.unsupported);
    setChoice(first ? first.choice : null);
  }, [choices]);

  useEffect(() => {
    if (!choice) return setForm(null);
    setWorking("Reading what it asks for…");
    void api.form(shown.name, shown.version, choice).then((outcome) => {
      setWorking(null);
      if (!outcome.ok) {
        setForm(null);
        return setFailure(outcome.error);
      }
      setFailure(null);
      setForm(outcome.value);
      const schema = JSON.parse(outcome.value.schema) as JsonObject;
      setState(initial(describe(schema, schema)));
    });
  }, [api, shown, choice]);

  const schema = useMemo(() => (form ? (JSON.parse(form.schema) as JsonObject) : null), [form]);
  const field = useMemo(() => (schema ? describe(schema, schema) : null), [schema]);
  const hasSecret = form?.fields.some((f) => f.secret) ?? false;
  const remoteSecret = choice?.kind === "remote" && hasSecret;
  const effectiveSecrets: SecretPlacement = scope === "project" ? "variable" : secrets;

  const review = async () => {
    if (!choice || !schema || !state) return;
    const values = toJson(state);
    const found = validate(schema, values);
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    const answers = {
      values: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)])),
      secrets: effectiveSecrets,
    };
    setWorking("Writing the entry…");
    const outcome = await api.draft(shown.name, shown.version, choice, scope, entryName, answers);
    setWorking(null);
    if (!outcome.ok) return setFailure(outcome.error);
    const keeps = outcome.value.plan.keychainHeaders.length > 0;
    onReady({
      install: outcome.value,
      beforeSave: keeps ? () => api.keepHeaders(shown.name, shown.version, choice, entryName, answers) : undefined,
    });
  };

  return (
    <section aria-label={`Registry server ${latest.name}`} data-testid="registry-server" className="flex flex-col gap-3">
      <button type="button" data-testid="registry-back" onClick={onBack} className="self-start text-sm text-slate-500 underline">
        ← Results
      </button>
      <h3 className="text-lg font-semibold">{shown.title ?? shown.name}</h3>
      <p className="font-mono text-xs text-slate-500">{shown.name}</p>
      <p className="text-sm">{shown.description}</p>
      <label className="text-xs font-medium" htmlFor="registry-version">
        Version
        <select id="registry-version" data-testid="registry-version" className={INPUT} value={version} onChange={(e) => setVersion(e.target.value)}>
          {(versions ?? []).map((v) => {
            const number = v.kind === "valid" ? v.server.version : v.version;
            const status = v.official.status !== "active" ? ` (${v.official.status})` : v.official.isLatest ? " (latest)" : "";
            return (
              <option key={number} value={number} disabled={v.kind === "invalid" || v.official.status === "deleted"}>
                {number}
                {status}
              </option>
            );
          })}
          {!versions && <option value={latest.version}>{latest.version}</option>}
        </select>
      </label>

      <div data-testid="registry-ways" className="flex flex-col gap-2">
        {(shown.packages ?? []).map((p, i) => (
          <div key={`p${i}`} className="rounded-md border border-slate-200 p-2 text-xs dark:border-slate-800">
            <p className="font-medium">
              Package {i + 1}: {p.registryType} <span className="font-mono">{p.identifier}</span> {p.version} — transport {p.transport.type}
              {p.runtimeHint ? `, runtime ${p.runtimeHint}` : ""}
            </p>
            {[...(p.runtimeArguments ?? []), ...(p.packageArguments ?? [])].map((a, j) => (
              <p key={`a${j}`}>
                argument <span className="font-mono">{a.type === "named" ? a.name : `<${a.valueHint ?? a.value ?? ""}>`}</span>: {a.description ?? ""} {describeInput(a)}
              </p>
            ))}
            {(p.environmentVariables ?? []).map((e) => (
              <p key={e.name}>
                env <span className="font-mono">{e.name}</span>: {e.description ?? ""} <span className="text-slate-500">{describeInput(e)}</span>
              </p>
            ))}
          </div>
        ))}
        {(shown.remotes ?? []).map((r, i) => (
          <div key={`r${i}`} className="rounded-md border border-slate-200 p-2 text-xs dark:border-slate-800">
            <p className="font-medium">
              Remote {i + 1}: {r.type} <span className="font-mono">{r.url}</span>
            </p>
            {Object.entries(r.variables ?? {}).map(([name, v]) => (
              <p key={name}>
                URL variable <span className="font-mono">{name}</span>: {v.description ?? ""} <span className="text-slate-500">{describeInput(v)}</span>
              </p>
            ))}
            {(r.headers ?? []).map((h) => (
              <p key={h.name}>
                header <span className="font-mono">{h.name}</span>: {h.description ?? ""} <span className="text-slate-500">{describeInput(h)}</span>
              </p>
            ))}
          </div>
        ))}
      </div>

      <fieldset className="flex flex-col gap-1">
        <legend className="text-xs font-medium">Install as</legend>
        {choices.map((c) => (
          <label key={choiceKey(c.choice)} className={`flex items-center gap-2 text-sm ${c.unsupported ? "text-slate-400" : ""}`}>
            <input type="radio" name="registry-choice" disabled={!!c.unsupported} checked={!!choice && choiceKey(choice) === choiceKey(c.choice)} onChange={() => setChoice(c.choice)} />
            <span className="font-mono text-xs">{c.label}</span>
            {c.unsupported && <span className="text-xs">({c.unsupported})</span>}
          </label>
        ))}
      </fieldset>

      {form && field && state && (
        <>
          <label className="text-xs font-medium" htmlFor="registry-entry-name">
            Name in your configuration
            <input id="registry-entry-name" data-testid="registry-entry-name" className={INPUT} value={entryName} onChange={(e) => setEntryName(e.target.value)} />
          </label>
          <label className="text-xs font-medium" htmlFor="registry-scope">
            Scope
            <select id="registry-scope" data-testid="registry-scope" className={INPUT} value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
              <option value="local">Local — only you, this project (~/.claude.json)</option>
              <option value="project">Project — shared through .mcp.json</option>
              <option value="user">User — only you, every project (~/.claude.json)</option>
            </select>
          </label>
          {hasSecret && (
            <fieldset className="flex flex-col gap-1 text-sm">
              <legend className="text-xs font-medium">Secrets</legend>
              <label className="flex items-center gap-2">
                <input type="radio" name="registry-secrets" checked={effectiveSecrets === "variable"} onChange={() => setSecrets("variable")} />
                As <span className="font-mono">{"${NAME}"}</span>: you set the variable in your environment
              </label>
              <label className={`flex items-center gap-2 ${scope === "project" ? "text-slate-400" : ""}`}>
                <input type="radio" name="registry-secrets" disabled={scope === "project"} checked={effectiveSecrets === "inFile"} onChange={() => setSecrets("inFile")} />
                The value in ~/.claude.json, as Claude Code stores it (readable by anything that reads your files)
              </label>
              {remoteSecret && (
                <label className={`flex items-center gap-2 ${scope === "project" ? "text-slate-400" : ""}`}>
                  <input type="radio" name="registry-secrets" disabled={scope === "project"} checked={effectiveSecrets === "keychain"} onChange={() => setSecrets("keychain")} />
                  In the OS keychain, sent by a headersHelper (mcpctl secret-header) that Claude Code runs too
                </label>
              )}
              {scope === "project" && <p className="text-xs text-slate-500">.mcp.json is shared: a secret is always written there as {"${NAME}"}.</p>}
            </fieldset>
          )}
          {form.fields.length > 0 ? (
            <ToolForm field={field} state={state} onChange={setState} problems={problems} />
          ) : (
            <p className="text-sm text-slate-500">It asks for nothing.</p>
          )}
          <Button testId="registry-review" tone="primary" onClick={() => void review()}>
            Review the entry…
          </Button>
        </>
      )}
      {working && (
        <p role="status" className="text-xs text-slate-500">
          {working}
        </p>
      )}
      {failure && <ErrorNotice error={failure} testId="registry-error" />}
    </section>
  );
}
