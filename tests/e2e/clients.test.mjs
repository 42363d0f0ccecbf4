// End-to-end: a server's tools as Claude Code sends them to its model, in the window's Clients
// tab, against a real server (edge-server serving tests/fixtures/servers/client-view.tools.json:
// a long description, a root anyOf, a property name Claude Code refuses, a name too long once
// prefixed). What the tab says a tool becomes must be what `mcpctl compat --json` computes for
// the same server (the library both use is judged against Claude Code itself in
// crates/clients/tests/judge.rs), and the person's settings file decides the tool search mode.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launch, mcpctl, open, root, sandbox, screenshot, type, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
let modelApi;
/** What the stand-in model API was sent: each request's path, headers and body. */
const requests = [];
/** A key for the stand-in only: it must reach no page. */
const apiKey = "sk-ant-e2e-only-key-4f9c2b7d1e";
const fixture = join(root, "tests/fixtures/servers/client-view.tools.json");
const longName = "search_every_document_in_the_shared_workspace_by_title_author_date_and_full_text_then_rank_the_results_by_relevance";

before(async () => {
  box = sandbox();
  // A tool whose result is 60,000 characters: within 25,000 tokens, over the 50,000 characters
  // Claude Code keeps of a tool's text.
  const bigTools = join(box.dir, "big.tools.json");
  writeFileSync(bigTools, JSON.stringify({ tools: [{ name: "dump", description: "Dumps a log", inputSchema: { type: "object" } }] }));
  const bigResults = join(box.dir, "big.results.json");
  writeFileSync(bigResults, JSON.stringify({ dump: { content: [{ type: "text", text: "x".repeat(60_000) }] } }));
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
        big: {
          command: "node",
          args: [join(root, "tests/fixtures/servers/edge-server.mjs")],
          env: { EDGE_TOOLS_FROM: bigTools, EDGE_RESULTS_FROM: bigResults },
        },
      },
    }),
  );
  // Tool search off in the person's settings: every tool's whole definition is sent upfront.
  mkdirSync(join(box.home, ".claude"), { recursive: true });
  writeFileSync(join(box.home, ".claude", "settings.json"), JSON.stringify({ env: { ENABLE_TOOL_SEARCH: "false" } }));
  // The model API's token counting endpoint, stood in for on loopback (the real one is out
  // of this machine's reach): it answers a quarter of the request's characters.
  modelApi = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      requests.push({ path: req.url, key: req.headers["x-api-key"], body: JSON.parse(body || "{}") });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ input_tokens: Math.round(body.length / 4) }));
    });
  });
  await new Promise((done) => modelApi.listen(0, "127.0.0.1", done));
  session = await launch(box, { ANTHROPIC_BASE_URL: `http://127.0.0.1:${modelApi.address().port}`, ANTHROPIC_API_KEY: apiKey });
  browser = session.browser;
});

