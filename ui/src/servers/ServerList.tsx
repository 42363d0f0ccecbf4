// The servers of every scope, each row with its live state; thin over the stores.
import { useSurfaceChange } from "../surfaces/changes";
import { PinBadge } from "../pins/PinPanel";
import { useState } from "react";
import type { ApiError, ConfigProblem, Plugin, ServerList as List, ServerStatus, ServerSummary, SettingsFile } from "../bindings";
import type { Statuses } from "./statusStore";
import {
  describeCounts,
  groupByScope,
  matches,
  shadowedWords,
  STATE_LABEL,
  stateBadges,
  stateOf,
  TRANSPORT_LABEL,
  type ScopeGroup,
} from "./present";
import { Words } from "../shared/Words";

/** The key a row is selected by: a name can exist in several scopes. */
export const rowKey = (server: ServerSummary) => `${server.scope}:${server.name}`;

export function ServerList({
  list,
  statuses,
  query,
  selected,
  onSelect,
  onTogglePlugin,
}: {
  list: List;
  statuses: Statuses;
  query: string;
  selected: string | null;
  onSelect: (server: ServerSummary) => void;
  /** Turns a plugin on or off; the refusal, if any. */
  onTogglePlugin?: (plugin: Plugin, enabled: boolean, settings: SettingsFile) => Promise<ApiError | null>;
}) {
  const shown = list.servers.filter((server) => matches(server, query));
  return (
    <div className="flex flex-col gap-5" onKeyDown={moveFocus}>
      {list.managed && (
        <p
          data-testid="managed-banner"
          className="rounded-lg border border-sky-300 bg-sky-50 px-4 py-2 text-sm text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100"
        >
          {list.managed} is present: your administrator's servers are the only ones used.
        </p>
      )}
      {list.problems.length > 0 && <Problems problems={list.problems} />}
      {list.servers.length === 0 && (
        <p data-testid="empty" className="text-sm text-slate-500 dark:text-slate-400">
          No MCP servers are configured for this project yet.
        </p>
      )}
      {list.servers.length > 0 && shown.length === 0 && (
        <p data-testid="no-match" className="text-sm text-slate-500 dark:text-slate-400">
          No server matches “{query}”.
        </p>
      )}
      {groupByScope(shown).map((group) => (
        <ScopeSection
          key={group.scope}
          group={group}
          statuses={statuses}
          selected={selected}
          onSelect={onSelect}
        />
      ))}
      {list.plugins.length > 0 && onTogglePlugin && <Plugins plugins={list.plugins} onToggle={onTogglePlugin} />}
    </div>
  );
}

/**
 * Every installed Claude Code plugin, on or off and why (Claude Code's words where it has
 * them), with a switch that writes `enabledPlugins` in the person's settings.
 */
