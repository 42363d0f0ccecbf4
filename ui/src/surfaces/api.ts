// What changed in a server: its surfaces kept in the history, and the diff of two.
import { commands } from "../bindings";
import { fedEvents } from "../ipc/feed";
import { call } from "../ipc/api";
import type { SurfaceChanges } from "./changes";

export const surfacesApi = {
  changes: () => call(() => commands.surfaceChanges()),
  history: (server: string) => call(() => commands.surfaceHistory(server)),
  diff: (server: string, from: number, to: number | null) => call(() => commands.surfaceDiff(server, from, to)),
};

export type SurfacesApi = typeof surfacesApi;

/** Feeds `changes` from the backend: the change events first, then what changed before. */
export async function connectSurfaceChanges(changes: SurfaceChanges): Promise<() => void> {
  const stop = await fedEvents.surfaceChanged.listen((event) => changes.apply(event.payload));
  const now = await surfacesApi.changes();
  if (now.ok) now.value.forEach((change) => changes.apply(change));
  return stop;
}
