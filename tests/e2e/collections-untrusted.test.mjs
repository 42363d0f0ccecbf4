// End-to-end: keeping a call as a case in a folder not trusted yet. The form says so at once,
// before anything is saved: kept privately the case is saved now; kept with the project it is
// written, and runs, only after the folder is trusted, and nothing is written into the folder.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { everything, launch, open, sandbox, screenshot, type, waitForState } from "./harness.mjs";

let box;
let session;
let browser;

before(async () => {
  box = sandbox();
  // The person's own server, in a folder they have not trusted.
  writeFileSync(join(box.home, ".claude.json"), JSON.stringify({ mcpServers: { everything: { command: "node", args: [everything, "stdio"] } } }));
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

test("saving a call into a collection of a folder not yet trusted says at once that it runs only after trust", async () => {
  await waitForState(browser, "everything", "user", "connected");
  await open(browser, "everything", "user");
  await browser.$('[data-testid="tab-tools"]').click();
  await browser.$('[data-testid="tool-row"][data-tool="get-sum"]').click();
  const runner = browser.$('[data-testid="tool-runner"][data-tool="get-sum"]');
  await runner.waitForExist({ timeout: 5_000 });
  await type(runner.$('[data-testid="form-field"][data-path="/a"]').$("input"), "2");
  await type(runner.$('[data-testid="form-field"][data-path="/b"]').$("input"), "3");
  await runner.$('[data-testid="run-tool"]').click();
  await runner.$('[data-testid="content-text-view"]').waitForExist({ timeout: 15_000 });

  await runner.$('[data-testid="add-to-collection"]').click();
  const form = runner.$('[data-testid="add-to-collection-form"]');
  const note = form.$('[data-testid="collection-untrusted"]');
  await note.waitForExist({ timeout: 5_000, timeoutMsg: "said at once, before saving" });
  assert.equal(await form.$('[data-testid="collection-where"]').getValue(), "private", "kept privately unless asked");

  // Asked to keep it with the project: the form says it waits for trust, and saving writes nothing.
  await form.$('[data-testid="collection-where"]').selectByAttribute("value", "shared");
  await browser.waitUntil(async () => /runs, only after you trust it/.test(await note.getText()), { timeout: 5_000 });
  await note.scrollIntoView();
  await screenshot(browser, "collection-untrusted");
  await type(form.$('[data-testid="collection-name"]'), "smoke");
  await form.$('[data-testid="save-to-collection"]').click();
  const problem = form.$('[data-testid="add-to-collection-problem"]');
  await problem.waitForExist({ timeout: 5_000 });
  assert.match(await problem.getText(), /have not trusted/);
  assert.equal(existsSync(join(box.project, ".mcp-collections")), false, "nothing written into the folder");

  // Kept privately: saved now.
  await form.$('[data-testid="collection-where"]').selectByAttribute("value", "private");
  await form.$('[data-testid="save-to-collection"]').click();
  await runner.$('[data-testid="added-to-collection"]').waitForExist({ timeout: 5_000 });
  assert.equal(existsSync(join(box.project, ".mcp-collections")), false);
});