function Plugins({
  plugins,
  onToggle,
}: {
  plugins: Plugin[];
  onToggle: (plugin: Plugin, enabled: boolean, settings: SettingsFile) => Promise<ApiError | null>;
}) {
  const [error, setError] = useState<ApiError | null>(null);
  const [settings, setSettings] = useState<SettingsFile>("user");
  return (
    <section data-testid="plugins" aria-labelledby="plugins-title">
      <div className="mb-2 flex items-baseline gap-2">
        <h2 id="plugins-title" className="text-sm font-semibold whitespace-nowrap">
          Claude Code plugins
        </h2>
        <label htmlFor="plugin-settings" className="ml-auto text-xs whitespace-nowrap text-slate-500">
          On/off writes to
        </label>
        <select
          id="plugin-settings"
          data-testid="plugin-settings"
          value={settings}
          onChange={(e) => setSettings(e.target.value as SettingsFile)}
          className="rounded border border-slate-300 bg-transparent px-1 py-0.5 text-xs dark:border-slate-700"
        >
          <option value="user">~/.claude/settings.json (yours)</option>
          <option value="project">.claude/settings.json (the project's)</option>
          <option value="local">.claude/settings.local.json (yours, here)</option>
        </select>
      </div>
      <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white text-sm dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900">
        {plugins.map((plugin) => (
          <li key={plugin.id} data-testid="plugin-row" data-plugin={plugin.id} data-enabled={plugin.enabled} data-refused={plugin.refused} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-4 py-2">
            <span className="font-mono font-semibold">{plugin.id}</span>
            {plugin.refused && (
              <span data-testid="plugin-refused" className="shrink-0 rounded bg-red-100 px-1.5 py-0.5 text-xs text-red-900 dark:bg-red-950 dark:text-red-200">
                refused: none of its servers starts
              </span>
            )}
            <span
              data-testid="plugin-why"
              className={`min-w-0 flex-1 text-xs text-slate-600 dark:text-slate-400 ${plugin.refused ? "basis-full whitespace-normal break-words" : "truncate"}`}
              title={plugin.why}
            >
              {plugin.refused ? plugin.why : `${plugin.enabled ? "on" : "off"} — ${plugin.why}`}
            </span>
            {!plugin.fromSkills && !plugin.refused && (
              <button
                type="button"
                data-testid="plugin-toggle"
                aria-label={`${plugin.enabled ? "Turn off" : "Turn on"} plugin ${plugin.id}`}
                onClick={async () => setError(await onToggle(plugin, !plugin.enabled, settings))}
                className="shrink-0 rounded border border-slate-300 px-2 py-0.5 text-xs hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800"
              >
                {plugin.enabled ? "Turn off" : "Turn on"}
              </button>
            )}
          </li>
        ))}
      </ul>
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-300">
          {error.message}
        </p>
      )}
    </section>
  );
}

/** Up and down arrows move between rows, in the order they are shown. */
function moveFocus(event: React.KeyboardEvent<HTMLDivElement>) {
  if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
  const rows = Array.from(
    event.currentTarget.querySelectorAll<HTMLButtonElement>('[data-testid="server-open"]'),
  );
  const at = rows.indexOf(document.activeElement as HTMLButtonElement);
  const next = event.key === "ArrowDown" ? Math.min(at + 1, rows.length - 1) : Math.max(at - 1, 0);
  rows[at === -1 ? 0 : next]?.focus();
  event.preventDefault();
}

function Problems({ problems }: { problems: ConfigProblem[] }) {
  return (
    <ul className="flex flex-col gap-2" aria-label="Configuration problems">
      {problems.map((problem, index) => (
        <li
          key={index}
          role="alert"
          data-testid="config-problem"
          data-code={problem.code}
          className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
        >
          {problem.message}
        </li>
      ))}
    </ul>
  );
}

