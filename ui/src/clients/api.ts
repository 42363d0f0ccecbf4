// The client view's door to the backend: a server's tools as Claude Code sends them to its
// model.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const clientsApi = {
  /** A connected server's tools, as listed and as Claude Code sends them. */
  view: (server: string) => call(() => commands.clientView(server)),
};

export type ClientsApi = typeof clientsApi;
