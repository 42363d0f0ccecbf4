// The question Claude Code asks before it reads a folder's own settings: "Do you trust the
// files in this folder?". Until the person answers yes, nothing the folder brings runs or
// counts: none of its servers starts (not even one the person's own settings approve), and its
// .claude settings, the plugins they turn on or configure and its skills plugins do not count
// (crates/core/src/config/trust.rs). The banner is shown whenever the folder holds any of that
// (FolderTrust.asks), and the question lists all of it and exactly what trusting writes,
// before anything is written.
import { useEffect, useState } from "react";
import type { ApiError, FolderTrust, ServerList } from "../bindings";
import { ErrorNotice } from "../shared/ErrorNotice";
import type { TrustApi } from "./api";

export function TrustBanner({
  list,
  api,
  asking,
  onAsk,
  onClose,
}: {
  list: ServerList;
  api: TrustApi;
  /** The question is open (from the banner, or from an Approve pressed in a folder not trusted). */
  asking: boolean;
  onAsk: () => void;
  onClose: () => void;
}) {
  const [facts, setFacts] = useState<FolderTrust | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    if (list.trusted) return;
    let current = true;
    void api.state().then((outcome) => {
      if (!current) return;
      if (outcome.ok) setFacts(outcome.value);
      else setError(outcome.error);
    });
    return () => {
      current = false;
    };
  }, [api, list]);
  const projectServers = list.servers.filter((s) => s.scope === "project");
  if (list.trusted || !(projectServers.length > 0 || facts?.asks || asking)) return null;
  return (
    <div
      data-testid="trust-banner"
      role="region"
      aria-label="Folder trust"
      className="mb-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950"
    >
      <p>
        <strong>This folder is not trusted.</strong> {facts ? `It holds ${holds(facts)}; until` : "Until"} you trust it,
        nothing it brings runs or counts, as in Claude Code: none of its servers starts (not even one your own settings
        approve), and its .claude settings, plugins and skills plugins do not count.
      </p>
      {!asking ? (
        <button
          type="button"
          data-testid="trust-review"
          onClick={onAsk}
          className="mt-2 rounded-md border border-amber-400 px-2 py-1 font-medium hover:bg-amber-100 dark:hover:bg-amber-900"
        >
          Review and trust…
        </button>
      ) : (
        <TrustQuestion list={list} facts={facts} error={error} api={api} onClose={onClose} />
      )}
    </div>
  );
}

/** What the folder holds, counted in words: "2 servers in .mcp.json and 1 settings file". */
export function holds(facts: FolderTrust): string {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const parts = [
    facts.servers.length > 0 && count(facts.servers.length, "server in .mcp.json", "servers in .mcp.json"),
    facts.settingsFiles.length > 0 && count(facts.settingsFiles.length, "settings file", "settings files"),
    facts.pluginsTurnedOn.length > 0 && count(facts.pluginsTurnedOn.length, "plugin it turns on", "plugins it turns on"),
    facts.skillsPlugins.length > 0 && count(facts.skillsPlugins.length, "skills plugin", "skills plugins"),
  ].filter((p): p is string => typeof p === "string");
  if (parts.length === 0) return "nothing that runs";
  const last = parts.pop();
  return parts.length === 0 ? `${last}` : `${parts.join(", ")} and ${last}`;
}

