import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ServerList } from "./bindings";
import type { Outcome } from "./api";
import { App } from "./App";
import { ServerListStore } from "./store";
import { server } from "./fixtures";

afterEach(cleanup);

const list: ServerList = {
  projectDir: "/home/ada/project",
  managed: null,
  servers: [
    server("github", "local", { transport: "http", target: "https://api.example.com/mcp" }),
    server("github", "project", {
      target: "node github.js",
      shadowedBy: "local",
      willStart: false,
    }),
    server("fresh", "project", {
      approval: "pending",
      willStart: false,
      missingVariables: [{ variable: "TOKEN", field: "env.TOKEN" }],
    }),
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
      ["fresh", "project", "stdio"],
    ]);
    expect(screen.getAllByTestId("shadowed")).toHaveLength(1);
    expect(screen.getByTestId("state-badge").textContent).toBe("needs approval");
    expect(screen.getByTestId("missing-variables").textContent).toContain("TOKEN");
    expect(screen.getByTestId("project-dir").textContent).toBe("/home/ada/project");
  });

  it("shows a broken file's problem with its line and column while listing the rest", async () => {
    render(<App store={storeOf({ ok: true, value: list })} />);
    const problem = await screen.findByTestId("config-problem");
    expect(problem.textContent).toContain("line 3 column 7");
    expect(screen.getAllByTestId("server-row")).toHaveLength(3);
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

describe("live updates", () => {
  it("reloads when the backend says the configuration changed, and unsubscribes on unmount", async () => {
    let loads = 0;
    const store = new ServerListStore(() => {
      loads += 1;
      return Promise.resolve({ ok: true, value: list });
    });
    let fire: (() => void) | undefined;
    let unsubscribed = false;
    const view = render(
      <App
        store={store}
        onConfigChanged={(refresh) => {
          fire = refresh;
          return Promise.resolve(() => {
            unsubscribed = true;
          });
        }}
      />,
    );
    await screen.findAllByTestId("server-row");
    expect(loads).toBe(1);
    fire?.();
    await waitFor(() => expect(loads).toBe(2));
    view.unmount();
    await waitFor(() => expect(unsubscribed).toBe(true));
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
