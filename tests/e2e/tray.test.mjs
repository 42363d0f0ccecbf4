// End-to-end: the login keeper's tray, the close question and a lapse's notification, in the real window. The server is
// tests/reference/oauth-server.mjs with access tokens of 24 s (so the keeper refreshes each
// one 8 s before it ends) and rotating refresh tokens; the person at the browser is
// tests/fixtures/browser/complete-login.mjs; tokens go to a real gnome-keyring on the test's
// private D-Bus. That bus also has a desktop's tray and notification services on it
// (tests/fixtures/desktop-bus.py), which record what the app registers and shows; the tray's
// menu is read and chosen from as a panel does (com.canonical.dbusmenu), and the window is closed
// as a window manager's close button closes it (WM_DELETE_WINDOW).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { alive, appProcesses, eventually, launch, open, root, sandbox, screenshot, serverPids, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
let oauth;
let base;
let desktop;

before(async () => {
  box = sandbox();
  oauth = spawn("node", [join(root, "tests/reference/oauth-server.mjs"), "0", "24"], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolvePort, reject) => {
    let out = "";
    oauth.stdout.on("data", (chunk) => {
      out += chunk;
      const found = /listening (\d+)/.exec(out);
      if (found) resolvePort(Number(found[1]));
    });
    oauth.once("exit", (code) => reject(new Error(`the OAuth server exited (${code}): ${out}`)));
  });
  base = `http://localhost:${port}`;
  writeFileSync(join(box.home, ".claude.json"), JSON.stringify({ mcpServers: { protected: { type: "http", url: `${base}/mcp` } } }));
  desktop = join(box.dir, "desktop.log");
  session = await launch(
    box,
    { BROWSER: join(root, "tests/fixtures/browser/complete-login.mjs"), BROWSER_LOG: join(box.dir, "browser.log") },
    { desktop },
  );
  browser = session.browser;
});

after(async () => {
  oauth?.kill();
  await session?.close();
});

const json = async (path) => (await fetch(`${base}${path}`)).json();
const quirk = (name) => fetch(`${base}/quirk`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ quirk: name }) });

