// A tool's App, live beside its result: asked for once the person allows Apps of the server
// (a screen that says what the App declares and may do), then framed through the relay on
// the server's own origin, with the bridge connected before the frame loads. Links it asks
// for wait for the person's click; its log is shown under it; closing it asks the App to
// tear down first (bounded).
import { useEffect, useRef, useState } from "react";
import type { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { AppOpening, ToolCallView, ToolView } from "../bindings";
import type { AppsApi } from "./api";
import { connectApp, dark, hostContext, teardown } from "./bridge";

/** The tallest the frame grows to follow its App: the window's height less its header, within bounds. */
export function maxAppHeight(windowHeight: number): number {
  return Math.round(Math.min(1200, Math.max(240, windowHeight - 120)));
}
const SANDBOX = "allow-scripts allow-same-origin allow-forms";

type Props = {
  server: string;
  tool: ToolView;
  args: Record<string, unknown>;
  /** The call's result, once it came. */
  call: ToolCallView | null;
  api: AppsApi;
  onClose: () => void;
};

function Consent({ opening, onAllow, onDecline }: { opening: AppOpening; onAllow: () => void; onDecline: () => void }) {
  const domains = [
    ["Fetch from, or connect to", opening.declared.connect],
    ["Load scripts, styles, images and fonts from", opening.declared.resource],
    ["Frame pages of", opening.declared.frame],
    ["Use as its base address", opening.declared.baseUri],
  ] as const;
  const reaches = domains.filter(([, list]) => list.length > 0);
  return (
    <section data-testid="app-consent" aria-label={`Allow Apps of ${opening.server}`} className="flex flex-col gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950">
      <p className="font-semibold">
        “{opening.tool}” has an App: a page from “{opening.server}” ({opening.resourceUri}).
      </p>
      <p>
        It runs in a frame of its own, on an origin of its own ({opening.origin}), with no access to this window or your files. Apps of
        this server may:
      </p>
      <ul className="list-disc pl-5">
        <li>receive this tool’s arguments and result;</li>
        <li>call the tools of “{opening.server}” that are marked for Apps, and read its resources;</li>
        <li>ask to open a web page (http or https), which opens in your browser only when you click Open;</li>
        <li>write to its log below, and set its own height.</li>
      </ul>
      {reaches.length === 0 ? (
        <p data-testid="app-domains">It reaches no other site: it declares no external origins.</p>
      ) : (
        <div data-testid="app-domains">
          {reaches.map(([what, list]) => (
            <p key={what}>
              {what}: <span className="font-mono">{list.join(", ")}</span>
            </p>
          ))}
          <p className="text-xs text-slate-600 dark:text-slate-400">Each site is allowed for what its line says only: an App that asks to use one otherwise is asked about again.</p>
        </div>
      )}
      {opening.declared.dropped.length > 0 && (
        <p data-testid="app-dropped" className="text-red-700 dark:text-red-300">
          Not allowed, as declared (only http, https, ws and wss origins are): <span className="font-mono">{opening.declared.dropped.join(", ")}</span>
        </p>
      )}
      {opening.permissions && (
        <p data-testid="app-permissions">
          It asks for device permissions, which MCP Manager does not grant: <span className="font-mono">{opening.permissions}</span>
        </p>
      )}
      <p className="text-xs text-slate-600 dark:text-slate-400">Not offered to Apps: sending chat messages, updating a model’s context, sampling, downloads.</p>
      <div className="flex gap-2">
        <button type="button" data-testid="app-allow" onClick={onAllow} className="rounded-md border border-indigo-600 bg-indigo-600 px-3 py-1 text-white">
          Show Apps of “{opening.server}”
        </button>
        <button type="button" data-testid="app-decline" onClick={onDecline} className="rounded-md border border-slate-300 px-3 py-1 dark:border-slate-700">
          Not now
        </button>
      </div>
    </section>
  );
}

export default function AppFrame({ server, tool, args, call, api, onClose }: Props) {
  const [opening, setOpening] = useState<AppOpening | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [asked, setAsked] = useState(0);
  const [height, setHeight] = useState(160);
  const [links, setLinks] = useState<string[]>([]);
  const [log, setLog] = useState<Array<{ level: string; text: string }>>([]);
  const [ready, setReady] = useState(false);
  const frame = useRef<HTMLIFrameElement | null>(null);
  const bridge = useRef<AppBridge | null>(null);
  const box = useRef<HTMLDivElement | null>(null);
  const latest = useRef({ args, call });
  latest.current = { args, call };
  const [maxHeight, setMaxHeight] = useState(() => maxAppHeight(window.innerHeight));
  const tallest = useRef(maxHeight);
  tallest.current = maxHeight;

  useEffect(() => {
    let gone = false;
    setProblem(null);
    void api.open(server, tool.name).then((outcome) => {
      if (gone) return;
      if (outcome.ok) setOpening(outcome.value);
      else setProblem(outcome.error.message);
    });
    return () => {
      gone = true;
    };
  }, [api, server, tool.name, asked]);

  const session = opening?.session ?? null;
  useEffect(() => {
    const element = frame.current;
    if (!opening || !session || !opening.relayUrl || !element) return;
    let gone = false;
    let connected: AppBridge | null = null;
    const width = () => Math.round(box.current?.clientWidth ?? 480);
    const toolJson = JSON.parse(tool.inputSchema) as unknown;
    const context = () => hostContext(opening, width(), tallest.current, { name: tool.name, title: tool.title, description: tool.description, inputSchema: toolJson });
    const sendResult = (b: AppBridge) => {
      const result = latest.current.call?.result;
      if (result) void b.sendToolResult(JSON.parse(result) as never).catch(() => undefined);
    };
    void connectApp(
      element,
      opening,
      session,
      api,
      {
        initialized: () => {
          if (gone || !connected) return;
          setReady(true);
          void connected.sendToolInput({ arguments: latest.current.args }).catch(() => undefined);
          sendResult(connected);
        },
        link: (url) => setLinks((now) => (now.includes(url) ? now : [...now, url])),
        log: (level, text) => setLog((now) => [...now.slice(-199), { level, text }]),
        size: (h) => setHeight(Math.max(48, Math.ceil(h))),
        closeAsked: () => void close(),
      },
      context(),
    ).then(
      (b) => {
        connected = b;
        bridge.current = b;
        if (gone) return void teardown(b, 500);
        // Only now: the bridge listens before the App's first message can come.
        element.src = opening.relayUrl!;
      },
      (err: unknown) => setProblem(`The App could not be connected: ${String(err)}`),
    );
    const themes = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
    const changed = () => connected?.setHostContext(context());
    themes?.addEventListener("change", changed);
    // The window's size: the frame's maximum follows its height, and the App is told.
    const resized = () => {
      tallest.current = maxAppHeight(window.innerHeight);
      setMaxHeight(tallest.current);
      changed();
    };
    window.addEventListener("resize", resized);
    const observer = typeof ResizeObserver === "function" ? new ResizeObserver(changed) : null;
    if (box.current) observer?.observe(box.current);
    return () => {
      gone = true;
      themes?.removeEventListener("change", changed);
      window.removeEventListener("resize", resized);
      observer?.disconnect();
      if (connected) void teardown(connected, 500);
      void api.close(session);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opening, session]);

  // A result that comes after the App is up.
  useEffect(() => {
    const b = bridge.current;
    if (b && ready && call) void b.sendToolResult(JSON.parse(call.result) as never).catch(() => undefined);
  }, [call, ready]);

  const close = async () => {
    const b = bridge.current;
    bridge.current = null;
    if (b) await teardown(b);
    if (session) await api.close(session);
    onClose();
  };

  return (
    <section data-testid="app-view" data-server={server} aria-label={`App of ${tool.name}`} className="flex min-w-[320px] flex-1 flex-col gap-2">
      <div className="flex items-center gap-2 text-xs">
        <span className="font-semibold">App</span>
        <span className="truncate font-mono text-slate-500">{opening?.resourceUri ?? ""}</span>
        <span className="flex-1" />
        {opening?.session && (
          <button type="button" data-testid="app-close" onClick={() => void close()} className="rounded border border-slate-300 px-2 dark:border-slate-700">
            Close App
          </button>
        )}
      </div>
      {problem && (
        <p data-testid="app-problem" role="alert" className="rounded-md border border-red-300 bg-red-50 p-2 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
          The App is not shown: {problem}
        </p>
      )}
      {!problem && !opening && <p className="text-xs text-slate-500">Reading the App’s page from “{server}”…</p>}
      {opening?.consentNeeded && (
        <Consent
          opening={opening}
          onAllow={() =>
            void api.allow(server, { connect: opening.declared.connect, resource: opening.declared.resource, frame: opening.declared.frame, baseUri: opening.declared.baseUri }).then((outcome) => {
              if (outcome.ok) setAsked((n) => n + 1);
              else setProblem(outcome.error.message);
            })
          }
          onDecline={onClose}
        />
      )}
      {links.map((url) => (
        <div key={url} data-testid="app-link" role="alert" className="flex flex-wrap items-center gap-2 rounded-md border border-sky-300 bg-sky-50 p-2 text-sm dark:border-sky-800 dark:bg-sky-950">
          <span>The App asks to open</span>
          <span className="break-all font-mono">{url}</span>
          <button
            type="button"
            data-testid="app-link-open"
            onClick={() =>
              void api.openLink(session ?? "", url).then((outcome) => {
                setLinks((now) => now.filter((u) => u !== url));
                if (!outcome.ok) setProblem(outcome.error.message);
              })
            }
            className="rounded border border-sky-600 px-2"
          >
            Open in browser
          </button>
          <button type="button" data-testid="app-link-dismiss" onClick={() => setLinks((now) => now.filter((u) => u !== url))} className="rounded border border-slate-300 px-2 dark:border-slate-700">
            Dismiss
          </button>
        </div>
      ))}
      {opening?.session && (
        <div ref={box} className={`overflow-hidden rounded-md ${opening.prefersBorder ? "border border-slate-300 dark:border-slate-700" : "border border-dashed border-slate-200 dark:border-slate-800"}`}>
          <iframe
            ref={frame}
            data-testid="app-frame"
            title={`App of ${tool.name} (${server})`}
            sandbox={SANDBOX}
            referrerPolicy="no-referrer"
            style={{ height: Math.min(height, maxHeight), colorScheme: dark() ? "dark" : "light" }}
            data-max-height={maxHeight}
            className="block w-full border-0 bg-transparent"
          />
        </div>
      )}
      {log.length > 0 && (
        <details data-testid="app-log" className="text-xs">
          <summary className="cursor-pointer text-slate-600 dark:text-slate-400">App log ({log.length})</summary>
          <ul className="max-h-40 overflow-auto font-mono">
            {log.map((line, i) => (
              <li key={i} data-testid="app-log-line">
                [{line.level}] {line.text}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
