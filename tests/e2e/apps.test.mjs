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
import { eventually, launch, open, press, root, sandbox, screenshot, type, waitForState } from "./harness.mjs";

const modules = join(root, "tests/reference/node_modules/@modelcontextprotocol");
const probe = join(root, "tests/fixtures/servers/app-probe-server.mjs");
let box;
let session;
let browser;
let declared;
let undeclared;
const probeLog = () => join(box.dir, "probe-calls.log");
const browserLog = () => (existsSync(join(box.dir, "browser.log")) ? readFileSync(join(box.dir, "browser.log"), "utf8") : "");
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

/** Waits for the call's outcome (its result or its failure) to be shown. */
async function called() {
  await browser.waitUntil(
    async () => (await browser.$('[data-testid="result-size"]').isExisting()) || (await browser.$('[data-testid="call-failure"]').isExisting()),
    { timeout: 15_000, timeoutMsg: "the call's outcome is shown" },
  );
}

/** Runs the open tool, allows its server's Apps when asked, and waits for the frame. */
async function runApp(server) {
  await browser.$('[data-testid="run-tool"]').click();
  const view = browser.$(`[data-testid="app-view"][data-server="${server}"]`);
  await view.waitForExist({ timeout: 15_000 });
  const shown = async () => {
    for (const id of ["app-consent", "app-frame", "app-problem"]) if (await view.$(`[data-testid="${id}"]`).isExisting()) return id;
    return null;
  };
  await browser.waitUntil(async () => (await shown()) !== null, { timeout: 15_000, timeoutMsg: `the App of ${server} showed nothing` });
  if ((await shown()) === "app-consent") {
    // The call's outcome is drawn before the App, in the same row: once it is there, the
    // consent stops moving.
    await called();
    await press(view.$('[data-testid="app-allow"]'));
  }
  await view.$('[data-testid="app-frame"]').waitForExist({ timeout: 15_000 }).catch(async (error) => {
    await screenshot(browser, `failed-app-${server}`);
    throw error;
  });
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
  await consent.scrollIntoView();
  const text = await consent.getText();
  assert.match(text, /http:\/\/127\.0\.0\.1:\d+/, "the declared origin is listed");
  await called();
  await screenshot(browser, "app-consent");
  await press(browser.$('[data-testid="app-allow"]'));
  await browser.$('[data-testid="app-frame"]').waitForExist({ timeout: 15_000 }).catch(async (error) => {
    await screenshot(browser, "failed-app-probe");
    throw error;
  });
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
  assert.match(facts.origin, /^mcpapp:\/\/[0-9a-f]{16}$/);
  assert.equal(facts.parentIsTop, false);
  assert.match(facts.top, /^threw/);
  assert.equal(facts.tauri, "undefined");
  assert.equal(facts.tauriParent, "undefined");
  assert.equal(facts.input, "{}");
  assert.equal(facts.result, "probed");
  await screenshot(browser, "app-probe");
});

/** Sends a JSON-RPC request from inside the App to its parent, as any App could; its answer. */
function askFromApp(method, params, waitMs = 10_000) {
  return insideApp(
    (method, params, waitMs, done) => {
      const id = 90_000 + Math.floor(Math.random() * 1000);
      const heard = (event) => {
        if (event.data?.id !== id) return;
        window.removeEventListener("message", heard);
        // (Not "error": WebDriver would take the answer for a failure of its own.)
        done(event.data.error ? { refused: event.data.error.message } : { result: event.data.result });
      };
      window.addEventListener("message", heard);
      window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
      setTimeout(() => done({ refused: "no answer" }), waitMs);
    },
    method,
    params,
    waitMs,
  );
}

test("the probe's App reaches what it declared and nothing else: not another origin, not IPC", async () => {
  const port = declared.address().port;
  const reached = await insideApp(
    async (declaredUrl, undeclaredUrl, done) => {
      const violations = [];
      document.addEventListener("securitypolicyviolation", (event) => violations.push(`${event.violatedDirective} ${event.blockedURI}`));
      const attempt = (url, init) =>
        fetch(url, init).then(
          (response) => response.text(),
          (error) => `failed: ${error.name}`,
        );
      const results = [await attempt(declaredUrl), await attempt(undeclaredUrl), await attempt("ipc://localhost/list_servers"), await attempt("http://ipc.localhost/list_servers"), await attempt("ipc://localhost/next_events"),
        // Nor plant markup for the window's next start (src-tauri/kept_paint.rs).
        await attempt("ipc://localhost/keep_first_paint", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ frame: [{ name: "p", attributes: [["data-planted", "app"]], children: ["planted"] }] }) })];
      await new Promise((r) => setTimeout(r, 200));
      done({ results, violations });
    },
    `http://127.0.0.1:${port}/`,
    `http://127.0.0.1:${undeclared.address().port}/`,
  );
  assert.equal(reached.results[0], `reached ${port}`, "the declared origin answers");
  // Not the window's events either (src-tauri/feed.rs), which carry every server's status.
  assert.deepEqual(reached.results.slice(1), ["failed: TypeError", "failed: TypeError", "failed: TypeError", "failed: TypeError", "failed: TypeError"]);
  const kept = join(box.home, ".cache/dev.mcp-manager.app/first-paint.json");
  assert.ok(!existsSync(kept) || !readFileSync(kept, "utf8").includes("planted"), "nothing the App sent was kept for the next start");
  const violations = reached.violations.join("\n");
  assert.match(violations, new RegExp(`connect-src http://127\\.0\\.0\\.1:${undeclared.address().port}`));
  assert.match(violations, /connect-src ipc:\/\/localhost/);
  assert.match(violations, /connect-src http:\/\/ipc\.localhost/);
});

