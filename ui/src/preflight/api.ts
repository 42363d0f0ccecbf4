// Before a package starts: the backend's preflight of one server's entry.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const preflightApi = {
  check: (server: string) => call(() => commands.packagePreflight(server)),
};

export type PreflightApi = typeof preflightApi;
