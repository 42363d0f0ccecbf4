// End-to-end: before a package starts, in the real window. A project server that runs a real
// npm package (airtable-mcp-server@1.7.2) waits for approval: its Overview says what it
// fetches, that its version is pinned, and what the registry on loopback says (deprecated with
// its message, a newer version that requires another variable, the publisher's post-install
// instructions as text, never run). A user server run by real npx without a version shows
// "not pinned" and the version running now; "Pin to the version running now" opens the editor
// with the diff, and saving writes the pin.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { eventually, open, press, root, sandbox, screenshot, waitForState, launch } from "./harness.mjs";

let box;
let session;
let browser;
let registry;
const marker = () => join(box.dir, "instructions-ran");
// npm's cache outlives the run, so a second run fetches nothing.
const npmCache = join(process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, "target"), "e2e-npm-cache");

function start(args) {
  const child = spawn("node", args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve) => {
    createInterface({ input: child.stdout }).once("line", (line) => resolve({ child, line }));
  });
}

before(async () => {
  box = sandbox();
  // Our own next release of the real airtable-mcp-server document.
  const seed = JSON.parse(readFileSync(join(root, "tests/fixtures/registry/seed.json"), "utf8")).map((d) => d.server ?? d);
  const next = structuredClone(seed.find((d) => d.name === "io.github.domdomegg/airtable-mcp-server" && d.version === "1.7.3"));
  next.version = "1.8.0";
  next.postInstallInstructions = `Create a personal access token.\nThen run: touch ${marker()}`;
  for (const p of next.packages) {
    if (p.registryType === "npm") {
      p.version = "1.8.0";
      p.environmentVariables = [{ name: "AIRTABLE_BASE_ID", isRequired: true, description: "The base" }];
    }
  }
  const doc = join(box.dir, "airtable-1.8.0.json");
  writeFileSync(doc, JSON.stringify(next));
  const started = await start([
    join(root, "tests/fixtures/registry/registry-server.mjs"),
    "--publish",
    doc,
    "--deprecate",
    "io.github.domdomegg/airtable-mcp-server=Moved to io.github.domdomegg/airtable",
  ]);
  registry = started.child;
  const url = `http://127.0.0.1:${started.line.split(" ")[1]}`;
  writeFileSync(
    join(box.project, ".mcp.json"),
    JSON.stringify({ mcpServers: { airtable: { command: "npx", args: ["-y", "airtable-mcp-server@1.7.2"] } } }, null, 2),
  );
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      mcpServers: {
        everything: { type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything", "stdio"], env: { npm_config_cache: npmCache } },
      },
      projects: { [box.project]: { hasTrustDialogAccepted: true } },
    }),
  );
  session = await launch(box, { MCP_MANAGER_REGISTRY: url });
  browser = session.browser;
});

after(async () => {
  await session?.close();
  registry?.kill();
});

test("a server waiting for approval says what it will fetch and what the registry says of it, instructions as text", async () => {
  await waitForState(browser, "airtable", "project", "disabled");
  await open(browser, "airtable", "project");
  const panel = browser.$('[data-testid="preflight"]');
  await panel.waitForExist({ timeout: 15_000 });
  assert.equal(await panel.getAttribute("data-pinned"), "true");
  assert.match(await panel.$('[data-testid="preflight-package"]').getText(), /npx fetches airtable-mcp-server from npm, version 1\.7\.2 \(pinned\)/);
  const verdict = panel.$('[data-testid="preflight-registry"]');
  await verdict.waitForExist({ timeout: 15_000 });
  assert.equal(await verdict.getAttribute("data-status"), "deprecated");
  assert.match(await verdict.getText(), /io\.github\.domdomegg\/airtable-mcp-server 1\.7\.2.*deprecated: Moved to io\.github\.domdomegg\/airtable/s);
  assert.match(await panel.$('[data-testid="preflight-newer"]').getText(), /1\.8\.0 — it requires AIRTABLE_BASE_ID — it no longer takes AIRTABLE_API_KEY/);
  assert.match(await panel.$('[data-testid="preflight-instructions"]').getText(), /Then run: touch /);
  assert.equal(existsSync(marker()), false, "the instructions are never run");
  await panel.scrollIntoView();
  await screenshot(browser, "preflight-registry");
});

test("an unpinned npx server shows the version running now, and the pin is an edit with its diff", async () => {
  await waitForState(browser, "everything", "user", "connected", 120_000);
  await open(browser, "everything", "user");
  const panel = browser.$('[data-testid="preflight"]');
  await panel.waitForExist({ timeout: 15_000 });
  assert.equal(await panel.getAttribute("data-pinned"), "false");
  assert.ok(await panel.$('[data-testid="preflight-unpinned"]').isExisting(), "flagged: not pinned");
  const running = panel.$('[data-testid="preflight-running"]');
  await running.waitForExist({ timeout: 15_000 });
  const version = (await running.getText()).replace(/^Running now:\s*/, "").trim();
  assert.match(version, /^\d+\.\d+\.\d+/);
  await panel.scrollIntoView();
  await screenshot(browser, "preflight-unpinned");

  await press(panel.$('[data-testid="preflight-pin"]'));
  const preview = browser.$('[data-testid="draft-preview"]');
  await eventually(async () => (await preview.getText().catch(() => "")).includes(`@modelcontextprotocol/server-everything@${version}`), "the diff shows the pin");
  await preview.scrollIntoView();
  await screenshot(browser, "preflight-pin-diff");
  const save = browser.$('[data-testid="draft-save"]');
  await save.waitForEnabled({ timeout: 10_000 });
  await save.click();
  await eventually(
    () => JSON.parse(readFileSync(join(box.home, ".claude.json"), "utf8")).mcpServers.everything.args[1] === `@modelcontextprotocol/server-everything@${version}`,
    "the pin is written",
  );
  await waitForState(browser, "everything", "user", "connected", 120_000);
  await open(browser, "everything", "user");
  await eventually(async () => (await browser.$('[data-testid="preflight"]').getAttribute("data-pinned").catch(() => null)) === "true", "pinned now");
});
