// What a person sets for the live sessions: a server's logging level, and the roots (the
// folders every server of the project is told it may work in).
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const sessionApi = {
  setLogLevel: (server: string, level: string) => call(() => commands.setLogLevel(server, level)),
  roots: () => call(() => commands.roots()),
  setRoots: (folders: string[]) => call(() => commands.setRoots(folders)),
};

export type SessionApi = typeof sessionApi;
