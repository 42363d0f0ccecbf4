// End-to-end: a server's resources and prompts in the window, against server-everything over
// stdio: a resource read (Markdown rendered, or as text), a template filled by its RFC 6570
// variables (text and blob), a blob saved to a file and opened, a resource followed while a
// tool changes it, a prompt got with its arguments, and completion suggestions narrowed by
// what is chosen.
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
  // The person's default application for text files: one that says what it was handed.
  const applications = join(box.home, ".local/share/applications");
  mkdirSync(applications, { recursive: true });
  writeFileSync(
    join(applications, "e2e-viewer.desktop"),
    `[Desktop Entry]\nType=Application\nName=E2E viewer\nExec=${join(root, "tests/fixtures/browser/complete-login.mjs")} %f\nMimeType=text/plain;\n`,
  );
  mkdirSync(join(box.home, ".config"), { recursive: true });
  writeFileSync(join(box.home, ".config/mimeapps.list"), "[Default Applications]\ntext/plain=e2e-viewer.desktop\n");
  session = await launch(box, { BROWSER: join(root, "tests/fixtures/browser/complete-login.mjs"), BROWSER_LOG: join(box.dir, "browser.log") });
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
  const document = browser.$('[data-testid="resource-contents"][data-uri="demo://resource/static/document/architecture.md"]');
  const markdown = document.$('[data-testid="markdown"]');
  await markdown.waitForExist({ timeout: 10_000, timeoutMsg: "text/markdown is rendered" });
  assert.ok(await markdown.$("h1, h2").isExisting(), "its headings are headings");
  await document.$('[data-testid="view-plain"]').click();
  const text = document.$('[data-testid="resource-text"]');
  assert.match(await text.getText(), /^#/, "and the text as written, on a click");

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

  // The blob, saved as its bytes in the results folder, and opened from there.
  const contents = browser.$('[data-testid="resource-contents"][data-uri="demo://resource/dynamic/blob/2"]');
  await contents.$('[data-testid="save-resource"]').click();
  const saved = contents.$('[data-testid="saved-resource-path"]');
  await saved.waitForExist({ timeout: 5_000 });
  const path = await saved.getText();
  assert.ok(path.startsWith(join(box.home, ".local/share/dev.mcp-manager.app/results/everything__2__")), path);
  // server-everything's blob is base64 of a sentence: the file holds the sentence.
  assert.match(readFileSync(path, "utf8"), /^Resource 2: This is a base64 blob created at /);
  await contents.$('[data-testid="open-saved-resource"]').click();
  const log = join(box.dir, "browser.log");
  await eventually(() => existsSync(log) && readFileSync(log, "utf8").includes(path.split("/").pop()), "xdg-open was handed the file");
});

test("a followed resource is read again when the server says it changed, while the person is elsewhere", async () => {
  const uri = "demo://resource/dynamic/text/1";
  await browser.$('[data-testid="tab-resources"]').click();
  const template = browser.$('[data-testid="resource-template"][data-template="demo://resource/dynamic/text/{resourceId}"]');
  await type(template.$('[data-testid="template-variable"][data-name="resourceId"]'), "1");
  await template.$('[data-testid="template-read"]').click();
  const contents = browser.$(`[data-testid="resource-contents"][data-uri="${uri}"]`);
  await contents.$('[data-testid="follow-resource"]').click();
  await contents.$('[data-testid="unfollow-resource"]').waitForExist({ timeout: 10_000, timeoutMsg: "the subscription is made" });
  const firstRead = await contents.$('[data-testid="resource-text"]').getText();

  // Elsewhere: the tool that makes server-everything send updates (now, then every 5 s).
  await browser.$('[data-testid="tab-tools"]').click();
  await browser.$('[data-testid="tool-row"][data-tool="toggle-subscriber-updates"]').click();
  await browser.$('[data-testid="run-tool"]').click();
  await browser.$('[data-testid="content-text-view"]').waitForExist({ timeout: 10_000 });

  await browser.$('[data-testid="tab-resources"]').click();
  await type(template.$('[data-testid="template-variable"][data-name="resourceId"]'), "1");
  await template.$('[data-testid="template-read"]').click();
  const updates = contents.$('[data-testid="resource-updates"]');
  await eventually(async () => Number(await updates.getAttribute("data-count")) >= 2, "updates are counted while followed", 20_000);
  assert.match(await updates.getText(), /^Changed \d+ times?, last at .+; read again\.$/);
  // The dynamic text says when it was made: a read after an update is a new read.
  await eventually(async () => (await contents.$('[data-testid="resource-text"]').getText()) !== firstRead, "the resource was read again");
  await contents.scrollIntoView();
  await screenshot(browser, "resource-followed");

  await contents.$('[data-testid="unfollow-resource"]').click();
  await contents.$('[data-testid="follow-resource"]').waitForExist({ timeout: 5_000 });
  await browser.$('[data-testid="tab-protocol"]').click();
  await type(browser.$('[data-testid="protocol-filter"]'), "resources/unsubscribe");
  await eventually(async () => (await browser.$$('[data-testid="protocol-message"]').length) >= 2, "resources/unsubscribe was sent and answered");
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
