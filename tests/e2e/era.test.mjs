// End-to-end: servers of both protocol eras in the window, with no setting: a server of the
// official TypeScript SDK 2.4 that serves only 2026-07-28 (over stdio, and over streamable
// HTTP on 127.0.0.1), server-everything (the initialize era), and a server of that era that
// exits when probed. Each connects, shows its protocol and how it was found out, the modern
// server's tool is called from the Tools tab, and its multi-round call asks the person in the
// window, round by round. On a 2026-07-28 session, what changes is heard over
// subscriptions/listen: a tool the server adds shows in its Tools tab and count, and a followed
// resource is read again when it changes. A tool whose header annotation breaks the rules of
// streamable HTTP is listed apart, with why, instead of silently missing. A call offered to
// run as a task (the tasks extension, on a server of rmcp's server side) is followed to its
// end, asks the person on the way, and is cancelled at the server with Cancel.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, everything, launch, open, press, root, row, sandbox, screenshot, taskServer, type, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
let http;

before(async () => {
  http = spawn("node", [join(root, "tests/fixtures/servers/modern-server.mjs"), "--http", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = await once(http.stdout, "data");
  const url = String(line).trim();
  box = sandbox();
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      mcpServers: {
        modern: { command: "node", args: [join(root, "tests/fixtures/servers/modern-server.mjs")] },
        "modern-http": { type: "http", url },
        everything: { command: "node", args: [everything, "stdio"] },
        strict: { command: "node", args: [join(root, "tests/fixtures/servers/edge-server.mjs")], env: { EDGE_FAULT: "strict-initialize" } },
        tasks: { command: taskServer },
      },
    }),
  );
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
  http?.kill();
});

async function protocolOf(name) {
  await waitForState(browser, name, "user", "connected");
  const detail = await open(browser, name, "user");
  const protocol = detail.$('[data-testid="server-protocol"]');
  await protocol.waitForExist({ timeout: 5_000 });
  const evidence = await protocol.$('[data-testid="server-era-evidence"]').getText();
  return { era: await protocol.getAttribute("data-era"), text: `${(await protocol.getText()).replace(evidence, "").trim()}\n${evidence}` };
}

/** The era evidence the open server's pane shows, read in one call (the pane is drawn again as the session changes). */
function eraEvidence(name) {
  return browser.execute(
    (selector) => document.querySelector(selector)?.textContent ?? null,
    `[data-testid="server-detail"][data-server-name="${name}"] [data-testid="server-era-evidence"]`,
  );
}

test("each server connects in its own era, and says how that was found out", async () => {
  // A local server's first start is `initialize` on one process: the server of 2026-07-28 only
  // refuses it with -32022 and is sent server/discover on the same process.
  assert.deepEqual(await protocolOf("modern"), { era: "modern", text: "2026-07-28 (stateless)\ninitialize → -32022, then 2026-07-28" });
  assert.deepEqual(await protocolOf("modern-http"), { era: "modern", text: "2026-07-28 (stateless)\nserver/discover → 2026-07-28" });
  // Servers that answer `initialize` are asked server/discover beside their session; the answer
  // is for the next start.
  const beside = /^2025-11-25 \(initialize\)\nlegacy: initialize answered in \d+ ms; server\/discover is asked beside it, for the next start$/;
  for (const name of ["everything", "strict"]) {
    const { era, text } = await protocolOf(name);
    assert.equal(era, "legacy", name);
    assert.match(text, beside, name);
  }
  await screenshot(browser, "era-strict");
  // Once that answer is kept, a restart opens each in the era it settled, saying what it was.
  const eras = join(box.home, ".local/share/dev.mcp-manager.app/eras.json");
  const settled = { everything: "legacy: -32601", strict: "legacy: the server exited (status 2) on server/discover" };
  await eventually(
    () => existsSync(eras) && Object.values(settled).every((said) => readFileSync(eras, "utf8").includes(JSON.stringify(said))),
    "what server/discover found beside each session is kept",
  );
  for (const [name, said] of Object.entries(settled)) {
    await open(browser, name, "user");
    await press(browser.$('[data-testid="restart"]'));
    await eventually(async () => (await eraEvidence(name)) === `remembered: ${said}`, `${name} opens as remembered`);
  }
  assert.equal(await browser.$('[data-testid="server-listening"]').isExisting(), false, "the initialize era needs no listen stream");
  const detail = await open(browser, "modern", "user");
  const listening = detail.$('[data-testid="server-listening"]');
  await eventually(async () => (await listening.isExisting()) && (await listening.getAttribute("data-state")) === "listening", "the modern server's live changes are shown");
  assert.equal(await listening.getText(), "tools list, resources list, prompts list, over subscriptions/listen");
  await screenshot(browser, "era-listening");
});