test("an App may call its server's app-only tools, never a model-only one: the server never sees it", async () => {
  const before = probeCalls().length;
  const refreshed = await askFromApp("tools/call", { name: "probe-refresh", arguments: {} });
  assert.match(refreshed.result?.content?.[0]?.text ?? JSON.stringify(refreshed), /^refreshed \d+$/);
  const refused = await askFromApp("tools/call", { name: "secret-admin", arguments: {} });
  assert.match(refused.refused ?? "", /for the model only/);
  const unknown = await askFromApp("tools/call", { name: "get-time", arguments: {} });
  assert.match(unknown.refused ?? "", /does not offer/);
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(probeCalls().slice(before), ["probe-refresh"], "only the app-only call reached the server");
  // Resources of its own server.
  const read = await askFromApp("resources/read", { uri: "ui://probe/plain.html" });
  assert.equal(read.result?.contents?.[0]?.text, "<p>plain</p>");
});

test("the frame follows the App's height up to a maximum that follows the window, and the App is told (host-context-changed)", async () => {
  const frame = browser.$('[data-testid="app-frame"]');
  const told = () => insideApp((done) => done({ width: Number(document.getElementById("width").textContent), maxHeight: Number(document.getElementById("max-height").textContent) }));
  const first = await told();
  assert.ok(first.width > 200, `the App was told its width (${first.width})`);
  assert.equal(String(first.maxHeight), await frame.getAttribute("data-max-height"));
  await insideApp((done) => {
    window.tell("ui/notifications/size-changed", { height: 5000 });
    done();
  });
  await eventually(async () => (await frame.getSize("height")) === first.maxHeight, `the frame stops at ${first.maxHeight} px`);
  await insideApp((done) => {
    window.tell("ui/notifications/size-changed", { height: 123 });
    done();
  });
  await eventually(async () => (await frame.getSize("height")) === 123, "the frame shrinks to 123 px");
  // A taller window: a taller maximum, and the App hears of it.
  const rect = await browser.getWindowRect();
  await browser.setWindowRect(rect.x, rect.y, rect.width, rect.height + 50);
  await eventually(async () => (await told()).maxHeight === first.maxHeight + 50, "the App hears the new maximum");
  await browser.setWindowRect(rect.x, rect.y, rect.width, rect.height);
  // What this version does not offer Apps is refused.
  const message = await askFromApp("ui/message", { role: "user", content: [{ type: "text", text: "hi" }] });
  assert.equal(message.result?.isError, true, "ui/message is not offered");
  const sampling = await askFromApp("sampling/createMessage", { messages: [], maxTokens: 10 });
  assert.ok(sampling.refused, "sampling is not offered");
});

test("closing an App asks it to tear down and waits for its answer", async () => {
  const before = probeCalls().length;
  await browser.$('[data-testid="app-close"]').click();
  await eventually(async () => !(await browser.$('[data-testid="app-view"]').isExisting()), "the App is gone");
  assert.deepEqual(probeCalls().slice(before), ["probe-refresh"], "the App saved its state before it went");
});

test("a view of the wrong type, or not ui://, is refused with a visible error", async () => {
  await openTool("probe", "wrong-type");
  await browser.$('[data-testid="run-tool"]').click();
  const problem = browser.$('[data-testid="app-view"] [data-testid="app-problem"]');
  await problem.waitForExist({ timeout: 15_000 });
  assert.match(await problem.getText(), /of type text\/html, not text\/html;profile=mcp-app/);
  assert.equal(await browser.$('[data-testid="app-frame"]').isExisting(), false);
  await openTool("probe", "not-ui");
  const notUi = browser.$('[data-testid="tool-runner"] [data-testid="app-problem"]');
  await notUi.waitForExist({ timeout: 5_000 });
  assert.match(await notUi.getText(), /https:\/\/example\.com\/app\.html.*is not a ui:\/\/ resource/);
  // An app-only tool is not run from the window.
  await openTool("probe", "probe-refresh");
  assert.equal(await browser.$('[data-testid="run-tool"]').isEnabled(), false);
  assert.match(await browser.$('[data-testid="app-only"]').getText(), /Hidden from Claude/);
});

