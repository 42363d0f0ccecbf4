// End-to-end: the real `mcp-manager` binary in its real window (WebKitGTK under Xvfb), driven
// through tauri-driver and Debian's WebKitWebDriver. The app gets its own HOME, XDG folders and
// a fixture project, so it never reads the machine's real configuration.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { remote } from "webdriverio";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const targetDir = process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, "target");
const application = join(targetDir, "debug", "mcp-manager");
const driverPort = Number(process.env.TAURI_DRIVER_PORT ?? 4444);
// Every run keeps its screenshot under artifacts/; UPDATE_SCREENSHOT=1 also refreshes the
// README's copy in docs/.
const screenshotPath = join(root, "tests", "e2e", "artifacts", "window.png");
const readmeScreenshot = join(root, "docs", "screenshot.png");

let sandbox;
let runtimeDir;
let driver;
let browser;
let driverLog = "";

function waitForPort(port, deadlineMs) {
  const start = Date.now();
  return new Promise((resolvePort, reject) => {
    const attempt = () => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.end();
        resolvePort();
      });
      socket.on("error", () => {
        if (Date.now() - start > deadlineMs) reject(new Error(`tauri-driver did not listen on ${port}:\n${driverLog}`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

before(async () => {
  assert.ok(existsSync(application), `${application} must be built first (scripts/test builds it)`);
  sandbox = realpathSync(mkdtempSync(join(tmpdir(), "mcp-manager-e2e-")));
  const home = join(sandbox, "home");
  const project = join(sandbox, "project");
  mkdirSync(home, { recursive: true });
  cpSync(join(root, "tests/fixtures/project"), project, { recursive: true });
  const template = readFileSync(join(root, "tests/fixtures/home/claude.json.template"), "utf8");
  writeFileSync(join(home, ".claude.json"), template.replace("@PROJECT@", project));

  // WebKit's helpers (xdg-document-portal) mount a FUSE file system under XDG_RUNTIME_DIR (or
  // the cache folder without one); keep it out of the folder we delete afterwards.
  runtimeDir = mkdtempSync(join(tmpdir(), "mcp-manager-e2e-run-"));
  const env = {
    ...process.env,
    XDG_RUNTIME_DIR: runtimeDir,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local/state"),
  };
  delete env.CLAUDE_CONFIG_DIR;
  // A private session bus, so that whatever WebKit activates on it (portals, a11y, the
  // keychain) runs with the sandbox's HOME and ends with the test. `detached` puts it all in
  // one process group, which `after` ends as a whole.
  driver = spawn(
    "dbus-run-session",
    ["--", "tauri-driver", "--port", String(driverPort), "--native-port", String(driverPort + 1)],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  driver.stdout.on("data", (chunk) => (driverLog += chunk));
  driver.stderr.on("data", (chunk) => (driverLog += chunk));
  await waitForPort(driverPort, 15_000);

  browser = await remote({
    hostname: "127.0.0.1",
    port: driverPort,
    logLevel: "warn",
    connectionRetryCount: 0,
    capabilities: {
      // WebKitWebDriver speaks classic WebDriver only; without this webdriverio 9 asks for
      // BiDi (webSocketUrl) and no capabilities match.
      "wdio:enforceWebDriverClassic": true,
      "tauri:options": { application, args: ["--project", project] },
    },
  });
  browser.projectDir = project;
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  if (driver && driver.exitCode === null) {
    const exited = new Promise((done) => driver.once("exit", done));
    process.kill(-driver.pid, "SIGTERM");
    await exited;
  }
  // Clean-up is best effort: a helper that is slow to let go of a folder must not fail a
  // run whose tests passed.
  for (const dir of [sandbox, runtimeDir]) {
    if (!dir) continue;
    spawnSync("fusermount", ["-uz", join(dir, "doc")], { stdio: "ignore" });
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
    } catch (error) {
      console.warn(`could not remove ${dir}: ${error.message}`);
    }
  }
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

test("screenshot of the real window for the README", async () => {
  mkdirSync(dirname(screenshotPath), { recursive: true });
  await browser.saveScreenshot(screenshotPath);
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
