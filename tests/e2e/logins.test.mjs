// End-to-end: the login keeper, its Logins view and its tray, in the real window. The server is
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
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

test("Refresh now refreshes at once", async () => {
  const before = (await json("/stats")).refreshes;
  await browser.$('[data-testid="login-protected-refresh"]').click();
  await eventually(async () => (await browser.$('[data-testid="logins-said"]').isExisting()) && (await browser.$('[data-testid="logins-said"]').getText()) === "protected: refreshed", "it says so");
  assert.ok((await json("/stats")).refreshes > before);
});

test("starting at login writes an XDG autostart entry, and switching it off removes it", async () => {
  const entry = join(box.home, ".config/autostart/dev.mcp-manager.app.desktop");
  const box_ = browser.$('[data-testid="keeper-start-at-login"]');
  await box_.click();
  await eventually(() => existsSync(entry), "the autostart entry is written");
  const text = readFileSync(entry, "utf8");
  assert.match(text, /\nExec=\S*mcp-manager --background\n/);
  await eventually(() => box_.isSelected(), "the switch shows it on");
  await box_.click();
  await eventually(() => !existsSync(entry), "the autostart entry is removed");
});

test("a login moves to Claude Code's store and back; the keeper leaves Claude Code's alone", async () => {
  const credentials = join(box.home, ".claude/.credentials.json");
  await browser.$('[data-testid="login-protected-move"]').click();
  await eventually(async () => (await rowText("store")) === "Claude Code's store", "it moved");
  const stored = JSON.parse(readFileSync(credentials, "utf8"));
  const keys = Object.keys(stored.mcpOAuth ?? {});
  assert.equal(keys.length, 1, JSON.stringify(keys));
  assert.ok(keys[0].startsWith("protected|"));
  assert.ok(stored.mcpOAuth[keys[0]].refreshToken, "the refresh token is there for Claude Code");
  assert.ok((await rowText("keeper")).startsWith("not refreshed in the background: kept in Claude Code's store"));
  // Switched on, the keeper would refresh it: not while a Claude Code runs (a program named
  // `claude` of this user; here a copy of sleep), and the view says so once it is due.
  const fake = mkdtempSync(join(tmpdir(), "mcp-e2e-claude-"));
  copyFileSync("/bin/sleep", join(fake, "claude"));
  chmodSync(join(fake, "claude"), 0o755);
  const claude = spawn(join(fake, "claude"), ["300"], { stdio: "ignore" });
  try {
    await browser.$('[data-testid="keeper-claude-code"]').click();
    await eventually(
      async () => (await rowText("keeper")).startsWith("Due, and left to Claude Code, which runs now"),
      "the view says the due login is left to the running Claude Code",
      45_000,
    );
    await screenshot(browser, "logins-left-to-claude-code");
  } finally {
    claude.kill();
    rmSync(fake, { recursive: true, force: true });
  }
  await browser.$('[data-testid="keeper-claude-code"]').click();
  await eventually(async () => !(await browser.$('[data-testid="keeper-claude-code"]').isSelected()), "switched off again");
  await serverIs("connected");
  await browser.$('[data-testid="login-protected-move"]').click();
  await eventually(async () => (await rowText("store")) === "MCP Manager's keychain", "it moved back");
  const after = JSON.parse(readFileSync(credentials, "utf8"));
  assert.deepEqual(Object.keys(after.mcpOAuth ?? {}), [], "Claude Code's store holds it no more");
  await serverIs("connected");
});

test("Log out forgets the login, and the tray's Quit leaves the app with no server behind", async () => {
  await browser.$('[data-testid="login-protected-log-out"]').click();
  await eventually(async () => !(await loginRow().isExisting()), "the login is gone from the list");
  await serverIs("needs-auth");
  const app = appProcesses(box)[0];
  desktopBus("click", "Quit");
  await eventually(() => !alive(app.pid), "the app left");
  assert.deepEqual(serverPids(box, "protected"), []);
  assert.equal((await json("/stats")).reusedRefreshTokens, 0);
});
