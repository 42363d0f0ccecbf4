// End-to-end: what a server asks of the person, and what the person sets for the sessions,
// in the real window against server-everything over stdio: an elicitation answered through the
// form (the tools' own form engine), a URL elicitation opened in the browser only on a click,
// sampling answered by hand and refused with a reason, the roots edited and heard by the server
// (`get-roots-list`), and the logging level set with the notifications that follow.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, everything, launch, open, root, sandbox, screenshot, type, waitForState } from "./harness.mjs";

let box;
let session;
let browser;

before(async () => {
  box = sandbox();
  writeFileSync(join(box.home, ".claude.json"), JSON.stringify({ mcpServers: { everything: { command: "node", args: [everything, "stdio"] } } }));
  // The person at the browser reads the page and walks away: the log says what was opened.
  writeFileSync(join(box.dir, "away"), "");
  session = await launch(box, {
    BROWSER: join(root, "tests/fixtures/browser/complete-login.mjs"),
    BROWSER_LOG: join(box.dir, "browser.log"),
    BROWSER_AWAY: join(box.dir, "away"),
  });
  browser = session.browser;
  await waitForState(browser, "everything", "user", "connected");
  await open(browser, "everything", "user");
  await browser.$('[data-testid="tab-tools"]').click();
});

after(async () => {
  await session?.close();
});

function browserLog() {
  return existsSync(join(box.dir, "browser.log")) ? readFileSync(join(box.dir, "browser.log"), "utf8") : "";
}

const field = (scope, path) => scope.$(`[data-testid="form-field"][data-path="${path}"]`);

async function runTool(tool) {
  await type(browser.$('[data-testid="tool-search"]'), tool);
  await browser.$(`[data-testid="tool-row"][data-tool="${tool}"]`).click();
  await browser.$(`[data-testid="tool-runner"][data-tool="${tool}"]`).waitForExist({ timeout: 5_000 });
}

async function resultText() {
  const view = browser.$('[data-testid="content-text-view"]');
  await view.waitForExist({ timeout: 20_000, timeoutMsg: "no result came" });
  if ((await view.getAttribute("data-mode")) !== "plain") await view.$('[data-testid="view-plain"]').click();
  return (await browser.$$('[data-testid="content-text"]').map((e) => e.getProperty("textContent"))).join("\n");
}

async function ask(kind) {
  const dock = browser.$(`[data-testid="ask"][data-kind="${kind}"]`);
  await dock.waitForExist({ timeout: 15_000, timeoutMsg: `the server's ${kind} request was not shown` });
  assert.equal(await dock.getAttribute("data-server"), "everything");
  return dock;
}

test("an elicitation is answered through the form, checked before it is sent", async () => {
  await runTool("trigger-elicitation-request");
  await browser.$('[data-testid="run-tool"]').click();
  const dock = await ask("form");
  assert.equal(await dock.$('[data-testid="ask-message"]').getText(), "Please provide inputs for the following fields:");
  // A field left out is sent with its default (SEP-1034), and says so; the required name is
  // not left out.
  assert.match(await field(dock, "/integer").$('[data-testid="omitted"]').getText(), /42/);
  await dock.$('[data-testid="ask-accept"]').click();
  const problem = dock.$('[data-testid="field-problem"][data-path="/name"]');
  await problem.waitForExist({ timeout: 5_000, timeoutMsg: "name is required, and said so at the field" });
  await type(field(dock, "/name").$('[data-testid="string-input"]'), "Ada Lovelace");
  await field(dock, "/titledSingleSelectEnum").$('[data-testid="toggle-omitted"]').click();
  await field(dock, "/titledSingleSelectEnum").$('[data-testid="choice-input"]').selectByVisibleText("Wonder Woman");
  await screenshot(browser, "ask-form");
  await dock.$('[data-testid="ask-accept"]').click();
  await dock.waitForExist({ reverse: true, timeout: 10_000, timeoutMsg: "the answered request leaves" });
  const said = await resultText();
  assert.match(said, /Ada Lovelace/);
  assert.match(said, /hero-3/);
});

test("sampling is shown in full, answered by hand, and refused with a reason the server hears", async () => {
  await runTool("trigger-sampling-request");
  await type(field(browser, "/prompt").$('[data-testid="string-input"]'), "What is the capital of France?");
  await browser.$('[data-testid="run-tool"]').click();
  let dock = await ask("sampling");
  const message = dock.$('[data-testid="sampling-message"][data-role="user"]');
  assert.match(await message.getText(), /What is the capital of France\?/);
  await dock.$('[data-testid="sampling-parameters"] summary').click();
  assert.match(await dock.$('[data-testid="sampling-parameters"]').getText(), /maxTokens/);
  assert.equal(await dock.$('[data-testid="sampling-send"]').isEnabled(), false, "nothing to send yet");
  await type(dock.$('[data-testid="sampling-reply"]'), "Paris, says a person.");
  await screenshot(browser, "ask-sampling");
  await dock.$('[data-testid="sampling-send"]').click();
  await dock.waitForExist({ reverse: true, timeout: 10_000 });
  assert.match(await resultText(), /Paris, says a person\./);

  await browser.$('[data-testid="run-tool"]').click();
  dock = await ask("sampling");
  await type(dock.$('[data-testid="sampling-reason"]'), "Not today, thank you.");
  await dock.$('[data-testid="sampling-reject"]').click();
  await dock.waitForExist({ reverse: true, timeout: 10_000 });
  const failure = browser.$('[data-testid="call-failure"], [data-testid="content-text-view"]');
  await failure.waitForExist({ timeout: 15_000 });
  const shown = await browser.$('[data-testid="tool-runner"]').getText();
  assert.match(shown, /Not today, thank you\./, "the server was told why");
});

