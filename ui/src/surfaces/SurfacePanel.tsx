// A server's past surfaces and what changed: "changed since <time>" with the diff (each
// change marked breaking or not) when its surface changed while the project is open, and
// every surface kept, each comparable with the one before it.
import { useEffect, useState } from "react";
import type { SurfaceDiff, SurfaceRecord } from "../bindings";
import type { SurfacesApi } from "./api";
import { useSurfaceChange } from "./changes";

const time = (ms: number | null) => new Date(ms ?? 0).toLocaleString();

export function DiffView({ diff }: { diff: SurfaceDiff }) {
  if (!diff.server && diff.items.length === 0) return <p className="text-xs text-slate-500">No changes.</p>;
  return (
    <ul data-testid="surface-diff" className="flex flex-col gap-1 text-xs">
      {diff.server && <li className="text-slate-600 dark:text-slate-400">server: {diff.server}</li>}
      {diff.items.map((item) => (
        <li key={`${item.kind}:${item.name}`} data-testid="surface-item" data-name={item.name} data-how={item.how} data-breaking={item.breaking}>
          <span className={item.breaking ? "rounded bg-red-100 px-1 text-red-800 dark:bg-red-950 dark:text-red-200" : "rounded bg-slate-100 px-1 text-slate-600 dark:bg-slate-800 dark:text-slate-300"}>
            {item.breaking ? "breaking" : "not breaking"}
          </span>{" "}
          {item.kind} <span className="font-mono font-semibold">{item.name}</span> {item.how}
          {item.changes.length > 0 && (
            <ul className="ml-4 list-disc">
              {item.changes.map((change, i) => (
                <li key={i} data-testid="surface-change" data-breaking={change.breaking} className={change.breaking ? "text-red-700 dark:text-red-300" : ""}>
                  {change.what}
                  {change.breaking && " — breaking"}
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}

export function SurfacePanel({ server, api }: { server: string; api: SurfacesApi }) {
  const change = useSurfaceChange(server);
  const [diff, setDiff] = useState<SurfaceDiff | null>(null);
  const [past, setPast] = useState<SurfaceRecord[] | null>(null);
  const [compared, setCompared] = useState<{ id: number; diff: SurfaceDiff } | null>(null);

  useEffect(() => {
    if (!change) return;
    void api.diff(server, change.previousId, change.id).then((outcome) => setDiff(outcome.ok ? outcome.value : null));
  }, [api, server, change]);
  useEffect(() => {
    void api.history(server).then((outcome) => setPast(outcome.ok ? outcome.value : null));
  }, [api, server, change]);

  return (
    <section data-testid="surface-panel" aria-label="What changed" className="flex flex-col gap-2 text-sm">
      {change && (
        <div data-testid="surface-changed" className={`rounded-md border p-2 ${diff?.breaking ? "border-red-300 bg-red-50 dark:border-red-800 dark:bg-red-950/40" : "border-amber-300 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/40"}`}>
          <p className="font-semibold">
            Changed since {time(change.sinceMs)}
            {diff?.breaking ? " — with breaking changes" : ""}
          </p>
          {diff && <DiffView diff={diff} />}
        </div>
      )}
      {past && past.length > 0 && (
        <details data-testid="past-surfaces">
          <summary className="cursor-pointer text-xs text-slate-600 dark:text-slate-400">Surfaces kept ({past.length})</summary>
          <ul className="mt-1 flex flex-col gap-1 text-xs">
            {past.map((surface, index) => {
              const before = past[index + 1];
              return (
                <li key={surface.id} data-testid="past-surface">
                  {time(surface.atMs)}
                  {before && (
                    <button
                      type="button"
                      className="ml-2 rounded border border-slate-300 px-1 dark:border-slate-700"
                      onClick={() => void api.diff(server, before.id, surface.id).then((outcome) => outcome.ok && setCompared({ id: surface.id, diff: outcome.value }))}
                    >
                      What changed from the one before
                    </button>
                  )}
                  {compared?.id === surface.id && <DiffView diff={compared.diff} />}
                </li>
              );
            })}
          </ul>
        </details>
      )}
    </section>
  );
}
