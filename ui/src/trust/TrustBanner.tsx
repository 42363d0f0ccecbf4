// The question Claude Code asks before it reads a folder's own settings: "Do you trust the
// files in this folder?". Until the person answers yes, the project's .claude/settings*.json
// approve nothing and no project server starts (crates/core/src/config/trust.rs). The banner
// shows what trusting enables and exactly what it writes, before anything is written.
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
  const projectServers = list.servers.filter((s) => s.scope === "project");
  if (list.trusted || projectServers.length === 0) return null;
  return (
    <div
      data-testid="trust-banner"
      role="region"
      aria-label="Folder trust"
      className="mb-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950"
    >
      <p>
        <strong>This folder is not trusted.</strong> Its .mcp.json lists {projectServers.length} server
        {projectServers.length === 1 ? "" : "s"}; until you trust the folder, the approvals in its own
        .claude settings do not count and none of its servers starts, as in Claude Code.
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
        <TrustQuestion list={list} api={api} onClose={onClose} />
      )}
    </div>
  );
}

function TrustQuestion({ list, api, onClose }: { list: ServerList; api: TrustApi; onClose: () => void }) {
  const [facts, setFacts] = useState<FolderTrust | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    void api.state().then((outcome) => (outcome.ok ? setFacts(outcome.value) : setError(outcome.error)));
  }, [api, list]);
  const trust = async () => {
    const outcome = await api.trust();
    if (outcome.ok) onClose();
    else setError(outcome.error);
  };
  return (
    <div role="dialog" aria-label="Trust this folder?" data-testid="trust-dialog" className="mt-2">
      <p className="font-semibold">Trust {facts?.folder ?? list.projectDir}?</p>
      <p className="mt-1">Trust it only if you know who wrote its files. Its .mcp.json can run these on your computer:</p>
      <ul data-testid="trust-servers" className="mt-1 list-disc pl-5 font-mono text-xs">
        {list.servers
          .filter((s) => s.scope === "project")
          .map((s) => (
            <li key={`${s.source}:${s.name}`}>
              {s.name}: {s.target}
            </li>
          ))}
      </ul>
      {facts && facts.approvalsWaiting.length > 0 && (
        <div data-testid="trust-enables" className="mt-2">
          <p>Trusting also lets the project's own settings approve servers, so these start at once:</p>
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
      {facts && (
        <p data-testid="trust-writes" className="mt-2 text-xs text-slate-600 dark:text-slate-400">
          Writes <span className="font-mono">{facts.writes}</span> to <span className="font-mono">{facts.file}</span>, where
          Claude Code keeps the same answer: the folder is then trusted in both programs.
        </p>
      )}
      {error && <ErrorNotice error={error} testId="trust-error" />}
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
