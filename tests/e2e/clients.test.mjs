// End-to-end: a server's tools as Claude Code sends them to its model, in the window's Clients
// tab, against a real server (edge-server serving tests/fixtures/servers/client-view.tools.json:
// a long description, a root anyOf, a property name Claude Code refuses, a name too long once
// prefixed). What the tab says a tool becomes must be what `mcpctl compat --json` computes for
// the same server (the library both use is judged against Claude Code itself in
// crates/clients/tests/judge.rs), and the person's settings file decides the tool search mode.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launch, mcpctl, open, root, sandbox, screenshot, type, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
const fixture = join(root, "tests/fixtures/servers/client-view.tools.json");
const longName = "search_every_document_in_the_shared_workspace_by_title_author_date_and_full_text_then_rank_the_results_by_relevance";

before(async () => {
  box = sandbox();
  // A tool list Claude Code refuses whole: one tool's schema has no `type: "object"`.
  const brokenList = join(box.dir, "broken-list.tools.json");
  writeFileSync(
    brokenList,
    JSON.stringify({
      tools: [
        { name: "fine", inputSchema: { type: "object" } },
        { name: "loose", inputSchema: { properties: { q: { type: "string" } } } },
      ],
    }),
  );
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      mcpServers: {
        "shared-notes": {
          command: "node",
          args: [join(root, "tests/fixtures/servers/edge-server.mjs")],
          env: { EDGE_TOOLS_FROM: fixture },
        },
        "broken-list": {
          command: "node",
          args: [join(root, "tests/fixtures/servers/edge-server.mjs")],
          env: { EDGE_TOOLS_FROM: brokenList },
        },
      },
    }),
  );
  // Tool search off in the person's settings: every tool's whole definition is sent upfront.
  mkdirSync(join(box.home, ".claude"), { recursive: true });
  writeFileSync(join(box.home, ".claude", "settings.json"), JSON.stringify({ env: { ENABLE_TOOL_SEARCH: "false" } }));
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

const tool = (name) => browser.$(`[data-testid="client-tool"][data-tool="${name}"]`);

