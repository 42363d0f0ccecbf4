// End-to-end: logging in to an OAuth-protected server from the window. The server is
// tests/reference/oauth-server.mjs (the MCP SDK's authorization server with a password page);
// the "person at the browser" is $BROWSER = tests/fixtures/browser/complete-login.mjs, which
// fills the page in (or, while the file BROWSER_AWAY exists, walks away); tokens go to a real
// gnome-keyring on the test's private D-Bus. The window must show each phase of the login, the
// OAuth debugger's steps, the token's state, and never a token's value.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, launch, open, root, row, sandbox, screenshot, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
let oauth;
let base;
let away;

before(async () => {
  box = sandbox();
  oauth = spawn("node", [join(root, "tests/reference/oauth-server.mjs"), "0"], { stdio: ["ignore", "pipe", "inherit"] });
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
  away = join(box.dir, "away");
  session = await launch(box, {
    BROWSER: join(root, "tests/fixtures/browser/complete-login.mjs"),
    BROWSER_LOG: join(box.dir, "browser.log"),
    BROWSER_AWAY: away,
  });
  browser = session.browser;
});

after(async () => {
  oauth?.kill();
  await session?.close();
});

const json = async (path) => (await fetch(`${base}${path}`)).json();

/** Every file under `dir`, as text. */
function everyFile(dir) {
  let out = "";
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) out += everyFile(path);
    else if (stat.isFile()) out += readFileSync(path, "latin1");
  }
  return out;
}

const browserLog = () => (existsSync(join(box.dir, "browser.log")) ? readFileSync(join(box.dir, "browser.log"), "utf8") : "");

test("a login waits for the browser with the page's address to copy, and Cancel gives it up", async () => {
  await waitForState(browser, "protected", "user", "needs-auth");
  await open(browser, "protected", "user");
  await screenshot(browser, "server-needs-auth");
  writeFileSync(away, "");
  await browser.$('[data-testid="log-in"]').click();
  const progress = browser.$('[data-testid="login-progress"]');
  await browser.waitUntil(async () => (await progress.getAttribute("data-phase")) === "waiting-for-browser", {
    timeout: 15_000,
    timeoutMsg: "the login never waited for the browser",
  });
  assert.equal(await browser.$('[data-testid="login-phase"]').getText(), "Waiting for you to log in in your browser.");
  const url = await browser.$('[data-testid="login-url"]').getValue();
  assert.ok(url.startsWith(`${base}/authorize?`), url);
  assert.match(url, /code_challenge_method=S256/);
  assert.match(url, /resource=/);
  await eventually(() => browserLog().includes("/authorize and walked away"), "the browser was handed the page");
  await screenshot(browser, "login-waiting-for-browser");
  await browser.$('[data-testid="cancel-login"]').click();
  await browser.waitUntil(async () => (await progress.getAttribute("data-phase")) === "cancelled", {
    timeout: 10_000,
    timeoutMsg: "Cancel did not end the login",
  });
  assert.equal(await browser.$('[data-testid="login-phase"]').getText(), "The login was cancelled.");
  assert.equal(await row(browser, "protected", "user").getAttribute("data-state"), "needs-auth");
  rmSync(away);
});

test("a server that asks for a login gets one from the window, and no token shows", async () => {
  await browser.$('[data-testid="log-in"]').click();
  await waitForState(browser, "protected", "user", "connected");
  const progress = browser.$('[data-testid="login-progress"]');
  await browser.waitUntil(async () => (await progress.getAttribute("data-phase")) === "connected", {
    timeout: 10_000,
    timeoutMsg: "the login's phase never said connected",
  });
  const stats = await json("/stats");
  assert.equal(stats.logins, 1, "the person logged in once, through the browser");
  const tokens = await json("/issued");
  assert.ok(tokens.length >= 2, "an access and a refresh token were issued");
  const page = await browser.getPageSource();
  for (const token of tokens) {
    assert.ok(!page.includes(token), "no token in the window");
  }
  const files = everyFile(box.home) + everyFile(box.project) + everyFile(box.dir);
  for (const token of tokens) assert.ok(!files.includes(token), "no token in any file, log included (they are in the keychain)");
});

