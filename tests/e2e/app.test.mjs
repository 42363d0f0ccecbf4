// End-to-end: the configuration a project has, as the real window lists it (the fixture
// project and home of tests/fixtures), and changes on disk reaching it without a reload.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { captureWindow, launch, lightness, root, sandbox } from "./harness.mjs";

// Every run keeps its screenshot under artifacts/; UPDATE_SCREENSHOT=1 also refreshes the
// README's copy in docs/.
const screenshotPath = join(root, "tests", "e2e", "artifacts", "window.png");
const readmeScreenshot = join(root, "docs", "screenshot.png");

let session;
let browser;

before(async () => {
  const box = sandbox();
  cpSync(join(root, "tests/fixtures/project"), box.project, { recursive: true });
  const template = readFileSync(join(root, "tests/fixtures/home/claude.json.template"), "utf8");
  writeFileSync(join(box.home, ".claude.json"), template.replace("@PROJECT@", box.project));
  session = await launch(box);
  browser = session.browser;
  browser.projectDir = box.project;
});

after(async () => {
  await session?.close();
});

async function serverRows() {
  await browser.$('[data-testid="server-row"]').waitForExist({ timeout: 20_000 });
  const rows = await browser.$$('[data-testid="server-row"]');
  const out = [];
  for (const row of rows) {
    out.push([
      await row.getAttribute("data-server-name"),
      await row.getAttribute("data-scope"),
      await row.getAttribute("data-transport"),
    ]);
  }
  return out;
}

test("the window is titled MCP Manager and shows the opened project", async () => {
  assert.equal(await browser.getTitle(), "MCP Manager");
  const projectDir = await browser.$('[data-testid="project-dir"]');
  await projectDir.waitForExist({ timeout: 20_000 });
  assert.equal(await projectDir.getProperty("textContent"), browser.projectDir, "the app must open the project given by --project");
});

test("every fixture server is listed with its scope and transport, local first", async () => {
  assert.deepEqual(await serverRows(), [
    ["shared-name", "local", "http"],
    ["everything", "project", "stdio"],
    ["docs-http", "project", "http"],
    ["shared-name", "project", "stdio"],
    ["legacy-sse", "user", "sse"],
  ]);
  const shadowed = await browser.$$('[data-testid="shadowed"]');
  assert.equal(shadowed.length, 1, "the project entry of shared-name is shadowed by the local one");
});

test("a bad entry is reported on its own and no secret reaches the window", async () => {
  const problems = await browser.$$('[data-testid="config-problem"]');
  assert.equal(problems.length, 1);
  const text = await problems[0].getText();
  assert.match(text, /broken-remote/);
  assert.match(text, /no `type`/);
  const body = await browser.$("body").getText();
  assert.ok(!body.includes("fixture-secret-never-shown"), "env values must never be shown");
});

test("with the default (light) system theme the window is light", async () => {
  const background = await browser.execute(() => getComputedStyle(document.querySelector("#root > div")).backgroundColor);
  assert.ok(lightness(background) > 0.9, `a light background: ${background}`);
});

test("screenshot of the real window for the README", async () => {
  mkdirSync(dirname(screenshotPath), { recursive: true });
  await new Promise((r) => setTimeout(r, 300));
  captureWindow(screenshotPath);
  assert.ok(readFileSync(screenshotPath).length > 10_000, "the screenshot has content");
  if (process.env.UPDATE_SCREENSHOT) cpSync(screenshotPath, readmeScreenshot);
});

test("a server added on disk appears without a reload (config-changed event)", async () => {
  const file = join(browser.projectDir, ".mcp.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  config.mcpServers["added-later"] = { type: "sse", url: "http://127.0.0.1:3005/sse" };
  writeFileSync(file, JSON.stringify(config, null, 2));
  const row = await browser.$('[data-server-name="added-later"]');
  await row.waitForExist({ timeout: 10_000, timeoutMsg: "the new server never appeared" });
  assert.equal(await row.getAttribute("data-scope"), "project");
  assert.equal(await row.getAttribute("data-will-start"), "false", "an unapproved project server does not start");
});
