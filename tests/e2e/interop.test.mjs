// End-to-end: importing another client's servers (Claude Desktop's real file format) with a
// preview of what is added and what conflicts, and exporting to Cursor's file.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { everything, launch, sandbox, screenshot, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
const secret = "desk-secret-token-5b3e91aa";

before(async () => {
  box = sandbox();
  const desktop = join(box.home, ".config/Claude");
  mkdirSync(desktop, { recursive: true });
  writeFileSync(
    join(desktop, "claude_desktop_config.json"),
    JSON.stringify({
      mcpServers: {
        "desk-everything": { command: "node", args: [everything, "stdio"], env: { MCP_E2E_SERVER: "desk-everything", API_TOKEN: secret } },
        clash: { command: "something-else" },
      },
    }),
  );
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({ projects: { [box.project]: { mcpServers: { clash: { type: "stdio", command: "true", args: [], env: {} } } } } }),
  );
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

test("importing from Claude Desktop previews what is added and what conflicts, then adds it", async () => {
  await browser.$('[data-testid="open-import-export"]').click();
  await browser.$('[data-testid="interop-preview"]').click();
  await browser.$('[data-testid="import-preview"]').waitForExist({ timeout: 5_000 });
  const names = async (id) => {
    const out = [];
    for (const element of await browser.$$(`[data-testid="${id}"]`)) out.push(await element.getAttribute("data-name"));
    return out;
  };
  assert.deepEqual(await names("import-add"), ["desk-everything"]);
  assert.deepEqual(await names("import-conflict"), ["clash"], "a different entry of the same name is left alone");
  assert.ok(!(await browser.getPageSource()).includes(secret), "the preview masks the token");
  await screenshot(browser, "import-preview");
  await browser.$('[data-testid="import-apply"]').click();
  await browser.$('[data-testid="import-done"]').waitForExist({ timeout: 5_000 });
  await waitForState(browser, "desk-everything", "local", "connected");
  const claude = JSON.parse(readFileSync(join(box.home, ".claude.json"), "utf8"));
  const entry = claude.projects[box.project].mcpServers["desk-everything"];
  assert.equal(entry.env.API_TOKEN, secret, "the real value is written to the file");
  assert.equal(claude.projects[box.project].mcpServers.clash.command, "true", "the conflict is untouched");
});

test("exporting writes this project's servers into Cursor's file", async () => {
  await browser.$('[data-testid="interop-client"]').selectByAttribute("value", "cursor");
  await browser.$('[data-testid="interop-export"]').click();
  await browser.$('[data-testid="export-report"]').waitForExist({ timeout: 5_000 });
  const cursor = JSON.parse(readFileSync(join(box.home, ".cursor/mcp.json"), "utf8"));
  assert.deepEqual(Object.keys(cursor.mcpServers).sort(), ["clash", "desk-everything"]);
  assert.equal(cursor.mcpServers["desk-everything"].command, "node");
});
