// Skills: a server's (the Skills extension) and those Claude Code loads from disk. Their door
// to the backend.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const skillsApi = {
  list: (server: string) => call(() => commands.listSkills(server)),
  load: (server: string, uri: string) => call(() => commands.loadSkill(server, uri)),
  onDisk: () => commands.diskSkills(),
};

export type SkillsApi = typeof skillsApi;
