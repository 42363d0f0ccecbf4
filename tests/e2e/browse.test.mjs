// End-to-end: a server's resources and prompts in the window, against server-everything over
// stdio: a resource read, a template filled by its RFC 6570 variables (text and blob), a
// prompt got with its arguments, and completion suggestions narrowed by what is chosen.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, everything, launch, open, sandbox, screenshot, type, waitForState } from "./harness.mjs";

let box;
let session;
let browser;

before(async () => {
  box = sandbox();
  writeFileSync(join(box.home, ".claude.json"), JSON.stringify({ mcpServers: { everything: { command: "node", args: [everything, "stdio"] } } }));
  session = await launch(box);
  browser = session.browser;
  await waitForState(browser, "everything", "user", "connected");
  await open(browser, "everything", "user");
});

after(async () => {
  await session?.close();
});

test("a resource is read, and a template is filled and read, as text and as a blob", async () => {
  await browser.$('[data-testid="tab-resources"]').click();
  await browser.$('[data-testid="resource-row"][data-uri="demo://resource/static/document/architecture.md"]').click();
  const text = browser.$('[data-testid="resource-contents"][data-uri="demo://resource/static/document/architecture.md"] [data-testid="resource-text"]');
  await text.waitForExist({ timeout: 10_000 });
  assert.ok((await text.getText()).length > 100, "the document's text is shown");

  const template = browser.$('[data-testid="resource-template"][data-template="demo://resource/dynamic/text/{resourceId}"]');
  await type(template.$('[data-testid="template-variable"][data-name="resourceId"]'), "3");
  assert.equal(await template.$('[data-testid="template-uri"]').getText(), "demo://resource/dynamic/text/3");
  await template.$('[data-testid="template-read"]').click();
  const dynamic = browser.$('[data-testid="resource-contents"][data-uri="demo://resource/dynamic/text/3"] [data-testid="resource-text"]');
  await dynamic.waitForExist({ timeout: 10_000 });
  assert.match(await dynamic.getText(), /3/);

  const blob = browser.$('[data-testid="resource-template"][data-template="demo://resource/dynamic/blob/{resourceId}"]');
  await type(blob.$('[data-testid="template-variable"][data-name="resourceId"]'), "2");
  await blob.$('[data-testid="template-read"]').click();
  const binary = browser.$('[data-testid="resource-contents"][data-uri="demo://resource/dynamic/blob/2"] [data-testid="resource-blob"]');
  await binary.waitForExist({ timeout: 10_000 });
  assert.match(await binary.getText(), /^Binary content \(.+\), [\d,]+ bytes\.$/);
  await screenshot(browser, "resources");
});

test("a prompt waits for its required argument, then its messages are shown", async () => {
  await browser.$('[data-testid="tab-prompts"]').click();
  await browser.$('[data-testid="prompt-row"][data-prompt="args-prompt"]').click();
  const get = browser.$('[data-testid="get-prompt"]');
  assert.equal(await get.isEnabled(), false, "city is required");
  await type(browser.$('[data-testid="prompt-argument"][data-name="city"]'), "Berlin");
  await get.click();
  const message = browser.$('[data-testid="prompt-message"][data-role="user"]');
  await message.waitForExist({ timeout: 10_000 });
  assert.match(await message.getText(), /Berlin/);
});

test("completion suggestions come as an argument is typed, narrowed by the others", async () => {
  await browser.$('[data-testid="prompt-row"][data-prompt="completable-prompt"]').click();
  await browser.$('[data-testid="prompt-argument"][data-name="department"]').click();
  const departments = browser.$('[data-testid="prompt-suggestions"][data-name="department"]');
  await departments.waitForExist({ timeout: 10_000, timeoutMsg: "the server suggests departments" });
  const first = await departments.$('[data-testid="prompt-suggestion"]');
  const department = await first.getText();
  await first.click();
  assert.equal(await browser.$('[data-testid="prompt-argument"][data-name="department"]').getValue(), department);
  await browser.$('[data-testid="prompt-argument"][data-name="name"]').click();
  const names = browser.$('[data-testid="prompt-suggestions"][data-name="name"]');
  await names.waitForExist({ timeout: 10_000, timeoutMsg: "the server suggests names for that department" });
  const name = await names.$('[data-testid="prompt-suggestion"]').getText();
  await names.$('[data-testid="prompt-suggestion"]').click();
  await browser.$('[data-testid="get-prompt"]').click();
  await eventually(async () => {
    const texts = await browser.$$('[data-testid="prompt-message"]').map((m) => m.getText());
    return texts.some((t) => t.includes(name) && t.includes(department));
  }, "the messages name the chosen department and lead");
  await screenshot(browser, "prompts");
});
