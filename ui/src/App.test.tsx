import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ServerList } from "./bindings";
import type { Outcome } from "./api";
import { App } from "./App";
import { ServerListStore } from "./store";

afterEach(cleanup);

const list: ServerList = {
  projectDir: "/home/ada/project",
  servers: [
    {
      name: "github",
      scope: "local",
      transport: "http",
      target: "https://api.example.com/mcp",
      source: "/home/ada/.claude.json",
      shadowedBy: null,
    },
    {
      name: "github",
      scope: "project",
      transport: "stdio",
      target: "node github.js",
      source: "/home/ada/project/.mcp.json",
      shadowedBy: "local",
    },
  ],
  problems: [
    {
      code: "config-syntax",
      scope: "user",
      path: "/home/ada/.claude.json",
      server: null,
      line: 3,
      column: 7,
      message: "/home/ada/.claude.json line 3 column 7: expected `,` — the file was not changed",
    },
  ],
};

function storeOf(outcome: Outcome<ServerList>) {
  return new ServerListStore(() => Promise.resolve(outcome));
}

describe("App", () => {
  it("lists each server under its scope with its transport and marks shadowed ones", async () => {
    render(<App store={storeOf({ ok: true, value: list })} />);
    const rows = await screen.findAllByTestId("server-row");
    expect(rows.map((r) => [r.dataset.serverName, r.dataset.scope, r.dataset.transport])).toEqual([
      ["github", "local", "http"],
      ["github", "project", "stdio"],
    ]);
    expect(screen.getAllByTestId("shadowed")).toHaveLength(1);
    expect(screen.getByTestId("project-dir").textContent).toBe("/home/ada/project");
  });

  it("shows a broken file's problem with its line and column while listing the rest", async () => {
    render(<App store={storeOf({ ok: true, value: list })} />);
    const problem = await screen.findByTestId("config-problem");
    expect(problem.textContent).toContain("line 3 column 7");
    expect(screen.getAllByTestId("server-row")).toHaveLength(2);
  });

  it("shows a failed load by its code", async () => {
    render(
      <App
        store={storeOf({
          ok: false,
          error: { code: "project-not-found", message: "project folder /nope: No such file" },
        })}
      />,
    );
    const alert = await screen.findByTestId("load-error");
    expect(alert.dataset.code).toBe("project-not-found");
    expect(alert.textContent).toContain("The project folder could not be opened");
  });

  it("says so when nothing is configured", async () => {
    render(<App store={storeOf({ ok: true, value: { ...list, servers: [], problems: [] } })} />);
    await waitFor(() => expect(screen.getByTestId("empty")).toBeTruthy());
  });
});

describe("ServerListStore", () => {
  it("drops an answer that arrives after a newer refresh", async () => {
    const answers: Array<(o: Outcome<ServerList>) => void> = [];
    const store = new ServerListStore(
      () => new Promise<Outcome<ServerList>>((resolve) => answers.push(resolve)),
    );
    const first = store.refresh();
    const second = store.refresh();
    answers[1]?.({ ok: true, value: list });
    await second;
    answers[0]?.({ ok: false, error: { code: "internal", message: "stale" } });
    await first;
    expect(store.getSnapshot().status, "the stale failure must not replace the newer list").toBe(
      "ready",
    );
  });
});
