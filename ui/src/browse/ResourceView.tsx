// What a resource read gives, for the Resources tab and for a resource link in a tool's
// result: each content by type (text in the view that suits it, an image, audio with a
// player, other blobs by type and size), each savable to a file and openable from there, and,
// when the server offers subscriptions, the resource followed (see FollowStore): read again on
// each `notifications/resources/updated`, here or when the person comes back to it.
import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import type { ApiError } from "../bindings";
import { TextView } from "../shared/TextView";
import type { BrowseApi } from "./api";
import type { FollowStore } from "./followStore";

export interface Contents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

export function ResourceView({ server, uri, api, follows }: { server: string; uri: string; api: BrowseApi; follows?: FollowStore }) {
  const [contents, setContents] = useState<Contents[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [followError, setFollowError] = useState<ApiError | null>(null);
  const followed = useSyncExternalStore(
    follows?.subscribe ?? noSubscription,
    () => follows?.of(server, uri),
  );
  const updates = followed?.updates ?? 0;

  const read = useCallback(async () => {
    const outcome = await api.read(server, uri);
    if (outcome.ok) {
      setContents((JSON.parse(outcome.value) as { contents?: Contents[] }).contents ?? []);
      setError(null);
    } else {
      setContents(null);
      setError(outcome.error);
    }
  }, [api, server, uri]);

  // Read when shown, and again on each update of a followed resource.
  useEffect(() => {
    void read();
  }, [read, updates]);

  const follow = async () => {
    setFollowError(null);
    setFollowError((await follows?.follow(server, uri)) ?? null);
  };

  if (error) {
    return (
      <p data-testid="read-error" className="text-sm text-red-700 dark:text-red-300">
        {error.message}
      </p>
    );
  }
  if (!contents) return <p className="text-sm text-slate-500">Reading {uri}…</p>;
  return (
    <section data-testid="resource-contents" data-uri={uri} className="flex flex-col gap-2">
      {follows && (
        <div className="flex items-center gap-2 text-xs">
          {!followed ? (
            <button type="button" data-testid="follow-resource" onClick={() => void follow()} className="rounded border border-slate-300 px-2 dark:border-slate-700">
              Follow changes
            </button>
          ) : (
            <button type="button" data-testid="unfollow-resource" onClick={() => void follows.unfollow(server, uri)} className="rounded border border-indigo-600 px-2 font-semibold">
              Following: stop
            </button>
          )}
          {followed && (
            <span data-testid="resource-updates" data-count={updates} className="text-slate-500">
              {followed.lastMs === null
                ? "No change yet."
                : `Changed ${updates} time${updates === 1 ? "" : "s"}, last at ${new Date(followed.lastMs).toLocaleTimeString()}; read again.`}
            </span>
          )}
        </div>
      )}
      {followError && <p className="text-xs text-red-700 dark:text-red-300">{followError.message}</p>}
      {contents.map((c, i) => (
        <Content key={i} content={c} server={server} api={api} />
      ))}
      {contents.length === 0 && <p className="text-sm text-slate-500">The server sent no contents.</p>}
    </section>
  );
}

const noSubscription = () => () => {};

function Content({ content: c, server, api }: { content: Contents; server: string; api: BrowseApi }) {
  const [saved, setSaved] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const save = async () => {
    const outcome = await api.save(server, JSON.stringify(c));
    if (outcome.ok) setSaved(outcome.value);
    else setProblem(outcome.error.message);
  };
  const open = async (path: string) => {
    const outcome = await api.openSaved(path);
    if (!outcome.ok) setProblem(outcome.error.message);
  };
  const bytes = c.blob !== undefined ? Math.floor((c.blob.replace(/=+$/, "").length * 3) / 4) : new Blob([c.text ?? ""]).size;
  return (
    <div data-testid="resource-content" className="flex flex-col gap-1">
      <div className="flex items-center gap-2 text-xs text-slate-500">
        <code className="min-w-0 truncate">{c.uri}</code> <span className="shrink-0">{c.mimeType ?? ""}</span>
        <button type="button" data-testid="save-resource" onClick={() => void save()} className="ml-auto shrink-0 rounded border border-slate-300 px-2 dark:border-slate-700">
          Save to a file
        </button>
      </div>
      {saved && (
        <p className="flex items-center gap-2 text-xs">
          Saved as <code data-testid="saved-resource-path" className="break-all">{saved}</code>
          <button type="button" data-testid="open-saved-resource" onClick={() => void open(saved)} className="shrink-0 rounded border border-slate-300 px-2 dark:border-slate-700">
            Open
          </button>
        </p>
      )}
      {problem && <p className="text-xs text-red-700 dark:text-red-300">{problem}</p>}
      {c.text !== undefined ? (
        <TextView text={c.text} mimeType={c.mimeType} testId="resource-text" />
      ) : c.mimeType?.startsWith("image/") ? (
        <img data-testid="resource-image" alt={c.uri} src={`data:${c.mimeType};base64,${c.blob ?? ""}`} className="max-h-64" />
      ) : c.mimeType?.startsWith("audio/") ? (
        <audio data-testid="resource-audio" controls src={`data:${c.mimeType};base64,${c.blob ?? ""}`} />
      ) : null}
      {c.blob !== undefined && (
        <p data-testid="resource-blob" className="text-sm">
          Binary content ({c.mimeType ?? "no type given"}), {bytes.toLocaleString()} bytes.
        </p>
      )}
    </div>
  );
}
