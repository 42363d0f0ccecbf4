// Add server → From a registry: the registry's search (debounced), results with what each
// installs as and its status, paging with the registry's cursor, the cached listing at once and
// offline ("as of …"), and the registry address as a setting. Opening a result shows its page.
import { useEffect, useRef, useState } from "react";
import type { ApiError, Listed, Listing, RegistrySetting, ServerJson } from "../bindings";
import { Button } from "../shared/Button";
import { ErrorNotice } from "../shared/ErrorNotice";
import type { RegistryApi } from "./api";
import { iconOf, installsAs, keyOf, linkOf } from "./present";
import { ServerPage, type InstallReady } from "./ServerPage";

const INPUT = "w-full rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700";

export function RegistryBrowser({ api, onReady }: { api: RegistryApi; onReady: (ready: InstallReady) => void }) {
  const [setting, setSetting] = useState<RegistrySetting | null>(null);
  const [editingSetting, setEditingSetting] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [listing, setListing] = useState<Listing | null>(null);
  const [waiting, setWaiting] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [open, setOpen] = useState<ServerJson | null>(null);
  const generation = useRef(0);

  const search = async (text: string, cursor: string | null) => {
    const mine = ++generation.current;
    setWaiting(cursor ? "Asking the registry for more…" : `Searching ${setting?.url ?? "the registry"}…`);
    const outcome = await api.search(text, cursor);
    if (mine !== generation.current) return;
    setWaiting(null);
    if (!outcome.ok) return setFailure(outcome.error);
    setFailure(null);
    setListing((before) => (cursor && before ? { ...outcome.value, servers: [...before.servers, ...outcome.value.servers] } : outcome.value));
  };

  // The cache first (instant, offline), then the live first page, then, in the background,
  // the cache brought up to date (only what changed; the first time, every server, which
  // takes a while on the official registry and must not hold the search up).
  useEffect(() => {
    void (async () => {
      const found = await api.setting();
      if (found.ok) setSetting(found.value);
      const cached = await api.cached("");
      if (cached.ok && cached.value.servers.length > 0) setListing(cached.value);
      await search("", null);
      void api.refresh();
    })();
  }, []);

  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const timer = setTimeout(() => void search(query, null), 300);
    return () => clearTimeout(timer);
  }, [query]);

  if (open) return <ServerPage api={api} server={open} onBack={() => setOpen(null)} onReady={onReady} />;

  const saveSetting = async () => {
    if (editingSetting === null) return;
    const saved = await api.setRegistry(editingSetting);
    if (!saved.ok) return setFailure(saved.error);
    setSetting(saved.value);
    setEditingSetting(null);
    setListing(null);
    await search(query, null);
  };

  return (
    <section aria-label="From a registry" data-testid="registry-browser" className="flex flex-col gap-3">
      <div className="flex items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
        <span>
          Registry: <span data-testid="registry-url" className="font-mono">{setting?.url ?? "…"}</span>
          {setting?.fromEnvironment && " (from MCP_MANAGER_REGISTRY)"}
        </span>
        <button type="button" data-testid="registry-change" className="underline" onClick={() => setEditingSetting(setting?.setting ?? "")}>
          Change…
        </button>
      </div>
      {editingSetting !== null && (
        <div className="flex items-end gap-2">
          <label className="flex-1 text-xs font-medium" htmlFor="registry-address">
            Registry address (empty: {setting?.defaultUrl})
            <input id="registry-address" data-testid="registry-address" className={`${INPUT} font-mono`} value={editingSetting} onChange={(e) => setEditingSetting(e.target.value)} />
          </label>
          <Button testId="registry-address-save" onClick={() => void saveSetting()}>
            Use it
          </Button>
        </div>
      )}
      <label className="text-xs font-medium" htmlFor="registry-search">
        Search the registry by name
        <input id="registry-search" data-testid="registry-search" className={INPUT} value={query} placeholder="filesystem, github, time…" onChange={(e) => setQuery(e.target.value)} autoFocus />
      </label>
      {waiting && (
        <p role="status" data-testid="registry-waiting" className="text-xs text-slate-500">
          {waiting}
        </p>
      )}
      {listing?.offline && (
        <p role="alert" data-testid="registry-offline" className="rounded-md border border-amber-300 bg-amber-50 p-2 text-xs dark:border-amber-800 dark:bg-amber-950">
          {listing.offline}. Showing the listing kept on this computer
          {listing.asOf ? ` as of ${new Date(listing.asOf).toLocaleString()}` : ""}.
        </p>
      )}
      {!listing?.offline && listing?.asOf && (
        <p data-testid="registry-as-of" className="text-xs text-slate-500">
          As of {new Date(listing.asOf).toLocaleString()}, kept on this computer.
        </p>
      )}
      {failure && <ErrorNotice error={failure} testId="registry-error" />}
      <ul aria-label="Registry results" data-testid="registry-results" className="flex flex-col divide-y divide-slate-200 dark:divide-slate-800">
        {listing?.servers.map((entry) => (
          <Result key={keyOf(entry)} entry={entry} api={api} onOpen={setOpen} />
        ))}
      </ul>
      {listing && listing.servers.length === 0 && <p className="text-sm text-slate-500">No server matches “{query}”.</p>}
      {listing?.nextCursor && (
        <Button testId="registry-more" onClick={() => void search(query, listing.nextCursor ?? null)}>
          More
        </Button>
      )}
    </section>
  );
}