test("the OAuth debugger lists every step of the login with its RFC, and the token's state without its value", async () => {
  await browser.$('[data-testid="tab-oauth"]').click();
  // Newest first: the login that went through, then the one cancelled in the browser.
  const logins = await eventually(async () => {
    const found = await browser.$$('[data-testid="oauth-trace"][data-kind="login"]');
    return found.length >= 2 && found;
  }, "both logins are recorded");
  const stepsOf = async (trace) => {
    const seen = [];
    for (const step of await trace.$$('[data-testid="oauth-step"]')) seen.push(`${await step.getAttribute("data-step")}:${await step.getAttribute("data-outcome")}`);
    return seen;
  };
  const done = (await stepsOf(logins[0])).filter((s) => !s.endsWith(":miss"));
  assert.deepEqual(
    done,
    ["challenge:ok", "resource-metadata:ok", "server-metadata:ok", "authorization:ok", "callback:ok", "token:ok"],
    "in order; no registration: the first attempt's client was kept and reused",
  );
  const cancelled = await stepsOf(logins[1]);
  assert.ok(cancelled.includes("registration:ok"), `the first attempt registered: ${cancelled}`);
  assert.equal(cancelled.at(-1), "callback:failed", `the first attempt ended waiting for the redirect: ${cancelled}`);
  const login = logins[0];
  const rfcs = await browser.$$('[data-testid="oauth-rfc"]').map((e) => e.getText());
  for (const rfc of ["9728", "8414", "7591", "7636", "8707", "9207"]) {
    assert.ok(rfcs.some((text) => text.includes(`RFC ${rfc}`)), `RFC ${rfc} named: ${rfcs.join(" | ")}`);
  }
  // The token request, opened: its body is there with the verifier and code concealed.
  const token = login.$('[data-testid="oauth-step"][data-step="token"]');
  await token.$("button").click();
  const opened = await token.getText();
  assert.match(opened, /code_verifier=\[secret: \d+ chars, …\S{4}\]/);
  assert.match(opened, /"access_token": "\[secret: \d+ chars, …\S{4}\]"/);
  assert.equal(await browser.$('[data-testid="token-held"]').getText(), "Stored");
  assert.equal(await browser.$('[data-testid="token-refresh"]').getText(), "yes");
  assert.match(await browser.$('[data-testid="token-kept-in"]').getText(), /^the OS keychain, account tokens:protected\|[0-9a-f]{16}$/);
  await screenshot(browser, "oauth-debugger");
  const page = await browser.getPageSource();
  for (const issued of await json("/issued")) assert.ok(!page.includes(issued), "no token in the debugger");
});

test("Register a new client forgets the kept client registration, so that the next login registers anew", async () => {
  await browser.$('[data-testid="tab-oauth"]').click();
  const forget = browser.$('[data-testid="forget-registration"]');
  await forget.waitForExist({ timeout: 10_000, timeoutMsg: "the kept registration is offered to be replaced" });
  await forget.click();
  await forget.waitForExist({ reverse: true, timeout: 10_000, timeoutMsg: "no registration is kept any more" });
  await browser.$('[data-testid="tab-overview"]').click();
});

test("Open file hands the entry's file to the person's default application", async () => {
  await browser.$('[data-testid="tab-overview"]').click();
  await browser.$('[data-testid="open-file"]').click();
  await eventually(() => /opened file (file:\/\/)?\S*\/\.claude\.json/.test(browserLog()), "xdg-open handed ~/.claude.json over");
});

test("logging out revokes the tokens and the server asks again", async () => {
  await browser.$('[data-testid="tab-overview"]').click();
  await browser.$('[data-testid="log-out"]').click();
  await waitForState(browser, "protected", "user", "needs-auth");
  const stats = await json("/stats");
  assert.ok(stats.revocations >= 1, "the server revoked them");
});

test("with Claude Code's store chosen, a login made in the window is the one Claude Code uses, and logging out here logs it out", async () => {
  const claudeList = () => {
    const out = spawnSync(join(root, "tests/reference/node_modules/@anthropic-ai/claude-code/bin/claude.exe"), ["mcp", "list"], {
      cwd: box.project,
      env: { ...process.env, HOME: box.home, DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
      encoding: "utf8",
    });
    return out.stdout.split("\n").find((line) => line.startsWith("protected: ")) ?? out.stdout + out.stderr;
  };
  assert.match(claudeList(), /! Needs authentication$/);
  await browser.$('[data-testid="tab-oauth"]').click();
  const store = browser.$("#login-store-protected");
  await store.waitForExist({ timeout: 5_000 });
  await store.selectByAttribute("value", "claude-code");
  await browser.waitUntil(async () => (await browser.$('[data-testid="token-kept-in"]').getText()).includes("Claude Code"), {
    timeout: 10_000,
    timeoutMsg: "the token card says the login is kept in Claude Code's store",
  });
  await screenshot(browser, "login-store-claude-code");
  await browser.$('[data-testid="tab-overview"]').click();
  await browser.$('[data-testid="log-in"]').click();
  await waitForState(browser, "protected", "user", "connected").catch((error) => {
    throw new Error(`${error.message}; the browser's log:\n${browserLog()}`);
  });
  const credentials = JSON.parse(readFileSync(join(box.home, ".claude/.credentials.json"), "utf8"));
  const [key] = Object.keys(credentials.mcpOAuth);
  assert.match(key, /^protected\|[0-9a-f]{16}$/);
  assert.ok(credentials.mcpOAuth[key].accessToken, "the token is where Claude Code reads it");
  assert.match(claudeList(), /✔ Connected$/, "Claude Code is connected with no login of its own");

  await browser.$('[data-testid="log-out"]').click();
  await waitForState(browser, "protected", "user", "needs-auth");
  assert.match(claudeList(), /! Needs authentication$/);
});
