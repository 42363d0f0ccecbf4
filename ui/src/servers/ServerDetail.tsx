// One server in full: its live state, what it runs, and what a person can do to it.
import { SurfacePanel } from "../surfaces/SurfacePanel";
import { PinPanel } from "../pins/PinPanel";
import type { SurfacesApi } from "../surfaces/api";
import { PreflightPanel } from "../preflight/PreflightPanel";
import type { PreflightApi } from "../preflight/api";
import { ErrorNotice } from "../shared/ErrorNotice";
import { Button } from "../shared/Button";
export { Button };
import { useEffect, useState } from "react";
import type { ApiError, ResetChoices, Scope, ServerReview, ServerStatus, ServerSummary, StderrTail } from "../bindings";
import type { Outcome } from "../ipc/api";
import type { ServerActions } from "./actions";
import { describeCounts, describeListening, LIVE_WORDS, STATE_LABEL, shadowedWords, stateBadges, stateOf, TRANSPORT_LABEL } from "./present";
import { ProtocolLog, type FollowLog } from "../logs/ProtocolLog";
import type { LoginApi } from "../login/api";
import { LoginProgress } from "../login/LoginProgress";
import { OAuthPanel } from "../login/OAuthPanel";
import type { DoctorApi } from "../doctor/api";
import { DoctorPanel } from "../doctor/DoctorPanel";
import type { ToolsApi } from "../tools/api";
import { ToolsPanel } from "../tools/ToolsPanel";
import type { BrowseApi } from "../browse/api";
import { ResourcesPanel } from "../browse/ResourcesPanel";
import { PromptsPanel } from "../browse/PromptsPanel";
import { SkillsPanel } from "../skills/SkillsPanel";
import type { SkillsApi } from "../skills/api";
import type { FollowStore } from "../browse/followStore";
import type { SessionApi } from "../session/api";
import { NotificationsPanel } from "../session/NotificationsPanel";
import { Words } from "../shared/Words";
import type { ClientsApi } from "../clients/api";
import { ClientsPanel } from "../clients/ClientsPanel";
import type { AgentsApi } from "../agents/api";
import { MoveServer } from "../agents/MoveServer";

type Tab = "overview" | "tools" | "clients" | "resources" | "prompts" | "skills" | "notifications" | "protocol" | "oauth" | "doctor";
const TAB_LABEL: Record<Tab, string> = {
  overview: "Overview",
  tools: "Tools",
  clients: "Clients",
  resources: "Resources",
  prompts: "Prompts",
  skills: "Skills",
  notifications: "Notifications",
  protocol: "Protocol log",
  oauth: "Login & OAuth",
  doctor: "Doctor",
};

