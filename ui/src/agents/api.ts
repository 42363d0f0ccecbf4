// Subagents' servers: the door to the backend.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const agentsApi = {
  /** The servers subagents name or define, with what Claude Code does with each. */
  list: () => call(() => commands.subagents()),
};

export type AgentsApi = typeof agentsApi;
