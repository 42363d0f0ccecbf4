// The tools' door to the backend: a server's tools, and a call.
import { commands, type CallFilter } from "../bindings";
import { call } from "../ipc/api";

export const toolsApi = {
  list: (server: string) => call(() => commands.listTools(server)),
  call: (server: string, tool: string, argumentsJson: string) => call(() => commands.callTool(server, tool, argumentsJson)),
  history: (filter: CallFilter) => call(() => commands.callHistory(filter)),
  name: (id: number, name: string | null) => call(() => commands.nameCall(id, name)),
};

export type ToolsApi = typeof toolsApi;
