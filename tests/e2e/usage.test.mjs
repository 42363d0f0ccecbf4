// End-to-end: what Claude Code really used, in the window's Usage view. Real `claude -p`
// sessions (Claude Code 2.1.332, in the sandbox's home and project) run against a stand-in for
// the model API (tests/fixtures/model-api.mjs: this machine cannot reach the real one) that
// calls MCP tools of the sandbox's servers: alpha (one tool answers, one fails), beta, gamma
// (exits at start) and idle (never called). The view must count those calls, name the servers
// never called beside what they cost, say that Claude Code could not connect to gamma, read a
// session run while the window is open, and leave Claude Code's records untouched.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { eventually, launch, press, root, sandbox, screenshot, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
const edge = join(root, "tests/fixtures/servers/edge-server.mjs");
const claude = join(root, "tests/reference/node_modules/@anthropic-ai/claude-code/bin/claude.exe");

/** One `claude -p` session in the sandbox whose model calls `calls` in turn. */
async function claudeSession(calls, allowed) {
  const api = spawn("node", [join(root, "tests/fixtures/model-api.mjs"), ...calls], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((done) => createInterface({ input: api.stdout }).once("line", done));
  const port = Number(line.replace("listening ", ""));
  const env = {
    PATH: process.env.PATH,
    HOME: box.home,
    XDG_CACHE_HOME: join(box.home, ".cache"),
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: "sk-ant-e2e-usage-not-a-key",
    ENABLE_TOOL_SEARCH: "false",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    MCP_TIMEOUT: "60000",
    CLAUDE_CODE_MCP_STARTUP_WAIT_MS: "60000",
  };
  const out = spawnSync(claude, ["-p", "hi", "--allowedTools", allowed], { cwd: box.project, env, encoding: "utf8", timeout: 120_000 });
  api.kill();
  assert.equal(out.status, 0, `claude -p failed: ${out.stdout}${out.stderr}`);
}

/** Every file under `dir` with its SHA-256. */
function fingerprints(dir) {
  const found = {};
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else found[path] = createHash("sha256").update(readFileSync(path)).digest("hex");
    }
  };
  if (existsSync(dir)) walk(dir);
  return found;
}

before(async () => {
  box = sandbox();
  const tools = (name, names) => {
    const path = join(box.dir, `${name}.tools.json`);
    writeFileSync(path, JSON.stringify({ tools: names.map((n) => ({ name: n, description: `The ${n} tool`, inputSchema: { type: "object" } })) }));
    return path;
  };
  const results = join(box.dir, "alpha.results.json");
  writeFileSync(results, JSON.stringify({ boom: { content: [{ type: "text", text: "it broke" }], isError: true } }));
  const stdio = (env) => ({ command: "node", args: [edge], env });
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      mcpServers: {
        alpha: stdio({ EDGE_TOOLS_FROM: tools("alpha", ["echo", "boom"]), EDGE_RESULTS_FROM: results }),
        beta: stdio({ EDGE_TOOLS_FROM: tools("beta", ["time-now"]) }),
        gamma: stdio({ EDGE_FAULT: "exit" }),
        idle: stdio({ EDGE_TOOLS_FROM: tools("idle", ["nap", "snore", "dream"]) }),
      },
    }),
  );
  await claudeSession(["mcp__alpha__echo", "mcp__alpha__boom", "mcp__beta__time-now"], "mcp__alpha,mcp__beta");
  await claudeSession(["mcp__alpha__echo"], "mcp__alpha");
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

const serverRow = (name) => browser.$(`[data-testid="usage-server"][data-server="${name}"]`);

test("the Usage view counts what Claude Code's sessions called, what they never called and where it could not connect", async () => {
  await waitForState(browser, "idle", "user", "connected");
  const records = fingerprints(join(box.home, ".claude/projects"));
  assert.ok(Object.keys(records).length >= 2, "Claude Code wrote its transcripts");
  await press(browser.$('[data-testid="view-usage"]'));
  const summary = browser.$('[data-testid="usage-summary"]');
  await summary.waitForExist({ timeout: 20_000, timeoutMsg: "the usage came" });
  assert.equal(await summary.getText(), "2 Claude Code sessions called MCP tools in this project in the last 30 days.");
  assert.equal(await serverRow("alpha").$('[data-testid="usage-month"]').getText(), "3 (1 failed)");
  assert.equal(await serverRow("beta").$('[data-testid="usage-month"]').getText(), "1");
  const echo = browser.$('[data-testid="usage-tool"][data-tool="alpha/echo"]');
  assert.equal(await echo.$('[data-testid="usage-month"]').getText(), "2");
  assert.equal(await browser.$('[data-testid="usage-tool"][data-tool="alpha/boom"] [data-testid="usage-month"]').getText(), "1 (1 failed)");

  // Never called: idle with what its tools cost in every request (it is connected here), gamma
  // without (it cannot connect here either).
  const idle = browser.$('[data-testid="usage-never-server"][data-server="idle"]');
  await eventually(async () => /tokens upfront in every request$/.test(await idle.getText()), "idle's cost is shown");
  assert.match(await idle.getText(), /^idle — [\d,]+ tokens upfront in every request$/);
  assert.equal(
    await browser.$('[data-testid="usage-never-server"][data-server="gamma"]').getText(),
    "gamma — not connected here, so its cost is not known",
  );
  const trouble = await browser.$$('[data-testid="usage-connection-trouble"]').map((p) => p.getText());
  assert.deepEqual(trouble, [
    "Claude Code could not connect to gamma in 2 of its last 2 sessions: it closed the connection (the process exited).",
  ]);
  await screenshot(browser, "usage");

  // A session run while the window is open is read at the next look.
  await claudeSession(["mcp__beta__time-now", "mcp__beta__time-now"], "mcp__beta");
  await browser.$('[data-testid="usage-days"]').selectByAttribute("value", "7");
  await eventually(
    async () => (await serverRow("beta").$('[data-testid="usage-month"]').getText()) === "3",
    "the new session's calls are counted",
  );
  assert.equal(await summary.getText(), "3 Claude Code sessions called MCP tools in this project in the last 7 days.");
  await browser.$('[data-testid="usage-where"]').selectByAttribute("value", "all");
  await eventually(async () => (await summary.getText()).startsWith("3 Claude Code sessions called MCP tools in the last 7 days"), "all folders");

  // Claude Code's records were read, never written; the index is the app's own.
  const after = fingerprints(join(box.home, ".claude/projects"));
  for (const [path, hash] of Object.entries(records)) assert.equal(after[path], hash, `${path} is unchanged`);
  assert.ok(existsSync(join(box.home, ".local/share/dev.mcp-manager.app/usage.sqlite")));
});
