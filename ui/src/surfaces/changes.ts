// The servers whose surface changed while the project is open: a framework-free store fed by
// `surface-changed` events (connectSurfaceChanges), read by the server list and pane.
import { useSyncExternalStore } from "react";
import type { SurfaceChange } from "../bindings";

export class SurfaceChanges {
  private changes: ReadonlyMap<string, SurfaceChange> = new Map();
  private listeners = new Set<() => void>();

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = () => this.changes;

  apply(change: SurfaceChange) {
    const next = new Map(this.changes);
    next.set(change.server, change);
    this.changes = next;
    this.listeners.forEach((listener) => listener());
  }

  /** Another project was opened. */
  clear() {
    this.changes = new Map();
    this.listeners.forEach((listener) => listener());
  }
}

/** The one store of the window. */
export const surfaceChanges = new SurfaceChanges();

export function useSurfaceChange(server: string): SurfaceChange | undefined {
  return useSyncExternalStore(surfaceChanges.subscribe, surfaceChanges.getSnapshot).get(server);
}
