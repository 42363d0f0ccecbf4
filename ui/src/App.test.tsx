import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import type { ServerList } from "./bindings";
import type { Outcome } from "./ipc/api";
import { App, type Backend } from "./App";
import { ServerListStore } from "./servers/listStore";
import { StatusStore } from "./servers/statusStore";
import type { ServerActions } from "./servers/actions";
import { server } from "./servers/fixtures";
import type { DraftApi } from "./servers/editor/ServerEditor";
import { emptyDraft } from "./servers/editor/draft";

afterEach(cleanup);

const ok = <T,>(value: T): Promise<Outcome<T>> => Promise.resolve({ ok: true, value });

/** Actions that record what was asked and succeed. */
function recordingActions(log: string[]): ServerActions {
  const written = { scope: "project" as const, path: "/p/.mcp.json" };
  return {
    restart: (name) => (log.push(`restart ${name}`), ok(null)),
    setEnabled: (name, enabled) => (log.push(`enabled ${name} ${enabled}`), ok(written)),
    setApproval: (name, approve) => (
      log.push(`approve ${name} ${approve}`), ok(approve ? ("approved" as const) : ("rejected" as const))
    ),
    approveAll: () => (log.push("approve all"), ok([])),
    resetChoices: () => (log.push("reset choices"), ok({ stillApproved: [], stillRejected: [] })),
    remove: (name, scope) => (log.push(`remove ${name} ${scope}`), ok(written)),
    stderr: () => ok({ lines: ["listening on stdio"], droppedLines: 0 }),
    logIn: (name) => (log.push(`log in ${name}`), ok({ scopes: [], storedIn: "the OS keychain" })),
    logOut: (name) => (log.push(`log out ${name}`), ok(true)),
    copy: (name, from, to) => (log.push(`copy ${name} ${from} ${to}`), ok(written)),
    openFile: (name, scope) => (log.push(`open ${name} ${scope}`), ok(null)),
    setPluginEnabled: (id, enabled) => (log.push(`plugin ${id} ${enabled}`), ok(written)),
  };
}

function renderApp(store: ServerListStore, more: Partial<Backend> = {}, statuses = new StatusStore()) {
  return render(<App store={store} statuses={statuses} backend={{ actions: recordingActions([]), ...more }} />);
}

