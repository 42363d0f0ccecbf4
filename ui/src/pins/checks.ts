// Each server against the tools pinned when it was approved: a framework-free store fed by
// `pin-checked` events (connectPinChecks), read by the server list's badge and the Overview.
import { useSyncExternalStore } from "react";
import { commands, type PinCheck, type SettingsFile } from "../bindings";
import { call } from "../ipc/api";
import { fedEvents } from "../ipc/feed";

export class PinChecks {
  private checks: ReadonlyMap<string, PinCheck> = new Map();
  private listeners = new Set<() => void>();

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = () => this.checks;

  apply(check: PinCheck) {
    const next = new Map(this.checks);
    next.set(check.server, check);
    this.checks = next;
    this.listeners.forEach((listener) => listener());
  }

  /** Another project was opened. */
  clear() {
    this.checks = new Map();
    this.listeners.forEach((listener) => listener());
  }
}

/** The one store of the window. */
export const pinChecks = new PinChecks();

export function usePinCheck(server: string): PinCheck | undefined {
  return useSyncExternalStore(pinChecks.subscribe, pinChecks.getSnapshot).get(server);
}

export const pinsApi = {
  accept: (server: string, tool: string | null) => call(() => commands.acceptChange(server, tool)),
  pinNow: (server: string) => call(() => commands.pinNow(server)),
  setQuarantine: (server: string | null, file: SettingsFile | null) => call(() => commands.setQuarantine(server, file)),
  quarantineChoice: () => call(() => commands.quarantineChoice()),
};

/** Feeds `checks` from the backend: the events first, then the checks made before. */
export async function connectPinChecks(checks: PinChecks): Promise<() => void> {
  const stop = await fedEvents.pinChecked.listen((event) => checks.apply(event.payload));
  const now = await call(() => commands.pinChecks());
  if (now.ok) now.value.forEach((check) => checks.apply(check));
  return stop;
}