/** What mcpctl compat --json says of the same server, in the same sandbox. */
function compat() {
  const cli = spawnSync(mcpctl, ["--project", box.project, "compat", "shared-notes", "--json"], {
    env: { ...process.env, HOME: box.home },
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.ok(cli.status === 0 || cli.status === 1, cli.stderr);
  return JSON.parse(cli.stdout).servers["shared-notes"];
}

test("the Clients tab shows each tool as Claude Code sends it, dropped and changed ones first, with what to fix", async () => {
  await waitForState(browser, "shared-notes", "user", "connected");
  await open(browser, "shared-notes", "user");
  await browser.$('[data-testid="tab-clients"]').click();
  const summary = browser.$('[data-testid="clients-summary"]');
  await summary.waitForExist({ timeout: 15_000, timeoutMsg: "the client view came" });
  assert.equal(await summary.getText(), "Claude Code 2.1.332 sends 3 of 5 tools, changes 2, drops 2.");
  assert.match(await browser.$('[data-testid="tool-search-mode"]').getText(), /^Tool search is off \(ENABLE_TOOL_SEARCH=false\)/);
  const knob = browser.$('[data-testid="knob"][data-knob="ENABLE_TOOL_SEARCH"]');
  assert.equal(await knob.getText(), "ENABLE_TOOL_SEARCH=false (from ~/.claude/settings.json)");

  // Dropped first, then changed, then the rest, each in the server's order.
  const order = await browser.$$('[data-testid="client-tool"]').map((row) => row.getAttribute("data-tool"));
  assert.deepEqual(order, ["tag notes", longName, "summarize", "find", "read_note"]);

  const expected = compat();
  // The root anyOf, flattened, with the sentence before the description.
  const find = tool("find");
  await find.$("summary").click();
  const flattened = JSON.parse(await find.$('[data-testid="sent-definition"]').getText());
  assert.deepEqual(flattened, expected.sent.find((t) => t.name === "mcp__shared-notes__find"));
  assert.match(flattened.description, /^Input constraint: /);
  assert.deepEqual(Object.keys(flattened.input_schema.properties).sort(), ["tag", "text"]);
  await browser.execute(() => document.querySelector('[data-testid="clients-panel"]').scrollIntoView());
  await screenshot(browser, "clients-tab");

  // The name too long once prefixed: Claude Code's words, and the fix.
  const long = tool(longName);
  assert.equal(await long.getAttribute("data-fate"), "dropped");
  await long.$("summary").click();
  const dropped = expected.dropped.find((d) => d.tool === longName);
  assert.equal(await long.$('[data-testid="client-note"]').getText(), dropped.words);
  assert.match(await long.$('[data-testid="client-fix"]').getText(), /mcp__<server>__<tool> must fit in 128 characters/);

  // The refused property name.
  const tag = tool("tag notes");
  await tag.$("summary").click();
  assert.equal(await tag.$('[data-testid="model-name"]').getText(), "mcp__shared-notes__tag_notes");
  assert.equal(await tag.$('[data-testid="client-note"]').getText(), expected.dropped.find((d) => d.tool === "tag notes").words);

  // The long description: cut at 4,096, and the definition shown is the one sent, JSON for JSON.
  const summarize = tool("summarize");
  assert.equal(await summarize.getAttribute("data-fate"), "upfront");
  await summarize.$("summary").click();
  assert.match(await summarize.$('[data-testid="client-note"]').getText(), /^Tool "summarize" description truncated from \d+ to 4096 chars$/);
  const sent = JSON.parse(await summarize.$('[data-testid="sent-definition"]').getText());
  assert.deepEqual(sent, expected.sent.find((t) => t.name === "mcp__shared-notes__summarize"));
  assert.ok(sent.description.endsWith("… [truncated]"), sent.description.slice(-40));


  // The search narrows the list.
  await type(browser.$('[data-testid="client-tool-search"]'), "mcp__shared-notes__read");
  assert.deepEqual(await browser.$$('[data-testid="client-tool"]').map((row) => row.getAttribute("data-tool")), ["read_note"]);
});

test("the Tools tab marks the tools Claude Code drops or changes", async () => {
  await open(browser, "shared-notes", "user");
  await browser.$('[data-testid="tab-tools"]').click();
  const badge = (name) => browser.$(`[data-testid="tool-row"][data-tool="${name}"] [data-testid="client-badge"]`);
  await badge("tag notes").waitForExist({ timeout: 10_000, timeoutMsg: "the dropped tool has its badge" });
  assert.equal(await badge("tag notes").getText(), "Claude Code drops");
  assert.equal(await badge("summarize").getText(), "Claude Code changes");
  assert.match(await badge("summarize").getAttribute("title"), /description truncated from \d+ to 4096 chars/);
  assert.equal(await badge("read_note").isExisting(), false, "a tool sent as listed has no badge");
  await screenshot(browser, "clients-badges");
});

test("a tool list Claude Code refuses whole is said once, at the top, naming the tool and the field", async () => {
  await waitForState(browser, "broken-list", "user", "connected");
  await open(browser, "broken-list", "user");
  await browser.$('[data-testid="tab-clients"]').click();
  const note = browser.$('[data-testid="server-note"]');
  await note.waitForExist({ timeout: 15_000, timeoutMsg: "the refusal is said at the top" });
  assert.match(await note.getText(), /^Claude Code refuses this server's whole tool list \("Failed to fetch tools: Invalid result for tools\/list"\): tool "loose": `inputSchema.type` must be the string "object" but it is missing\./);
  assert.equal(await browser.$('[data-testid="clients-summary"]').getText(), "Claude Code 2.1.332 sends 0 of 2 tools, drops 2.");
  assert.deepEqual(await browser.$$('[data-testid="client-tool"]').map((row) => row.getAttribute("data-fate")), ["dropped", "dropped"]);
  await screenshot(browser, "clients-refused-list");
});