export function ServerDetail({
  server,
  status,
  actions,
  onEdit,
  followLog,
  login,
  doctor,
  tools,
  browse,
  session,
  follows,
  review,
  trusted = true,
  onAskTrust,
  surfaces,
  clients,
  preflight,
  onPinPackage,
  agents,
  skills,
}: {
  server: ServerSummary;
  status: ServerStatus | undefined;
  actions: ServerActions;
  onEdit: (server: ServerSummary) => void;
  followLog?: FollowLog;
  login?: LoginApi;
  doctor?: DoctorApi;
  tools?: ToolsApi;
  browse?: BrowseApi;
  /** Its skills (the Skills extension) and those on disk. */
  skills?: SkillsApi;
  session?: SessionApi;
  follows?: FollowStore;
  /** The whole entry and its risks, shown before approving. */
  review?: (name: string) => Promise<Outcome<ServerReview>>;
  /** Whether the project folder is trusted; approving comes after trusting. */
  trusted?: boolean;
  onAskTrust?: () => void;
  /** What changed in the server (its surfaces kept in the history). */
  surfaces?: SurfacesApi;
  /** Its tools as each AI client sees them. */
  clients?: ClientsApi;
  /** Moving it into a subagent's frontmatter, or out of one. */
  agents?: AgentsApi;
  /** Before its package starts: what it fetches, and what the registry says. */
  preflight?: PreflightApi;
  /** Opens the editor on this entry with its package pinned (`args` replaced). */
  onPinPackage?: (server: ServerSummary, args: string[], note: string) => void;
}) {
  const [refusal, setRefusal] = useState<ApiError | null>(null);
  const [tab, setTab] = useState<Tab>("overview");
  const [loggingIn, setLoggingIn] = useState(false);
  const [loginStarted, setLoginStarted] = useState(false);
  const remote = server.transport !== "stdio";
  const others = (["local", "project", "user"] as const).filter((scope) => scope !== server.scope);
  const [copyTo, setCopyTo] = useState<Scope>(others[0]!);
  const [confirming, setConfirming] = useState<"approve" | "remove" | null>(null);
  const [reviewed, setReviewed] = useState<ServerReview | null>(null);
  const [resetSaid, setResetSaid] = useState<string | null>(null);
  // Another server shown: what was said or asked about the last one goes, before it is drawn
  // (an effect would run after a click that came first).
  const identity = `${server.scope}/${server.name}`;
  const [shownFor, setShownFor] = useState(identity);
  if (shownFor !== identity) {
    setShownFor(identity);
    setRefusal(null);
    setConfirming(null);
    setReviewed(null);
    setResetSaid(null);
    setLoginStarted(false);
  }
  const tabs: Tab[] = server.shadowedBy
    ? []
    : (["overview", "tools", "clients", "resources", "prompts", "skills", "notifications", "protocol", "oauth", "doctor"] as const).filter(
        (t) =>
          t === "overview" ||
          (t === "tools" && !!tools && status?.state === "connected" && status.capabilities.tools) ||
          (t === "clients" && !!clients && status?.state === "connected" && status.capabilities.tools) ||
          (t === "resources" && !!browse && status?.state === "connected" && status.capabilities.resources) ||
          (t === "prompts" && !!browse && status?.state === "connected" && status.capabilities.prompts) ||
          (t === "skills" && !!skills && status?.state === "connected" && status.capabilities.skills) ||
          (t === "notifications" && !!followLog && !!session && status?.state === "connected") ||
          (t === "protocol" && !!followLog) ||
          (t === "oauth" && !!login && remote) ||
          (t === "doctor" && !!doctor),
      );
  const shown: Tab = tabs.includes(tab) ? tab : "overview";

  const act = async (run: () => Promise<Outcome<unknown>>) => {
    setConfirming(null);
    const outcome = await run();
    setRefusal(outcome.ok ? null : outcome.error);
  };
  const state = server.shadowedBy ? null : stateOf(server, status);
  const isProject = server.scope === "project";
  // A plugin server: read-only, but it can be disabled for this project (and a project skills
  // plugin's server approved), as in Claude Code.
  const isPlugin = server.scope === "plugin";
  // A subagent's own server: read-only, approved here before it may be tried.
  const isAgent = server.scope === "agent";
  // Approving something the folder brought waits for the folder's trust; a user's own
  // subagent's server does not.
  const askTrust = !trusted && !!onAskTrust && server.fromProject;

  return (
    <section
      data-testid="server-detail"
      data-server-name={server.name}
      data-scope={server.scope}
      aria-label={`Server ${server.name}`}
      className="flex flex-col gap-4"
    >
      <div>
        <h2 className="font-mono text-lg font-semibold">{server.name}</h2>
        <p className="text-xs text-slate-500 dark:text-slate-400">
          {TRANSPORT_LABEL[server.transport]} · {server.plugin ? `from plugin ${server.plugin}` : `${server.scope} scope`} ·{" "}
          <span className="font-mono" title="The file this entry is in">
            {server.source}
          </span>{" "}
          {server.scope !== "managed" && server.scope !== "plugin" && server.scope !== "agent" && (
            <button
              type="button"
              data-testid="open-file"
              onClick={() => void act(() => actions.openFile(server.name, server.scope))}
              className="underline decoration-dotted hover:text-slate-700 dark:hover:text-slate-200"
            >
              Open file
            </button>
          )}
        </p>
      </div>

      {tabs.length > 1 && (
        <div role="tablist" aria-label="Server views" className="flex flex-wrap gap-x-1 border-b border-slate-200 dark:border-slate-800">
          {tabs.map((name) => (
            <button
              key={name}
              type="button"
              role="tab"
              data-testid={`tab-${name}`}
              aria-selected={shown === name}
              onClick={() => setTab(name)}
              className={`-mb-px shrink-0 whitespace-nowrap border-b-2 px-2 py-1 text-sm ${shown === name ? "border-indigo-600 font-semibold" : "border-transparent text-slate-500"}`}
            >
              {TAB_LABEL[name]}
            </button>
          ))}
        </div>
      )}
      {shown === "protocol" && followLog ? (
        <ProtocolLog key={server.name} server={server.name} follow={followLog} />
      ) : shown === "notifications" && followLog && session ? (
        <NotificationsPanel
          key={server.name}
          server={server.name}
          follow={followLog}
          api={session}
          logging={status?.state === "connected" && status.capabilities.logging}
        />
      ) : shown === "tools" && tools ? (
        <ToolsPanel
          key={server.name}
          server={server.name}
          api={tools}
          browse={browse}
          listed={status?.state === "connected" ? status.counts.tools : null}
          tasks={status?.state === "connected" && status.capabilities.tasks}
        />
      ) : shown === "clients" && clients ? (
        <ClientsPanel key={server.name} server={server.name} api={clients} listed={status?.state === "connected" ? status.counts.tools : null} />
      ) : shown === "resources" && browse ? (
        <ResourcesPanel
          key={server.name}
          server={server.name}
          api={browse}
          follows={status?.state === "connected" && status.capabilities.resourcesSubscribe ? follows : undefined}
        />
      ) : shown === "prompts" && browse ? (
        <PromptsPanel key={server.name} server={server.name} api={browse} />
      ) : shown === "skills" && skills ? (
        <SkillsPanel key={server.name} server={server.name} api={skills} />
      ) : shown === "oauth" && login ? (
        <OAuthPanel key={server.name} server={server.name} api={login} />
      ) : shown === "doctor" && doctor ? (
        <DoctorPanel key={server.name} server={server.name} api={doctor} />
      ) : (
        <>
      <Field label={server.transport === "stdio" ? "Runs" : "URL"}>
        <code data-testid="detail-target" className="break-all">
          {server.target}
        </code>
      </Field>

      {server.shadowedBy ? (
        <p data-testid="detail-shadowed" className="text-sm">
          {shadowedWords(server)}
        </p>
      ) : (
        <StatusBlock server={server} status={status} state={state} />
      )}
      {!server.shadowedBy && <PinPanel key={`pin:${server.name}`} server={server.name} />}
      {surfaces && <SurfacePanel key={server.name} server={server.name} api={surfaces} />}
      {status?.state === "needs-auth" && (
        <div className="flex items-center gap-2">
          <Button
            testId="log-in"
            tone="primary"
            disabled={loggingIn}
            onClick={() => {
              setLoggingIn(true);
              setLoginStarted(true);
              void act(() => actions.logIn(server.name)).finally(() => setLoggingIn(false));
            }}
          >
            Log in
          </Button>
          {loggingIn && !login && (
            <span data-testid="logging-in" className="text-sm text-slate-600 dark:text-slate-400">
              Finish logging in in your browser…
            </span>
          )}
        </div>
      )}
      {remote && login && !server.shadowedBy && (
        <LoginProgress key={server.name} server={server.name} api={login} started={loginStarted} />
      )}

      {refusal && (
        <ErrorNotice error={refusal} testId="action-error" />
      )}

      {confirming === "approve" && (
        <div data-testid="approve-confirm" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950">
          <p className="font-semibold">Approve “{server.name}”?</p>
          <p className="mt-1">
            {server.transport === "stdio"
              ? "It will run this command on your computer, with your permissions:"
              : "MCP Manager and Claude Code will connect to this address:"}
          </p>
          <pre data-testid="approve-target" className="mt-2 overflow-x-auto rounded bg-white p-2 font-mono text-xs dark:bg-slate-900">
            {server.target}
          </pre>
          {reviewed && (
            <>
              {reviewed.changedSinceApproval && (
                <p data-testid="approve-changed" className="mt-2 font-semibold">
                  Its entry changed since you approved it: read it again before approving.
                </p>
              )}
              <p className="mt-2">The whole entry (values that look secret are masked):</p>
              <pre data-testid="approve-entry" className="mt-1 max-h-64 overflow-auto rounded bg-white p-2 font-mono text-xs dark:bg-slate-900">
                {reviewed.entry}
              </pre>
              {reviewed.warnings.length > 0 && (
                <ul data-testid="approve-warnings" aria-label="What to look at" className="mt-2 list-disc pl-5 text-xs">
                  {reviewed.warnings.map((w) => (
                    <li key={w}>{w}</li>
                  ))}
                </ul>
              )}
            </>
          )}
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            {server.fromProject
              ? `It comes from ${server.source}, a file anyone with access to the project can change.`
              : `It comes from ${server.source}.`}
          </p>
          <div className="mt-3 flex gap-2">
            <Button testId="approve-confirm-yes" onClick={() => act(() => actions.setApproval(server.name, true))} tone="primary">
              Approve and start
            </Button>
            {!isAgent && (
              <Button testId="approve-confirm-all" onClick={() => act(() => actions.approveAll())}>
                Approve every server of this project, now and later
              </Button>
            )}
            <Button testId="approve-confirm-no" onClick={() => setConfirming(null)}>
              Cancel
            </Button>
          </div>
        </div>
      )}

      {resetSaid && (
        <p data-testid="reset-choices-said" role="status" className="whitespace-pre-line text-sm">
          {resetSaid}
        </p>
      )}

      {confirming === "remove" && (
        <div data-testid="remove-confirm" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950">
          <p>
            Remove “{server.name}” from {server.source}? The server is stopped and its entry deleted
            from that file.
          </p>
          <div className="mt-3 flex gap-2">
            <Button testId="remove-confirm-yes" onClick={() => act(() => actions.remove(server.name, server.scope))} tone="danger">
              Remove
            </Button>
            <Button testId="remove-confirm-no" onClick={() => setConfirming(null)}>
              Cancel
            </Button>
          </div>
        </div>
      )}

      <div className="flex flex-wrap gap-2" role="group" aria-label="Actions">
        {server.willStart && (
          <Button testId="restart" onClick={() => act(() => actions.restart(server.name))}>
            {state === "failed" || state === "needs-auth" ? "Retry" : "Restart"}
          </Button>
        )}
        {server.approval !== null && (server.approval !== "approved" || server.changedSinceApproval) && (!server.readOnly || isPlugin || isAgent) && (
          <Button
            testId="approve"
            onClick={() => {
              if (askTrust) {
                onAskTrust?.();
                return;
              }
              setConfirming("approve");
              void review?.(server.name).then((outcome) => {
                if (outcome.ok) setReviewed(outcome.value);
                else setRefusal(outcome.error);
              });
            }}
            tone="primary"
          >
            {askTrust ? "Trust the folder to approve…" : "Approve…"}
          </Button>
        )}
        {server.standing === "awaiting-trust" && onAskTrust && (
          <Button testId="trust-to-start" onClick={onAskTrust} tone="primary">
            Trust the folder to start it…
          </Button>
        )}
        {isProject && !server.readOnly && (
          <Button
            testId="reset-choices"
            onClick={() =>
              act(async () => {
                const outcome = await actions.resetChoices();
                if (outcome.ok) setResetSaid(describeReset(outcome.value));
                return outcome;
              })
            }
          >
            Reset project choices
          </Button>
        )}
        {isProject && server.approval !== "rejected" && !server.readOnly && (
          <Button testId="reject" onClick={() => act(() => actions.setApproval(server.name, false))}>
            Reject
          </Button>
        )}
        {(!server.readOnly || isPlugin) && !server.shadowedBy && (
          <Button
            testId={server.enabled ? "disable" : "enable"}
            onClick={() => act(() => actions.setEnabled(server.name, !server.enabled))}
          >
            {server.enabled ? "Disable" : "Enable"}
            {isPlugin && " for this project"}
          </Button>
        )}
        {server.transport !== "stdio" && status?.state === "connected" && (
          <Button testId="log-out" onClick={() => act(() => actions.logOut(server.name))}>
            Log out
          </Button>
        )}
        {!server.readOnly && (
          <Button testId="edit" onClick={() => onEdit(server)}>
            Edit…
          </Button>
        )}
        {!server.readOnly && (
          <Button testId="remove" onClick={() => setConfirming("remove")} tone="danger">
            Remove…
          </Button>
        )}
      </div>
      {/* Moved into a subagent it would run there without approval: offered once approved. */}
      {agents && !(isProject && server.approval !== "approved") && <MoveServer key={`${server.scope}:${server.name}`} server={server} api={agents} />}
      {/* A copy in another scope would start without approval: offered once approved. */}
      {!server.readOnly && !(isProject && server.approval !== "approved") && (
        <div className="flex items-center gap-2 text-sm">
          <label htmlFor="copy-scope" className="text-xs text-slate-500">
            Copy to
          </label>
          <select
            id="copy-scope"
            data-testid="copy-scope"
            value={copyTo}
            onChange={(e) => setCopyTo(e.target.value as Scope)}
            className="rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700"
          >
            {others.map((scope) => (
              <option key={scope} value={scope}>
                the {scope} scope
              </option>
            ))}
          </select>
          <Button testId="copy" onClick={() => act(() => actions.copy(server.name, server.scope, copyTo))}>
            Copy
          </Button>
          {copyTo === "project" && (
            <span className="text-xs text-amber-800 dark:text-amber-300">.mcp.json is shared: env and headers go as written.</span>
          )}
        </div>
      )}

      {/* Below the actions: its answer arrives later and must not move them under a click. */}
      {!server.shadowedBy && server.transport === "stdio" && preflight && (
        <PreflightPanel
          key={`preflight:${server.name}`}
          server={server.name}
          state={status?.state}
          api={preflight}
          onPin={(args, note) => onPinPackage?.(server, args, note)}
        />
      )}
      {server.transport === "stdio" && !server.shadowedBy && (
        <Stderr server={server.name} status={status} actions={actions} />
      )}
        </>
      )}
    </section>
  );
}

