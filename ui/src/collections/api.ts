// The collections' door to the backend (crates/collections through src-tauri/collections.rs).
import { commands, type Case } from "../bindings";
import { call } from "../ipc/api";

export const collectionsApi = {
  list: () => call(() => commands.collections()),
  /** Whether the project folder is trusted (its shared collections are written, and run, only then). */
  folderTrusted: async () => {
    const state = await call(commands.folderTrust);
    return state.ok ? state.value.trusted : true;
  },
  /** Keeps a call tried by hand: its result (JSON text) or why it failed. */
  add: (collection: string, shared: boolean, caseName: string | null, server: string, tool: string, argumentsJson: string, resultJson: string | null, failure: string | null) =>
    call(() => commands.addToCollection(collection, shared, caseName, server, tool, argumentsJson, resultJson, failure)),
  addFromHistory: (id: number, collection: string, shared: boolean, caseName: string | null) =>
    call(() => commands.addHistoryCallToCollection(id, collection, shared, caseName)),
  /** One case, one collection (by path), or every collection. */
  run: (path: string | null, caseName: string | null) => call(() => commands.runCollections(path, caseName)),
  update: (path: string, name: string, updated: Case) => call(() => commands.updateCase(path, name, updated)),
  accept: (path: string, name: string, resultJson: string) => call(() => commands.acceptSnapshot(path, name, resultJson)),
  remove: (path: string, name: string) => call(() => commands.removeCase(path, name)),
};

export type CollectionsApi = typeof collectionsApi;
