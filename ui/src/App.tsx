// The window's shell: header (project, state counts, search), the server list, and the
// selected server's detail or the editor. State lives in the stores; this only arranges it.
import { ErrorNotice } from "./shared/ErrorNotice";
import { lazy, Suspense, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore, type ReactNode } from "react";
import type { EntryRef, ServerDraft, ServerSummary } from "./bindings";
import type { ServerListStore } from "./servers/listStore";
import type { StatusStore } from "./servers/statusStore";
import type { ServerActions } from "./servers/actions";
import { countStates, STATE_LABEL, STATE_ORDER } from "./servers/present";
import { rowKey, ServerList } from "./servers/ServerList";
import { Button } from "./shared/Button";
import type { DraftApi } from "./servers/editor/ServerEditor";
import type { RegistryApi } from "./registry/api";
import type { Outcome } from "./ipc/api";
import { emptyDraft } from "./servers/editor/draft";
import type { FollowLog } from "./logs/ProtocolLog";
import { ProjectPicker, type ProjectApi } from "./projects/ProjectPicker";
import type { InteropApi } from "./interop/api";
import type { LoginApi } from "./login/api";
import type { ClientsApi } from "./clients/api";
import type { UsageApi } from "./usage/api";
import type { LoginsApi } from "./logins/api";
import type { ProfilesApi } from "./profiles/api";
import type { AgentsApi } from "./agents/api";
import type { DoctorApi } from "./doctor/api";
import type { ToolsApi } from "./tools/api";
import type { BrowseApi } from "./browse/api";
import type { SkillsApi } from "./skills/api";
import { SkillMatches } from "./skills/SkillMatches";
import type { AsksApi } from "./asks/api";
import { AskStore } from "./asks/askStore";
import { FollowStore } from "./browse/followStore";
import type { SessionApi } from "./session/api";
import type { Chosen } from "./tools/AllTools";
import type { CollectionsApi } from "./collections/api";
import type { SurfacesApi } from "./surfaces/api";
import type { PreflightApi } from "./preflight/api";
import type { TrustApi } from "./trust/api";
import { TrustBanner } from "./trust/TrustBanner";

// What the first paint needs (the list of servers) is in the first chunk; every panel opened
// later (a server's details with its forms, Markdown and JSON views, the editor, All tools, a
// tool's runner, import/export, roots, what a server asks) is a chunk of its own, loaded the
// first time it is opened.
const ServerDetail = lazy(() => import("./servers/ServerDetail").then((m) => ({ default: m.ServerDetail })));
const ServerEditor = lazy(() => import("./servers/editor/ServerEditor").then((m) => ({ default: m.ServerEditor })));
const ImportExport = lazy(() => import("./interop/ImportExport").then((m) => ({ default: m.ImportExport })));
const RootsPanel = lazy(() => import("./session/RootsPanel").then((m) => ({ default: m.RootsPanel })));
const AllTools = lazy(() => import("./tools/AllTools").then((m) => ({ default: m.AllTools })));
const RegistryBrowser = lazy(() => import("./registry/RegistryBrowser").then((m) => ({ default: m.RegistryBrowser })));
const CollectionsView = lazy(() => import("./collections/CollectionsView").then((m) => ({ default: m.CollectionsView })));
const BudgetView = lazy(() => import("./clients/BudgetView").then((m) => ({ default: m.BudgetView })));
const ProfilePicker = lazy(() => import("./profiles/ProfilePicker").then((m) => ({ default: m.ProfilePicker })));
const AgentsPanel = lazy(() => import("./agents/AgentsPanel").then((m) => ({ default: m.AgentsPanel })));
const UsageView = lazy(() => import("./usage/UsageView").then((m) => ({ default: m.UsageView })));
const LoginsView = lazy(() => import("./logins/LoginsView").then((m) => ({ default: m.LoginsView })));
const CloseQuestion = lazy(() => import("./logins/LoginsView").then((m) => ({ default: m.CloseQuestion })));
const ToolRunner = lazy(() => import("./tools/ToolRunner").then((m) => ({ default: m.ToolRunner })));
const AsksDock = lazy(() => import("./asks/AsksDock").then((m) => ({ default: m.AsksDock })));

