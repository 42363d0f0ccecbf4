// The Logins view's door to the backend: every login held, the keeper's actions on one, its
// settings, and the events that say something changed.
import { commands, type LoginStore } from "../bindings";
import { call } from "../ipc/api";
import { fedEvents } from "../ipc/feed";

export const loginsApi = {
  list: () => call(() => commands.listLogins()),
  refresh: (server: string) => call(() => commands.refreshLogin(server)),
  logIn: (server: string) => call(() => commands.logIn(server)),
  logOut: (server: string) => call(() => commands.logOut(server)),
  move: (server: string, store: LoginStore) => call(() => commands.moveLogin(server, store)),
  settings: () => call(() => commands.keeperSettings()),
  setKeepRunning: (keep: boolean | null) => call(() => commands.setKeepRunning(keep)),
  setRefreshClaudeCode: (on: boolean) => call(() => commands.setRefreshClaudeCode(on)),
  setStartAtLogin: (on: boolean) => call(() => commands.setStartAtLogin(on)),
  answerClose: (keep: boolean, remember: boolean) => call(() => commands.answerClose(keep, remember)),
  onChanged: (changed: () => void) => fedEvents.loginsChanged.listen(() => changed()),
  onCloseAsked: (asked: () => void) => fedEvents.closeAsked.listen(() => asked()),
  onShowLogins: (show: (server: string | null) => void) => fedEvents.showLogins.listen((event) => show(event.payload.server)),
};

export type LoginsApi = typeof loginsApi;