function StatusBlock({
  server,
  status,
  state,
}: {
  server: ServerSummary;
  status: ServerStatus | undefined;
  state: ReturnType<typeof stateOf> | null;
}) {
  if (!state) return null;
  return (
    <div data-testid="detail-status" data-state={state} className="rounded-md border border-slate-200 p-3 text-sm dark:border-slate-800">
      <p className="font-semibold"><Words text={state === "disabled" ? (stateBadges(server)[0] ?? STATE_LABEL[state]) : LIVE_WORDS[state]} /></p>
      {server.blocked && (
        <p data-testid="policy-block" className="mt-1 text-slate-600 dark:text-slate-400">
          {server.blocked.denied
            ? `Your organization's policy blocks this server: ${server.blocked.rule} in ${server.blocked.files.join(", ")}. `
            : `Your organization's policy allows only the servers it lists, and no entry matches this one: ${server.blocked.rule} in ${server.blocked.files.join(", ")}. `}
          It never starts, here or in Claude Code (which leaves it out of its list without a word). Ask
          your administrator if you need it.
        </p>
      )}
      {state === "disabled" && !server.blocked && (
        <p className="mt-1 text-slate-600 dark:text-slate-400">
          {server.standing === "set-aside-by-managed"
            ? "managed-mcp.json has exclusive control: only your administrator's servers run, here and in Claude Code."
            : !server.enabled
            ? "Disabled for this project: enable it to start it."
            : server.standing === "awaiting-trust"
              ? "Approved in your settings; trust the folder to start it. It came with this folder, and nothing a folder brings starts before you trust it, as in Claude Code."
            : server.changedSinceApproval
              ? "Its entry changed since you approved it (command, URL, environment or headers): it does not start until you review it and approve it again."
            : server.approval === "pending" && server.waitingForTrust
              ? `${server.waitingForTrust} approves it, but this folder is not trusted, so that does not count yet: trust the folder to start it.`
            : server.approval === "pending" && server.scope === "agent"
              ? "A subagent's own server: Claude Code runs it while that subagent runs, without asking. Here it starts only once you approve it."
            : server.approval === "pending"
              ? "A project server nobody has approved yet: it does not start until you approve it."
              : server.approval === "rejected"
                ? "You rejected this project server: it never starts."
                : "It is not running."}
        </p>
      )}
      {status?.state === "pending" && (
        <p className="mt-1">{status.attempt > 1 ? `Reconnecting, attempt ${status.attempt} of 5…` : "Connecting…"}</p>
      )}
      {status?.state === "connected" && (
        <dl className="mt-1 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5">
          <dt className="text-slate-500">Server</dt>
          <dd data-testid="server-info">
            {status.serverTitle ?? status.serverName} {status.serverVersion}
          </dd>
          <dt className="text-slate-500">Offers</dt>
          <dd data-testid="server-counts">{describeCounts(status.counts) || "nothing listed"}</dd>
          <dt className="text-slate-500">Protocol</dt>
          <dd data-testid="server-protocol" data-era={status.era}>
            {status.protocolVersion} {status.era === "modern" ? "(stateless)" : "(initialize)"}
            {status.eraEvidence && (
              <span data-testid="server-era-evidence" className="block text-xs text-slate-500">
                {status.eraEvidence}
              </span>
            )}
          </dd>
          {status.listening && (
            <>
              <dt className="text-slate-500">Live changes</dt>
              <dd data-testid="server-listening" data-state={status.listening.state}>
                {describeListening(status.listening)}
              </dd>
            </>
          )}
        </dl>
      )}
      {status?.state === "failed" && (
        <>
          <pre data-testid="failure" className="mt-2 max-h-48 overflow-auto whitespace-pre-wrap rounded bg-red-50 p-2 font-mono text-xs text-red-900 dark:bg-red-950 dark:text-red-100">
            {status.error}
          </pre>
          <CopyButton text={status.error} label="Copy the error" />
        </>
      )}
      {status?.state === "needs-auth" && (
        <p data-testid="needs-auth-help" className="mt-1">
          The server asks you to log in. Log in opens your browser; the tokens go to your OS
          keychain, never to a file.
        </p>
      )}
    </div>
  );
}