function Result({ entry, api, onOpen }: { entry: Listed; api: RegistryApi; onOpen: (server: ServerJson) => void }) {
  if (entry.kind === "invalid") {
    return (
      <li data-testid="registry-result" data-name={entry.name} className="py-2 text-sm">
        <span className="font-mono">{entry.name}</span> {entry.version}
        <p className="text-xs text-red-700 dark:text-red-300">Cannot be installed: {entry.problem}</p>
      </li>
    );
  }
  return <ValidResult entry={entry} api={api} onOpen={onOpen} />;
}

function ValidResult({ entry, api, onOpen }: { entry: Extract<Listed, { kind: "valid" }>; api: RegistryApi; onOpen: (server: ServerJson) => void }) {
  const { server, official } = entry;
  const source = iconOf(server);
  const [icon, setIcon] = useState<string | null>(null);
  useEffect(() => {
    if (!source) return;
    let live = true;
    void api.icon(source).then((outcome) => live && outcome.ok && setIcon(outcome.value));
    return () => {
      live = false;
    };
  }, [api, source]);
  const repository = linkOf(server.repository?.url);
  const website = linkOf(server.websiteUrl);
  return (
    <li data-testid="registry-result" data-name={server.name} className="flex gap-3 py-2">
      {icon ? (
        <img src={icon} alt="" data-testid="registry-icon" width={32} height={32} className="h-8 w-8 shrink-0 rounded object-contain" />
      ) : (
        <span aria-hidden className="h-8 w-8 shrink-0 rounded bg-slate-200 dark:bg-slate-800" />
      )}
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-2">
          <button type="button" data-testid="registry-open" aria-label={`Open ${server.name}`} onClick={() => onOpen(server)} className="truncate text-left font-medium text-indigo-700 hover:underline dark:text-indigo-300">
            {server.title ?? server.name}
          </button>
          <span className="text-xs text-slate-500">{server.version}</span>
          {installsAs(server).map((kind) => (
            <span key={kind} className="rounded bg-slate-100 px-1.5 text-xs dark:bg-slate-800">
              {kind}
            </span>
          ))}
          {(official.status ?? "active") !== "active" && (
            <span data-testid="registry-status" className={`rounded px-1.5 text-xs ${official.status === "deleted" ? "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200" : "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-200"}`}>
              {official.status}
              {official.statusMessage ? `: ${official.statusMessage}` : ""}
            </span>
          )}
        </div>
        {server.title && <p className="font-mono text-xs text-slate-500">{server.name}</p>}
        <p className="text-sm text-slate-700 dark:text-slate-300">{server.description}</p>
        <div className="flex gap-3 text-xs">
          {repository && (
            <button type="button" className="underline" onClick={() => void api.openLink(repository)}>
              Repository
            </button>
          )}
          {website && (
            <button type="button" className="underline" onClick={() => void api.openLink(website)}>
              Website
            </button>
          )}
        </div>
      </div>
    </li>
  );
}
