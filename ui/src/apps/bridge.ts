// The window's side of an App: ext-apps' AppBridge over postMessage to the relay frame, its
// handlers sent to Rust by session (nothing is answered here but what the host itself owns:
// its context, display mode, and "not offered" for what this version does not give Apps).
// Framework-free: AppFrame renders, this talks.
import { AppBridge, PostMessageTransport, type McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { AppOpening } from "../bindings";
import type { AppsApi } from "./api";

/** What the App does that the window shows. */
export type AppEvents = {
  initialized: () => void;
  /** The App asks for a link to be opened (the person decides). */
  link: (url: string) => void;
  log: (level: string, text: string) => void;
  /** The App's content height, in CSS pixels. */
  size: (height: number) => void;
  /** The App asks to be closed. */
  closeAsked: () => void;
};

const HOST = { name: "MCP Manager", version: "0.1.0" };
const NOT_OFFERED = "MCP Manager does not offer this to Apps";

async function answer<T>(outcome: Promise<{ ok: true; value: string } | { ok: false; error: { message: string } }>): Promise<T> {
  const done = await outcome;
  if (!done.ok) throw new Error(done.error.message);
  return JSON.parse(done.value) as T;
}

export function dark(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
}

export function hostContext(opening: AppOpening, width: number, maxHeight: number, tool: Record<string, unknown>): McpUiHostContext {
  return {
    theme: dark() ? "dark" : "light",
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: { width, maxHeight },
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "desktop",
    userAgent: "MCP Manager",
    deviceCapabilities: { touch: false, hover: true },
    toolInfo: { tool: { ...tool, name: opening.tool } as never },
  };
}

/**
 * Connects a bridge to `frame` (the relay) before its `src` is set, so the App's first
 * message is not lost; the caller sets `src` once this resolves.
 */
export async function connectApp(
  frame: HTMLIFrameElement,
  opening: AppOpening,
  session: string,
  api: AppsApi,
  events: AppEvents,
  context: McpUiHostContext,
): Promise<AppBridge> {
  const { connect, resource, frame: frames, baseUri } = {
    connect: opening.declared.connect,
    resource: opening.declared.resource,
    frame: opening.declared.frame,
    baseUri: opening.declared.baseUri,
  };
  const bridge = new AppBridge(
    null,
    HOST,
    {
      openLinks: {},
      serverTools: {},
      serverResources: {},
      logging: {},
      sandbox: { csp: { connectDomains: connect, resourceDomains: resource, frameDomains: frames, baseUriDomains: baseUri } },
    },
    { hostContext: context },
  );
  bridge.oncalltool = (params) => answer(api.callTool(session, params.name, JSON.stringify(params.arguments ?? {})));
  bridge.onreadresource = (params) => answer(api.readResource(session, params.uri));
  bridge.onlistresources = () => answer(api.listResources(session, false));
  bridge.onlistresourcetemplates = () => answer(api.listResources(session, true));
  bridge.onopenlink = async ({ url }) => {
    events.link(url);
    return {};
  };
  bridge.onrequestdisplaymode = async () => ({ mode: "inline" });
  bridge.onmessage = async () => ({ isError: true });
  bridge.ondownloadfile = async () => ({ isError: true });
  bridge.onupdatemodelcontext = async () => {
    throw new Error(NOT_OFFERED);
  };
  bridge.oncreatesamplingmessage = async () => {
    throw new Error(NOT_OFFERED);
  };
  bridge.addEventListener("loggingmessage", ({ level, data }) => events.log(level, typeof data === "string" ? data : JSON.stringify(data)));
  bridge.addEventListener("sizechange", ({ height }) => {
    if (typeof height === "number") events.size(height);
  });
  bridge.addEventListener("initialized", () => events.initialized());
  bridge.addEventListener("requestteardown", () => events.closeAsked());
  const target = frame.contentWindow;
  if (!target) throw new Error("the App's frame is not in the page");
  await bridge.connect(new PostMessageTransport(target, target));
  return bridge;
}

/** `ui/resource-teardown`, waited for at most `ms`; then the bridge is closed. */
export async function teardown(bridge: AppBridge, ms = 2_000): Promise<void> {
  await Promise.race([bridge.teardownResource({}).catch(() => undefined), new Promise((done) => setTimeout(done, ms))]);
  await bridge.close().catch(() => undefined);
}
