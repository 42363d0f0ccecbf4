import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/preact";
import type { KeeperView, Login } from "../bindings";
import type { Outcome } from "../ipc/api";
import type { LoginsApi } from "./api";
import { LoginsView } from "./LoginsView";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const due = (refreshAtMs: number): Login => ({
  server: "remote",
  scope: "user",
  store: "claude-code",
  issuer: "http://localhost:1/",
  scopes: [],
  expiresAtMs: refreshAtMs + 60_000,
  hasRefreshToken: true,
  client: "dynamic",
  lastRefresh: null,
  lapsed: null,
  refreshAtMs,
  notKept: null,
  dpopBound: false,
  leftForClaudeCode: false,
});

const view = (startsAtLogin: boolean, problem: string | null = null): KeeperView => ({
  keepRunningWhenClosed: null,
  startsAtLogin,
  refreshClaudeCodeLogins: false,
  tray: true,
  problem,
});

/** An api whose answers the test hands out, in the order it chooses. */
function controlled() {
  const lists: Array<(value: Outcome<Login[]>) => void> = [];
  const settings: KeeperView[] = [];
  let changed: () => void = () => {};
  const api = {
    list: () => new Promise<Outcome<Login[]>>((resolve) => lists.push(resolve)),
    settings: () => Promise.resolve({ ok: true, value: settings.shift() ?? view(false) } as Outcome<KeeperView>),
    onChanged: (listener: () => void) => {
      changed = listener;
      return Promise.resolve(() => {});
    },
  } as unknown as LoginsApi;
  return { api, lists, settings, change: () => changed() };
}

describe("LoginsView", () => {
  it("shows the latest answer when an older, slower one comes last", async () => {
    const { api, lists, settings, change } = controlled();
    settings.push(view(false), view(true));
    render(<LoginsView api={api} />);
    await waitFor(() => expect(lists.length).toBe(1));
    change(); // the keeper said something changed: asked again, answered at once
    await waitFor(() => expect(lists.length).toBe(2));
    lists[1]!({ ok: true, value: [] });
    await waitFor(() => expect((screen.getByTestId("keeper-start-at-login") as HTMLInputElement).checked).toBe(true));
    lists[0]!({ ok: true, value: [] }); // the first question's answer, from before the change
    await new Promise((done) => setTimeout(done, 20));
    expect((screen.getByTestId("keeper-start-at-login") as HTMLInputElement).checked).toBe(true);
  });

  it("says where the keeper's settings file broke", async () => {
    const { api, lists, settings } = controlled();
    settings.push(view(false, "/home/ada/.local/share/dev.mcp-manager.app/keeper.json: line 3, column 30: expected value"));
    render(<LoginsView api={api} />);
    await waitFor(() => expect(lists.length).toBe(1));
    lists[0]!({ ok: true, value: [] });
    expect((await screen.findByTestId("keeper-settings-problem")).textContent).toContain("line 3, column 30");
  });

  it("reads the list again once a login is due, to show what became of it", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { api, lists } = controlled();
    render(<LoginsView api={api} />);
    await waitFor(() => expect(lists.length).toBe(1));
    lists[0]!({ ok: true, value: [due(Date.now() + 60_000)] });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(lists.length, "nothing is due yet: not asked again").toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    await waitFor(() => expect(lists.length).toBeGreaterThan(1));
    lists.at(-1)!({ ok: true, value: [{ ...due(Date.now() - 1_000), leftForClaudeCode: true }] });
    expect((await screen.findByTestId("login-remote-keeper")).textContent).toBe(
      "Due, and left to Claude Code, which runs now: it refreshes this login itself when it needs it",
    );
  });
});