test("a URL elicitation shows where it leads and opens the browser only on a click", async () => {
  await runTool("trigger-url-elicitation");
  await type(field(browser, "/url").$('[data-testid="string-input"]'), "https://auth.example.com/connect?step=1");
  await browser.$('[data-testid="run-tool"]').click();
  const dock = await ask("url");
  assert.equal(await dock.$('[data-testid="ask-url"]').getText(), "https://auth.example.com/connect?step=1");
  assert.equal(await dock.$('[data-testid="ask-host"]').getText(), "auth.example.com");
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(browserLog(), "", "nothing is opened before the person says so");
  await dock.$('[data-testid="ask-open"]').click();
  await eventually(() => browserLog().includes("opened /connect"), "the browser was handed the page");
  await dock.waitForExist({ reverse: true, timeout: 10_000 });
  const said = await resultText();
  assert.doesNotMatch(said, /declin|cancel/i, said);
});

test("the roots are edited in the window and the server hears of them", async () => {
  const extra = join(box.dir, "shared data");
  mkdirSync(extra);
  await browser.$('[data-testid="open-roots"]').click();
  const roots = browser.$('[data-testid="roots"]');
  await roots.waitForExist({ timeout: 5_000 });
  await eventually(async () => (await roots.$$('[data-testid="root"]').map((r) => r.getAttribute("data-folder"))).join() === box.project, "the project folder is the root at first");
  await type(roots.$('[data-testid="new-root"]'), "relative/folder");
  await roots.$('[data-testid="add-root"]').click();
  await roots.$('[data-testid="apply-roots"]').click();
  const refused = roots.$('[data-testid="roots-refused"]');
  await refused.waitForExist({ timeout: 5_000 });
  assert.match(await refused.getText(), /not an absolute path/);
  await roots.$('[data-testid="root"][data-folder="relative/folder"] [data-testid="remove-root"]').click();
  await type(roots.$('[data-testid="new-root"]'), extra);
  await roots.$('[data-testid="add-root"]').click();
  await roots.$(`[data-testid="root"][data-folder="${box.project}"] [data-testid="remove-root"]`).click();
  await roots.$('[data-testid="apply-roots"]').click();
  await roots.$('[data-testid="roots-told"]').waitForExist({ timeout: 5_000 });
  await screenshot(browser, "roots");
  await roots.$('[data-testid="close-roots"]').click();

  await open(browser, "everything", "user");
  await browser.$('[data-testid="tab-tools"]').click();
  await runTool("get-roots-list");
  await eventually(async () => {
    await browser.$('[data-testid="run-tool"]').click();
    const said = await resultText();
    return said.includes("shared%20data") && !said.includes(`${box.project}\n`) ? said : false;
  }, "get-roots-list shows the new root only");
});

test("the logging level is set per server, and the notifications that follow are shown by level", async () => {
  await runTool("toggle-simulated-logging");
  await browser.$('[data-testid="run-tool"]').click();
  await resultText();
  await browser.$('[data-testid="tab-notifications"]').click();
  const pane = browser.$('[data-testid="notifications"]');
  await pane.waitForExist({ timeout: 5_000 });
  await eventually(async () => (await pane.$$('[data-testid="notification"][data-method="notifications/message"]').length) > 0, "a log message arrives (one every 5 s)", 30_000);
  await pane.$('[data-testid="log-level"]').selectByAttribute("value", "error");
  // Whatever the server sent before it heard of the level has come within a second.
  await new Promise((r) => setTimeout(r, 1_000));
  assert.equal(await pane.$('[data-testid="log-level-refused"]').isExisting(), false);
  const seqs = await pane.$$('[data-testid="notification"]').map((n) => n.getAttribute("data-seq"));
  const last = Math.max(0, ...seqs.map(Number));
  const severe = new Set(["error", "critical", "alert", "emergency"]);
  // Each message's level is drawn at random, half of them error or worse: wait for two.
  const after_ = await eventually(async () => {
    const fresh = [];
    for (const n of await pane.$$('[data-testid="notification"][data-method="notifications/message"]')) {
      if (Number(await n.getAttribute("data-seq")) > last) fresh.push(await n.getAttribute("data-level"));
    }
    return fresh.length >= 2 ? fresh : false;
  }, "log messages at the new level arrive", 90_000);
  assert.ok(after_.every((level) => severe.has(level)), `only error and worse after the change: ${after_}`);
  await pane.$('[data-testid="only-logs"]').click();
  assert.ok((await pane.$$('[data-testid="notification"]').map((n) => n.getAttribute("data-method"))).every((m) => m === "notifications/message"));
  await screenshot(browser, "notifications");
});