/** What the desktop's services recorded: the tray icons registered, the notifications shown. */
function recorded() {
  if (!existsSync(desktop)) return [];
  return readFileSync(desktop, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
}
const notifications = () => recorded().flatMap((entry) => (entry.notification ? [entry.notification] : []));

function desktopBus(...args) {
  const out = spawnSync("/usr/bin/python3", [join(root, "tests/fixtures/desktop-bus.py"), ...args], {
    env: { ...process.env, DESKTOP_BUS_LOG: desktop },
    encoding: "utf8",
  });
  assert.equal(out.status, 0, `desktop-bus.py ${args.join(" ")}: ${out.stderr}`);
  return out.stdout;
}
const trayMenu = () => desktopBus("menu").split("\n").filter(Boolean);

/** The app's visible X windows. */
function visibleWindows() {
  const [app] = appProcesses(box);
  if (!app) return [];
  const out = spawnSync("xdotool", ["search", "--onlyvisible", "--pid", String(app.pid)], { encoding: "utf8" }).stdout;
  return out.split("\n").filter(Boolean);
}

const loginRow = () => browser.$('[data-testid="login-protected"]');
const rowText = async (part) => browser.$(`[data-testid="login-protected-${part}"]`).getText();

/** Waits, in the Servers view, until the server is in `state`; then back to Logins. */
async function serverIs(state) {
  await browser.$('[data-testid="view-servers"]').click();
  await waitForState(browser, "protected", "user", state);
  await browser.$('[data-testid="view-logins"]').click();
  await browser.$('[data-testid="logins-view"]').waitForExist({ timeout: 10_000 });
}

async function showLogins() {
  await browser.$('[data-testid="view-logins"]').click();
  await loginRow().waitForExist({ timeout: 10_000 });
}

test("a login made in the window is listed in Logins, with where it is kept and what it can do", async () => {
  await waitForState(browser, "protected", "user", "needs-auth");
  await open(browser, "protected", "user");
  await browser.$('[data-testid="log-in"]').click();
  await serverIs("connected");
  assert.equal(await rowText("store"), "MCP Manager's keychain");
  assert.equal(await rowText("refresh-token"), "yes");
  assert.match(await rowText("expires"), /^in \d+ s$/);
  assert.equal(await rowText("last"), "none yet");
  assert.match(await rowText("keeper"), /^Refreshed by the keeper in \d+ s$|^Being refreshed by the keeper$/);
  const text = await loginRow().getText();
  assert.ok(text.includes(`${base}/`), `the issuer is shown: ${text}`);
  assert.ok(text.includes("registered dynamically"), text);
  for (const name of ["refresh", "log-in", "log-out", "move"]) {
    const label = await browser.$(`[data-testid="login-protected-${name}"]`).getText();
    assert.ok(label.length > 0, `${name} has words`);
  }
  assert.ok((await browser.$('[data-testid="keeper-start-at-login"]').getAttribute("aria-label")).length > 0);
  await screenshot(browser, "logins");
});

test("the tray shows the servers' states, and the keeper refreshes the token before it expires, rotating it once", async () => {
  await eventually(() => trayMenu().includes("1 connected · 0 need a login · 0 failed (disabled)"), `the tray counts the connected server: ${trayMenu()}`);
  assert.deepEqual(trayMenu().slice(1), ["Open MCP Manager", "Quit"]);
  const before = (await json("/stats")).refreshes;
  await eventually(async () => (await json("/stats")).refreshes > before, "the keeper refreshed the login by itself", 30_000);
  await eventually(async () => (await rowText("last")).endsWith("ago: refreshed"), "the view shows the refresh", 10_000);
  // The server still takes the connection's requests, now with the new token.
  await serverIs("connected");
  assert.equal((await json("/stats")).reusedRefreshTokens, 0, "no spent refresh token was ever sent again");
});

test("closing the window asks once; kept in the tray, the servers stop, the keeper goes on, and the tray opens the window again", async () => {
  const windows = visibleWindows();
  assert.ok(windows.length > 0, "the window is shown");
  desktopBus("close", ...windows);
  const question = browser.$('[data-testid="close-question"]');
  await question.waitForExist({ timeout: 10_000, timeoutMsg: "closing did not ask" });
  assert.ok((await question.getText()).includes("Keep logins fresh after the window closes?"));
  await screenshot(browser, "close-question");
  // This button hides the window. WebKitWebDriver's click waits for the view to take the
  // click's mouse events, which a view hidden by that very click may never do: the command
  // then hangs (seen: 1 run in 5 on a loaded machine, and the file's time ran out). So the
  // button, once it can be clicked, is pressed from the page, as a click of it is.
  const keep = await browser.$('[data-testid="close-question-keep"]');
  await keep.waitForClickable({ timeout: 10_000 });
  await browser.execute((button) => button.click(), keep);
  await eventually(() => visibleWindows().length === 0, "the window hid");
  const app = appProcesses(box)[0];
  assert.ok(app && alive(app.pid), "the app goes on");
  const settings = JSON.parse(readFileSync(join(box.home, ".local/share/dev.mcp-manager.app/keeper.json"), "utf8"));
  assert.equal(settings.keepRunningWhenClosed, true, "the choice is remembered");
  await eventually(() => trayMenu()[0] === "Window closed: servers stopped, logins kept fresh (disabled)", `the tray says so: ${trayMenu()}`);
  // The keeper refreshes with the window closed.
  const refreshed = (await json("/stats")).refreshes;
  await eventually(async () => (await json("/stats")).refreshes > refreshed, "the keeper refreshed with the window closed", 30_000);
  desktopBus("click", "Open MCP Manager");
  await eventually(() => visibleWindows().length > 0, "the tray opened the window");
  await serverIs("connected");
  // A later close asks nothing: the window hides at once.
  desktopBus("close", ...visibleWindows());
  await eventually(() => visibleWindows().length === 0, "the window hid without asking");
  desktopBus("click", "Open MCP Manager");
  await eventually(() => visibleWindows().length > 0, "the tray opened the window again");
  await serverIs("connected");
});

test("a login whose refresh is refused for good is said once, in a notification and the tray, which logs in again", async () => {
  await quirk("forget-tokens");
  await quirk(null);
  await eventually(() => notifications().length === 1, "a desktop notification says the login lapsed", 30_000);
  const [said] = notifications();
  assert.equal(said.summary, "protected needs a new login");
  assert.ok(said.body.includes("refused the refresh token"), said.body);
  assert.ok(!said.body.includes("::") && !said.body.includes("Error("), said.body);
  await eventually(() => trayMenu().includes("Log in again to protected…"), `the tray offers a login: ${trayMenu()}`);
  await showLogins();
  await eventually(async () => (await loginRow().getAttribute("data-needs-person")) === "true", "the view marks the login");
  assert.ok((await rowText("keeper")).startsWith("Needs a new login: the authorization server refused the refresh token"));
  await screenshot(browser, "logins-lapsed");
  // Said once: a later look of the keeper says nothing more.
  await new Promise((r) => setTimeout(r, 3_000));
  assert.equal(notifications().length, 1);
  const logins = (await json("/stats")).logins;
  desktopBus("click", "Log in again to protected…");
  await eventually(async () => (await json("/stats")).logins === logins + 1, "the tray's choice logged in again in the browser", 30_000);
  await eventually(async () => (await loginRow().getAttribute("data-needs-person")) === "false", "the login is good again");
  await eventually(() => !trayMenu().includes("Log in again to protected…"), "the tray no longer offers it");
  await serverIs("connected");
});

test("the tray's Quit leaves the app with no server behind", async () => {
  const app = appProcesses(box)[0];
  desktopBus("click", "Quit");
  await eventually(() => !alive(app.pid), "the app left");
  assert.deepEqual(serverPids(box, "protected"), []);
  assert.equal((await json("/stats")).reusedRefreshTokens, 0);
});
