// Profiles' door to the backend: named sets of servers, applied as Claude Code's /mcp writes
// them, and undone.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const profilesApi = {
  list: () => call(() => commands.profiles()),
  save: (name: string, servers: string[], deniedTools: string[], shared: boolean) => call(() => commands.saveProfile(name, servers, deniedTools, shared)),
  remove: (name: string) => call(() => commands.deleteProfile(name)),
  plan: (name: string) => call(() => commands.planProfile(name)),
  apply: (name: string) => call(() => commands.applyProfile(name)),
  undo: () => call(() => commands.undoProfile()),
  launch: (name: string) => call(() => commands.launchProfile(name)),
};

export type ProfilesApi = typeof profilesApi;
