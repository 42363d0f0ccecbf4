// What was approved and what is served now: per tool, the diff from its pin (invisible text
// shown), "Accept the change" per tool or for all, "Pin now", the choice to keep changed
// tools from Claude Code until accepted, and the lint of what the model reads.
import { useEffect, useState } from "react";
import type { ApiError, Drift, LintFinding, PinCheck, QuarantineChoice, SettingsFile } from "../bindings";
import { Button } from "../shared/Button";
import { ErrorNotice } from "../shared/ErrorNotice";
import { pinChecks, pinsApi, usePinCheck } from "./checks";

const when = (ms: number | null) => new Date(ms ?? 0).toLocaleString();
const what = (drift: Drift) => (drift.tool === null ? "the server's instructions" : drift.tool);
const words = { added: "new", removed: "removed", changed: "changed" } as const;

/** "changed since approved": a tool differs from what was pinned. */
export function PinBadge({ server }: { server: string }) {
  const check = usePinCheck(server);
  if (!check || check.drift.length === 0) return null;
  return (
    <span data-testid="pin-drift-badge" title={`${check.drift.length} change(s) since it was approved`} className="shrink-0 rounded bg-red-100 px-1.5 py-0.5 text-xs text-red-900 dark:bg-red-950 dark:text-red-200">
      not as approved
    </span>
  );
}

function DriftView({ server, drift, busy, act }: { server: string; drift: Drift; busy: boolean; act: (run: () => ReturnType<typeof pinsApi.accept>) => void }) {
  return (
    <li data-testid="pin-drift" data-tool={drift.tool ?? ""} data-how={drift.how} className="rounded border border-slate-200 p-2 dark:border-slate-700">
      <div className="flex items-center gap-2">
        <span className="rounded bg-red-100 px-1 text-xs text-red-800 dark:bg-red-950 dark:text-red-200">{words[drift.how]}</span>
        <span className="font-mono text-sm font-semibold">{what(drift)}</span>
        <span className="flex-1" />
        <Button testId="pin-accept-tool" disabled={busy} onClick={() => act(() => pinsApi.accept(server, drift.tool))}>
          Accept the change
        </Button>
      </div>
      <pre aria-label={`What changed in ${what(drift)}`} className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-1 font-mono text-xs dark:bg-slate-900">
        {drift.lines.map((line, i) => (
          <div key={i} data-sign={line.sign} className={line.sign === "-" ? "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200" : line.sign === "+" ? "bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-200" : "text-slate-500"}>
            {line.sign} {line.text}
          </div>
        ))}
      </pre>
    </li>
  );
}

function FindingView({ finding }: { finding: LintFinding }) {
  return (
    <li data-testid="lint-finding" data-rule={finding.rule} data-level={finding.level} className="text-xs">
      <span className={finding.level === "warning" ? "rounded bg-amber-100 px-1 text-amber-900 dark:bg-amber-950 dark:text-amber-200" : "rounded bg-slate-100 px-1 text-slate-700 dark:bg-slate-800 dark:text-slate-300"}>
        {finding.level}
      </span>{" "}
      <span className="font-mono">{finding.tool ?? "instructions"}</span> · {finding.field} · {finding.message}:{" "}
      <span className="font-mono text-slate-500">…{finding.before}</span>
      <mark className="font-mono">{finding.matched}</mark>
      <span className="font-mono text-slate-500">{finding.after}…</span>
    </li>
  );
}

const places: { value: SettingsFile | ""; label: string }[] = [
  { value: "", label: "No: only show the change" },
  { value: "local", label: "Yes, in .claude/settings.local.json" },
  { value: "project", label: "Yes, in .claude/settings.json (shared)" },
  { value: "user", label: "Yes, in ~/.claude/settings.json" },
];

export function PinPanel({ server }: { server: string }) {
  const check = usePinCheck(server);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [choice, setChoice] = useState<QuarantineChoice | null>(null);

  useEffect(() => {
    void pinsApi.quarantineChoice().then((outcome) => outcome.ok && setChoice(outcome.value));
  }, [server]);

  if (!check) return null;
  const act = (run: () => Promise<{ ok: true; value: PinCheck } | { ok: false; error: ApiError }>) => {
    setBusy(true);
    setError(null);
    void run().then((outcome) => {
      setBusy(false);
      if (outcome.ok) pinChecks.apply(outcome.value);
      else setError(outcome.error);
    });
  };
  const own = choice ? (choice.servers && server in choice.servers ? choice.servers[server] : choice.all) : null;
  const warnings = check.findings.filter((f) => f.level === "warning").length;

  return (
    <section data-testid="pin-panel" aria-label="What was approved" className="flex flex-col gap-2 text-sm">
      {check.drift.length === 0 ? (
        <p data-testid="pin-state" data-drift="false" className="text-xs text-slate-600 dark:text-slate-400">
          {check.pinnedNow ? "Pinned now" : "Serves what was approved"}: {check.tools} tool(s), pinned {when(check.pinnedAtMs)}.
        </p>
      ) : (
        <div data-testid="pin-state" data-drift="true" className="rounded-md border border-red-300 bg-red-50 p-2 dark:border-red-800 dark:bg-red-950/40">
          <div className="flex items-center gap-2">
            <p className="flex-1 font-semibold">
              Not as approved: {check.drift.length} change(s) since {when(check.pinnedAtMs)}
            </p>
            <Button testId="pin-accept-all" tone="primary" disabled={busy} onClick={() => act(() => pinsApi.accept(server, null))}>
              Accept every change
            </Button>
          </div>
          {check.denied.length > 0 && (
            <p data-testid="pin-denied" className="mt-1 text-xs">
              Kept from Claude Code until accepted: <span className="font-mono">{check.denied.join(", ")}</span>
            </p>
          )}
          <ul className="mt-2 flex flex-col gap-2">
            {check.drift.map((drift) => (
              <DriftView key={drift.tool ?? ""} server={server} drift={drift} busy={busy} act={act} />
            ))}
          </ul>
        </div>
      )}
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <label className="flex items-center gap-1">
          When a tool changes, deny it in Claude Code until I accept:
          <select
            aria-label="Deny a changed tool in Claude Code until accepted"
            data-testid="pin-quarantine"
            className="rounded border border-slate-300 bg-transparent px-1 dark:border-slate-700"
            value={own ?? ""}
            disabled={busy || choice === null}
            onChange={(event) => {
              const file = (event.currentTarget.value || null) as SettingsFile | null;
              setBusy(true);
              void pinsApi.setQuarantine(server, file).then(async (outcome) => {
                if (!outcome.ok) setError(outcome.error);
                const now = await pinsApi.quarantineChoice();
                if (now.ok) setChoice(now.value);
                setBusy(false);
              });
            }}
          >
            {places.map((place) => (
              <option key={place.value} value={place.value}>
                {place.label}
              </option>
            ))}
          </select>
        </label>
        <Button testId="pin-now" disabled={busy} onClick={() => act(() => pinsApi.pinNow(server))}>
          Pin now
        </Button>
      </div>
      {error && <ErrorNotice error={error} testId="pin-error" />}
      {check.findings.length > 0 && (
        <details data-testid="lint" open={warnings > 0}>
          <summary className="cursor-pointer text-xs text-slate-600 dark:text-slate-400">
            What the model reads: {warnings} warning(s), {check.findings.length - warnings} note(s)
          </summary>
          <ul className="mt-1 flex flex-col gap-1">
            {check.findings.map((finding, i) => (
              <FindingView key={i} finding={finding} />
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
