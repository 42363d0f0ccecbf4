// Subagents' servers: the door to the backend.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const agentsApi = {
  /** The servers subagents name or define, with what Claude Code does with each. */
  list: () => call(() => commands.subagents()),
  move: {
    /** The agents (the person's and the project's) a server can move into. */
    names: () => call(() => commands.agentNames()),
    /** A local, project or user server into an agent's frontmatter. */
    into: (server: string, agent: string) => call(() => commands.moveIntoAgent(server, agent)),
    /** An agent's own server out into a scope. */
    out: (agent: string, server: string, scope: "local" | "project" | "user") => call(() => commands.moveOutOfAgent(agent, server, scope)),
  },
};

export type AgentsApi = typeof agentsApi;