function TrustQuestion({
  list,
  facts,
  error: factsError,
  api,
  onClose,
}: {
  list: ServerList;
  facts: FolderTrust | null;
  error: ApiError | null;
  api: TrustApi;
  onClose: () => void;
}) {
  const [error, setError] = useState<ApiError | null>(null);
  const trust = async () => {
    const outcome = await api.trust();
    if (outcome.ok) onClose();
    else setError(outcome.error);
  };
  const servers = facts
    ? facts.servers.map((s) => ({ key: `${s.file}:${s.name}`, text: `${s.name}: ${s.target}` }))
    : list.servers.filter((s) => s.scope === "project").map((s) => ({ key: `${s.source}:${s.name}`, text: `${s.name}: ${s.target}` }));
  const mono = "list-disc pl-5 font-mono text-xs";
  const shownError = error ?? factsError;
  return (
    <div role="dialog" aria-label="Trust this folder?" data-testid="trust-dialog" className="mt-2">
      <p className="font-semibold">Trust {facts?.folder ?? list.projectDir}?</p>
      <p className="mt-1">Trust it only if you know who wrote its files. Trusting it lets all of this run or count:</p>
      {servers.length > 0 && (
        <>
          <p className="mt-1">Its .mcp.json can run these on your computer:</p>
          <ul data-testid="trust-servers" className={mono}>
            {servers.map((s) => (
              <li key={s.key}>{s.text}</li>
            ))}
          </ul>
        </>
      )}
      {facts && facts.settingsFiles.length > 0 && (
        <div data-testid="trust-settings" className="mt-2">
          <p>Its own settings files count (permissions, hooks, environment, plugins):</p>
          <ul className={mono}>
            {facts.settingsFiles.map((file) => (
              <li key={file}>{file}</li>
            ))}
          </ul>
        </div>
      )}
      {facts && facts.approvalsWaiting.length > 0 && (
        <div data-testid="trust-enables" className="mt-2">
          <p>They approve servers, so these start at once:</p>
          <ul className="list-disc pl-5 text-xs">
            {facts.approvalsWaiting.map((w) => (
              <li key={w.file}>
                <span className="font-mono">{w.file}</span>:{" "}
                {w.all ? "every server of .mcp.json, now and later (enableAllProjectMcpServers)" : w.servers.join(", ")}
              </li>
            ))}
          </ul>
        </div>
      )}
      {facts && (facts.pluginsTurnedOn.length > 0 || facts.pluginsConfigured.length > 0) && (
        <div data-testid="trust-plugins" className="mt-2">
          <p>They turn plugins on or give them options (which reach the plugin's command, URL or headers):</p>
          <ul className="list-disc pl-5 text-xs">
            {facts.pluginsTurnedOn.map((p) => (
              <li key={`on:${p.file}:${p.id}`}>
                turns on <span className="font-mono">{p.id}</span>
                {p.offInYourSettings && <strong>, which your own settings turn off</strong>} (
                <span className="font-mono">{p.file}</span>)
              </li>
            ))}
            {facts.pluginsConfigured.map((p) => (
              <li key={`options:${p.file}:${p.id}`}>
                gives <span className="font-mono">{p.id}</span> options {p.options.join(", ") || "(none named)"} (
                <span className="font-mono">{p.file}</span>)
              </li>
            ))}
          </ul>
        </div>
      )}
      {facts && facts.skillsPlugins.length > 0 && (
        <div data-testid="trust-skills" className="mt-2">
          <p>Its skills plugins count, with their servers:</p>
          <ul className="list-disc pl-5 text-xs">
            {facts.skillsPlugins.map((p) => (
              <li key={p.folder}>
                <span className="font-mono">{p.name}</span> ({p.folder}): {p.servers.join(", ") || "no servers"}
              </li>
            ))}
          </ul>
        </div>
      )}
      {facts && (
        <p data-testid="trust-writes" className="mt-2 text-xs text-slate-600 dark:text-slate-400">
          Writes <span className="font-mono">{facts.writes}</span> to <span className="font-mono">{facts.file}</span>, where
          Claude Code keeps the same answer: the folder is then trusted in both programs.
        </p>
      )}
      {shownError && <ErrorNotice error={shownError} testId="trust-error" />}
      <div className="mt-2 flex gap-2">
        <button
          type="button"
          data-testid="trust-yes"
          disabled={!facts}
          onClick={() => void trust()}
          className="rounded-md bg-indigo-600 px-2 py-1 font-medium text-white disabled:opacity-50"
        >
          Trust this folder
        </button>
        <button type="button" data-testid="trust-no" onClick={onClose} className="rounded-md border border-slate-300 px-2 py-1 dark:border-slate-700">
          Not now
        </button>
      </div>
    </div>
  );
}