function ScopeSection({
  group,
  statuses,
  selected,
  onSelect,
}: {
  group: ScopeGroup;
  statuses: Statuses;
  selected: string | null;
  onSelect: (server: ServerSummary) => void;
}) {
  return (
    <section data-testid={`scope-${group.scope}`} aria-labelledby={`scope-${group.scope}-title`}>
      <div className="mb-2 flex items-baseline gap-2">
        <h2 id={`scope-${group.scope}-title`} className="text-sm font-semibold">
          {group.title}
        </h2>
        <span className="rounded-full bg-slate-200 px-2 text-xs font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-300">
          {group.servers.length}
        </span>
        <span className="text-xs text-slate-500 dark:text-slate-400">{group.description}</span>
      </div>
      {group.servers.length === 0 ? (
        <p className="rounded-lg border border-dashed border-slate-300 px-4 py-3 text-xs text-slate-500 dark:border-slate-700 dark:text-slate-400">
          No servers in this scope.
        </p>
      ) : (
        <ul className="divide-y divide-slate-200 overflow-hidden rounded-lg border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900">
          {group.servers.map((server) => (
            <ServerRow
              key={server.name}
              server={server}
              status={server.shadowedBy ? undefined : statuses.get(server.name)}
              selected={selected === rowKey(server)}
              onSelect={onSelect}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

const STATE_STYLE: Record<string, string> = {
  connected: "bg-emerald-500",
  pending: "bg-sky-400 animate-pulse",
  "needs-auth": "bg-amber-500",
  failed: "bg-red-500",
  disabled: "bg-slate-400",
};

function ServerRow({
  server,
  status,
  selected,
  onSelect,
}: {
  server: ServerSummary;
  status: ServerStatus | undefined;
  selected: boolean;
  onSelect: (server: ServerSummary) => void;
}) {
  const badges = stateBadges(server).filter((b) => !b.startsWith("shadowed"));
  const state = server.shadowedBy ? null : stateOf(server, status);
  return (
    <li
      data-testid="server-row"
      data-server-name={server.name}
      data-scope={server.scope}
      data-transport={server.transport}
      data-will-start={server.willStart}
      data-state={state ?? "shadowed"}
      className={`${server.willStart ? "" : "opacity-60"} ${selected ? "bg-indigo-50 dark:bg-indigo-950/50" : ""}`}
    >
      <button
        type="button"
        data-testid="server-open"
        aria-label={`${server.name} (${server.scope})`}
        aria-pressed={selected}
        onClick={() => onSelect(server)}
        className="flex w-full items-center gap-3 px-4 py-2.5 text-left hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:hover:bg-slate-800/60"
      >
        <span
          aria-hidden="true"
          className={`h-2.5 w-2.5 shrink-0 rounded-full ${state ? STATE_STYLE[state] : "bg-transparent"}`}
        />
        <span className="min-w-36 font-mono text-sm font-semibold">{server.name}</span>
        <span
          data-testid="transport"
          className="rounded bg-indigo-100 px-1.5 py-0.5 text-xs font-medium text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200"
        >
          {TRANSPORT_LABEL[server.transport]}
        </span>
        <span className="min-w-0 flex-1 truncate font-mono text-xs text-slate-600 dark:text-slate-400" title={server.target}>
          {server.target}
        </span>
        {badges.map((badge) => (
          <span
            key={badge}
            data-testid="state-badge"
            title={server.blocked ? `${server.blocked.rule} in ${server.blocked.files.join(", ")}` : undefined}
            className="shrink-0 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200"
          >
            <Words text={badge} />
          </span>
        ))}
        {server.missingVariables.length > 0 && (
          <span
            data-testid="missing-variables"
            title={server.missingVariables
              .map((m) => `${m.variable} (in ${m.field}) is not set`)
              .join("\n")}
            className="shrink-0 rounded bg-red-100 px-1.5 py-0.5 text-xs text-red-800 dark:bg-red-950 dark:text-red-200"
          >
            unset: {server.missingVariables.map((m) => m.variable).join(", ")}
          </span>
        )}
        {state && server.willStart && <LiveState status={status} />}
        <SurfaceBadge server={server.name} />
        <PinBadge server={server.name} />
        {server.shadowedBy && (
          <span
            data-testid="shadowed"
            title={shadowedWords(server)}
            className="shrink-0 rounded bg-slate-200 px-1.5 py-0.5 text-xs dark:bg-slate-800"
          >
            shadowed by {server.shadowedBy}
          </span>
        )}
      </button>
    </li>
  );
}

/** The short live state at the end of a row. */
function LiveState({ status }: { status: ServerStatus | undefined }) {
  const text = (() => {
    if (!status) return "starting";
    switch (status.state) {
      case "pending":
        return status.attempt > 1 ? `reconnecting (attempt ${status.attempt})` : "connecting";
      case "connected":
        // Compact in the row; the detail says "✔ Connected" in full.
        return `✔ ${describeCounts(status.counts) || "Connected"}`;
      case "failed":
        return "✘ Failed to connect";
      case "needs-auth":
        return "! Needs authentication";
      case "disabled":
        return STATE_LABEL.disabled;
    }
  })();
  return (
    <span data-testid="live-state" className="shrink-0 text-xs text-slate-500 dark:text-slate-400">
      {text}
    </span>
  );
}

/** "changed": the server's tools, resources or prompts differ from what was kept before. */
function SurfaceBadge({ server }: { server: string }) {
  const change = useSurfaceChange(server);
  if (!change) return null;
  return (
    <span data-testid="surface-changed-badge" title={`What it offers changed since ${new Date(change.sinceMs ?? 0).toLocaleString()}`} className="shrink-0 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200">
      changed
    </span>
  );
}
