// End-to-end: MCP Apps in the real window (issue #24). Real App servers from npm
// (@modelcontextprotocol/server-basic-vanillajs and server-debug, 2.0.3, over stdio) and
// tests/fixtures/servers/app-probe-server.mjs (the SDK 2.4, both eras and 2026-07-28 only), whose
// App lets the test run script inside the frame as any App could: what it reaches, what it is
// refused, and what the servers saw.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, launch, open, root, sandbox, screenshot, type, waitForState } from "./harness.mjs";

const modules = join(root, "tests/reference/node_modules/@modelcontextprotocol");
const probe = join(root, "tests/fixtures/servers/app-probe-server.mjs");
let box;
let session;
let browser;
let declared;
let undeclared;
const probeLog = () => join(box.dir, "probe-calls.log");
const probeCalls = () => (existsSync(probeLog()) ? readFileSync(probeLog(), "utf8").split("\n").filter(Boolean) : []);

/** A loopback HTTP origin answering "reached PORT" to anyone (CORS open). */
function origin() {
  return new Promise((resolve) => {
    const server = createServer((_req, res) => {
      res.setHeader("access-control-allow-origin", "*");
      res.end(`reached ${server.address().port}`);
    });
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

before(async () => {
  box = sandbox();
  declared = await origin();
  undeclared = await origin();
  const env = { APP_PROBE_LOG: probeLog(), APP_PROBE_CONNECT: `http://127.0.0.1:${declared.address().port}` };
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      mcpServers: {
        basic: { command: "node", args: [join(modules, "server-basic-vanillajs/dist/index.js"), "--stdio"] },
        debug: { command: "node", args: [join(modules, "server-debug/dist/index.js"), "--stdio"] },
        probe: { command: "node", args: [probe], env },
        modern: { command: "node", args: [probe, "--modern"], env },
      },
    }),
  );
  const away = join(box.dir, "away");
  writeFileSync(away, "");
  session = await launch(box, { BROWSER: join(root, "tests/fixtures/browser/complete-login.mjs"), BROWSER_LOG: join(box.dir, "browser.log"), BROWSER_AWAY: away });
  browser = session.browser;
});

after(async () => {
  await session?.close();
  declared?.close();
  undeclared?.close();
});

async function openTool(server, tool) {
  await waitForState(browser, server, "user", "connected");
  await open(browser, server, "user");
  await browser.$('[data-testid="tab-tools"]').click();
  await type(browser.$('[data-testid="tool-search"]'), "");
  await browser.$(`[data-testid="tool-row"][data-tool="${tool}"]`).click();
  const runner = browser.$(`[data-testid="tool-runner"][data-tool="${tool}"]`);
  await runner.waitForExist({ timeout: 5_000 });
  return runner;
}

/** Runs the open tool, allows its server's Apps when asked, and waits for the frame. */
async function runApp(server, { allow = true } = {}) {
  await browser.$('[data-testid="run-tool"]').click();
  const view = browser.$(`[data-testid="app-view"][data-server="${server}"]`);
  await view.waitForExist({ timeout: 15_000 });
  if (allow) {
    const consent = browser.$('[data-testid="app-consent"]');
    if (await consent.isExisting().catch(() => false)) await browser.$('[data-testid="app-allow"]').click();
    else await browser.waitUntil(async () => (await browser.$('[data-testid="app-consent"]').isExisting()) || (await browser.$('[data-testid="app-frame"]').isExisting()), { timeout: 15_000 });
    if (await browser.$('[data-testid="app-consent"]').isExisting()) await browser.$('[data-testid="app-allow"]').click();
    await browser.$('[data-testid="app-frame"]').waitForExist({ timeout: 15_000 });
  }
  return view;
}

/** Runs `fn` inside the App's document (the frame in the relay frame), then comes back. */
async function insideApp(fn, ...args) {
  await browser.switchToFrame(await browser.$('[data-testid="app-frame"]'));
  try {
    const inner = await browser.$("iframe");
    await inner.waitForExist({ timeout: 10_000 });
    await browser.switchToFrame(inner);
    return await browser.executeAsync(fn, ...args);
  } finally {
    await browser.switchToFrame(null);
  }
}

test("the probe's App: consent first, then its own origin, not the window's, and no IPC", async () => {
  await openTool("probe", "probe");
  await browser.$('[data-testid="run-tool"]').click();
  const consent = browser.$('[data-testid="app-consent"]');
  await consent.waitForExist({ timeout: 15_000 });
  const text = await consent.getText();
  assert.match(text, /http:\/\/127\.0\.0\.1:\d+/, "the declared origin is listed");
  await screenshot(browser, "app-consent");
  await browser.$('[data-testid="app-allow"]').click();
  await browser.$('[data-testid="app-frame"]').waitForExist({ timeout: 15_000 });
  const facts = await insideApp(async (done) => {
    const wait = (ms) => new Promise((r) => setTimeout(r, ms));
    for (let i = 0; i < 100 && document.getElementById("input")?.textContent === "(none yet)"; i++) await wait(100);
    let top = "readable";
    try {
      top = String(window.top.location.href);
    } catch (error) {
      top = `threw ${error.name}`;
    }
    done({
      origin: location.origin,
      input: document.getElementById("input")?.textContent,
      result: document.getElementById("result")?.textContent,
      parentIsTop: window.parent === window.top,
      top,
      tauri: typeof window.__TAURI_INTERNALS__,
      tauriParent: (() => {
        try {
          return typeof window.parent.__TAURI_INTERNALS__;
        } catch (error) {
          return `threw ${error.name}`;
        }
      })(),
    });
  });
  console.log(facts);
  assert.match(facts.origin, /^mcpapp:\/\/[0-9a-f]{16}$/);
  assert.equal(facts.parentIsTop, false);
  assert.match(facts.top, /^threw/);
  assert.equal(facts.tauri, "undefined");
  assert.equal(facts.tauriParent, "undefined");
  assert.equal(facts.input, "{}");
  assert.equal(facts.result, "probed");
  await screenshot(browser, "app-probe");
});
