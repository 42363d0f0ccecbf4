// A server's protocol log: every JSON-RPC message in and out, newest first, live.
import { useEffect, useMemo, useState, useSyncExternalStore } from "react";
import type { Direction, LoggedMessage } from "../bindings";
import { pretty, ProtocolStore, visible, type ProtocolFilter } from "./protocolStore";

/** Starts feeding `store` with a server's messages; returns the function that stops it. */
export type FollowLog = (server: string, store: ProtocolStore) => Promise<() => void>;

/** A server's protocol messages, followed live for as long as the component shows them. */
export function useProtocolLog(server: string, follow: FollowLog): readonly LoggedMessage[] {
  const store = useMemo(() => new ProtocolStore(), [server]);
  useEffect(() => {
    const stop = follow(server, store);
    return () => void stop.then((s) => s());
  }, [server, store, follow]);
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}

export function ProtocolLog({ server, follow }: { server: string; follow: FollowLog }) {
  const messages = useProtocolLog(server, follow);
  const [filter, setFilter] = useState<ProtocolFilter>({ method: "", direction: "both" });
  const [open, setOpen] = useState<number | null>(null);

  const shown = visible(messages, filter);
  return (
    <div data-testid="protocol-log" className="flex flex-col gap-2">
      <div className="flex gap-2">
        <input
          type="search"
          data-testid="protocol-filter"
          aria-label="Filter messages by method"
          placeholder="Filter by method"
          value={filter.method}
          onChange={(e) => setFilter({ ...filter, method: e.target.value })}
          className="min-w-0 flex-1 rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700"
        />
        <select
          data-testid="protocol-direction"
          aria-label="Direction"
          value={filter.direction}
          onChange={(e) => setFilter({ ...filter, direction: e.target.value as Direction | "both" })}
          className="rounded-md border border-slate-300 bg-transparent px-2 py-1 text-sm dark:border-slate-700"
        >
          <option value="both">In and out</option>
          <option value="out">Sent</option>
          <option value="in">Received</option>
        </select>
      </div>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        {shown.length} of {messages.length} messages · newest first · HTTP headers are never recorded
      </p>
      <ol className="flex flex-col divide-y divide-slate-200 rounded border border-slate-200 dark:divide-slate-800 dark:border-slate-800">
        {shown.map((message) => (
          <Message key={message.seq} message={message} open={open === message.seq} onToggle={() => setOpen(open === message.seq ? null : message.seq)} />
        ))}
      </ol>
    </div>
  );
}

function Message({ message, open, onToggle }: { message: LoggedMessage; open: boolean; onToggle: () => void }) {
  const time = clock(message.atMs ?? 0);
  return (
    <li data-testid="protocol-message" data-direction={message.direction} data-kind={message.kind} data-method={message.method ?? ""}>
      <button
        type="button"
        aria-expanded={open}
        onClick={onToggle}
        className="flex w-full items-baseline gap-2 px-2 py-1 text-left font-mono text-xs hover:bg-slate-50 dark:hover:bg-slate-800/60"
      >
        <span aria-label={message.direction === "out" ? "sent" : "received"} className={message.direction === "out" ? "text-indigo-600" : "text-emerald-600"}>
          {message.direction === "out" ? "→" : "←"}
        </span>
        <span className="text-slate-500">{time}</span>
        <span className={message.kind === "error" ? "text-red-600" : ""}>{message.method ?? message.kind}</span>
        {message.id !== null && <span className="text-slate-500">#{message.id}</span>}
        <span className="ml-auto text-slate-400">{message.size} B</span>
      </button>
      {open && (
        <div className="px-2 pb-2">
          <pre data-testid="protocol-payload" className="max-h-80 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs dark:bg-slate-900">
            {pretty(message)}
          </pre>
          <button
            type="button"
            onClick={() => void navigator.clipboard?.writeText(message.text)}
            className="mt-1 rounded border border-slate-300 px-2 text-xs dark:border-slate-700"
          >
            Copy
          </button>
        </div>
      )}
    </li>
  );
}

/** "14:03:07.215": the local time of day, to the millisecond. */
export function clock(ms: number): string {
  const at = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, "0")}`;
}