test("a tool of a 2026-07-28 server is called from the window, its request carrying who asked", async () => {
  await open(browser, "modern", "user");
  await browser.$('[data-testid="tab-tools"]').click();
  await browser.$('[data-testid="tool-row"][data-tool="whoami"]').click();
  await browser.$('[data-testid="run-tool"]').click();
  const view = browser.$('[data-testid="content-text-view"]');
  await view.waitForExist({ timeout: 15_000 });
  assert.equal(await view.getAttribute("data-mode"), "json");
  await view.$('[data-testid="view-plain"]').click();
  assert.equal(await view.$('[data-testid="content-text"]').getText(), '{"client":"mcp-manager","version":"2026-07-28"}');
  await browser.$('[data-testid="tool-row"][data-tool="echo"]').click();
  await type(browser.$('[data-testid="form-field"][data-path="/text"] [data-testid="string-input"]'), "from the window");
  await browser.$('[data-testid="run-tool"]').click();
  await browser.$('[data-testid="content-text"]').waitForExist({ timeout: 15_000 });
  assert.equal(await browser.$('[data-testid="content-text"]').getText(), "modern echo: from the window");
  await screenshot(browser, "era-modern-tool");
});

test("a multi-round call of a 2026-07-28 server asks the person in the window, then completes", async () => {
  await open(browser, "modern", "user");
  await browser.$('[data-testid="tab-tools"]').click();
  await browser.$('[data-testid="tool-row"][data-tool="deploy"]').click();
  await type(browser.$('[data-testid="form-field"][data-path="/env"] [data-testid="string-input"]'), "staging");
  await browser.$('[data-testid="run-tool"]').click();
  const dock = browser.$('[data-testid="ask"][data-kind="form"][data-server="modern"]');
  await dock.waitForExist({ timeout: 15_000, timeoutMsg: "the server's input request reaches the person" });
  assert.equal(await dock.$('[data-testid="ask-message"]').getText(), "Who deploys to staging?");
  await type(dock.$('[data-testid="form-field"][data-path="/name"] [data-testid="string-input"]'), "Grace");
  await dock.$('[data-testid="ask-accept"]').click();
  const text = browser.$('[data-testid="content-text"]');
  await text.waitForExist({ timeout: 15_000 });
  assert.match(await text.getText(), /^deployed to staging by Grace, in file:\/\//);
  const rounds = browser.$('[data-testid="input-rounds"]');
  assert.equal(await rounds.getAttribute("data-count"), "1");
  await rounds.$("summary").click();
  assert.equal(await rounds.$('[data-testid="input-round"]').getText(), "Round 1: who: elicitation/create, roots: roots/list");
  await screenshot(browser, "era-multi-round");
});

test("a tool a 2026-07-28 server adds is heard over subscriptions/listen and shows at once", async () => {
  await open(browser, "modern-http", "user");
  const counts = row(browser, "modern-http", "user").$('[data-testid="live-state"]');
  const before = await counts.getText();
  await browser.$('[data-testid="tab-tools"]').click();
  await browser.$('[data-testid="tool-row"][data-tool="grow"]').click();
  await browser.$('[data-testid="run-tool"]').click();
  await browser.$('[data-testid="content-text"]').waitForExist({ timeout: 15_000 });
  assert.equal(await browser.$('[data-testid="content-text"]').getText(), "added extra-1");
  // No reload, no reconnect: the list change came over the listen stream and the tab read the
  // list again.
  await browser.$('[data-testid="tool-row"][data-tool="extra-1"]').waitForExist({ timeout: 15_000, timeoutMsg: "the new tool is listed" });
  await eventually(async () => (await counts.getText()) !== before, `the count of tools changes from "${before}"`);
  assert.match(await counts.getText(), /^✔ 10 tools/);
  await browser.$('[data-testid="tab-protocol"]').click();
  await type(browser.$('[data-testid="protocol-filter"]'), "notifications/tools/list_changed");
  await eventually(async () => (await browser.$$('[data-testid="protocol-message"]').length) >= 1, "the notification is in the protocol log");
  await screenshot(browser, "era-list-changed");
});

test("a followed resource of a 2026-07-28 server is read again when it changes", async () => {
  await open(browser, "modern", "user");
  await browser.$('[data-testid="tab-resources"]').click();
  await browser.$('[data-testid="resource-row"][data-uri="modern://counter"]').click();
  const contents = browser.$('[data-testid="resource-contents"][data-uri="modern://counter"]');
  await contents.$('[data-testid="follow-resource"]').click();
  await contents.$('[data-testid="unfollow-resource"]').waitForExist({ timeout: 15_000, timeoutMsg: "the listen stream acknowledged the resource" });
  const first = await contents.$('[data-testid="resource-text"]').getText();

  await browser.$('[data-testid="tab-tools"]').click();
  await browser.$('[data-testid="tool-row"][data-tool="bump"]').click();
  await browser.$('[data-testid="run-tool"]').click();
  await browser.$('[data-testid="content-text"]').waitForExist({ timeout: 15_000 });

  await browser.$('[data-testid="tab-resources"]').click();
  await browser.$('[data-testid="resource-row"][data-uri="modern://counter"]').click();
  await eventually(async () => Number(await contents.$('[data-testid="resource-updates"]').getAttribute("data-count")) >= 1, "the update is counted");
  await eventually(async () => (await contents.$('[data-testid="resource-text"]').getText()) !== first, `the resource was read again (was "${first}")`);
  await contents.$('[data-testid="unfollow-resource"]').click();
  await contents.$('[data-testid="follow-resource"]').waitForExist({ timeout: 15_000 });
  await browser.$('[data-testid="tab-protocol"]').click();
  await type(browser.$('[data-testid="protocol-filter"]'), "subscriptions/listen");
  // The first stream (tools and resources lists), one more with the resource, one without it.
  await eventually(async () => (await browser.$$('[data-testid="protocol-message"]').length) >= 3, "the stream was opened again with each filter");
});

test("a tool left out for its x-mcp-header is listed apart in the Tools tab, with why", async () => {
  await open(browser, "modern-http", "user");
  await browser.$('[data-testid="tab-tools"]').click();
  const dropped = browser.$('[data-testid="dropped-tools"]');
  await dropped.waitForExist({ timeout: 15_000, timeoutMsg: "the dropped tool is shown" });
  assert.equal(await dropped.getAttribute("data-count"), "1");
  assert.equal(await browser.$('[data-testid="tool-row"][data-tool="misheaded"]').isExisting(), false);
  await dropped.$("summary").click();
  const tool = dropped.$('[data-testid="dropped-tool"][data-tool="misheaded"]');
  assert.equal(await tool.$('[data-testid="dropped-reason"]').getText(), "property `zone`: x-mcp-header `Bad Zone` is not a valid HTTP token");
  await screenshot(browser, "era-dropped-tool");
  // Over stdio the annotations may be ignored: the same server's tool is offered there.
  await open(browser, "modern", "user");
  await browser.$('[data-testid="tab-tools"]').click();
  await browser.$('[data-testid="tool-row"][data-tool="misheaded"]').waitForExist({ timeout: 15_000 });
  assert.equal(await browser.$('[data-testid="dropped-tools"]').isExisting(), false);
});

/** Runs the chosen tool of the open server, offered as a task. */
async function runAsTask(tool, fill = async () => {}) {
  await browser.$('[data-testid="tab-tools"]').click();
  await browser.$(`[data-testid="tool-row"][data-tool="${tool}"]`).click();
  await fill();
  const offer = browser.$('[data-testid="run-as-task"]');
  if (!(await offer.isSelected())) await offer.click();
  await browser.$('[data-testid="run-tool"]').click();
}

test("a call offered as a task is followed to its end, its statuses shown as it goes", async () => {
  // The task server speaks both eras: opened with initialize, found out beside, and moved to a
  // session of 2026-07-28 (whose tasks extension this is) without being asked.
  await waitForState(browser, "tasks", "user", "connected");
  await open(browser, "tasks", "user");
  await browser.$('[data-testid="tab-overview"]').click();
  await eventually(
    async () => (await eraEvidence("tasks")) === "server/discover → 2026-07-28; this session took the place of the one opened with initialize",
    "the task server's session moves to 2026-07-28",
  );
  await runAsTask("build", async () => {
    const steps = browser.$('[data-testid="form-field"][data-path="/steps"]');
    await steps.$('[data-testid="toggle-omitted"]').click();
    await type(steps.$('[data-testid="number-input"]'), "20");
  });
  const progress = browser.$('[data-testid="call-progress"]');
  await progress.waitForExist({ timeout: 10_000, timeoutMsg: "the task's progress is shown" });
  await eventually(async () => /task working: step \d+ of 20/.test(await progress.getText()), "the task's status message is shown as progress");
  await screenshot(browser, "task-running");
  const text = browser.$('[data-testid="content-text"]');
  await text.waitForExist({ timeout: 15_000 });
  assert.equal(await text.getText(), "built in 20 steps");
  const run = browser.$('[data-testid="task-run"]');
  assert.equal(await run.getAttribute("data-status"), "completed");
  assert.ok(Number(await run.getAttribute("data-polls")) >= 2);
  await run.$("summary").click();
  const seen = await browser.$$('[data-testid="task-status"]').map((s) => s.getText());
  assert.equal(seen[0], "working: started");
  assert.equal(seen.at(-1), "completed: step 20 of 20");
  await screenshot(browser, "task-done");
});

test("a task that needs input asks the person, then completes", async () => {
  await open(browser, "tasks", "user");
  await runAsTask("approve", () => type(browser.$('[data-testid="form-field"][data-path="/change"] [data-testid="string-input"]'), "release 9"));
  const dock = browser.$('[data-testid="ask"][data-kind="form"][data-server="tasks"]');
  await dock.waitForExist({ timeout: 15_000, timeoutMsg: "the task's input request reaches the person" });
  assert.equal(await dock.$('[data-testid="ask-message"]').getText(), "Who approves release 9?");
  await type(dock.$('[data-testid="form-field"][data-path="/name"] [data-testid="string-input"]'), "Grace");
  await dock.$('[data-testid="ask-accept"]').click();
  const text = browser.$('[data-testid="content-text"]');
  await text.waitForExist({ timeout: 15_000 });
  assert.equal(await text.getText(), "release 9 approved by Grace");
  assert.match(await browser.$('[data-testid="task-run"] summary').getText(), /: completed, polled \d+ times?, input sent 1 time$/);
});

test("Cancel on a task cancels it at the server", async () => {
  await open(browser, "tasks", "user");
  await runAsTask("forever");
  const cancel = browser.$('[data-testid="cancel-call"]');
  await cancel.waitForExist({ timeout: 10_000 });
  await eventually(async () => (await browser.$('[data-testid="call-progress"]').isExisting()), "the task is under way");
  await cancel.click();
  const failure = browser.$('[data-testid="call-failure"]');
  await failure.waitForExist({ timeout: 15_000 });
  assert.match(await failure.getText(), /the task was cancelled; the server was told \(tasks\/cancel\)/);
  await browser.$('[data-testid="tool-row"][data-tool="cancelled"]').click();
  await browser.$('[data-testid="run-tool"]').click();
  await eventually(async () => (await browser.$('[data-testid="content-text"]').isExisting()) && (await browser.$('[data-testid="content-text"]').getText()) === "1", "the server counted the cancelled task");
});

test("a resource of a 2026-07-28 server that asks first is read once the person answered", async () => {
  await open(browser, "modern", "user");
  await browser.$('[data-testid="tab-resources"]').click();
  await browser.$('[data-testid="resource-row"][data-uri="modern://vault"]').click();
  const dock = browser.$('[data-testid="ask"][data-kind="form"][data-server="modern"]');
  await dock.waitForExist({ timeout: 15_000, timeoutMsg: "the read's input request reaches the person" });
  assert.equal(await dock.$('[data-testid="ask-message"]').getText(), "Who opens the vault?");
  await type(dock.$('[data-testid="form-field"][data-path="/name"] [data-testid="string-input"]'), "Grace");
  await dock.$('[data-testid="ask-accept"]').click();
  const contents = browser.$('[data-testid="resource-contents"][data-uri="modern://vault"] [data-testid="resource-text"]');
  await contents.waitForExist({ timeout: 15_000 });
  assert.equal(await contents.getText(), "the vault, opened by Grace");
});
