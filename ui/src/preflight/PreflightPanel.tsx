// Before a package starts: what the entry's npx, uvx, pnpm dlx, bunx, pipx run or docker run
// will fetch, whether one version is fixed, the version running now with "Pin to the version
// running now" (an edit in the editor, which shows the diff), and the registry's word on it.
// Post-install instructions are shown as text: nothing here runs them.
import { useEffect, useState } from "react";
import type { Preflight } from "../bindings";
import type { Outcome } from "../ipc/api";
import { Button } from "../shared/Button";
import { ErrorNotice } from "../shared/ErrorNotice";
import type { PreflightApi } from "./api";

const FROM = { npm: "npm", pypi: "PyPI", oci: "an image registry" } as const;

export function PreflightPanel({
  server,
  state,
  api,
  onPin,
}: {
  server: string;
  /** The server's state: a new one (connected, say) asks again, for the version running now. */
  state: string | undefined;
  api: PreflightApi;
  onPin: (args: string[], note: string) => void;
}) {
  const [result, setResult] = useState<Outcome<Preflight | null> | null>(null);
  useEffect(() => {
    let live = true;
    setResult(null);
    void api.check(server).then((outcome) => {
      if (live) setResult(outcome);
    });
    return () => {
      live = false;
    };
  }, [api, server, state]);

  if (result === null) {
    return (
      <p data-testid="preflight-waiting" className="text-xs text-slate-500">
        Checking what this entry fetches, and what the registry says of it…
      </p>
    );
  }
  if (!result.ok) return <ErrorNotice error={result.error} testId="preflight-error" />;
  const preflight = result.value;
  if (!preflight) return null;
  const { package: pkg, registry } = preflight;
  const why =
    pkg.also.length > 0
      ? `it also fetches ${pkg.also.join(", ")}`
      : pkg.unknownOptions.length > 0
        ? `options this does not read: ${pkg.unknownOptions.join(" ")}`
        : "not one version — what is published next runs next";
  const version = pkg.pinned
    ? `version ${pkg.version} (pinned)`
    : pkg.version
      ? `“${pkg.version}”: ${why}`
      : "no version given — whatever was published last runs";
  return (
    <section data-testid="preflight" data-pinned={pkg.pinned} aria-labelledby="preflight-title" className="space-y-1 rounded border border-slate-200 p-2 text-sm dark:border-slate-700">
      <h3 id="preflight-title" className="text-xs font-semibold uppercase text-slate-500">
        Before it starts
      </h3>
      <p data-testid="preflight-package">
        <span className="font-mono">{pkg.runner}</span> fetches <span className="font-mono font-semibold">{pkg.name}</span> from {FROM[pkg.ecosystem]}, {version}
        {!pkg.pinned && (
          <span data-testid="preflight-unpinned" className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200">
            not pinned
          </span>
        )}
      </p>
      {preflight.running && (
        <p data-testid="preflight-running" className="text-xs">
          Running now: <span className="font-mono">{preflight.running}</span>
        </p>
      )}
      {preflight.pinArgs && (
        <Button
          testId="preflight-pin"
          onClick={() =>
            onPin(preflight.pinArgs ?? [], `Pins ${pkg.name} to ${preflight.running}, the version running now: check the change below, then save.`)
          }
        >
          Pin to the version running now
        </Button>
      )}
      {!preflight.running && !pkg.pinned && pkg.ecosystem !== "oci" && (
        <p className="text-xs text-slate-500">Once it runs, the version it really is can be pinned here.</p>
      )}
      {registry.server ? (
        <p data-testid="preflight-registry" data-status={registry.status} className="text-xs">
          In the registry as <span className="font-mono">{registry.server}</span>
          {registry.version && <span className="font-mono"> {registry.version}</span>}
          {registry.status === "active" ? (
            ": active."
          ) : (
            <span className="ml-1 rounded bg-red-100 px-1.5 py-0.5 text-red-900 dark:bg-red-950 dark:text-red-200">
              {registry.status}
              {registry.statusMessage ? `: ${registry.statusMessage}` : ""}
            </span>
          )}
        </p>
      ) : (
        registry.unchecked.length === 0 && (
          <p data-testid="preflight-registry" data-status="unlisted" className="text-xs text-slate-500">
            Not published in the registry {registry.registry}.
          </p>
        )
      )}
      {registry.newer && (
        <p data-testid="preflight-newer" className="text-xs">
          A newer version: <span className="font-mono">{registry.newer.version}</span>
          {registry.newer.newRequired.length > 0 && <> — it requires {registry.newer.newRequired.join(", ")}</>}
          {registry.newer.removed.length > 0 && <> — it no longer takes {registry.newer.removed.join(", ")}</>}
        </p>
      )}
      {registry.postInstallInstructions && <Instructions text={registry.postInstallInstructions} version={registry.version} />}
      {registry.newer?.postInstallInstructions && <Instructions text={registry.newer.postInstallInstructions} version={registry.newer.version} />}
      {registry.unchecked.map((what) => (
        <p key={what} data-testid="preflight-unchecked" className="text-xs text-amber-800 dark:text-amber-200">
          Not checked: {what}
        </p>
      ))}
    </section>
  );
}

/** A publisher's post-install instructions: text to read, never a command to run. */
function Instructions({ text, version }: { text: string; version: string | null }) {
  const label = `After installing ${version ?? "it"}, its publisher says`;
  return (
    <div>
      <p className="text-xs">{label} (shown as text, never run):</p>
      <pre data-testid="preflight-instructions" data-version={version ?? ""} aria-label={label} className="max-h-40 overflow-auto whitespace-pre-wrap break-words rounded bg-slate-50 p-1 font-mono text-xs dark:bg-slate-900">
        {text}
      </pre>
    </div>
  );
}
