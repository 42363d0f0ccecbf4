// End-to-end: servers found in an MCP registry and installed from the window (issue #25),
// against the registry on loopback (tests/fixtures/registry: 32 real server.json documents).
// Search, a deprecated badge, open a server's page, fill its install form (a secret header kept
// in the OS keychain behind a headersHelper), review the entry in the editor's diff, save, and
// the server connects; time-mcp-pypi from PyPI installed the same way and run by uvx; a
// snippet pasted from a README; the registry gone and the cached listing shown "as of".
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { createServer } from "node:net";
import { join } from "node:path";
import { eventually, everything, launch, root, row, sandbox, screenshot, type, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
let registry;
let keyed;
const key = `k-${process.pid}-window`;

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function start(args) {
  const child = spawn("node", args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve) => {
    createInterface({ input: child.stdout }).once("line", (line) => resolve({ child, line }));
  });
}

/** Every file under `dir` whose bytes hold `needle`. */
function filesHolding(dir, needle) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) found.push(...filesHolding(path, needle));
    else if (stat.size < 50_000_000 && readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

before(async () => {
  box = sandbox();
  const port = await freePort();
  keyed = (await start([join(root, "tests/fixtures/servers/edge-http-server.mjs"), String(port), "--require-header", `X-API-Key=${key}`])).child;
  const doc = join(box.dir, "loopback.json");
  writeFileSync(
    doc,
    JSON.stringify({
      $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
      name: "io.github.mcp-manager/loopback-keyed",
      title: "Loopback keyed",
      description: "A remote on loopback that wants an API key header",
      version: "1.0.0",
      remotes: [{ type: "streamable-http", url: `http://127.0.0.1:${port}/mcp`, headers: [{ name: "X-API-Key", description: "Your key", isRequired: true, isSecret: true }] }],
    }),
  );
  const started = await start([join(root, "tests/fixtures/registry/registry-server.mjs"), "--publish", doc, "--deprecate", "io.github.0xfreak0/sui-mcp=Use sui-mcp-2", "--delete", "io.github.0xsims/rubric-protocol=Removed by its publisher"]);
  registry = started.child;
  const url = `http://127.0.0.1:${started.line.split(" ")[1]}`;
  writeFileSync(join(box.home, ".claude.json"), JSON.stringify({ projects: { [box.project]: { hasTrustDialogAccepted: true } } }));
  const away = join(box.dir, "away");
  writeFileSync(away, "");
  session = await launch(box, {
    MCP_MANAGER_REGISTRY: url,
    // uvx for time-mcp-pypi, which pins mcp==1.13.1: resolved as on the day after its release.
    PATH: `${join(root, "tests/reference/python/current/bin")}:${process.env.PATH}`,
    UV_EXCLUDE_NEWER: "2025-09-13T00:00:00Z",
    UV_PYTHON_DOWNLOADS: "never",
    // The person's browser, which only notes what it was asked to open.
    BROWSER: join(root, "tests/fixtures/browser/complete-login.mjs"),
    BROWSER_LOG: join(box.dir, "browser.log"),
    BROWSER_AWAY: away,
  });
  browser = session.browser;
});

after(async () => {
  await session?.close();
  registry?.kill();
  keyed?.kill();
});

async function openRegistry() {
  await browser.$('[data-testid="add-server"]').click();
  await browser.$('[data-testid="add-from-registry"]').click();
  await browser.$('[data-testid="registry-browser"]').waitForExist({ timeout: 5_000 });
}

/** Saves once the check has answered (the button waits for it). */
async function save(editor) {
  const button = editor.$('[data-testid="draft-save"]');
  await button.waitForEnabled({ timeout: 10_000 });
  await button.click();
}

const result = (name) => browser.$(`[data-testid="registry-result"][data-name="${name}"]`);

test("search, a deprecated badge, a secret header to the keychain, the diff, and it connects", async () => {
  await openRegistry();
  // The first page lists servers, with "more" for the next (the registry's cursor).
  await result("ai.example4/xmp4").waitForExist({ timeout: 15_000 });
  assert.ok(await browser.$('[data-testid="registry-more"]').isExisting(), "a second page");
  await type(browser.$('[data-testid="registry-search"]'), "sui");
  await eventually(async () => (await browser.$$('[data-testid="registry-result"]').length) === 1, "one result for sui");
  assert.match(await result("io.github.0xfreak0/sui-mcp").$('[data-testid="registry-status"]').getText(), /deprecated: Use sui-mcp-2/);
  await screenshot(browser, "registry-browser");
  await type(browser.$('[data-testid="registry-search"]'), "airtable");
  await result("io.github.domdomegg/airtable-mcp-server").waitForExist({ timeout: 10_000 });
  await result("io.github.domdomegg/airtable-mcp-server").$("button=Repository").click();
  await eventually(
    () => existsSync(join(box.dir, "browser.log")) && readFileSync(join(box.dir, "browser.log"), "utf8").includes("opened /domdomegg/airtable-mcp-server.git"),
    "the repository opened in the browser",
  );
  await type(browser.$('[data-testid="registry-search"]'), "rubric");
  await result("io.github.0xsims/rubric-protocol").waitForExist({ timeout: 10_000 });
  assert.match(await result("io.github.0xsims/rubric-protocol").$('[data-testid="registry-status"]').getText(), /deleted: Removed by its publisher/);

  await type(browser.$('[data-testid="registry-search"]'), "loopback");
  await result("io.github.mcp-manager/loopback-keyed").waitForExist({ timeout: 10_000 });
  await result("io.github.mcp-manager/loopback-keyed").$('[data-testid="registry-open"]').click();
  const page = browser.$('[data-testid="registry-server"]');
  await page.waitForExist({ timeout: 5_000 });
  assert.match(await page.$('[data-testid="registry-ways"]').getText(), /header X-API-Key: Your key required · secret/);
  await page.$('[aria-label="Scope"], #registry-scope').selectByAttribute("value", "user");
  await page.$('//label[contains(., "In the OS keychain")]/input').click();
  const secret = page.$('[data-testid="form-field"][data-path="/X-API-Key"] input');
  assert.equal(await secret.getAttribute("type"), "password");
  await type(secret, key);
  await screenshot(browser, "registry-install-form");
  await page.$('[data-testid="registry-review"]').click();

  // The editor, filled, with what it runs and where the key goes, and the diff.
  const editor = browser.$('[data-testid="server-editor"]');
  await editor.waitForExist({ timeout: 5_000 });
  assert.match(await editor.$('[data-testid="draft-told"]').getText(), /X-API-Key will be kept in your OS keychain/);
  assert.equal(await editor.$('[data-testid="draft-name"]').getValue(), "loopback-keyed");
  assert.match(await editor.$('[data-testid="draft-headers-helper"]').getValue(), /mcpctl secret-header loopback-keyed$/);
  await eventually(async () => /headersHelper/.test(await editor.getText()), "the diff shows the entry");
  assert.doesNotMatch(await editor.getText(), new RegExp(key));
  await save(editor);
  await waitForState(browser, "loopback-keyed", "user", "connected", 30_000);
  const written = JSON.parse(readFileSync(join(box.home, ".claude.json"), "utf8"));
  assert.deepEqual(Object.keys(written.mcpServers["loopback-keyed"]), ["type", "url", "headersHelper"]);
  assert.deepEqual(filesHolding(box.dir, key), [], "the key is in no file");
});

test("time-mcp-pypi from PyPI installs as uvx time-mcp-pypi==1.0.6 and runs", async () => {
  await openRegistry();
  await type(browser.$('[data-testid="registry-search"]'), "time-mcp-pypi");
  await result("io.github.domdomegg/time-mcp-pypi").waitForExist({ timeout: 10_000 });
  await result("io.github.domdomegg/time-mcp-pypi").$('[data-testid="registry-open"]').click();
  const page = browser.$('[data-testid="registry-server"]');
  await page.$('[data-testid="registry-review"]').waitForExist({ timeout: 5_000 });
  assert.match(await page.getText(), /It asks for nothing/);
  await page.$('[data-testid="registry-review"]').click();
  const editor = browser.$('[data-testid="server-editor"]');
  await editor.waitForExist({ timeout: 5_000 });
  assert.match(await editor.$('[data-testid="draft-told"]').getText(), /Runs: uvx time-mcp-pypi==1\.0\.6/);
  await save(editor);
  await waitForState(browser, "time-mcp-pypi", "local", "connected", 90_000);
  const written = JSON.parse(readFileSync(join(box.home, ".claude.json"), "utf8"));
  assert.deepEqual(written.projects[box.project].mcpServers["time-mcp-pypi"], { type: "stdio", command: "uvx", args: ["time-mcp-pypi==1.0.6"], env: {} });
});

test("a claude mcp add line pasted from a README fills the form", async () => {
  await browser.$('[data-testid="add-server"]').click();
  const editor = browser.$('[data-testid="server-editor"]');
  await editor.waitForExist({ timeout: 5_000 });
  await editor.$("summary=Paste from a README").click();
  await type(editor.$('[data-testid="draft-paste"]'), `claude mcp add -s user -e GREETING=hello pasted -- node ${everything} stdio`);
  await editor.$('[data-testid="draft-paste-read"]').click();
  await eventually(async () => (await editor.$('[data-testid="draft-name"]').getValue()) === "pasted", "the name is filled");
  assert.equal(await editor.$('[data-testid="draft-command"]').getValue(), "node");
  assert.equal(await editor.$('[data-testid="draft-scope"]').getValue(), "user");
  await save(editor);
  await waitForState(browser, "pasted", "user", "connected", 30_000);
  const written = JSON.parse(readFileSync(join(box.home, ".claude.json"), "utf8"));
  assert.deepEqual(written.mcpServers.pasted, { type: "stdio", command: "node", args: [everything, "stdio"], env: { GREETING: "hello" } });
});

test("several servers pasted at once are listed and added together", async () => {
  await browser.$('[data-testid="add-server"]').click();
  const editor = browser.$('[data-testid="server-editor"]');
  await editor.waitForExist({ timeout: 5_000 });
  await editor.$("summary=Paste from a README").click();
  await type(
    editor.$('[data-testid="draft-paste"]'),
    JSON.stringify({ mcpServers: { "paste-one": { command: "node", args: [everything, "stdio"] }, "paste-two": { type: "http", url: "http://127.0.0.1:9/mcp" } } }),
  );
  await editor.$('[data-testid="draft-paste-read"]').click();
  const many = editor.$('[data-testid="draft-paste-many"]');
  await many.waitForExist({ timeout: 5_000 });
  // The form's scope (a new server's default: the project's .mcp.json).
  assert.match(await many.getText(), /2 servers \(mcpServers\), added to the project scope/);
  await many.$('[data-testid="draft-paste-add-all"]').click();
  await row(browser, "paste-one", "project").waitForExist({ timeout: 10_000 });
  await row(browser, "paste-two", "project").waitForExist({ timeout: 10_000 });
  const written = JSON.parse(readFileSync(join(box.project, ".mcp.json"), "utf8")).mcpServers;
  assert.deepEqual(written["paste-two"], { type: "http", url: "http://127.0.0.1:9/mcp" });
  assert.deepEqual(written["paste-one"], { type: "stdio", command: "node", args: [everything, "stdio"], env: {} });
});

test("with the registry gone, the listing kept on this computer is shown as of its time", async () => {
  registry.kill();
  await openRegistry();
  const offline = browser.$('[data-testid="registry-offline"]');
  await offline.waitForExist({ timeout: 30_000 });
  assert.match(await offline.getText(), /could not be reached.*as of/s);
  await result("io.github.domdomegg/airtable-mcp-server").waitForExist({ timeout: 5_000 });
  await row(browser, "loopback-keyed", "user").waitForExist();
});
