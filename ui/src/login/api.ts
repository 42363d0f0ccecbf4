// The login's door to the backend: the activity of one server (phase, token state, the OAuth
// record), the event that says it changed, and what a person can do while a login waits.
import { commands, type LoginStore } from "../bindings";
import { fedEvents } from "../ipc/feed";
import { call } from "../ipc/api";

export const loginApi = {
  activity: (server: string) => call(() => commands.oauthActivity(server)),
  cancel: (server: string) => call(() => commands.cancelLogin(server)),
  openPage: (server: string) => call(() => commands.openLoginPage(server)),
  /** Keeps the server's login in MCP Manager's keychain or in Claude Code's store. */
  setStore: (server: string, store: LoginStore) => call(() => commands.setLoginStore(server, store)),
  /** Forgets the client registered for the server: its next login registers a new one. */
  forgetRegistration: (server: string) => call(() => commands.forgetRegistration(server)),
  /** Calls `changed` with the server's name whenever its login or OAuth record changes. */
  onChanged: (changed: (server: string) => void) =>
    fedEvents.loginActivityChanged.listen((event) => changed(event.payload.server)),
};

export type LoginApi = typeof loginApi;
