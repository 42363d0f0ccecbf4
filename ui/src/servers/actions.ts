// What a person can do to a server, each one command through the IPC door. The results
// arrive as events too (config-changed, server-status-changed); these outcomes only carry
// the refusal, if any, to show next to the button that was pressed.
import { commands, type EntryRef, type Scope, type ServerDraft, type SettingsFile } from "../bindings";
import { call } from "../ipc/api";

export const serverActions = {
  restart: (name: string) => call(() => commands.restartServer(name)),
  setEnabled: (name: string, enabled: boolean) =>
    call(() => commands.setServerEnabled(name, enabled)),
  setApproval: (name: string, approve: boolean) =>
    call(() => commands.setServerApproval(name, approve)),
  /** Every project server, now and later (enableAllProjectMcpServers). */
  approveAll: () => call(() => commands.approveAllProjectServers()),
  /** `claude mcp reset-project-choices`: what other files still decide comes back. */
  resetChoices: () => call(() => commands.resetProjectChoices()),
  remove: (name: string, scope: Scope) => call(() => commands.removeServer(name, scope)),
  stderr: (name: string) => call(() => commands.serverStderr(name)),
  logIn: (name: string) => call(() => commands.logIn(name)),
  logOut: (name: string) => call(() => commands.logOut(name)),
  copy: (name: string, from: Scope, to: Scope) => call(() => commands.copyServer(name, from, to)),
  /** Turns a Claude Code plugin on or off in the person's settings (`enabledPlugins`). */
  setPluginEnabled: (id: string, enabled: boolean, settings: SettingsFile = "user") =>
    call(() => commands.setPluginEnabled(id, enabled, settings)),
  /** Opens the file the entry is written in, in the person's default application. */
  openFile: (name: string, scope: Scope) => call(() => commands.openConfigFile(name, scope)),
};

export type ServerActions = typeof serverActions;

export const draftApi = {
  check: (draft: ServerDraft, original: EntryRef | null) =>
    call(() => commands.checkServerDraft(draft, original)),
  save: (draft: ServerDraft, original: EntryRef | null) =>
    call(() => commands.saveServerDraft(draft, original)),
  load: (entry: EntryRef) => call(() => commands.serverDraft(entry)),
  storeClientSecret: (name: string, secret: string) =>
    call(() => commands.storeClientSecret(name, secret)),
  paste: (text: string, scope: Scope) => call(() => commands.pasteSnippet(text, scope)),
};