test("a 2026-07-28 server's App works, on an origin of its own", async () => {
  await openTool("modern", "probe");
  await runApp("modern");
  const facts = await insideApp(async (done) => {
    for (let i = 0; i < 100 && document.getElementById("result")?.textContent === "(none yet)"; i++) await new Promise((r) => setTimeout(r, 100));
    done({ origin: location.origin, result: document.getElementById("result")?.textContent });
  });
  assert.equal(facts.result, "probed");
  assert.match(facts.origin, /^mcpapp:\/\/[0-9a-f]{16}$/);
  await openTool("probe", "probe");
  await runApp("probe");
  const probeOrigin = await insideApp((done) => done(location.origin));
  assert.notEqual(facts.origin, probeOrigin, "two servers, two origins");
});

test("an App cannot navigate its frame away, nor have the browser open the page instead", async () => {
  const port = declared.address().port;
  await insideApp((url, done) => {
    location.href = url;
    done();
  }, `http://127.0.0.1:${port}/elsewhere`);
  await new Promise((r) => setTimeout(r, 1_500));
  assert.match(await insideApp((done) => done(location.origin)), /^mcpapp:\/\/[0-9a-f]{16}$/, "the frame stays on its App");
  assert.doesNotMatch(browserLog(), /elsewhere/, "nothing was opened in the browser");
  assert.match(await browser.getUrl(), /^tauri:\/\/localhost/, "the window stays where it was");
});

test("server-basic-vanillajs: get-time is an App; its button calls the tool again, seen in the protocol log", async () => {
  await openTool("basic", "get-time");
  assert.ok(await browser.$('[data-testid="tool-row"][data-tool="get-time"] [data-testid="app-badge"]').isExisting(), "marked in the Tools tab");
  await runApp("basic");
  const time = async () =>
    insideApp(async (done) => {
      const shown = () => document.getElementById("server-time")?.textContent ?? "";
      for (let i = 0; i < 100 && !/^\d{4}-/.test(shown()); i++) await new Promise((r) => setTimeout(r, 100));
      done(shown());
    });
  const first = await time();
  assert.match(first, /^\d{4}-\d\d-\d\dT/);
  assert.match(await insideApp((done) => done(document.body.innerText)), /Server Time:/);
  await browser.$('[data-testid="app-frame"]').scrollIntoView();
  await screenshot(browser, "app-basic");
  // Its log, under it.
  await clickInApp("#send-log-btn");
  const log = browser.$('[data-testid="app-log"]');
  await log.waitForExist({ timeout: 10_000 });
  await log.$("summary").click();
  await eventually(async () => (await browser.$$('[data-testid="app-log-line"]').map((line) => line.getText())).some((text) => text.includes("This is log text.")), "the App's log line is shown");
  await new Promise((r) => setTimeout(r, 1100));
  // The App's own button, clicked as a person does, inside its frame.
  await browser.switchToFrame(await browser.$('[data-testid="app-frame"]'));
  await browser.switchToFrame(await browser.$("iframe"));
  await browser.$("#get-time-btn").click();
  await browser.switchToFrame(null);
  await eventually(async () => (await time()) !== first, "the App shows a new time");
  await browser.$('[data-testid="tab-protocol"]').click();
  await eventually(
    async () => (await browser.$$('[data-testid="protocol-message"][data-direction="out"][data-method="tools/call"]').length) >= 2,
    "the Run and the App's button each sent a tools/call",
  );
  await browser.$('[data-testid="tab-tools"]').click();
  // In All tools too.
  await browser.$('[data-testid="view-tools"]').click();
  await type(browser.$('[data-testid="all-tools-search"]'), "get-time");
  await browser.$('[data-testid="all-tools"] [data-testid="tool-row"][data-tool="get-time"] [data-testid="app-badge"]').waitForExist({ timeout: 5_000 });
  await type(browser.$('[data-testid="all-tools-search"]'), "debug-refresh");
  await browser.$('[data-testid="all-tools"] [data-testid="tool-row"][data-tool="debug-refresh"] [data-testid="app-only-badge"]').waitForExist({ timeout: 5_000 });
  await browser.$('[data-testid="view-servers"]').click();
});

