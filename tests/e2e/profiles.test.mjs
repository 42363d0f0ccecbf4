// End-to-end: profiles in the window. A person saves a profile of the servers they tick,
// applies it after reading what it changes and what it saves in every request, and undoes it.
// Claude Code 2.1.332 in the same home (`claude mcp list`) must then enable exactly the
// profile's servers, and undo must give ~/.claude.json back byte for byte.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, launch, press, root, sandbox, screenshot, type, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
const edge = join(root, "tests/fixtures/servers/edge-server.mjs");
const claude = join(root, "tests/reference/node_modules/@anthropic-ai/claude-code/bin/claude.exe");

/** The servers `claude mcp list` shows disabled in the sandbox. */
function claudeDisabled() {
  const out = spawnSync(claude, ["mcp", "list"], {
    cwd: box.project,
    env: { PATH: process.env.PATH, HOME: box.home, DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(out.status, 0, out.stderr);
  return out.stdout
    .split("\n")
    .filter((line) => line.includes("Disabled"))
    .map((line) => line.split(": ")[0])
    .sort();
}

before(async () => {
  box = sandbox();
  const stdio = (marker) => ({ command: "node", args: [edge, marker] });
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify(
      {
        hasCompletedOnboarding: true,
        mcpServers: { docs: stdio("docs"), github: stdio("github") },
        projects: { [box.project]: { mcpServers: { db: stdio("db") } } },
      },
      null,
      2,
    ),
  );
  // Claude Code has run in this home once, as in any real one (its first run adds its keys).
  assert.deepEqual(claudeDisabled(), []);
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

test("a profile saved from ticked servers is applied after its change is shown, Claude Code agrees, and undo gives the file back", async () => {
  for (const [name, scope] of [["docs", "user"], ["github", "user"], ["db", "local"]]) await waitForState(browser, name, scope, "connected");
  const before = readFileSync(join(box.home, ".claude.json"));
  await press(browser.$('[data-testid="profile-picker"]'));
  assert.equal(await browser.$('[data-testid="active-profile"]').getText(), "none");
  await type(browser.$('[data-testid="profile-name"]'), "writing docs");
  // Every server on now is ticked; the person unticks two.
  await press(browser.$('[data-testid="profile-server"][data-server="github"]'));
  await press(browser.$('[data-testid="profile-server"][data-server="db"]'));
  await press(browser.$('[data-testid="profile-save"]'));
  const message = browser.$('[data-testid="profile-message"]');
  await eventually(async () => (await message.getText()) === 'Saved "writing docs": docs.', "the profile is saved");

  await press(browser.$('[data-testid="profile"][data-profile="writing docs"] [data-testid="profile-choose"]'));
  const plan = browser.$('[data-testid="profile-plan"]');
  await plan.waitForDisplayed({ timeout: 10_000 });
  const off = await browser.$$('[data-testid="plan-off"]').map((li) => li.getText());
  assert.deepEqual(off.sort(), ["− db (turned off)", "− github (turned off)"]);
  const budget = browser.$('[data-testid="plan-budget"]');
  await budget.waitForExist({ timeout: 15_000, timeoutMsg: "the budget before and after came" });
  const [now, after] = (await budget.getText()).match(/[\d,]+(?= tokens now| with this profile)/g).map((v) => Number(v.replace(/,/g, "")));
  assert.ok(after < now, `${after} < ${now}`);
  assert.deepEqual(readFileSync(join(box.home, ".claude.json")), before, "nothing is written before Apply");
  await screenshot(browser, "profiles");

  await press(browser.$('[data-testid="profile-apply"]'));
  await eventually(async () => (await message.getText()).startsWith('"writing docs" applied: 2 turned off'), "applied");
  const written = JSON.parse(readFileSync(join(box.home, ".claude.json"), "utf8"));
  assert.deepEqual([...written.projects[box.project].disabledMcpServers].sort(), ["db", "github"]);
  assert.deepEqual(claudeDisabled(), ["db", "github"], "Claude Code enables exactly the profile");
  await waitForState(browser, "github", "user", "disabled");
  await eventually(async () => (await browser.$('[data-testid="active-profile"]').getText()) === "writing docs", "the profile is shown in use");

  await press(browser.$('[data-testid="profile-undo"]'));
  await eventually(async () => (await message.getText()).endsWith("is byte for byte what it was."), "undone");
  assert.deepEqual(readFileSync(join(box.home, ".claude.json")), before, "undo gives the file back byte for byte");
  assert.deepEqual(claudeDisabled(), []);
  await waitForState(browser, "github", "user", "connected");
});