/** A panel's place while its chunk loads (a few milliseconds, once). */
function Loading({ children }: { children: ReactNode }) {
  return (
    <Suspense
      fallback={
        <p role="status" className="text-sm text-slate-500">
          Loading…
        </p>
      }
    >
      {children}
    </Suspense>
  );
}

/** Follows what servers ask; the dock that shows it is loaded when the first ask comes. */
function AsksWhenAsked({ store, api }: { store: AskStore; api: AsksApi }) {
  const asks = useSyncExternalStore(store.subscribe, store.getSnapshot);
  useEffect(() => {
    void store.load();
    const stop = api.onChanged(() => void store.load());
    return () => void stop.then((s) => s());
  }, [store, api]);
  if (asks.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <AsksDock store={store} api={api} />
    </Suspense>
  );
}

export interface Backend {
  /**
   * Subscribes to "configuration changed on disk" (with the names of the servers that
   * changed); returns the unsubscribe function.
   */
  onConfigChanged?: (changed: (servers: string[]) => void) => Promise<() => void>;
  /** Connects the status store to the backend's events; returns the unsubscribe function. */
  connectStatuses?: (store: StatusStore) => Promise<() => void>;
  actions: ServerActions;
  drafts?: DraftApi;
  followLog?: FollowLog;
  projects?: ProjectApi;
  interop?: InteropApi;
  login?: LoginApi;
  doctor?: DoctorApi;
  tools?: ToolsApi;
  browse?: BrowseApi;
  skills?: SkillsApi;
  /** What servers ask of the person (elicitation, sampling). */
  asks?: AsksApi;
  /** Log levels and roots of the live sessions. */
  session?: SessionApi;
  /** Workspace trust and the review before approving a project server. */
  trust?: TrustApi;
  /** Calls kept as test cases. */
  collections?: CollectionsApi;
  /** What changed in servers. */
  surfaces?: SurfacesApi;
  /** Called once, when the first list of servers has been made (before it is laid out). */
  onListCommitted?: () => void;
  /** Called once, after the first list of servers has been painted. */
  onFirstPaint?: () => void;
  /** MCP registries: find and install servers. */
  registry?: RegistryApi;
  /** What each AI client makes of the tools. */
  clients?: ClientsApi;
  /** Before a package starts: what an entry fetches and what the registry says of it. */
  preflight?: PreflightApi;
  /** What Claude Code's own records say it used. */
  usage?: UsageApi;
  /** Every login held, the keeper and the tray. */
  logins?: LoginsApi;
  /** Named sets of servers, applied and undone. */
  profiles?: ProfilesApi;
  /** The servers subagents name or define. */
  agents?: AgentsApi;
}

interface Editing {
  original: EntryRef | null;
  initial: ServerDraft;
  /** Bumped when the edited entry changes on disk. */
  changedOnDisk: number;
  /** A new server: typed by hand (or pasted), or found in a registry. */
  source?: "hand" | "registry";
  /** What to tell the person (a registry install: what it runs, what to set). */
  notes?: string[];
  beforeSave?: () => Promise<Outcome<unknown>>;
}

