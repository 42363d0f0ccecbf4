// End-to-end: the window runs the project's servers. Real servers only: server-everything over
// stdio and over streamable HTTP (started here on 127.0.0.1), and plain Node processes that fail
// at start or would leave a mark if they ever ran. Each test drives the window as a person does
// and checks what appears, what changed on disk and which processes run (/proc).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import {
  everything,
  eventually,
  launch,
  mcpctl,
  open,
  press,
  root,
  row,
  sandbox,
  sandboxProcesses,
  screenshot,
  serverPids,
  sessionPid,
  type,
  waitForPort,
  waitForState,
} from "./harness.mjs";

let box;
let session;
let browser;
let httpServer;
const secret = "e2e-secret-never-shown-4f9a2c";
const headerSecret = "e2e-header-secret-77d1c0";

function freePort() {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

const marked = (name, more = {}) => ({ MCP_E2E_SERVER: name, ...more });
const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

before(async () => {
  box = sandbox();
  const port = await freePort();
  httpServer = spawn("node", [everything, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: "ignore",
  });
  box.neverRanMark = join(box.dir, "never-run-ran");
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify(
      {
        numStartups: 1,
        mcpServers: {
          "http-everything": {
            type: "http",
            url: `http://127.0.0.1:${port}/mcp`,
            headers: { Authorization: `Bearer ${headerSecret}` },
          },
        },
        projects: {
          [box.project]: {
            mcpServers: {
              "stdio-everything": {
                type: "stdio",
                command: "node",
                args: [everything, "stdio"],
                env: marked("stdio-everything", { EVERYTHING_TOKEN: secret }),
              },
              crasher: {
                type: "stdio",
                command: "node",
                args: ["-e", "console.error('boom: the API key is missing'); process.exit(3)"],
                env: marked("crasher"),
              },
            },
          },
        },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(box.project, ".mcp.json"),
    JSON.stringify(
      {
        mcpServers: {
          "pending-everything": { command: "node", args: [everything, "stdio"], env: marked("pending-everything") },
          "never-run": {
            command: "node",
            args: ["-e", "require('fs').writeFileSync(process.env.MARK, 'ran')"],
            env: marked("never-run", { MARK: box.neverRanMark }),
          },
        },
      },
      null,
      2,
    ) + "\n",
  );
  // Listening before the app starts: a server that is not there at start-up is failed.
  await waitForPort(port, 20_000, () => "server-everything (streamable HTTP) did not listen");
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  httpServer?.kill();
  await session?.close();
});

async function detailState() {
  return browser.$('[data-testid="detail-status"]').getAttribute("data-state");
}

test("every server starts with the window and each state shows live, counted in the header", async () => {
  const stdio = await waitForState(browser, "stdio-everything", "local", "connected");
  assert.match(await stdio.getText(), /\d+ tools · \d+ resources · \d+ prompts/, "a connected server shows its counts");
  await waitForState(browser, "http-everything", "user", "connected");
  await waitForState(browser, "crasher", "local", "failed");
  for (const name of ["pending-everything", "never-run"]) {
    assert.equal(await row(browser, name, "project").getAttribute("data-state"), "disabled", `${name} waits for approval`);
  }
  const count = async (state) => Number(await browser.$(`[data-testid="count-${state}"]`).getAttribute("data-count"));
  assert.deepEqual(
    [await count("connected"), await count("failed"), await count("disabled"), await count("pending")],
    [2, 1, 2, 0],
  );
  assert.equal(serverPids(box, "pending-everything").length, 0, "an unapproved server is not started");
  await screenshot(browser, "servers-live");
});

test("a server that fails at start says why, with its exit status and stderr", async () => {
  await open(browser, "crasher", "local");
  assert.equal(await detailState(), "failed");
  const failure = await browser.$('[data-testid="failure"]').getText();
  assert.match(failure, /status 3/);
  assert.match(failure, /boom: the API key is missing/);
  const stderr = browser.$('[data-testid="stderr"]');
  await browser.waitUntil(async () => (await stderr.getText()).includes("boom: the API key is missing"), {
    timeout: 5_000,
    timeoutMsg: "the stderr tail is shown",
  });
  // One failure, one stderr: a first start is one process (`initialize`; nothing is asked beside
  // a server that did not start).
  const times = (text) => text.split("boom: the API key is missing").length - 1;
  assert.equal(times(await stderr.getText()), 1, "the stderr line is shown once");
  assert.equal(times(failure), 1, "and said once in the failure");
  await screenshot(browser, "server-failed");
});

test("approving a pending project server trusts the folder first, shows its whole entry, then starts it", async () => {
  await open(browser, "pending-everything", "project");
  // The folder is not trusted yet: Approve asks that first, as Claude Code's trust dialog.
  await browser.$('[data-testid="approve"]').click();
  await browser.$('[data-testid="trust-dialog"]').waitForExist({ timeout: 5_000, timeoutMsg: "the trust question comes first" });
  await browser.$('[data-testid="trust-yes"]').click();
  await browser.$('[data-testid="trust-banner"]').waitForExist({ reverse: true, timeout: 10_000 });
  assert.equal(readJson(join(box.home, ".claude.json")).projects[box.project].hasTrustDialogAccepted, true);
  assert.equal(serverPids(box, "pending-everything").length, 0, "trusting approves nothing by itself here");
  await open(browser, "pending-everything", "project");
  await browser.$('[data-testid="approve"]').click();
  const target = await browser.$('[data-testid="approve-target"]').getText();
  assert.equal(target, `node ${everything} stdio`, "the approval shows the exact command line");
  const entry = browser.$('[data-testid="approve-entry"]');
  await entry.waitForExist({ timeout: 5_000, timeoutMsg: "and the whole entry" });
  assert.match(await entry.getText(), /"MCP_E2E_SERVER": "pending-everything"/, "its env included");
  assert.equal(serverPids(box, "pending-everything").length, 0, "nothing runs before the person confirms");
  await screenshot(browser, "server-approve");
  await browser.$('[data-testid="approve-confirm-yes"]').click();
  await waitForState(browser, "pending-everything", "project", "connected");
  const settings = readJson(join(box.project, ".claude/settings.local.json"));
  assert.deepEqual(settings.enabledMcpjsonServers, ["pending-everything"]);
  assert.ok(await sessionPid(box, "pending-everything"), "one process runs it");
});

test("a rejected project server never spawns", async () => {
  await open(browser, "never-run", "project");
  await browser.$('[data-testid="reject"]').click();
  await browser.waitUntil(
    async () => (readJson(join(box.project, ".claude/settings.local.json")).disabledMcpjsonServers ?? []).includes("never-run"),
    { timeout: 5_000, timeoutMsg: "the rejection is written to settings.local.json" },
  );
  // Long enough for a reconcile after the change on disk to have started it, were it wrong.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await row(browser, "never-run", "project").getAttribute("data-state"), "disabled");
  assert.equal(existsSync(box.neverRanMark), false, "its command never ran");
  assert.equal(serverPids(box, "never-run").length, 0);
});

test("a server killed from outside goes to failed, and Restart brings it back", async () => {
  const before = await sessionPid(box, "stdio-everything");
  process.kill(before, "SIGKILL");
  await waitForState(browser, "stdio-everything", "local", "failed");
  await open(browser, "stdio-everything", "local");
  assert.match(await browser.$('[data-testid="failure"]').getText(), /signal 9/);
  await press(browser.$('[data-testid="restart"]'));
  await waitForState(browser, "stdio-everything", "local", "connected");
  assert.notEqual(await sessionPid(box, "stdio-everything"), before, "a new process");
});

test("disabling stops a server and enabling starts it again", async () => {
  await open(browser, "stdio-everything", "local");
  await browser.$('[data-testid="disable"]').click();
  await waitForState(browser, "stdio-everything", "local", "disabled");
  const key = box.project;
  assert.deepEqual(readJson(join(box.home, ".claude.json")).projects[key].disabledMcpServers, ["stdio-everything"]);
  await eventually(() => serverPids(box, "stdio-everything").length === 0, "the process ends");
  await browser.$('[data-testid="enable"]').click();
  await waitForState(browser, "stdio-everything", "local", "connected");
  assert.deepEqual(readJson(join(box.home, ".claude.json")).projects[key].disabledMcpServers, []);
});

test("a stdio server added through the form connects, and its file is what mcpctl add writes", async () => {
  const before = readFileSync(join(box.project, ".mcp.json"), "utf8");
  await browser.$('[data-testid="add-server"]').click();
  await type(browser.$('[data-testid="draft-name"]'), "bad name");
  const problem = browser.$('[data-testid="draft-problem"][data-field="name"]');
  await problem.waitForExist({ timeout: 5_000, timeoutMsg: "an invalid name is flagged as typed" });
  assert.equal(await browser.$('[data-testid="draft-save"]').isEnabled(), false);
  await type(browser.$('[data-testid="draft-name"]'), "added");
  await problem.waitForExist({ reverse: true, timeout: 5_000 });
  await type(browser.$('[data-testid="draft-command"]'), "node");
  for (const arg of [everything, "stdio"]) {
    await press(browser.$('[data-testid="draft-add-arg"]'));
    const args = await browser.$$('[data-testid="draft-arg"]');
    await type(args[args.length - 1], arg);
  }
  await press(browser.$('[data-testid="draft-add-env"]'));
  await type(browser.$('[data-testid="draft-env-key"]'), "MCP_E2E_SERVER");
  await type(browser.$('[data-testid="draft-env-value"]'), "added");
  await browser.waitUntil(
    async () => (await browser.$('[data-testid="draft-preview"]').getText().catch(() => "")).includes('"MCP_E2E_SERVER": "added"'),
    { timeout: 5_000, timeoutMsg: "the preview shows the new lines" },
  );
  await screenshot(browser, "server-add");
  await browser.$('[data-testid="draft-save"]').click();
  await waitForState(browser, "added", "project", "connected");

  // The same input through mcpctl, on a copy of the file as it was.
  const scratch = sandbox();
  writeFileSync(join(scratch.project, ".mcp.json"), before);
  const cli = spawnSync(
    mcpctl,
    ["--project", scratch.project, "add", "-s", "project", "-e", "MCP_E2E_SERVER=added", "added", "--", "node", everything, "stdio"],
    { env: { ...process.env, HOME: scratch.home }, encoding: "utf8" },
  );
  assert.equal(cli.status, 0, cli.stderr);
  assert.equal(
    readFileSync(join(box.project, ".mcp.json"), "utf8"),
    readFileSync(join(scratch.project, ".mcp.json"), "utf8"),
    "the form writes byte for byte what mcpctl add writes",
  );
});

test("editing a server restarts it and no other", async () => {
  const otherBefore = await sessionPid(box, "stdio-everything");
  const editedBefore = await sessionPid(box, "added");
  await open(browser, "added", "project");
  await browser.$('[data-testid="edit"]').click();
  await browser.$('[data-testid="draft-add-env"]').click();
  const keys = await browser.$$('[data-testid="draft-env-key"]');
  const values = await browser.$$('[data-testid="draft-env-value"]');
  await type(keys[keys.length - 1], "LEVEL");
  await type(values[values.length - 1], "debug");
  await browser.$('[data-testid="draft-preview"]').waitForExist({ timeout: 5_000 });
  await browser.waitUntil(async () => browser.$('[data-testid="draft-save"]').isEnabled(), { timeout: 5_000 });
  await browser.$('[data-testid="draft-save"]').click();
  const editedAfter = await eventually(() => {
    const pids = serverPids(box, "added");
    return pids.length === 1 && pids[0] !== editedBefore && pids[0];
  }, "the edited server restarts");
  await waitForState(browser, "added", "project", "connected");
  assert.ok(editedAfter);
  assert.deepEqual(serverPids(box, "stdio-everything"), [otherBefore], "the other servers keep their process");
  assert.equal(readJson(join(box.project, ".mcp.json")).mcpServers.added.env.LEVEL, "debug");
});

test("an edit made on disk while the form is open is announced, and the person chooses", async () => {
  await open(browser, "added", "project");
  await browser.$('[data-testid="edit"]').click();
  await browser.$('[data-testid="draft-name"]').waitForExist({ timeout: 5_000 });
  const file = join(box.project, ".mcp.json");
  const config = readJson(file);
  config.mcpServers.added.env.FROM_DISK = "yes";
  writeFileSync(file, JSON.stringify(config, null, 2) + "\n");
  const banner = browser.$('[data-testid="changed-on-disk"]');
  await banner.waitForExist({ timeout: 5_000, timeoutMsg: "the change on disk is announced" });
  await screenshot(browser, "server-changed-on-disk");
  await browser.$('[data-testid="changed-reload"]').click();
  await browser.waitUntil(
    async () => {
      const keys = await browser.$$('[data-testid="draft-env-key"]');
      for (const key of keys) if ((await key.getValue()) === "FROM_DISK") return true;
      return false;
    },
    { timeout: 5_000, timeoutMsg: "the version on disk is loaded into the form" },
  );
  await browser.$('[data-testid="draft-cancel"]').click();
});

test("a secret written in a file never reaches the window, and a typed one is offered a ${VAR}", async () => {
  await open(browser, "stdio-everything", "local");
  await browser.$('[data-testid="edit"]').click();
  await browser.waitUntil(async () => (await browser.$('[data-testid="draft-name"]').getValue().catch(() => "")) === "stdio-everything", {
    timeout: 5_000,
    timeoutMsg: "the edit form opens with the server's values",
  });
  const values = await browser.$$('[data-testid="draft-env-value"]');
  assert.equal(values.length, 2, "both env rows are in the form");
  const shown = [];
  for (const value of values) shown.push(await value.getValue());
  assert.ok(!shown.includes(secret), "the env value is not sent to the form");
  const html = await browser.getPageSource();
  assert.ok(!html.includes(secret), "nor anywhere in the page");
  await browser.$('[data-testid="draft-cancel"]').click();
  await browser.$('[data-testid="server-editor"]').waitForExist({ reverse: true, timeout: 5_000 }).catch(async (error) => {
    await screenshot(browser, "failed-cancel");
    throw error;
  });

  await browser.$('[data-testid="add-server"]').click();
  await type(browser.$('[data-testid="draft-name"]'), "github");
  await browser.$('[data-testid="draft-transport-http"]').click();
  await type(browser.$('[data-testid="draft-url"]'), "https://api.example.com/mcp");
  await browser.$('[data-testid="draft-add-headers"]').click();
  await type(browser.$('[data-testid="draft-headers-key"]'), "Authorization");
  await type(browser.$('[data-testid="draft-headers-value"]'), "Bearer ghp_e2eTypedToken1234567890");
  const apply = browser.$('[data-testid="draft-apply-suggestion"]');
  await apply.waitForExist({ timeout: 5_000 }).catch(async () => {
    const form = await browser.$('[data-testid="server-editor"]').getText().catch((e) => String(e));
    assert.fail(`a token typed into a header is noticed; the form shows:\n${form}`);
  });
  await apply.click();
  assert.equal(await browser.$('[data-testid="draft-headers-value"]').getValue(), "Bearer ${GITHUB_TOKEN}");
  await browser.$('[data-testid="draft-cancel"]').click();
});

test("search filters by name, command or URL; / focuses it", async () => {
  // A click on the app's title, away from any field (the middle of <body> may be under
  // whatever the detail pane shows there).
  await browser.$("h1").click();
  await browser.keys("/");
  const search = browser.$('[data-testid="search"]');
  assert.equal(await search.isFocused(), true, "/ focuses the search box");
  await browser.keys("127.0.0.1");
  await browser.waitUntil(async () => (await browser.$$('[data-testid="server-row"]')).length === 1, {
    timeout: 5_000,
    timeoutMsg: "only the HTTP server's URL matches",
  });
  assert.equal(await browser.$('[data-testid="server-row"]').getAttribute("data-server-name"), "http-everything");
  await type(search, "");
});

test("a server copied to another scope keeps its entry, and Remove deletes the copy", async () => {
  await open(browser, "stdio-everything", "local");
  await browser.$('[data-testid="copy-scope"]').selectByAttribute("value", "user");
  await browser.$('[data-testid="copy"]').click();
  const copy = row(browser, "stdio-everything", "user");
  await copy.waitForExist({ timeout: 5_000, timeoutMsg: "the copy appears in the user scope" }).catch(async (error) => {
    await screenshot(browser, "failed-copy");
    throw error;
  });
  assert.equal(await copy.getAttribute("data-state"), "shadowed", "the local entry wins over the user copy");
  const user = readJson(join(box.home, ".claude.json")).mcpServers["stdio-everything"];
  assert.deepEqual(user.args, [everything, "stdio"]);
  assert.equal(user.env.EVERYTHING_TOKEN, secret, "copied as written");
  await open(browser, "stdio-everything", "user");
  await browser.$('[data-testid="remove"]').click();
  await browser.$('[data-testid="remove-confirm-yes"]').click();
  await copy.waitForExist({ reverse: true, timeout: 5_000, timeoutMsg: "the copy is gone" });
  assert.equal(readJson(join(box.home, ".claude.json")).mcpServers["stdio-everything"], undefined);
  assert.equal(await row(browser, "stdio-everything", "local").getAttribute("data-state"), "connected", "the local one is untouched");
});

/**
 * The messages the protocol log shows, read in one WebDriver call: read one attribute at a
 * time, a log of some hundred messages took seconds per look, and a look that waits for a
 * message had time for only a few (the restart's check timed out on a busy machine).
 */
async function protocolMessages() {
  return browser.execute(() =>
    [...document.querySelectorAll('[data-testid="protocol-message"]')].map((message) => ({
      direction: message.getAttribute("data-direction"),
      method: message.getAttribute("data-method"),
    })),
  );
}

test("the protocol log shows every message in and out, live, filtered, pretty-printed", async () => {
  await open(browser, "stdio-everything", "local");
  await browser.$('[data-testid="tab-protocol"]').click();
  const seen = await eventually(async () => {
    const messages = await protocolMessages();
    return messages.some((m) => m.direction === "out" && m.method === "initialize") &&
      messages.some((m) => m.direction === "in" && m.method === "tools/list") && messages;
  }, "the session's initialize and tools/list are logged");
  // Newest first: the session's opening is last. A first start opens with initialize (what
  // server/discover is asked beside it, in a process of its own, is not in this log).
  const opening = seen[seen.length - 1];
  assert.equal(opening.direction, "out");
  assert.equal(opening.method, "initialize");
  assert.ok(!seen.some((m) => m.method === "server/discover"), "no server/discover in the session's log");
  await type(browser.$('[data-testid="protocol-filter"]'), "tools/list");
  const filtered = await eventually(async () => {
    const messages = await protocolMessages();
    return messages.every((m) => m.method.includes("tools/list")) && messages.length >= 2 && messages;
  }, "only messages whose method has tools/list in it remain");
  assert.deepEqual(new Set(filtered.map((m) => m.direction)), new Set(["out", "in"]));
  await browser.$('[data-testid="protocol-message"] button').click();
  assert.match(await browser.$('[data-testid="protocol-payload"]').getText(), /\n\s+"jsonrpc": "2.0"/, "pretty-printed");
  await screenshot(browser, "server-protocol-log");
  await type(browser.$('[data-testid="protocol-filter"]'), "");
  // A restart while the log is open: its new initialize arrives without reopening.
  const initializes = (await protocolMessages()).filter((m) => m.method === "initialize").length;
  await browser.$('[data-testid="tab-overview"]').click();
  await press(browser.$('[data-testid="restart"]'));
  await browser.$('[data-testid="tab-protocol"]').click();
  await eventually(
    async () => (await protocolMessages()).filter((m) => m.method === "initialize").length > initializes,
    "the restarted session's messages arrive live",
  );
});

test("a remote server's protocol log never shows its headers", async () => {
  await open(browser, "http-everything", "user");
  await browser.$('[data-testid="tab-protocol"]').click();
  await eventually(async () => (await protocolMessages()).some((m) => m.method === "initialize"), "remote messages are logged");
  assert.ok(!(await browser.getPageSource()).includes(headerSecret), "the Authorization header is not in the page");
  await browser.$('[data-testid="tab-overview"]').click();
});

test("closing the app leaves no server process", async () => {
  assert.ok(sandboxProcesses(box).length >= 3, "servers run while the window is open");
  await session.quit();
  await eventually(
    () => sandboxProcesses(box).length === 0,
    "every server process ends with the app",
    10_000,
  );
});
