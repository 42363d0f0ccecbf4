// The registry browser's door to the backend (crates/registry through src-tauri/registry.rs).
import { commands, type Answers, type Choice, type Scope } from "../bindings";
import { call } from "../ipc/api";

export const registryApi = {
  setting: () => call(() => commands.registrySetting()),
  setRegistry: (url: string) => call(() => commands.setRegistry(url)),
  /** The cached listing: instant, offline. */
  cached: (search: string) => call(() => commands.registryCached(search)),
  /** The registry's own search; the cache (with its time and why) when it fails. */
  search: (search: string, cursor: string | null) => call(() => commands.registrySearch(search, cursor)),
  refresh: () => call(() => commands.registryRefresh()),
  versions: (name: string) => call(() => commands.registryVersions(name)),
  form: (name: string, version: string, choice: Choice) => call(() => commands.registryInstallForm(name, version, choice)),
  draft: (name: string, version: string, choice: Choice, scope: Scope, entryName: string, answers: Answers) =>
    call(() => commands.registryInstallDraft(name, version, choice, scope, entryName, answers)),
  keepHeaders: (name: string, version: string, choice: Choice, entryName: string, answers: Answers) =>
    call(() => commands.registryKeepHeaders(name, version, choice, entryName, answers)),
  openLink: (url: string) => call(() => commands.openRegistryLink(url)),
  /** The icon as a data: URL: the window's CSP loads no remote image. */
  icon: (url: string) => call(() => commands.registryIcon(url)),
};

export type RegistryApi = typeof registryApi;
