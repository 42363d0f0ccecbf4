// End-to-end: importing another client's servers (Claude Desktop's real file format) with a
// preview of what is added and what conflicts, and exporting to Cursor's file.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { everything, launch, row, sandbox, screenshot, type, waitForState } from "./harness.mjs";

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
  // This app keeps secrets in the opt-in unencrypted file, so the test can look inside.
  session = await launch(box, { MCP_MANAGER_UNENCRYPTED_SECRETS_FILE: join(box.dir, "secrets.json") });
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

test("an OAuth client secret typed in the form goes to the secret store, never to a file", async () => {
  await browser.$('[data-testid="interop-close"]').click();
  await browser.$('[data-testid="add-server"]').click();
  await type(browser.$('[data-testid="draft-name"]'), "with-client");
  await browser.$('[data-testid="draft-transport-http"]').click();
  await type(browser.$('[data-testid="draft-url"]'), "http://127.0.0.1:9/mcp");
  await browser.$("summary=OAuth").click();
  await type(browser.$('[data-testid="draft-client-id"]'), "my-client");
  await type(browser.$('[data-testid="draft-client-secret"]'), "client-secret-e2e-8c1d");
  await browser.waitUntil(async () => browser.$('[data-testid="draft-save"]').isEnabled(), { timeout: 5_000 });
  assert.ok(!(await browser.$('[data-testid="draft-preview"]').getText()).includes("client-secret-e2e"), "not in the preview");
  await browser.$('[data-testid="draft-save"]').click();
  await row(browser, "with-client", "project").waitForExist({ timeout: 5_000 }).catch(async (error) => {
    await screenshot(browser, "failed-client-secret");
    throw error;
  });
  const mcpJson = readFileSync(join(box.project, ".mcp.json"), "utf8");
  assert.ok(!mcpJson.includes("client-secret-e2e-8c1d"), "the secret is not in .mcp.json");
  assert.equal(JSON.parse(mcpJson).mcpServers["with-client"].oauth.clientId, "my-client");
  assert.ok(!readFileSync(join(box.home, ".claude.json"), "utf8").includes("client-secret-e2e-8c1d"));
  const secrets = JSON.parse(readFileSync(join(box.dir, "secrets.json"), "utf8"));
  const [account, value] = Object.entries(secrets).find(([key]) => key.startsWith("client-secret:with-client|")) ?? [];
  assert.ok(account, `stored under Claude Code's key: ${Object.keys(secrets)}`);
  assert.equal(value, "client-secret-e2e-8c1d");
});

test("a workload identity login is set in the form: the grant and the token's file are written to .mcp.json, and nothing saves without a source", async () => {
  await browser.$('[data-testid="add-server"]').click();
  await type(browser.$('[data-testid="draft-name"]'), "ci-workload");
  await browser.$('[data-testid="draft-transport-http"]').click();
  await type(browser.$('[data-testid="draft-url"]'), "https://mcp.example.com/mcp");
  const summary = browser.$("summary=OAuth");
  await summary.scrollIntoView();
  await browser.waitUntil(async () => summary.click().then(() => true, () => false), { timeout: 5_000 });
  const grant = browser.$('[data-testid="draft-grant"]');
  await grant.scrollIntoView({ block: "center" });
  await grant.selectByAttribute("value", "workload").catch(async (error) => {
    await screenshot(browser, "failed-workload-grant");
    throw error;
  });
  // Neither a file nor a command yet: said at the field, and nothing can be saved.
  await browser.$('[data-testid="draft-assertion-file"]').waitForExist({ timeout: 5_000 });
  await browser.waitUntil(async () => (await browser.$("body").getText()).includes("where the workload's token comes from"), { timeout: 5_000 });
  assert.equal(await browser.$('[data-testid="draft-save"]').isEnabled(), false);
  await type(browser.$('[data-testid="draft-assertion-file"]'), "/var/run/secrets/tokens/mcp");
  await browser.waitUntil(async () => browser.$('[data-testid="draft-save"]').isEnabled(), { timeout: 5_000 });
  await screenshot(browser, "workload-identity-login");
  await browser.$('[data-testid="draft-save"]').click();
  await row(browser, "ci-workload", "project").waitForExist({ timeout: 5_000 });
  const oauth = JSON.parse(readFileSync(join(box.project, ".mcp.json"), "utf8")).mcpServers["ci-workload"].oauth;
  assert.deepEqual(oauth, { grantType: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertionFile: "/var/run/secrets/tokens/mcp" });
});

