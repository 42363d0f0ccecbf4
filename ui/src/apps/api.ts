// The Apps' door to the backend. Everything an App asks goes through its session token, so
// Rust (crates/apps) decides which server answers and whether it may.
import { commands, type Origins } from "../bindings";
import { call } from "../ipc/api";

export const appsApi = {
  open: (server: string, tool: string) => call(() => commands.openApp(server, tool)),
  /** Allows Apps of `server` each list of `origins` for its own use only (connect, resource, frame, base URI). */
  allow: (server: string, origins: Origins) => call(() => commands.allowApps(server, origins)),
  callTool: (session: string, tool: string, argumentsJson: string) => call(() => commands.appCallTool(session, tool, argumentsJson)),
  readResource: (session: string, uri: string) => call(() => commands.appReadResource(session, uri)),
  listResources: (session: string, templates: boolean) => call(() => commands.appListResources(session, templates)),
  openLink: (session: string, url: string) => call(() => commands.appOpenLink(session, url)),
  close: (session: string) => call(() => commands.closeApp(session)),
};

export type AppsApi = typeof appsApi;
