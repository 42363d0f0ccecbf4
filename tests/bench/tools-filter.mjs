// The tools benchmark (prints figures, asserts nothing): every server's tools in one list,
// filtered as a person types, in the real window. Run it through scripts/bench-tools, which
// builds the app and provides an X server.
//
// 50 servers (edge-server, each serving 100 real tools taken in turn from the corpus of
// published servers' tools/list results in tests/fixtures/schemas), so 5,000 tools; the All
// tools view; then queries typed a key at a time through WebDriver, as a person types, and
// erased. For each keystroke the window records the time from the input event to the list
// filtered and rendered, laid out again, the next frame begun and that frame painted
// (ui/src/tools/AllTools.tsx). The goal is 16 ms per keystroke to the painted frame.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launch, root, sandbox, type } from "../e2e/harness.mjs";

const SERVERS = Number(process.env.BENCH_SERVERS ?? 50);
const PER_SERVER = 100;
const QUERIES = ["search", "mcp__tools-17__", "create issue", "file", "jira", "zzz-no-match"];
// The queries are typed this many times over, so that the p95 is not one slow keystroke's.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Milliseconds from one key's WebDriver command answered to the next key sent.
const GAP = Number(process.env.BENCH_KEY_GAP_MS ?? 0);
const pause = () => (GAP > 0 ? new Promise((r) => setTimeout(r, GAP)) : undefined);

const corpus = readdirSync(join(root, "tests/fixtures/schemas"))
  .filter((name) => name.endsWith(".tools.json"))
  .sort()
  .flatMap((name) => JSON.parse(readFileSync(join(root, "tests/fixtures/schemas", name), "utf8")).tools);

const box = sandbox();
const lists = join(box.dir, "tools");
mkdirSync(lists);
const servers = {};
for (let s = 0; s < SERVERS; s++) {
  const seen = new Set();
  const tools = [];
  for (let j = 0; j < PER_SERVER; j++) {
    const tool = { ...corpus[(s * PER_SERVER + j) % corpus.length] };
    if (seen.has(tool.name)) tool.name = `${tool.name}_${j}`;
    seen.add(tool.name);
    tools.push(tool);
  }
  const file = join(lists, `tools-${s + 1}.json`);
  writeFileSync(file, JSON.stringify({ tools }));
  servers[`tools-${s + 1}`] = { command: "node", args: [join(root, "tests/fixtures/servers/edge-server.mjs")], env: { EDGE_TOOLS_FROM: file } };
}
writeFileSync(join(box.home, ".claude.json"), JSON.stringify({ mcpServers: servers }));

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, median: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] };
};
const ms = (v) => `${v.toFixed(1)} ms`;

const session = await launch(box);
const { browser } = session;
try {
  const started = Date.now();
  await browser.waitUntil(async () => (await browser.$$('[data-testid="server-row"][data-state="connected"]').length) === SERVERS, {
    timeout: 180_000,
    interval: 500,
    timeoutMsg: `not all ${SERVERS} servers connected`,
  });
  const connected = Date.now() - started;
  await browser.$('[data-testid="view-tools"]').click();
  const count = browser.$('[data-testid="all-tools-count"]');
  await browser.waitUntil(async () => (await count.isExisting()) && (await count.getText()).includes(`${SERVERS} connected servers`), { timeout: 60_000 });
  const shownAt = Date.now() - started;
  const search = browser.$('[data-testid="all-tools-search"]');
  await type(search, "");
  await browser.execute(() => {
    window.__mcpToolsFilterMs = [];
    window.__mcpToolsPaintMs = [];
    window.__mcpToolsRenderMs = [];
    window.__mcpToolsFrameMs = [];
  });
  const matches = [];
  // What the box holds after each keystroke, in the order typed.
  const typed = [];
  let box = "";
  for (const query of Array.from({ length: ROUNDS }, () => QUERIES).flat()) {
    for (const key of query) {
      await search.addValue(key);
      await pause();
      typed.push((box += key));
    }
    if (matches.length < QUERIES.length) matches.push(`${JSON.stringify(query)}: ${await count.getAttribute("data-matches")}`);
    for (let i = 0; i < query.length; i++) {
      await browser.keys(["Backspace"]);
      await pause();
      typed.push((box = box.slice(0, -1)));
    }
  }
  await new Promise((r) => setTimeout(r, 300));
  const { filter, paint, render, frame } = await browser.execute(() => ({ filter: window.__mcpToolsFilterMs, paint: window.__mcpToolsPaintMs, render: window.__mcpToolsRenderMs, frame: window.__mcpToolsFrameMs }));
  const f = stats(filter);
  const p = stats(paint);
  const drawn = await browser.execute(() => ({
    width: document.querySelector('[data-testid="all-tools-list"]').clientWidth,
    rows: document.querySelectorAll('[data-testid="tool-row"]').length,
  }));
  console.log(`tools benchmark: ${SERVERS} servers, ${(await count.getText()).split(" ·")[0]} in one list (all ${SERVERS} connected after ${(connected / 1000).toFixed(1)} s; the list shown after ${(shownAt / 1000).toFixed(1)} s)`);
  console.log(`queries typed and erased a key at a time, ${ROUNDS} times over: ${matches.join(", ")}`);
  if (process.env.BENCH_VERBOSE) {
    // Each keystroke: the query after it; filtered and rendered, laid out, frame begun, painted.
    typed.forEach((query, i) => console.log(`  ${JSON.stringify(query).padEnd(20)} ${ms(render[i])}, ${ms(filter[i])}, ${ms(frame[i])}, ${ms(paint[i])}`));
  }
  console.log(`per keystroke (${f.n}), input to list laid out: median ${ms(f.median)}, p95 ${ms(f.p95)}, max ${ms(f.max)}  (goal 16 ms)`);
  console.log(`per keystroke (${p.n}), input to the frame after its paint: median ${ms(p.median)}, p95 ${ms(p.p95)}, max ${ms(p.max)}`);
  // Where the slowest keystrokes' time goes: the twentieth of them slowest to their painted frame.
  const slow = paint.map((_, i) => i).sort((a, b) => paint[b] - paint[a]).slice(0, Math.max(1, Math.ceil(paint.length / 20)));
  const mean = (values) => ms(slow.reduce((sum, i) => sum + values[i], 0) / slow.length);
  console.log(
    `the ${slow.length} slowest, on average: filtered and rendered ${mean(render)}, laid out ${mean(filter)}, their frame begun ${mean(frame)}, painted ${mean(paint)} (the list ${drawn.width} px wide, ${drawn.rows} tool rows drawn)`,
  );
} finally {
  await session.close();
}
