// End-to-end: logging in to an OAuth-protected server from the window. The server is
// tests/reference/oauth-server.mjs (the MCP SDK's authorization server with a password page);
// the "person at the browser" is $BROWSER = tests/fixtures/browser/complete-login.mjs, which
// fills the page in; tokens go to a real gnome-keyring on the test's private D-Bus.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, launch, open, root, sandbox, screenshot, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
let oauth;
let base;

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
  session = await launch(box, {
    BROWSER: join(root, "tests/fixtures/browser/complete-login.mjs"),
    BROWSER_LOG: join(box.dir, "browser.log"),
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

test("a server that asks for a login gets one from the window, and no token shows", async () => {
  await waitForState(browser, "protected", "user", "needs-auth");
  await open(browser, "protected", "user");
  await screenshot(browser, "server-needs-auth");
  await browser.$('[data-testid="log-in"]').click();
  await waitForState(browser, "protected", "user", "connected");
  const stats = await json("/stats");
  assert.equal(stats.logins, 1, "the person logged in once, through the browser");
  const tokens = await json("/issued");
  assert.ok(tokens.length >= 2, "an access and a refresh token were issued");
  const page = await browser.getPageSource();
  for (const token of tokens) {
    assert.ok(!page.includes(token), "no token in the window");
  }
  const files = everyFile(box.home) + everyFile(box.project);
  for (const token of tokens) assert.ok(!files.includes(token), "no token in any file (they are in the keychain)");
});

test("logging out revokes the tokens and the server asks again", async () => {
  await browser.$('[data-testid="log-out"]').click();
  await waitForState(browser, "protected", "user", "needs-auth");
  const stats = await json("/stats");
  assert.ok(stats.revocations >= 1, "the server revoked them");
});
