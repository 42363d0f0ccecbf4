// What each subagent is given: the configured servers it names and the ones it defines
// (those are tried in the Subagents group above, once approved), with what Claude Code does
// with each — including the names it drops without a word.
import { useEffect, useState } from "react";
import type { Agents } from "../bindings";
import type { AgentsApi } from "./api";

export function AgentsPanel({ api, refreshKey }: { api: AgentsApi; refreshKey?: string }) {
  const [agents, setAgents] = useState<Agents | null>(null);
  useEffect(() => {
    void api.list().then((outcome) => outcome.ok && setAgents(outcome.value));
  }, [api, refreshKey]);
  if (!agents || (agents.agents.length === 0 && agents.problems.length === 0)) return null;
  return (
    <section data-testid="agents-panel" aria-label="Subagents' servers" className="flex flex-col gap-2">
      <h2 className="text-sm font-semibold">What each subagent is given</h2>
      <ul className="flex flex-col gap-2 text-sm">
        {agents.agents.map((agent) => (
          <li key={agent.file} data-testid="agent" data-agent={agent.name} className="rounded border border-slate-200 p-2 dark:border-slate-800">
            <p>
              <span className="font-semibold">{agent.name}</span>{" "}
              <span className="text-xs text-slate-500">
                {typeof agent.source === "string" ? agent.source : `plugin ${agent.source.plugin}`} · <span className="font-mono">{agent.file}</span>
              </span>
            </p>
            <ul className="text-xs">
              {agent.servers.map((server) => (
                <li key={server.name} data-testid="agent-server" data-server={server.name} data-problem={server.problem ? "yes" : "no"}>
                  <span className="font-mono">{server.name}</span> — {server.inline ? `its own: ${server.target ?? "no command or URL"}` : "a configured server"}
                  {server.problem && <span className="text-amber-800 dark:text-amber-300"> ⚠ {server.problem}</span>}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      {agents.problems.map((problem) => (
        <p key={problem} role="alert" className="text-xs text-red-700 dark:text-red-300">
          {problem}
        </p>
      ))}
    </section>
  );
}
