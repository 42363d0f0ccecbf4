import { useEffect, useSyncExternalStore } from "react";
import * as Tooltip from "@radix-ui/react-tooltip";
import type { ConfigProblem, ServerList, ServerSummary } from "./bindings";
import type { ServerListStore } from "./store";
import { errorTitle, groupByScope, stateBadges, TRANSPORT_LABEL, type ScopeGroup } from "./servers";

export function App({
  store,
  onConfigChanged,
}: {
  store: ServerListStore;
  /** Subscribes to "configuration changed on disk"; returns the unsubscribe function. */
  onConfigChanged?: (refresh: () => void) => Promise<() => void>;
}) {
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);
  useEffect(() => {
    void store.refresh();
    const unsubscribe = onConfigChanged?.(() => void store.refresh());
    return () => {
      void unsubscribe?.then((stop) => stop());
    };
  }, [store, onConfigChanged]);

  return (
    <Tooltip.Provider delayDuration={300}>
      <div className="flex h-screen flex-col bg-slate-50 text-slate-900 dark:bg-slate-950 dark:text-slate-100">
        <header className="flex items-center gap-3 border-b border-slate-200 bg-white px-5 py-3 dark:border-slate-800 dark:bg-slate-900">
          <Logo />
          <h1 className="text-base font-semibold tracking-tight">MCP Manager</h1>
          {state.status === "ready" && (
            <span
              data-testid="project-dir"
              className="truncate font-mono text-xs text-slate-500 dark:text-slate-400"
              title={state.list.projectDir}
            >
              {state.list.projectDir}
            </span>
          )}
          <button
            type="button"
            data-testid="refresh"
            onClick={() => void store.refresh()}
            className="ml-auto rounded-md border border-slate-300 px-3 py-1 text-sm font-medium hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-700 dark:hover:bg-slate-800"
          >
            Refresh
          </button>
        </header>
        <main className="flex-1 overflow-y-auto px-5 py-4">
          {state.status === "loading" && (
            <p className="text-sm text-slate-500" data-testid="loading">
              Reading configuration…
            </p>
          )}
          {state.status === "error" && (
            <div
              role="alert"
              data-testid="load-error"
              data-code={state.error.code}
              className="rounded-lg border border-red-300 bg-red-50 p-4 text-sm dark:border-red-900 dark:bg-red-950"
            >
              <p className="font-semibold text-red-800 dark:text-red-200">{errorTitle(state.error)}</p>
              <p className="mt-1 text-red-700 dark:text-red-300">{state.error.message}</p>
            </div>
          )}
          {state.status === "ready" && <ServerOverview list={state.list} />}
        </main>
      </div>
    </Tooltip.Provider>
  );
}

function ServerOverview({ list }: { list: ServerList }) {
  return (
    <div className="mx-auto flex max-w-5xl flex-col gap-5">
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
      {groupByScope(list.servers).map((group) => (
        <ScopeSection key={group.scope} group={group} />
      ))}
    </div>
  );
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

function ScopeSection({ group }: { group: ScopeGroup }) {
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
            <ServerRow key={server.name} server={server} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ServerRow({ server }: { server: ServerSummary }) {
  const badges = stateBadges(server).filter((b) => !b.startsWith("shadowed"));
  return (
    <li
      data-testid="server-row"
      data-server-name={server.name}
      data-scope={server.scope}
      data-transport={server.transport}
      data-will-start={server.willStart}
      className={`flex items-center gap-3 px-4 py-2.5 ${server.willStart ? "" : "opacity-60"}`}
    >
      <span className="min-w-40 font-mono text-sm font-semibold">{server.name}</span>
      <span
        data-testid="transport"
        className="rounded bg-indigo-100 px-1.5 py-0.5 text-xs font-medium text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200"
      >
        {TRANSPORT_LABEL[server.transport]}
      </span>
      <span className="truncate font-mono text-xs text-slate-600 dark:text-slate-400" title={server.target}>
        {server.target}
      </span>
      {badges.map((badge) => (
        <span
          key={badge}
          data-testid="state-badge"
          className="shrink-0 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200"
        >
          {badge}
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
      {server.shadowedBy && (
        <Tooltip.Root>
          <Tooltip.Trigger asChild>
            <span
              data-testid="shadowed"
              className="ml-auto shrink-0 rounded bg-slate-200 px-1.5 py-0.5 text-xs dark:bg-slate-800"
            >
              shadowed by {server.shadowedBy}
            </span>
          </Tooltip.Trigger>
          <Tooltip.Portal>
            <Tooltip.Content
              sideOffset={4}
              className="max-w-xs rounded-md bg-slate-900 px-2 py-1 text-xs text-white shadow dark:bg-slate-100 dark:text-slate-900"
            >
              The {server.shadowedBy} scope defines “{server.name}” too; that entry is used whole.
            </Tooltip.Content>
          </Tooltip.Portal>
        </Tooltip.Root>
      )}
    </li>
  );
}

function Logo() {
  return (
    <svg viewBox="0 0 1024 1024" className="h-6 w-6" aria-hidden="true">
      <rect x="64" y="64" width="896" height="896" rx="200" fill="#4f46e5" />
      <g stroke="#e0e7ff" strokeWidth="56" strokeLinecap="round">
        <path d="M512 512 L300 330" />
        <path d="M512 512 L724 330" />
        <path d="M512 512 L512 760" />
      </g>
      <circle cx="512" cy="512" r="96" fill="#a5b4fc" />
      <circle cx="300" cy="330" r="72" fill="#22d3ee" />
      <circle cx="724" cy="330" r="72" fill="#34d399" />
      <circle cx="512" cy="760" r="72" fill="#f472b6" />
    </svg>
  );
}
