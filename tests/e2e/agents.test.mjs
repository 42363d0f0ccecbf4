// End-to-end: servers scoped to a subagent, in the window. A user's subagent defines its own
// server and names a configured one and one that does not exist; a project's subagent (in a
// folder not trusted) defines another. The window shows them in a Subagents group, flags the
// name Claude Code drops without a word, lets the person approve the user's one and try it
// (its tools, a call), and keeps the project's one waiting for the folder's trust. Claude
// Code's own files are not touched.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { launch, open, press, root, row, sandbox, screenshot, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
const edge = join(root, "tests/fixtures/servers/edge-server.mjs");

before(async () => {
  box = sandbox();
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({ hasCompletedOnboarding: true, mcpServers: { alpha: { command: "node", args: [edge, "alpha"] } } }),
  );
  mkdirSync(join(box.home, ".claude/agents"), { recursive: true });
  writeFileSync(
    join(box.home, ".claude/agents/writer.md"),
    `---\nname: writer\ndescription: Writes\nmcpServers:\n  - alpha\n  - nowhere\n  - notes:\n      command: node\n      args: ["${edge}", "notes"]\n---\nYou write.\n`,
  );
  mkdirSync(join(box.project, ".claude/agents"), { recursive: true });
  writeFileSync(
    join(box.project, ".claude/agents/reviewer.md"),
    `---\nname: reviewer\nmcpServers:\n  - lint:\n      command: node\n      args: ["${edge}", "lint"]\n---\nYou review.\n`,
  );
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

test("a subagent's own server is shown in its group, approved, then tried like any other; a project's waits for trust", async () => {
  await waitForState(browser, "alpha", "user", "connected");
  const claudeJson = readFileSync(join(box.home, ".claude.json"));
  // Both wait (not running): nothing a subagent defines starts before the person approves it.
  await waitForState(browser, "agent:writer:notes", "agent", "disabled");
  await waitForState(browser, "agent:reviewer:lint", "agent", "disabled");

  // What each subagent is given, with the name Claude Code drops flagged.
  const nowhere = browser.$('[data-testid="agent"][data-agent="writer"] [data-testid="agent-server"][data-server="nowhere"]');
  await nowhere.waitForExist({ timeout: 10_000 });
  assert.equal(await nowhere.getAttribute("data-problem"), "yes");
  assert.match(await nowhere.getText(), /no configured server is named "nowhere"/);
  const named = browser.$('[data-testid="agent"][data-agent="writer"] [data-testid="agent-server"][data-server="alpha"]');
  assert.equal(await named.getAttribute("data-problem"), "no");

  // The project's agent's server: approving it asks for the folder's trust first.
  await open(browser, "agent:reviewer:lint", "agent");
  assert.equal(await browser.$('[data-testid="approve"]').getText(), "Trust the folder to approve…");

  // The user's: approve (its entry shown first), then it runs and its tools answer.
  await open(browser, "agent:writer:notes", "agent");
  await press(browser.$('[data-testid="approve"]'));
  const entry = browser.$('[data-testid="approve-entry"]');
  await entry.waitForDisplayed({ timeout: 10_000 });
  assert.match(await entry.getText(), /"notes"/);
  const yes = browser.$('[data-testid="approve-confirm-yes"]');
  await yes.scrollIntoView();
  await screenshot(browser, "agents");
  await press(yes);
  await waitForState(browser, "agent:writer:notes", "agent", "connected");
  assert.match(await row(browser, "agent:writer:notes", "agent").getText(), /tools/);

  // Claude Code's files are as they were; the approval is the app's own.
  assert.deepEqual(readFileSync(join(box.home, ".claude.json")), claudeJson);
  assert.ok(!existsSync(join(box.project, ".claude/settings.local.json")));
  const approvals = JSON.parse(readFileSync(join(box.home, ".local/share/dev.mcp-manager.app/agent-approvals.json"), "utf8"));
  assert.ok(approvals[box.project]?.["agent:writer:notes"], JSON.stringify(approvals));
  await waitForState(browser, "agent:reviewer:lint", "agent", "disabled");
});

test("a server moved into a subagent in the window leaves its scope, and moved back leaves the agent file as it was", async () => {
  const writerFile = join(box.home, ".claude/agents/writer.md");
  const original = readFileSync(writerFile, "utf8");
  await open(browser, "alpha", "user");
  await press(browser.$('[data-testid="move-open"]'));
  const agent = browser.$('[data-testid="move-agent"]');
  await agent.waitForDisplayed({ timeout: 10_000 });
  const options = async () => browser.$$('[data-testid="move-agent"] option').map((o) => o.getAttribute("value"));
  await browser.waitUntil(async () => (await options()).includes("writer"), { timeout: 10_000, timeoutMsg: "writer is offered" }).catch(async (e) => {
    throw new Error(`${e.message}: ${JSON.stringify(await options())}`);
  });
  await browser.$('[data-testid="move-agent"]').selectByVisibleText("writer");
  await press(browser.$('[data-testid="move-confirm"]'));
  await browser.$('[data-testid="move-said"]').waitForExist({ timeout: 10_000 });
  // The agent's file holds it now; the user scope does not.
  await waitForState(browser, "agent:writer:alpha", "agent", "disabled");
  await browser.waitUntil(async () => !(await row(browser, "alpha", "user").isExisting()), { timeout: 10_000, timeoutMsg: "alpha left the user scope" });
  assert.ok(!JSON.parse(readFileSync(join(box.home, ".claude.json"), "utf8")).mcpServers?.alpha);
  assert.match(readFileSync(writerFile, "utf8"), /- "alpha": \{"command":"node"/);

  await open(browser, "agent:writer:alpha", "agent");
  await press(browser.$('[data-testid="move-open"]'));
  await browser.$('[data-testid="move-scope"]').selectByVisibleText("user");
  await press(browser.$('[data-testid="move-confirm"]'));
  await waitForState(browser, "alpha", "user", "connected");
  assert.equal(readFileSync(writerFile, "utf8"), original, "the agent file is as it was, byte for byte");
});
