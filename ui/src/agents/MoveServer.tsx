// Moving a server between a scope and a subagent's frontmatter: a configured server into an
// agent (it then connects only while that subagent runs), or an agent's own server out into a
// scope. The agent file's body and other keys are left as they are.
import { useEffect, useState } from "react";
import type { ApiError, ServerSummary } from "../bindings";
import type { AgentsApi } from "./api";

type Target = "local" | "project" | "user";

export function MoveServer({ server, api }: { server: ServerSummary; api: AgentsApi }) {
  const [open, setOpen] = useState(false);
  const [agents, setAgents] = useState<string[]>([]);
  const [agent, setAgent] = useState("");
  const [scope, setScope] = useState<Target>("local");
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const own = server.scope === "agent";
  const movable = own || server.scope === "local" || server.scope === "project" || server.scope === "user";
  useEffect(() => {
    if (!open || own) return;
    void api.move.names().then((outcome) => {
      if (!outcome.ok) return setError(outcome.error);
      setAgents(outcome.value);
      setAgent((current) => current || outcome.value[0] || "");
    });
  }, [open, own, api]);
  if (!movable) return null;
  const move = async () => {
    setError(null);
    // agent:<agent>:<server>: the server's own name has no ":", the agent's may (a plugin's).
    const rest = server.name.slice("agent:".length);
    const cut = rest.lastIndexOf(":");
    const [agentName, name] = [rest.slice(0, cut), rest.slice(cut + 1)];
    const outcome = own ? await api.move.out(agentName ?? "", name ?? "", scope) : await api.move.into(server.name, agent);
    if (outcome.ok) setSaid(`Moved: now "${outcome.value.name}" (${outcome.value.files.join(", ")}).`);
    else setError(outcome.error);
  };
  return (
    <div data-testid="move-server" className="text-sm">
      {!open ? (
        <button type="button" data-testid="move-open" onClick={() => setOpen(true)} className="text-xs underline">
          {own ? "Move out of the subagent…" : "Move into a subagent…"}
        </button>
      ) : (
        <div className="flex flex-wrap items-center gap-2 rounded border border-slate-200 p-2 dark:border-slate-800">
          {own ? (
            <label className="text-xs">
              Into the scope{" "}
              <select data-testid="move-scope" aria-label="Scope to move it into" value={scope} onChange={(e) => setScope(e.target.value as Target)} className="rounded border border-slate-300 bg-transparent dark:border-slate-700">
                <option value="local">local</option>
                <option value="project">project</option>
                <option value="user">user</option>
              </select>
            </label>
          ) : agents.length === 0 ? (
            <span className="text-xs text-slate-500">No agent of yours or of this project yet (~/.claude/agents, .claude/agents).</span>
          ) : (
            <label className="text-xs">
              Into the agent{" "}
              <select data-testid="move-agent" aria-label="Agent to move it into" value={agent} onChange={(e) => setAgent(e.target.value)} className="rounded border border-slate-300 bg-transparent dark:border-slate-700">
                {agents.map((a) => (
                  <option key={a} value={a}>
                    {a}
                  </option>
                ))}
              </select>
            </label>
          )}
          <button type="button" data-testid="move-confirm" disabled={!own && !agent} onClick={() => void move()} className="rounded bg-indigo-600 px-2 py-0.5 text-xs font-semibold text-white disabled:opacity-50">
            Move
          </button>
          <button type="button" onClick={() => setOpen(false)} className="text-xs underline">
            Cancel
          </button>
          <p className="w-full text-xs text-slate-500">
            {own
              ? "It leaves the agent's file and becomes a server of that scope: Claude Code then runs it in every session."
              : "It leaves its scope and becomes the agent's own: Claude Code then runs it only while that subagent runs."}
          </p>
        </div>
      )}
      {said && (
        <p data-testid="move-said" role="status" className="text-xs text-green-800 dark:text-green-300">
          {said}
        </p>
      )}
      {error && (
        <p data-testid="move-error" role="alert" className="text-xs text-red-700 dark:text-red-300">
          {error.message}
        </p>
      )}
    </div>
  );
}
