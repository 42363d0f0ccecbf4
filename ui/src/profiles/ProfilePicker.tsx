// The profile picker beside the project picker: the project's profiles (the one that matches
// the servers enabled now is marked), each applied only after its change is shown with the
// budget before and after; undo of the last apply; a profile saved from the servers enabled
// now or from the servers Claude Code called here; a profile's command line for
// `claude --mcp-config`.
import { useEffect, useRef, useState } from "react";
import type { ApiError, Launch, ProfilePlan, Profiles, ProjectBudget } from "../bindings";
import type { ClientsApi } from "../clients/api";
import type { UsageApi } from "../usage/api";
import type { ProfilesApi } from "./api";
import { budgetChange } from "./present";

const n = (value: number) => value.toLocaleString("en-US");

export function ProfilePicker({ api, clients, usage, refreshKey }: { api: ProfilesApi; clients?: ClientsApi; usage?: UsageApi; refreshKey?: string }) {
  const [open, setOpen] = useState(false);
  const [profiles, setProfiles] = useState<Profiles | null>(null);
  const [plan, setPlan] = useState<ProfilePlan | null>(null);
  const [budget, setBudget] = useState<ProjectBudget | null>(null);
  const [launch, setLaunch] = useState<Launch | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [shared, setShared] = useState(false);
  const [deny, setDeny] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  /** The servers ticked for a new profile: those on now, until the person changes them. */
  const [picked, setPicked] = useState<string[] | null>(null);
  const panel = useRef<HTMLDivElement>(null);

  const load = async () => {
    const outcome = await api.list();
    if (outcome.ok) setProfiles(outcome.value);
    else setError(outcome.error);
  };
  useEffect(() => {
    void load();
  }, [api, refreshKey]);

  const active = profiles?.profiles.find((p) => p.active)?.name ?? null;
  const ticked = picked ?? profiles?.servers.filter((s) => s.enabled).map((s) => s.name) ?? [];
  const run = async <T,>(what: string, step: () => Promise<{ ok: true; value: T } | { ok: false; error: ApiError }>, then: (value: T) => void) => {
    setBusy(what);
    setError(null);
    const outcome = await step();
    setBusy(null);
    if (outcome.ok) then(outcome.value);
    else setError(outcome.error);
  };

  const choose = (profile: string) =>
    void run("plan", () => api.plan(profile), (value) => {
      setPlan(value);
      setLaunch(null);
      setMessage(null);
      if (clients) void clients.budget(false).then((b) => b.ok && setBudget(b.value));
    });
  const apply = (profile: string) =>
    void run("apply", () => api.apply(profile), (value) => {
      setPlan(null);
      setMessage(
        `"${value.profile}" applied: ${value.turnOff.length} turned off, ${value.turnOn.length} turned on, in ${value.path}` +
          (value.deny.length ? `; ${value.deny.length} denied in ${value.denyPath}.` : "."),
      );
      void load();
    });
  const undo = () =>
    void run("undo", () => api.undo(), (value) => {
      setPlan(null);
      setMessage(value.note ?? `"${value.profile}" undone: ${value.path} is byte for byte what it was.`);
      void load();
    });
  const saveFrom = (servers: string[]) =>
    void run("save", () => api.save(name, servers, deny.split(",").map((t) => t.trim()).filter(Boolean), shared), (value) => {
      setMessage(`Saved "${value.name}": ${value.servers.join(", ") || "no server"}.`);
      setName("");
      setDeny("");
      setPicked(null);
      void load();
    });
  const saveFromUsage = async () => {
    if (!usage) return;
    setBusy("usage");
    const report = await usage.report(30, false);
    setBusy(null);
    if (!report.ok) return setError(report.error);
    saveFrom(report.value.servers.filter((s) => s.configured && s.month.calls > 0).map((s) => s.server));
  };
  const change = plan && budget ? budgetChange(plan, budget) : null;
  const planned = plan ? profiles?.profiles.find((p) => p.name === plan.profile) : null;
  const blocked = planned?.shared && !profiles?.trusted;

  return (
    <div className="relative shrink-0" ref={panel}>
      <button
        type="button"
        data-testid="profile-picker"
        aria-expanded={open}
        aria-label="Profiles: sets of servers for a kind of work"
        onClick={() => setOpen(!open)}
        className="rounded border border-slate-300 px-2 py-0.5 text-xs dark:border-slate-700"
      >
        Profile: <span data-testid="active-profile">{active ?? "none"}</span> ▾
      </button>
      {open && (
        <div
          data-testid="profile-panel"
          className="absolute left-0 top-8 z-20 flex w-[34rem] flex-col gap-2 rounded-md border border-slate-200 bg-white p-3 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <p className="text-xs text-slate-600 dark:text-slate-400">
            A profile turns on exactly its servers for this project, as Claude Code's /mcp does (disabledMcpServers in ~/.claude.json). The change is shown
            before it is written.
          </p>
          {profiles?.profiles.length === 0 && <p className="text-xs text-slate-500">No profiles yet.</p>}
          <ul className="flex flex-col gap-1">
            {profiles?.profiles.map((p) => (
              <li key={`${p.shared}-${p.name}`} data-testid="profile" data-profile={p.name} className="flex items-center gap-2">
                <span className="font-medium">{p.name}</span>
                {p.active && <span className="rounded bg-indigo-100 px-1 text-xs text-indigo-800 dark:bg-indigo-900 dark:text-indigo-200">in use</span>}
                <span className="min-w-0 flex-1 truncate text-xs text-slate-500" title={p.servers.join(", ")}>
                  {p.servers.join(", ") || "no server"}
                  {p.deniedTools.length > 0 ? ` · denies ${p.deniedTools.join(", ")}` : ""}
                  {p.shared ? " · shared" : ""}
                  {p.missing.length > 0 ? ` · not here: ${p.missing.join(", ")}` : ""}
                </span>
                <button type="button" data-testid="profile-choose" onClick={() => choose(p.name)} className="text-xs underline">
                  Apply…
                </button>
                <button
                  type="button"
                  data-testid="profile-launch"
                  onClick={() => void run("launch", () => api.launch(p.name), (value) => (setLaunch(value), setPlan(null)))}
                  className="text-xs underline"
                >
                  Command line
                </button>
              </li>
            ))}
          </ul>
          {busy && <p className="text-xs text-slate-500">{busy === "usage" ? "Reading Claude Code's records…" : "Working…"}</p>}
          {plan && (
            <div data-testid="profile-plan" className="rounded border border-slate-200 p-2 dark:border-slate-800">
              <p className="font-semibold">Applying "{plan.profile}" writes {plan.key}</p>
              <p className="font-mono text-xs text-slate-500">{plan.path}</p>
              {plan.turnOn.length + plan.turnOff.length + plan.deny.length === 0 && <p className="text-xs">No changes: they already match.</p>}
              <ul className="text-xs">
                {plan.turnOn.map((s) => (
                  <li key={`on-${s}`} data-testid="plan-on" className="text-green-800 dark:text-green-300">
                    + {s} (turned on)
                  </li>
                ))}
                {plan.turnOff.map((s) => (
                  <li key={`off-${s}`} data-testid="plan-off" className="text-red-800 dark:text-red-300">
                    − {s} (turned off)
                  </li>
                ))}
                {plan.deny.map((s) => (
                  <li key={`deny-${s}`} data-testid="plan-deny" className="text-amber-800 dark:text-amber-300">
                    deny {s} (in {plan.denyPath})
                  </li>
                ))}
                {plan.missing.map((s) => (
                  <li key={`missing-${s}`} className="text-slate-500">
                    ? {s} (not configured in this project: ignored)
                  </li>
                ))}
              </ul>
              {change && (
                <p data-testid="plan-budget" className="text-xs">
                  Tools upfront in every request: {n(change.before)} tokens now, {n(change.after)} with this profile
                  {change.unknown.length > 0 ? ` (plus ${change.unknown.join(", ")}, not connected now, so not counted)` : ""}.
                </p>
              )}
              {blocked && (
                <p className="text-xs text-amber-800 dark:text-amber-300">This profile comes from the project: trust the folder to apply it.</p>
              )}
              <div className="mt-1 flex gap-2">
                <button
                  type="button"
                  data-testid="profile-apply"
                  disabled={!!busy || !!blocked}
                  onClick={() => apply(plan.profile)}
                  className="rounded bg-indigo-600 px-2 py-0.5 text-xs font-semibold text-white disabled:opacity-50"
                >
                  Apply
                </button>
                <button type="button" onClick={() => setPlan(null)} className="text-xs underline">
                  Cancel
                </button>
              </div>
            </div>
          )}
          {launch && (
            <div data-testid="profile-launch-file" className="rounded border border-slate-200 p-2 text-xs dark:border-slate-800">
              <p>Written to {launch.path}. Run:</p>
              <input
                readOnly
                aria-label="Command line for this profile"
                data-testid="profile-command"
                value={launch.command}
                onFocus={(e) => e.target.select()}
                className="w-full rounded border border-slate-300 bg-transparent px-1 font-mono dark:border-slate-700"
              />
              {launch.variables.length > 0 && <p>Set first: {launch.variables.join(", ")}.</p>}
              {launch.leftOut.map((why) => (
                <p key={why} className="text-slate-500">
                  Left out: {why}
                </p>
              ))}
            </div>
          )}
          {profiles?.undo && (
            <button type="button" data-testid="profile-undo" disabled={!!busy} onClick={undo} className="self-start text-xs underline">
              Undo "{profiles.undo}" (put the servers back as they were)
            </button>
          )}
          <fieldset className="flex flex-wrap gap-x-3 gap-y-1 border-t border-slate-200 pt-2 text-xs dark:border-slate-800">
            <legend className="sr-only">Servers of a new profile</legend>
            {profiles?.servers.map((server) => (
              <label key={server.name} className="flex items-center gap-1">
                <input
                  type="checkbox"
                  data-testid="profile-server"
                  data-server={server.name}
                  checked={ticked.includes(server.name)}
                  onChange={(e) =>
                    setPicked(e.target.checked ? [...ticked, server.name] : ticked.filter((t) => t !== server.name))
                  }
                />
                {server.name}
              </label>
            ))}
          </fieldset>
          <div className="flex flex-wrap items-center gap-2">
            <input
              data-testid="profile-name"
              aria-label="New profile's name"
              placeholder="New profile's name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              className="w-40 rounded border border-slate-300 bg-transparent px-1 py-0.5 text-xs dark:border-slate-700"
            />
            <input
              data-testid="profile-deny"
              aria-label="Tools to deny while it is in use (mcp__server__tool, comma-separated)"
              placeholder="Tools to deny: mcp__server__tool, …"
              value={deny}
              onChange={(e) => setDeny(e.target.value)}
              className="w-64 rounded border border-slate-300 bg-transparent px-1 py-0.5 text-xs dark:border-slate-700"
            />
            <label className="flex items-center gap-1 text-xs">
              <input type="checkbox" data-testid="profile-shared" checked={shared} onChange={(e) => setShared(e.target.checked)} />
              Share in the project (.mcp-profiles.json)
            </label>
            <button
              type="button"
              data-testid="profile-save"
              disabled={!name.trim() || !!busy}
              onClick={() => saveFrom(ticked)}
              className="text-xs underline disabled:opacity-50"
            >
              Save the servers ticked
            </button>
            {usage && (
              <button
                type="button"
                data-testid="profile-save-used"
                disabled={!name.trim() || !!busy}
                onClick={() => void saveFromUsage()}
                className="text-xs underline disabled:opacity-50"
              >
                Save the servers Claude Code used here in 30 days
              </button>
            )}
          </div>
          {message && (
            <p data-testid="profile-message" role="status" className="text-xs text-green-800 dark:text-green-300">
              {message}
            </p>
          )}
          {error && (
            <p data-testid="profile-error" role="alert" className="text-xs text-red-700 dark:text-red-300">
              {error.message}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