/** Clicks `selector` inside the App's document, as a person does. */
async function clickInApp(selector) {
  await browser.switchToFrame(await browser.$('[data-testid="app-frame"]'));
  try {
    await browser.switchToFrame(await browser.$("iframe"));
    await browser.$(selector).click();
  } finally {
    await browser.switchToFrame(null);
  }
}


test("server-debug: its app-only tool from its App, another server's tool refused unseen, links on the person's click only, no top navigation or popup", async () => {
  await openTool("debug", "debug-tool");
  assert.ok(await browser.$('[data-testid="tool-row"][data-tool="debug-refresh"] [data-testid="app-only-badge"]').isExisting(), "debug-refresh is hidden from Claude");
  await runApp("debug");
  await browser.waitUntil(async () => (await insideApp((done) => done(!!document.getElementById("call-debug-refresh-btn")))) === true, { timeout: 15_000 });
  await clickInApp("#call-debug-refresh-btn");
  const refused = await askFromApp("tools/call", { name: "get-time", arguments: {} });
  assert.match(refused.refused ?? "", /"get-time", which "debug" does not offer/);

  // A link: asked for, shown, opened only on the person's click.
  await insideApp((done) => {
    document.getElementById("link-url").value = "https://example.com/from-the-debug-app";
    done();
  });
  await clickInApp("#open-link-btn");
  const ask = browser.$('[data-testid="app-link"]');
  await ask.waitForExist({ timeout: 10_000 });
  assert.match(await ask.getText(), /https:\/\/example\.com\/from-the-debug-app/);
  await new Promise((r) => setTimeout(r, 500));
  assert.doesNotMatch(browserLog(), /from-the-debug-app/, "nothing opened before the click");
  await ask.$('[data-testid="app-link-open"]').click();
  await eventually(() => browserLog().includes("opened /from-the-debug-app"), "the browser was handed the link");

  // No way out of the frame: top navigation and popups change nothing.
  const url = await browser.getUrl();
  const tried = await insideApp((done) => {
    let top = "assigned";
    try {
      window.top.location.href = "https://example.com/top-navigation";
    } catch (error) {
      top = `threw ${error.name}`;
    }
    let popup;
    try {
      popup = window.open("https://example.com/popup") === null ? "null" : "a window";
    } catch (error) {
      popup = `threw ${error.name}`;
    }
    done({ top, popup });
  });
  assert.equal(tried.popup, "null", "no popup window");
  await new Promise((r) => setTimeout(r, 1_000));
  assert.equal(await browser.getUrl(), url, "the window's own page is unchanged");
  assert.equal((await browser.getWindowHandles()).length, 1);
  assert.doesNotMatch(browserLog(), /top-navigation|popup/);

  // What the server saw: the Run and the App's app-only calls, never get-time.
  await browser.$('[data-testid="tab-protocol"]').click();
  const calls = () => browser.$$('[data-testid="protocol-message"][data-direction="out"][data-method="tools/call"]');
  await eventually(async () => (await calls().length) >= 2, "two calls were sent");
  const sent = [];
  for (const message of await calls()) {
    await message.$("button").click();
    sent.push(await message.$('[data-testid="protocol-payload"]').getText());
  }
  // (Its App also reports each of its events through debug-log, another app-only tool.)
  assert.ok(sent.some((text) => /"name": "debug-(refresh|log)"/.test(text)), `the App's app-only calls reached its server: ${sent.join("\n")}`);
  assert.ok(sent.every((text) => !text.includes("get-time")), "get-time never reached debug");
  await browser.$('[data-testid="tab-tools"]').click();
});

test("in a dark theme the App is told so, and the consent is remembered across a restart", async () => {
  await session.quit();
  session = await launch(box, { GTK_THEME: "Adwaita:dark" });
  browser = session.browser;
  await openTool("basic", "get-time");
  await browser.$('[data-testid="run-tool"]').click();
  await browser.$('[data-testid="app-frame"]').waitForExist({ timeout: 15_000 });
  assert.equal(await browser.$('[data-testid="app-consent"]').isExisting(), false, "allowed once is allowed");
  await insideApp(async (done) => {
    for (let i = 0; i < 100 && !/^\d{4}-/.test(document.getElementById("server-time")?.textContent ?? ""); i++) await new Promise((r) => setTimeout(r, 100));
    done();
  });
  await browser.$('[data-testid="app-frame"]').scrollIntoView();
  await screenshot(browser, "app-basic-dark");
  await openTool("probe", "probe");
  await runApp("probe");
  const theme = await insideApp(async (done) => {
    for (let i = 0; i < 50 && !document.getElementById("theme")?.textContent; i++) await new Promise((r) => setTimeout(r, 100));
    done(document.getElementById("theme")?.textContent);
  });
  assert.equal(theme, "dark");
});