after(async () => {
  await session?.close();
  modelApi?.close();
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

test("each other client's name and cut is shown beside Claude Code's, for the tool and the project", async () => {
  await open(browser, "shared-notes", "user");
  await browser.$('[data-testid="tab-clients"]').click();
  const long = tool(longName);
  await long.waitForExist({ timeout: 15_000 });
  await long.$("summary").click();
  const other = (client) => long.$(`[data-testid="other-client"][data-client="${client}"]`);
  // Gemini CLI keeps 30 characters each side of "...", past 63.
  const gemini = await other("Gemini CLI").$("td:nth-child(2)").getText();
  assert.equal(gemini.length, 63, gemini);
  assert.ok(gemini.includes("..."), gemini);
  // VS Code cuts the id at 64, Codex cuts and adds 12 hex characters of a SHA-1.
  assert.equal((await other("VS Code / Copilot").$("td:nth-child(2)").getText()).length, 64);
  assert.match(await other("Codex CLI").$("td:nth-child(2)").getText(), /_[0-9a-f]{12}$/);
  assert.ok((await other("Gemini CLI").$$('[data-testid="other-finding"]').length) > 0, "the cut is explained");
  assert.ok((await long.$$('[data-testid="other-client-badge"]').length) > 0, "the row says which clients cut it");
  await screenshot(browser, "clients-other");

  // The Tools tab's badges say it too.
  await browser.$('[data-testid="tab-tools"]').click();
  await browser.$(`[data-testid="tool-row"][data-tool="${longName}"] [data-testid="client-badge"]`).waitForExist({ timeout: 10_000 });
  const badges = await browser.$$(`[data-testid="tool-row"][data-tool="${longName}"] [data-testid="client-badge"]`).map((b) => b.getText());
  assert.ok(badges.includes("Claude Code drops"), badges.join());
  assert.ok(badges.includes("Gemini CLI changes"), badges.join());
});

test("a test call's result says what Claude Code would have done with it", async () => {
  await waitForState(browser, "big", "user", "connected");
  await open(browser, "big", "user");
  await browser.$('[data-testid="tab-tools"]').click();
  await browser.$('[data-testid="tool-row"][data-tool="dump"]').click();
  await browser.$('[data-testid="run-tool"]').click();
  const said = browser.$('[data-testid="for-claude-code"]');
  await said.waitForExist({ timeout: 15_000, timeoutMsg: "the result says what Claude Code does with it" });
  assert.match(await said.getText(), /^Claude Code would have saved this result to a file: 60,000 characters.*longer than the tool's 50,000 characters/);
});

test("the budget view: each server's cost upfront and loaded, the project without it, and an exact count with the person's key", async () => {
  await browser.$('[data-testid="view-budget"]').click();
  const total = browser.$('[data-testid="budget-total"]');
  await total.waitForExist({ timeout: 15_000, timeoutMsg: "the budget came" });
  assert.match(await browser.$('[data-testid="budget-counted-by"]').getText(), /^Estimated: estimate ±\d+% \(o200k_base/);
  // The same figures as mcpctl cost --json, in the same sandbox.
  const cli = spawnSync(mcpctl, ["--project", box.project, "--json", "cost"], { env: { ...process.env, HOME: box.home }, encoding: "utf8", timeout: 60_000 });
  assert.equal(cli.status, 0, cli.stderr);
  const expected = JSON.parse(cli.stdout);
  const number = (text) => Number(text.replace(/,/g, ""));
  assert.equal(number((await total.getText()).split(" ")[0]), expected.totalUpfront);
  const servers = await browser.$$('[data-testid="budget-server"]').map((row) => row.getAttribute("data-server"));
  assert.deepEqual(servers, expected.servers.map((s) => s.server), "heaviest first");
  const notes = browser.$('[data-testid="budget-server"][data-server="shared-notes"]');
  const upfront = number(await notes.$('[data-testid="server-upfront"]').getText());
  assert.equal(upfront, expected.servers.find((s) => s.server === "shared-notes").upfront);
  assert.equal(number(await notes.$('[data-testid="server-without"]').getText()), expected.totalUpfront - upfront, "tool search is off: turning a server off takes its share");
  assert.equal(await browser.$('[data-testid="budget-server"][data-server="broken-list"] [data-testid="server-upfront"]').getText(), "0", "a refused list costs nothing");
  await screenshot(browser, "budget-view");

  // Exactly: the stand-in is asked with the key, and answers; the key reaches no page.
  await browser.$('[data-testid="count-exactly"]').click();
  await browser.waitUntil(async () => (await browser.$('[data-testid="budget-counted-by"]').getText()).startsWith("Counted by the model API"), {
    timeout: 30_000,
    timeoutMsg: "the exact count came",
  });
  assert.ok(requests.some((r) => r.path === "/v1/messages/count_tokens" && r.key === apiKey), "the stand-in was asked with the key");
  assert.ok(!(await browser.getPageSource()).includes(apiKey), "the key is not in the page");
  await screenshot(browser, "budget-exact");
});
