// The tools' door to the backend: a server's tools, and a call.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const toolsApi = {
  list: (server: string) => call(() => commands.listTools(server)),
  call: (server: string, tool: string, argumentsJson: string) => call(() => commands.callTool(server, tool, argumentsJson)),
};

export type ToolsApi = typeof toolsApi;