/** The stderr tail of a local server, loaded when shown and again on each status change. */
function Stderr({
  server,
  status,
  actions,
}: {
  server: string;
  status: ServerStatus | undefined;
  actions: ServerActions;
}) {
  const [tail, setTail] = useState<StderrTail | null>(null);
  useEffect(() => {
    let current = true;
    void actions.stderr(server).then((outcome) => {
      if (current && outcome.ok) setTail(outcome.value);
    });
    return () => {
      current = false;
    };
  }, [server, status, actions]);
  const text = tail?.lines.join("\n") ?? "";
  return (
    <div>
      <div className="mb-1 flex items-center gap-2">
        <h3 className="text-sm font-semibold">Standard error</h3>
        {tail && tail.droppedLines > 0 && (
          <span className="text-xs text-slate-500">({tail.droppedLines} older lines dropped)</span>
        )}
        {text && <CopyButton text={text} label="Copy stderr" />}
      </div>
      <pre data-testid="stderr" className="max-h-64 overflow-auto whitespace-pre-wrap rounded border border-slate-200 bg-slate-100 p-2 font-mono text-xs dark:border-slate-800 dark:bg-slate-900">
        {text || "Nothing written to stderr."}
      </pre>
    </div>
  );
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      aria-label={label}
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(
          () => setDone(true),
          () => setDone(false),
        )
      }
      className="rounded border border-slate-300 px-2 text-xs hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800"
    >
      {done ? "Copied" : "Copy"}
    </button>
  );
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="text-sm">
      <div className="text-xs font-medium text-slate-500 dark:text-slate-400">{label}</div>
      <div className="font-mono text-xs">{children}</div>
    </div>
  );
}

/** What `claude mcp reset-project-choices` says afterwards, in its words. */
export function describeReset(report: ResetChoices): string {
  const servers = (names: string[], one: string, many: string) =>
    names.length === 1 ? `1 server (${names[0]}) ${one}` : `${names.length} servers (${names.join(", ")}) ${many}`;
  const lines = ["Project-scoped (.mcp.json) server approvals and rejections stored for this project have been reset."];
  if (report.stillApproved.length > 0)
    lines.push(
      servers(
        report.stillApproved,
        "is still approved by other settings and will connect automatically without prompting.",
        "are still approved by other settings and will connect automatically without prompting.",
      ),
    );
  if (report.stillRejected.length > 0)
    lines.push(
      servers(report.stillRejected, "remains rejected by other settings and will not prompt.", "remain rejected by other settings and will not prompt."),
    );
  return lines.join("\n");
}
