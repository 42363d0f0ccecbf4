// End-to-end: Claude Code plugins in the real window (issue #22). A marketplace plugin and a
// skills folder plugin declare servers; the window lists them in a Plugins group under their
// `plugin:<plugin>:<server>` names, live like every other server; a plugin server can be
// disabled for this project, and a plugin turned off, both written where Claude Code reads
// them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { eventually, everything, launch, open, row, sandbox, screenshot, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
const write = (path, value) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
};
const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

before(async () => {
  box = sandbox();
  const market = join(box.dir, "market");
  const plugin = join(market, "plugins/tools-plugin");
  write(join(market, ".claude-plugin/marketplace.json"), {
    name: "fake-mkt",
    owner: { name: "tests" },
    plugins: [{ name: "tools-plugin", source: "./plugins/tools-plugin" }],
  });
  write(join(plugin, ".claude-plugin/plugin.json"), {
    name: "tools-plugin",
    mcpServers: { everything: { command: "node", args: [everything, "stdio"], env: { MCP_E2E_SERVER: "plugin-everything" } } },
  });
  // A fork that calls itself Anthropic's marketplace: Claude Code loads none of its plugins.
  const impostor = join(box.dir, "impostor/plugins/helper");
  write(join(impostor, ".claude-plugin/plugin.json"), {
    name: "helper",
    mcpServers: { tools: { command: "sh", args: ["-c", `touch ${join(box.dir, "impostor-ran")}; exec node ${everything} stdio`] } },
  });
  const plugins = join(box.home, ".claude/plugins");
  write(join(plugins, "known_marketplaces.json"), {
    "fake-mkt": { source: { source: "directory", path: market }, installLocation: market },
    "claude-plugins-official": {
      source: { source: "github", repo: "someone/claude-plugins-official" },
      installLocation: join(box.dir, "impostor"),
    },
  });
  write(join(plugins, "installed_plugins.json"), {
    version: 2,
    plugins: {
      "tools-plugin@fake-mkt": [{ scope: "user", installPath: plugin, version: "1.0.0" }],
      "helper@claude-plugins-official": [{ scope: "user", installPath: impostor, version: "1.0.0" }],
    },
  });
  write(join(box.home, ".claude/settings.json"), {
    enabledPlugins: { "tools-plugin@fake-mkt": true, "helper@claude-plugins-official": true },
  });
  write(join(box.home, ".claude/skills/notes/.claude-plugin/plugin.json"), {
    name: "notes",
    // Not the same command line as the other plugin's, which Claude Code would skip as a duplicate.
    mcpServers: { echo: { command: "sh", args: ["-c", `exec node ${everything} stdio`], env: { MCP_E2E_SERVER: "plugin-notes" } } },
  });
  // A folder the person trusts: its own settings may turn plugins on and off.
  write(join(box.home, ".claude.json"), { mcpServers: {}, projects: { [box.project]: { hasTrustDialogAccepted: true } } });
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

test("plugin servers are listed in a Plugins group under Claude Code's names and connect", async () => {
  await waitForState(browser, "plugin:tools-plugin:everything", "plugin", "connected");
  await waitForState(browser, "plugin:notes:echo", "plugin", "connected");
  const group = browser.$('[data-testid="scope-plugin"]');
  assert.match(await group.getText(), /Plugins/);
  const plugins = await browser.$$('[data-testid="plugin-row"]');
  assert.equal(plugins.length, 3);
  await open(browser, "plugin:tools-plugin:everything", "plugin");
  assert.match(await browser.$('[data-testid="server-detail"]').getText(), /from plugin tools-plugin@fake-mkt/);
  assert.equal(await browser.$('[data-testid="edit"]').isExisting(), false, "read-only: no Edit");
  await screenshot(browser, "plugins");
});

test("a marketplace passing for Anthropic's is refused as Claude Code refuses it: the reason shown, no toggle, no server started", async () => {
  const refused = browser.$('[data-testid="plugin-row"][data-plugin="helper@claude-plugins-official"]');
  await refused.waitForExist({ timeout: 5_000 });
  assert.equal(await refused.getAttribute("data-refused"), "true");
  assert.match(await refused.$('[data-testid="plugin-refused"]').getText(), /none of its servers starts/);
  assert.match(
    await refused.$('[data-testid="plugin-why"]').getText(),
    /The name ’claude-plugins-official’ is reserved for official Anthropic marketplaces\. Only repositories from ’github\.com\/anthropics\/’ can use this name\./,
  );
  assert.equal(await refused.$('[data-testid="plugin-toggle"]').isExisting(), false, "nothing to turn on");
  assert.equal(await row(browser, "plugin:helper:tools", "plugin").isExisting(), false, "its server is not listed");
  assert.equal(existsSync(join(box.dir, "impostor-ran")), false, "and never ran");
  await refused.scrollIntoView();
  await screenshot(browser, "plugin-refused");
});

test("a plugin server is disabled for this project where Claude Code reads it, and a plugin is turned off", async () => {
  await open(browser, "plugin:notes:echo", "plugin");
  await browser.$('[data-testid="disable"]').click();
  await waitForState(browser, "plugin:notes:echo", "plugin", "disabled");
  const key = box.project;
  await eventually(
    () => (readJson(join(box.home, ".claude.json")).projects?.[key]?.disabledMcpServers ?? []).includes("plugin:notes:echo"),
    "disabledMcpServers has the full name",
  );
  // Off for this project only: the person's own settings for it, which win over theirs.
  await browser.$("#plugin-settings").selectByAttribute("value", "local");
  const toggle = browser.$('[data-testid="plugin-row"][data-plugin="tools-plugin@fake-mkt"] [data-testid="plugin-toggle"]');
  await toggle.click();
  await eventually(
    () =>
      existsSync(join(box.project, ".claude/settings.local.json")) &&
      readJson(join(box.project, ".claude/settings.local.json")).enabledPlugins?.["tools-plugin@fake-mkt"] === false,
    "enabledPlugins says false in .claude/settings.local.json",
  );
  assert.equal(readJson(join(box.home, ".claude/settings.json")).enabledPlugins["tools-plugin@fake-mkt"], true, "the person's settings are untouched");
  await row(browser, "plugin:tools-plugin:everything", "plugin").waitForExist({ reverse: true, timeout: 15_000, timeoutMsg: "its server leaves the list" });
  assert.equal(
    await browser.$('[data-testid="plugin-row"][data-plugin="tools-plugin@fake-mkt"]').getAttribute("data-enabled"),
    "false",
  );
});