export function App({
  store,
  statuses: statusStore,
  backend,
}: {
  store: ServerListStore;
  statuses: StatusStore;
  backend: Backend;
}) {
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const statuses = useSyncExternalStore(statusStore.subscribe, statusStore.getSnapshot);
  const [query, setQuery] = useState("");
  const [selected, setSelected] = useState<string | null>(null);
  const search = useRef<HTMLInputElement>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [interchanging, setInterchanging] = useState(false);
  const [rooting, setRooting] = useState(false);
  const [askingTrust, setAskingTrust] = useState(false);
  const [view, setView] = useState<"servers" | "tools" | "collections" | "budget" | "usage" | "logins">("servers");
  const [loginFocus, setLoginFocus] = useState<string | null>(null);
  const [askingClose, setAskingClose] = useState(false);
  const [chosenTool, setChosenTool] = useState<Chosen | null>(null);
  const [follows] = useState(() => (backend.browse ? new FollowStore(backend.browse) : undefined));
  const [askStore] = useState(() => (backend.asks ? new AskStore(backend.asks.pending) : null));
  const editedName = useRef<string | null>(null);
  editedName.current = editing?.original?.name ?? null;

  useEffect(() => {
    void store.refresh();
    const unsubscribe = backend.onConfigChanged?.((servers) => {
      void store.refresh();
      const name = editedName.current;
      if (name !== null && servers.includes(name)) {
        setEditing((e) => (e ? { ...e, changedOnDisk: e.changedOnDisk + 1 } : e));
      }
    });
    const disconnect = backend.connectStatuses?.(statusStore);
    return () => {
      void unsubscribe?.then((stop) => stop());
      void disconnect?.then((stop) => stop());
    };
  }, [store, statusStore, backend]);

  useEffect(() => {
    const logins = backend.logins;
    if (!logins) return;
    const asked = logins.onCloseAsked(() => setAskingClose(true));
    const shown = logins.onShowLogins((server) => {
      setView("logins");
      setLoginFocus(server);
    });
    return () => {
      void asked.then((stop) => stop());
      void shown.then((stop) => stop());
    };
  }, [backend]);

  useEffect(() => {
    const focusSearch = (event: KeyboardEvent) => {
      const typing = event.target instanceof HTMLElement && event.target.closest("input, textarea, select");
      if ((event.key === "/" && !typing) || (event.key === "k" && (event.ctrlKey || event.metaKey))) {
        event.preventDefault();
        search.current?.focus();
      }
    };
    window.addEventListener("keydown", focusSearch);
    return () => window.removeEventListener("keydown", focusSearch);
  }, []);

  const list = state.status === "ready" ? state.list : null;
  const painted = useRef(false);
  useLayoutEffect(() => {
    if (!list || painted.current) return;
    painted.current = true;
    // For the start-up breakdown: React has made the list's DOM; then the page lays it out.
    performance.mark("list-committed");
    backend.onListCommitted?.();
    void document.body.offsetHeight;
    performance.mark("list-laid-out");
    // The frame that shows the list is the next one: its animation-frame callbacks run
    // before it is painted, and a message posted from one is handled once it is. (Asked for
    // here, not in an effect: Preact runs effects after a frame has been painted, so a
    // callback asked for there would wait for the frame after, and time that one.)
    requestAnimationFrame(() => {
      const after = new MessageChannel();
      after.port1.onmessage = () => backend.onFirstPaint?.();
      after.port2.postMessage(null);
    });
  }, [list, backend]);
  const current = list?.servers.find((server) => rowKey(server) === selected) ?? null;
  const counts = list ? countStates(list.servers, statuses) : null;
  // The list of every server's tools is read again when a server connects, leaves or changes
  // its number of tools.
  const toolsKey = [...statuses.entries()]
    .flatMap(([name, status]) => (status.state === "connected" ? [`${name}:${status.counts.tools ?? ""}`] : []))
    .sort()
    .join(",");
  const showingTools = view === "tools" && !!backend.tools;
  const showingCollections = view === "collections" && !!backend.collections;
  const showingBudget = view === "budget" && !!backend.clients;
  const showingUsage = view === "usage" && !!backend.usage;
  const showingLogins = view === "logins" && !!backend.logins;

  return (
    <>
      <div className="flex h-screen flex-col bg-slate-50 text-slate-900 dark:bg-slate-950 dark:text-slate-100">
        <header className="flex items-center gap-3 border-b border-slate-200 bg-white px-5 py-3 dark:border-slate-800 dark:bg-slate-900">
          <Logo />
          <h1 className="shrink-0 whitespace-nowrap text-base font-semibold tracking-tight">MCP Manager</h1>
          {list &&
            (backend.projects ? (
              <ProjectPicker projectDir={list.projectDir} api={backend.projects} />
            ) : (
              <span
                data-testid="project-dir"
                className="min-w-0 truncate font-mono text-xs text-slate-500 dark:text-slate-400"
                title={list.projectDir}
              >
                {list.projectDir}
              </span>
            ))}
          {list && backend.profiles && (
            <Suspense fallback={null}>
              <ProfilePicker api={backend.profiles} clients={backend.clients} usage={backend.usage} refreshKey={list.servers.map((s) => `${s.name}:${s.enabled}`).join(",")} />
            </Suspense>
          )}
          <input
            ref={search}
            type="search"
            data-testid="search"
            aria-label="Search servers by name, command or URL"
            placeholder="Search  /"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            className={`ml-auto w-44 min-w-24 shrink-[10] rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700 ${showingTools || showingCollections || showingBudget || showingUsage || showingLogins ? "invisible" : ""}`}
          />
          {backend.drafts && (
            <Button
              testId="add-server"
              tone="primary"
              onClick={() => setEditing({ original: null, initial: emptyDraft(), changedOnDisk: 0 })}
            >
              Add server
            </Button>
          )}
          {backend.interop && (
            <Button testId="open-import-export" onClick={() => {
                setRooting(false);
                setInterchanging(true);
              }}>
              Import / Export
            </Button>
          )}
          {backend.session && (
            <Button
              testId="open-roots"
              onClick={() => {
                setInterchanging(false);
                setEditing(null);
                setRooting(true);
              }}
            >
              Roots
            </Button>
          )}
          <Button testId="refresh" onClick={() => void store.refresh()}>
            Refresh
          </Button>
        </header>
        {(counts || backend.tools) && (
          <div className="flex items-center gap-4 border-b border-slate-200 bg-white px-5 py-1 dark:border-slate-800 dark:bg-slate-900">
            {counts && (
              <div data-testid="state-counts" aria-label="Servers by state" className="flex gap-4 text-xs">
                {STATE_ORDER.map((name) => (
                  <span key={name} data-testid={`count-${name}`} data-count={counts[name]}>
                    <strong>{counts[name]}</strong> {STATE_LABEL[name]}
                  </span>
                ))}
              </div>
            )}
            {backend.tools && (
              <div role="tablist" aria-label="What to show" className="ml-auto flex shrink-0 overflow-hidden rounded-md border border-slate-300 text-sm dark:border-slate-700">
                {(["servers", "tools", "collections", "budget", "usage", "logins"] as const)
                  .filter(
                    (v) =>
                      (v !== "collections" || !!backend.collections) &&
                      (v !== "budget" || !!backend.clients) &&
                      (v !== "usage" || !!backend.usage) &&
                      (v !== "logins" || !!backend.logins),
                  )
                  .map((v) => (
                  <button
                    key={v}
                    type="button"
                    role="tab"
                    data-testid={`view-${v}`}
                    aria-selected={view === v}
                    onClick={() => setView(v)}
                    className={`px-2 py-1 ${view === v ? "bg-indigo-600 font-semibold text-white" : ""}`}
                  >
                    {v === "servers" ? "Servers" : v === "tools" ? "All tools" : v === "collections" ? "Collections" : v === "budget" ? "Budget" : v === "usage" ? "Usage" : "Logins"}
                  </button>
                ))}
              </div>
            )}
          </div>
        )}
        <div className="flex min-h-0 flex-1">
          <main className={`min-w-0 flex-1 px-5 py-4 ${showingTools ? "flex flex-col" : "overflow-y-auto"}`}>
            {state.status === "loading" && (
              <p className="text-sm text-slate-500" data-testid="loading">
                Reading configuration…
              </p>
            )}
            {state.status === "error" && (
              <ErrorNotice error={state.error} testId="load-error" />
            )}
            {showingLogins && backend.logins ? (
              <Loading>
                <LoginsView api={backend.logins} focus={loginFocus} />
              </Loading>
            ) : showingUsage && backend.usage ? (
              <Loading>
                <UsageView api={backend.usage} clients={backend.clients} />
              </Loading>
            ) : showingBudget && backend.clients ? (
              <Loading>
                <BudgetView api={backend.clients} refreshKey={toolsKey} />
              </Loading>
            ) : showingCollections && backend.collections ? (
              <Loading>
                <CollectionsView api={backend.collections} />
              </Loading>
            ) : showingTools && backend.tools ? (
              <Loading>
              <AllTools
                api={backend.tools}
                refreshKey={toolsKey}
                chosen={chosenTool}
                onChoose={(tool) => {
                  setRooting(false);
                  setInterchanging(false);
                  setEditing(null);
                  setChosenTool(tool);
                }}
                beside={(query) =>
                  backend.skills && (
                    <SkillMatches
                      api={backend.skills}
                      servers={[...statuses.entries()].filter(([, s]) => s.state === "connected" && s.capabilities.skills).map(([name]) => name)}
                      query={query}
                    />
                  )
                }
              />
              </Loading>
            ) : list && (
              <>
              {backend.trust && (
                <TrustBanner
                  list={list}
                  api={backend.trust}
                  asking={askingTrust}
                  onAsk={() => setAskingTrust(true)}
                  onClose={() => {
                    setAskingTrust(false);
                    void store.refresh();
                  }}
                />
              )}
              <ServerList
                list={list}
                statuses={statuses}
                query={query}
                selected={selected}
                onSelect={(server: ServerSummary) => {
                  setRooting(false);
                  setSelected(rowKey(server));
                }}
                onTogglePlugin={async (plugin, enabled, settings) => {
                  const outcome = await backend.actions.setPluginEnabled(plugin.id, enabled, settings);
                  return outcome.ok ? null : outcome.error;
                }}
              />
              {backend.agents && (
                <Loading>
                  <AgentsPanel api={backend.agents} refreshKey={list?.servers.map((s) => s.name).join(",")} />
                </Loading>
              )}
              </>
            )}
          </main>
          {editing && backend.drafts && list ? (
            <aside className={ASIDE}>
              <Loading>
              {!editing.original && backend.registry && (
                <div role="tablist" aria-label="How to add a server" className="mb-3 flex gap-1 text-sm">
                  {(["hand", "registry"] as const).map((source) => (
                    <button
                      key={source}
                      type="button"
                      role="tab"
                      data-testid={`add-from-${source}`}
                      aria-selected={(editing.source ?? "hand") === source}
                      onClick={() => setEditing({ original: null, initial: emptyDraft(), changedOnDisk: 0, source })}
                      className={`rounded-md border px-3 py-1 ${(editing.source ?? "hand") === source ? "border-indigo-600 bg-indigo-50 dark:bg-indigo-950" : "border-slate-300 dark:border-slate-700"}`}
                    >
                      {source === "hand" ? "By hand" : "From a registry"}
                    </button>
                  ))}
                </div>
              )}
              {editing.source === "registry" && backend.registry ? (
                <RegistryBrowser
                  api={backend.registry}
                  onReady={({ install, beforeSave }) =>
                    setEditing({
                      original: null,
                      initial: install.draft,
                      changedOnDisk: 0,
                      source: "hand",
                      beforeSave,
                      notes: [
                        install.plan.runtimeOptions.length > 0
                          ? `Runs: ${install.plan.runs} — warning: the registry document adds options to ${install.plan.runtime ?? "the runtime"} itself (${install.plan.runtimeOptions.join(" ")}), which change what runs and what it may touch (a shell command, a mounted folder, privileges); read them before saving.`
                          : `Runs: ${install.plan.runs}`,
                        ...install.plan.alreadySet.map((v) => `Warning: ${v} is already set in this environment; the server will receive its value.`),
                        ...(install.plan.variablesToSet.length > 0
                          ? [`Set ${install.plan.variablesToSet.join(", ")} in your environment before it starts: the entry refers to ${install.plan.variablesToSet.map((v) => "${" + v + "}").join(", ")}.`]
                          : []),
                        ...(install.plan.keychainHeaders.length > 0
                          ? [`${install.plan.keychainHeaders.join(", ")} will be kept in your OS keychain; the entry's headersHelper prints it for Claude Code and MCP Manager.`]
                          : []),
                        ...(install.plan.runtime ? [`Needs ${install.plan.runtime} on your PATH; the doctor says how to get it when it is missing.`] : []),
                      ],
                    })
                  }
                />
              ) : (
              <ServerEditor
                key={editing.original ? `${editing.original.scope}:${editing.original.name}` : `new:${editing.initial.name}:${editing.notes?.length ?? 0}`}
                initial={editing.initial}
                original={editing.original}
                projectDir={list.projectDir}
                api={backend.drafts}
                changedOnDisk={editing.changedOnDisk}
                notes={editing.notes}
                beforeSave={editing.beforeSave}
                onClose={(saved) => {
                  setEditing(null);
                  if (saved) setSelected(`${saved.scope}:${saved.name}`);
                }}
              />
              )}
              </Loading>
            </aside>
          ) : showingTools && chosenTool && backend.tools && !rooting && !interchanging ? (
            <aside className={ASIDE}>
              <div className="mb-2 flex items-center">
                <h2 className="font-mono text-lg font-semibold">{chosenTool.server}</h2>
                <button type="button" data-testid="close-tool" onClick={() => setChosenTool(null)} className="ml-auto text-sm text-slate-500 hover:text-slate-800">
                  Close
                </button>
              </div>
              <Loading>
              <ToolRunner
                key={`${chosenTool.server}\n${chosenTool.tool.name}`}
                server={chosenTool.server}
                tool={chosenTool.tool}
                api={backend.tools}
                browse={backend.browse}
                tasks={(() => {
                  const status = statuses.get(chosenTool.server);
                  return status?.state === "connected" && status.capabilities.tasks;
                })()}
                loaded={null}
                onCalled={() => {}}
              />
              </Loading>
            </aside>
          ) : rooting && backend.session ? (
            <aside className={ASIDE}>
              <Loading>
                <RootsPanel api={backend.session} chooseFolder={backend.projects?.chooseFolder} onClose={() => setRooting(false)} />
              </Loading>
            </aside>
          ) : interchanging && backend.interop ? (
            <aside className={ASIDE}>
              <Loading>
                <ImportExport api={backend.interop} onClose={() => setInterchanging(false)} />
              </Loading>
            </aside>
          ) : (
            current && (
              <aside className={ASIDE}>
                <Loading>
                <ServerDetail
                  server={current}
                  status={statuses.get(current.name)}
                  actions={backend.actions}
                  followLog={backend.followLog}
                  login={backend.login}
                  doctor={backend.doctor}
                  tools={backend.tools}
                  browse={backend.browse}
                  skills={backend.skills}
                  session={backend.session}
                  follows={follows}
                  review={backend.trust?.review}
                  trusted={list?.trusted ?? true}
                  onAskTrust={() => setAskingTrust(true)}
                  surfaces={backend.surfaces}
                  clients={backend.clients}
                  onEdit={(server) => {
                    const original = { name: server.name, scope: server.scope };
                    void backend.drafts?.load(original).then((outcome) => {
                      if (outcome.ok) setEditing({ original, initial: outcome.value, changedOnDisk: 0 });
                    });
                  }}
                  preflight={backend.preflight}
                  agents={backend.agents}
                  onPinPackage={(server, args, note) => {
                    const original = { name: server.name, scope: server.scope };
                    void backend.drafts?.load(original).then((outcome) => {
                      if (outcome.ok) setEditing({ original, initial: { ...outcome.value, args }, changedOnDisk: 0, notes: [note] });
                    });
                  }}
                />
                </Loading>
              </aside>
            )
          )}
        </div>
        {askStore && backend.asks && <AsksWhenAsked store={askStore} api={backend.asks} />}
        {askingClose && backend.logins && (
          <Suspense fallback={null}>
            <CloseQuestion api={backend.logins} onAnswered={() => setAskingClose(false)} />
          </Suspense>
        )}
      </div>
    </>
  );
}

const ASIDE =
  "w-[30rem] shrink-0 overflow-y-auto border-l border-slate-200 bg-white px-5 py-4 dark:border-slate-800 dark:bg-slate-900";

function Logo() {
  return (
    <svg viewBox="0 0 1024 1024" className="h-6 w-6 shrink-0" aria-hidden="true">
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
