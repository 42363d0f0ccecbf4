// End-to-end: enterprise policy in the real window (issue #22). Managed settings deny one of
// the person's servers and allow only some: Claude Code drops the others without a word; the
// window shows them dimmed with the rule and the file that blocks them, starts none of them,
// and refuses to add a server the policy would block, with Claude Code's words.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { everything, launch, open, row, sandbox, screenshot, type, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
let managed;

before(async () => {
  box = sandbox();
  managed = join(box.dir, "managed");
  mkdirSync(managed, { recursive: true });
  writeFileSync(
    join(managed, "managed-settings.json"),
    JSON.stringify({
      deniedMcpServers: [{ serverName: "denied" }],
      allowedMcpServers: [{ serverName: "allowed" }, { serverName: "denied" }],
    }),
  );
  const mark = (name) => ({ command: "sh", args: ["-c", `echo ran >> ${join(box.dir, `${name}.ran`)}; sleep 30`] });
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      mcpServers: {
        allowed: { command: "node", args: [everything, "stdio"] },
        denied: mark("denied"),
        unlisted: mark("unlisted"),
      },
    }),
  );
  session = await launch(box, { MCP_MANAGER_MANAGED_DIR: managed });
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

test("a server the policy blocks is shown dimmed with its rule and file, and never started", async () => {
  await waitForState(browser, "allowed", "user", "connected");
  for (const [name, words] of [
    ["denied", "⊗ Blocked by enterprise policy"],
    ["unlisted", "⊗ Not allowed by enterprise policy"],
  ]) {
    const line = row(browser, name, "user");
    assert.equal(await line.getAttribute("data-will-start"), "false", name);
    const badge = line.$('[data-testid="state-badge"]');
    assert.equal(await badge.getText(), words, name);
    assert.match(await badge.getAttribute("title"), new RegExp(`in ${join(managed, "managed-settings.json")}`));
  }
  await open(browser, "denied", "user");
  const why = browser.$('[data-testid="policy-block"]');
  await why.waitForExist({ timeout: 5_000, timeoutMsg: "the detail says which rule blocks it" });
  const text = await why.getText();
  assert.match(text, /deniedMcpServers \{"serverName":"denied"\}/);
  assert.match(text, /Claude Code/);
  await screenshot(browser, "policy-blocked");
  assert.deepEqual(
    ["denied", "unlisted"].filter((n) => existsSync(join(box.dir, `${n}.ran`))),
    [],
    "no blocked server ran",
  );
});

test("adding a server the policy does not allow is refused as typed, with Claude Code's words", async () => {
  const before = readFileSync(join(box.home, ".claude.json"), "utf8");
  await browser.$('[data-testid="add-server"]').click();
  await type(browser.$('[data-testid="draft-name"]'), "newcomer");
  await type(browser.$('[data-testid="draft-command"]'), "node");
  const problem = browser.$('[data-testid="draft-problem"][data-field="entry"]');
  await problem.waitForExist({ timeout: 5_000, timeoutMsg: "the policy is checked as the entry is typed" });
  assert.match(await problem.getText(), /Cannot add MCP server "newcomer": not allowed by enterprise policy/);
  assert.equal(await browser.$('[data-testid="draft-save"]').isEnabled(), false);
  assert.equal(readFileSync(join(box.home, ".claude.json"), "utf8"), before, "nothing written");
});