const list: ServerList = {
  projectDir: "/home/ada/project",
  managed: null,
  trusted: true,
  plugins: [],
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
    renderApp(storeOf({ ok: true, value: list }));
    const rows = await screen.findAllByTestId("server-row");
    expect(rows.map((r) => [r.dataset.serverName, r.dataset.scope, r.dataset.transport])).toEqual([
      ["github", "local", "http"],
      ["github", "project", "stdio"],
      ["fresh", "project", "stdio"],
    ]);
    expect(screen.getAllByTestId("shadowed")).toHaveLength(1);
    expect(screen.getByTestId("state-badge").textContent).toBe("⏸ Pending approval");
    expect(screen.getByTestId("missing-variables").textContent).toContain("TOKEN");
    expect(screen.getByTestId("project-dir").textContent).toBe("/home/ada/project");
  });

  it("shows a broken file's problem with its line and column while listing the rest", async () => {
    renderApp(storeOf({ ok: true, value: list }));
    const problem = await screen.findByTestId("config-problem");
    expect(problem.textContent).toContain("line 3 column 7");
    expect(screen.getAllByTestId("server-row")).toHaveLength(3);
  });

  it("shows a failed load by its code", async () => {
    renderApp(
      storeOf({
        ok: false,
        error: { code: "project-not-found", message: "project folder /nope: No such file" },
      }),
    );
    const alert = await screen.findByTestId("load-error");
    expect(alert.dataset.code).toBe("project-not-found");
    expect(alert.textContent).toContain("The project folder could not be opened");
  });

  it("says so when nothing is configured", async () => {
    renderApp(storeOf({ ok: true, value: { ...list, servers: [], problems: [] } }));
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
    let fire: ((servers: string[]) => void) | undefined;
    let unsubscribed = false;
    const view = renderApp(store, {
      onConfigChanged: (refresh) => {
        fire = refresh;
        return Promise.resolve(() => {
          unsubscribed = true;
        });
      },
    });
    await screen.findAllByTestId("server-row");
    expect(loads).toBe(1);
    fire?.(["github"]);
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

describe("live status", () => {
  it("shows each transition as it arrives and counts every state in the header", async () => {
    const statuses = new StatusStore();
    renderApp(storeOf({ ok: true, value: list }), {}, statuses);
    await screen.findAllByTestId("server-row");
    const local = () => screen.getAllByTestId("server-row")[0]!;
    expect(local().dataset.state, "a server that will start and has no status yet is pending").toBe("pending");
    statuses.apply({ server: "github", status: { state: "pending", attempt: 3 } });
    await waitFor(() => expect(local().textContent).toContain("reconnecting (attempt 3)"));
    statuses.apply({
      server: "github",
      status: {
        state: "connected",
        serverName: "gh",
        serverVersion: "1.2.0",
        serverTitle: null,
        protocolVersion: "2025-11-25",
        instructions: null,
        capabilities: {
          tools: true,
          toolsListChanged: false,
          resources: false,
          resourcesSubscribe: false,
          resourcesListChanged: false,
          prompts: true,
          promptsListChanged: false,
          logging: false,
          completions: false,
          skills: false,
          tasks: false,
        },
        era: "legacy",
        eraEvidence: "legacy: -32601",
        counts: { tools: 12, resources: null, prompts: 1 },
        listening: null,
      },
    });
    await waitFor(() => expect(local().dataset.state).toBe("connected"));
    expect(local().textContent).toContain("12 tools · 1 prompt");
    expect(screen.getByTestId("count-connected").dataset.count).toBe("1");
    expect(
      screen.getByTestId("count-disabled").dataset.count,
      "the unapproved project server counts as not running; the shadowed one not at all",
    ).toBe("1");
  });

  it("keeps an event that arrived before the snapshot answered", async () => {
    const statuses = new StatusStore();
    statuses.apply({ server: "a", status: { state: "failed", error: "exit 1" } });
    await statuses.load(() => ok([{ server: "a", status: { state: "pending", attempt: 1 } }, { server: "b", status: { state: "needs-auth" } }]));
    expect(statuses.getSnapshot().get("a")?.state).toBe("failed");
    expect(statuses.getSnapshot().get("b")?.state).toBe("needs-auth");
  });

  it("filters by name, command or URL as the person types", async () => {
    renderApp(storeOf({ ok: true, value: list }));
    await screen.findAllByTestId("server-row");
    fireEvent.change(screen.getByTestId("search"), { target: { value: "EXAMPLE.com" } });
    expect(screen.getAllByTestId("server-row").map((r) => r.dataset.serverName)).toEqual(["github"]);
    fireEvent.change(screen.getByTestId("search"), { target: { value: "nothing-like-this" } });
    expect(screen.getByTestId("no-match")).toBeTruthy();
  });
});

describe("server detail", () => {
  it("asks before approving, showing exactly what would run, then approves", async () => {
    const log: string[] = [];
    renderApp(storeOf({ ok: true, value: list }), { actions: recordingActions(log) });
    const fresh = (await screen.findAllByTestId("server-open"))[2]!;
    fireEvent.click(fresh);
    // The pane is a chunk loaded when first opened: slow on a busy machine.
    fireEvent.click(await screen.findByTestId("approve", {}, { timeout: 10_000 }));
    expect(screen.getByTestId("approve-target").textContent).toBe("node server.js");
    expect(log, "nothing is approved before the person confirms").toEqual([]);
    fireEvent.click(screen.getByTestId("approve-confirm-yes"));
    await waitFor(() => expect(log).toEqual(["approve fresh true"]));
  });

  it("shows a refused action's message by its code", async () => {
    const actions = recordingActions([]);
    actions.restart = () =>
      Promise.resolve({ ok: false, error: { code: "invalid-request", message: "\"github\" cannot be restarted: it is disabled" } });
    renderApp(storeOf({ ok: true, value: list }), { actions });
    fireEvent.click((await screen.findAllByTestId("server-open"))[0]!);
    fireEvent.click(await screen.findByTestId("restart", {}, { timeout: 10_000 }));
    const alert = await screen.findByTestId("action-error");
    expect(alert.textContent).toContain("cannot be restarted");
  });
});

describe("the server form", () => {
  const github = { name: "github", scope: "local" as const };

  function drafts(log: string[]): DraftApi {
    return {
      load: (entry) => ok({ ...emptyDraft(entry.scope, "http"), name: entry.name, url: "https://api.example.com/mcp" }),
      check: (draft) => {
        log.push(`check ${draft.name}`);
        const problems = draft.name.includes(" ")
          ? [{ field: "name", message: "names can only contain letters", suggestion: null }]
          : [];
        return ok({ problems, warnings: [], changes: problems.length ? [] : [{ path: "/p/.mcp.json", lines: [{ sign: "+", text: `"${draft.name}": {` }] }] });
      },
      save: (draft, original) => (log.push(`save ${draft.name} ${original?.name ?? "new"}`), ok(["/p/.mcp.json"])),
    };
  }

  it("shows the backend's problems at the field, blocks saving, and previews the change", async () => {
    const log: string[] = [];
    renderApp(storeOf({ ok: true, value: list }), { drafts: drafts(log) });
    fireEvent.click(await screen.findByTestId("add-server"));
    // The editor is a chunk of its own, loaded when first opened.
    fireEvent.change(await screen.findByTestId("draft-name"), { target: { value: "bad name" } });
    const problem = await screen.findByTestId("draft-problem");
    expect(problem.dataset.field).toBe("name");
    expect((screen.getByTestId("draft-save") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByTestId("draft-name"), { target: { value: "good" } });
    await waitFor(() => expect(screen.queryByTestId("draft-problem")).toBeNull());
    expect(screen.getByTestId("diff-line").textContent).toContain('"good"');
    fireEvent.click(screen.getByTestId("draft-save"));
    await waitFor(() => expect(log).toContain("save good new"));
  });

  it("announces an edit made on disk while the form is open, and lets the person choose", async () => {
    let fire: ((servers: string[]) => void) | undefined;
    renderApp(storeOf({ ok: true, value: list }), {
      drafts: drafts([]),
      onConfigChanged: (changed) => ((fire = changed), Promise.resolve(() => {})),
    });
    fireEvent.click((await screen.findAllByTestId("server-open"))[0]!);
    fireEvent.click(screen.getByTestId("edit"));
    const url = (await screen.findByTestId("draft-url")) as HTMLInputElement;
    fireEvent.change(url, { target: { value: "https://mine.example/mcp" } });
    fire?.(["someone-else"]);
    expect(screen.queryByTestId("changed-on-disk"), "a change to another server is not this form's business").toBeNull();
    fire?.([github.name]);
    await screen.findByTestId("changed-on-disk");
    expect(url.value, "the person's typing is not overwritten silently").toBe("https://mine.example/mcp");
    fireEvent.click(screen.getByTestId("changed-reload"));
    await waitFor(() => expect((screen.getByTestId("draft-url") as HTMLInputElement).value).toBe("https://api.example.com/mcp"));
    expect(screen.queryByTestId("changed-on-disk")).toBeNull();
  });
});
