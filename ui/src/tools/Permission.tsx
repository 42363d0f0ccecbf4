// What Claude Code does when a model wants this tool: the rule in force (and the file that
// says it), and Allow / Ask / Deny written to the settings file the person picks.
import { useEffect, useState } from "react";
import type { ApiError, Rule, RuleInForce, SettingsFile } from "../bindings";
import type { ToolsApi } from "./api";

const FILE_LABEL: Record<SettingsFile, string> = {
  local: ".claude/settings.local.json (you, this project)",
  project: ".claude/settings.json (everyone, this project)",
  user: "~/.claude/settings.json (you, every project)",
};
const SAID: Record<Rule, string> = { allow: "Allowed", ask: "Asks first", deny: "Denied" };

export function Permission({ server, tool, api }: { server: string; tool: string; api: ToolsApi }) {
  const [force, setForce] = useState<RuleInForce | null>(null);
  const [file, setFile] = useState<SettingsFile>("local");
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    let current = true;
    void api.rule(server, tool).then((outcome) => {
      if (current && outcome.ok) setForce(outcome.value);
    });
    return () => {
      current = false;
    };
  }, [server, tool, api]);
  const set = async (rule: Rule | null) => {
    const outcome = await api.setRule(server, tool, rule, file);
    if (outcome.ok) {
      setForce(outcome.value);
      setError(null);
    } else setError(outcome.error);
  };
  return (
    <div data-testid="tool-permission" data-rule={force?.rule ?? "none"} className="flex flex-col gap-1 rounded border border-slate-200 p-2 text-xs dark:border-slate-800">
      <p data-testid="rule-in-force">
        <span className="font-semibold">In Claude Code: </span>
        {force?.rule ? `${SAID[force.rule]} by ${force.entry} in ${force.path}` : "no rule, so Claude Code asks each time"}
      </p>
      <div className="flex flex-wrap items-center gap-1">
        {(["allow", "ask", "deny"] as const).map((rule) => (
          <button
            key={rule}
            type="button"
            data-testid={`rule-${rule}`}
            onClick={() => void set(rule)}
            className={`rounded border px-2 ${rule === "deny" ? "border-red-300 text-red-700 dark:border-red-800 dark:text-red-300" : "border-slate-300 dark:border-slate-700"}`}
          >
            {rule === "allow" ? "Allow" : rule === "ask" ? "Ask" : "Deny"}
          </button>
        ))}
        <button type="button" data-testid="rule-remove" onClick={() => void set(null)} className="rounded border border-slate-300 px-2 dark:border-slate-700">
          Remove
        </button>
        <span className="text-slate-500">in</span>
        <select data-testid="rule-file" aria-label="Settings file" value={file} onChange={(e) => setFile(e.target.value as SettingsFile)} className="min-w-0 rounded border border-slate-300 bg-transparent px-1 dark:border-slate-700">
          {(["local", "project", "user"] as const).map((f) => (
            <option key={f} value={f}>
              {FILE_LABEL[f]}
            </option>
          ))}
        </select>
      </div>
      {error && <p className="text-red-700 dark:text-red-300">{error.message}</p>}
    </div>
  );
}
