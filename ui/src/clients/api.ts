// The client view's door to the backend: a server's tools as Claude Code sends them to its
// model.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const clientsApi = {
  /** A connected server's tools, as listed and as Claude Code sends them. */
  view: (server: string) => call(() => commands.clientView(server)),
  /** What the connected servers' tools cost in Claude's context; `exact` counts with the
   * model API and the person's key (which stays in the backend). */
  budget: (exact: boolean) => call(() => commands.projectBudget(exact)),
};

export type ClientsApi = typeof clientsApi;
