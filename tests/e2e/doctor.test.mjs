// End-to-end: the Doctor tab, run by a person on real servers that fail as servers do — a
// command that is not installed, a server that chatters on stdout, a remote port nothing
// listens on — and on a healthy one. Each checkup must end at the right step with the
// sentence that says what to do.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { everything, launch, open, root, sandbox, screenshot, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
let deadPort;

before(async () => {
  box = sandbox();
  deadPort = await new Promise((resolvePort) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
  const edge = join(root, "tests/fixtures/servers/edge-server.mjs");
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      mcpServers: {
        ghost: { command: "no-such-mcp-server-xyz" },
        chatty: { command: "node", args: [edge], env: { EDGE_FAULT: "garbage" } },
        gone: { type: "http", url: `http://127.0.0.1:${deadPort}/mcp` },
        everything: { command: "node", args: [everything, "stdio"] },
      },
    }),
  );
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

/** Runs the checkup of `name` from its Doctor tab; returns the checks shown. */
async function checkup(name) {
  await open(browser, name, "user");
  await browser.$('[data-testid="tab-doctor"]').click();
  await browser.$('[data-testid="run-doctor"]').click();
  const summary = browser.$('[data-testid="doctor-summary"]');
  await summary.waitForExist({ timeout: 60_000, timeoutMsg: `the checkup of ${name} never ended` });
  const checks = [];
  for (const check of await browser.$$('[data-testid="doctor-check"]')) {
    const next = await check.$('[data-testid="doctor-next"]');
    checks.push({
      id: await check.getAttribute("data-check-id"),
      verdict: await check.getAttribute("data-verdict"),
      text: await check.getText(),
      next: (await next.isExisting()) ? await next.getText() : null,
    });
  }
  return { healthy: (await summary.getAttribute("data-healthy")) === "true", checks };
}

test("a command that is not installed ends at the command, with what to do", async () => {
  await waitForState(browser, "ghost", "user", "failed");
  const { healthy, checks } = await checkup("ghost");
  assert.equal(healthy, false);
  const last = checks.at(-1);
  assert.deepEqual([last.id, last.verdict], ["command", "failed"]);
  assert.equal(last.next, "Install `no-such-mcp-server-xyz`, or write its full path in the entry's `command`.");
  await screenshot(browser, "doctor-missing-command");
});

test("a server that writes to stdout what is not JSON-RPC ends at stdout, with the lines", async () => {
  const { checks } = await checkup("chatty");
  const last = checks.at(-1);
  assert.deepEqual([last.id, last.verdict], ["stdout", "failed"], JSON.stringify(checks));
  assert.match(last.text, /2 lines on stdout were not JSON-RPC/);
  assert.match(last.text, /stdout: Starting edge server v1\.0\.0\.\.\./);
  assert.match(last.next, /^Make the server write its logs to stderr/);
});

test("a remote port nothing listens on ends at TCP", async () => {
  const { checks } = await checkup("gone");
  assert.deepEqual(checks.map((c) => c.id), ["variables", "url", "dns", "tcp"]);
  assert.equal(checks.at(-1).next, `Nothing answers on 127.0.0.1:${deadPort}: start the server, or fix the port in \`url\`.`);
});

test("a healthy server passes every step, up to its tool schemas", async () => {
  await waitForState(browser, "everything", "user", "connected");
  const { healthy, checks } = await checkup("everything");
  assert.equal(healthy, true, JSON.stringify(checks));
  assert.ok(checks.every((c) => c.verdict === "passed"));
  assert.equal(checks.at(-1).id, "schemas");
  await screenshot(browser, "doctor-healthy");
});
