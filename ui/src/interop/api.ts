// Import from and export to other MCP clients, through the core's interop.
import { commands, type Client, type KeyValue, type Scope } from "../bindings";
import { call } from "../ipc/api";

export const interopApi = {
  preview: (client: Client, scope: Scope) => call(() => commands.planImport(client, scope)),
  apply: (client: Client, scope: Scope, inputs: KeyValue[]) =>
    call(() => commands.applyImport(client, scope, inputs)),
  exportTo: (client: Client) => call(() => commands.exportServers(client)),
};

export type InteropApi = typeof interopApi;

export const CLIENTS: Array<{ client: Client; label: string }> = [
  { client: "claude-desktop", label: "Claude Desktop" },
  { client: "cursor", label: "Cursor (your settings)" },
  { client: "cursor-project", label: "Cursor (this project)" },
  { client: "vscode", label: "VS Code (this project)" },
  { client: "windsurf", label: "Windsurf" },
  { client: "codex", label: "Codex" },
  { client: "gemini", label: "Gemini CLI (your settings)" },
  { client: "gemini-project", label: "Gemini CLI (this project)" },
  { client: "zed", label: "Zed" },
];
