// The window benchmark (prints figures, asserts nothing). Run it through scripts/bench-window,
// which builds the app and provides an X server:
//
//   cold start: from exec to the first painted list of servers (the app says "ready" on stderr
//     when MCP_MANAGER_REPORT_READY is set), with a project of 20 servers, as most starts find
//     it (the first frame kept by the last start: src-tauri/kept_paint.rs) and with nothing
//     kept (the first start, or a changed list); against the same binary's empty Tauri window
//     (`--empty-window`, ready when its blank page has loaded).
//     With it, where the time goes: exec to `main`, then each moment the app notes
//     (src-tauri/startup.rs: plugins, the window opened, history, project, page asked for and
//     loaded, the script running, the list taken from the page or asked for and received,
//     painted), medians, beside the empty window's.
//   memory: PSS summed over the app and its WebKit processes (the servers excluded), idle after
//     every one of 20 server-everything servers connected, on a start after the first (each
//     server's era remembered) and once one process per server is left; against the empty
//     window, with Tauri's defaults and with the app's WebKit setting (painting in software).
//
// Each run gets its own HOME and a private D-Bus (as the end-to-end tests do).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const app = process.argv[2] ?? join(process.env.CARGO_TARGET_DIR ?? join(root, "target"), "debug", "mcp-manager");
const everything = join(root, "tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SERVERS = 20;

function world() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "mcp-manager-bench-")));
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  const servers = {};
  for (let i = 1; i <= SERVERS; i++) {
    servers[`everything-${i}`] = { type: "stdio", command: "node", args: [everything, "stdio"], env: { MCP_BENCH_SERVER: String(i) } };
  }
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ projects: { [project]: { mcpServers: servers } } }));
  return { dir, home, project };
}

/** Starts the app on the box's project (or the empty window) in a private D-Bus. */
function start(box, emptyWindow, extraEnv = {}) {
  const args = emptyWindow ? ["--empty-window"] : ["--project", box.project];
  const env = {
    ...process.env,
    HOME: box.home,
    XDG_CONFIG_HOME: join(box.home, ".config"),
    XDG_DATA_HOME: join(box.home, ".local/share"),
    XDG_CACHE_HOME: join(box.home, ".cache"),
    MCP_MANAGER_REPORT_READY: "1",
    ...extraEnv,
  };
  delete env.CLAUDE_CONFIG_DIR;
  const began = performance.now();
  const child = spawn("dbus-run-session", ["--", app, ...args], { env, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  const seen = {};
  const waiters = [];
  let buffer = "";
  child.stderr.on("data", (chunk) => {
    buffer += chunk;
    for (const word of ["main", "ready", "settled"]) {
      if (seen[word] === undefined && buffer.includes(`mcp-manager: ${word}`)) seen[word] = performance.now() - began;
    }
    const startup = /mcp-manager: startup ([^\n]*)\n/.exec(buffer);
    if (startup && !seen.breakdown) {
      seen.breakdown = Object.fromEntries(startup[1].split(" ").map((pair) => pair.split("=")).map(([k, v]) => [k, Number(v)]));
      seen.breakdown["exec→main"] = seen.main;
    }
    for (const w of [...waiters]) if (seen[w.word] !== undefined) w.resolve(seen[w.word]);
  });
  const until = (word, timeoutMs = 60_000) =>
    new Promise((resolveWord, reject) => {
      if (seen[word] !== undefined) return resolveWord(seen[word]);
      waiters.push({ word, resolve: resolveWord });
      setTimeout(() => reject(new Error(`no "${word}" within ${timeoutMs} ms:\n${buffer.slice(-2000)}`)), timeoutMs);
    });
  const stop = async () => {
    const exited = new Promise((done) => child.once("exit", done));
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  return { child, until, stop, seen };
}

function children() {
  const byParent = new Map();
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!byParent.has(ppid)) byParent.set(ppid, []);
      byParent.get(ppid).push(Number(pid));
    } catch {}
  }
  return byParent;
}

/** PSS in KiB of `pid` and its descendants, leaving out the servers and what they started. */
function pss(pid) {
  const byParent = children();
  let total = 0;
  const visit = (p) => {
    let environ = "";
    try {
      environ = readFileSync(`/proc/${p}/environ`, "latin1");
    } catch {
      return;
    }
    if (environ.includes("MCP_BENCH_SERVER=")) return;
    try {
      const rollup = readFileSync(`/proc/${p}/smaps_rollup`, "utf8");
      const kib = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      total += kib;
      if (process.env.BENCH_VERBOSE) {
        const name = readFileSync(`/proc/${p}/comm`, "utf8").trim();
        console.log(`    ${name} (${p}): ${mib(kib)}`);
        // BENCH_SMAPS=DIR keeps each process's mappings there, to see where its memory is.
        if (process.env.BENCH_SMAPS) writeFileSync(join(process.env.BENCH_SMAPS, `${name}-${p}.smaps`), readFileSync(`/proc/${p}/smaps`, "utf8"));
      }
    } catch {}
    for (const child of byParent.get(p) ?? []) visit(child);
  };
  visit(pid);
  return total;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;

/**
 * Exec to "ready" of the empty window and of the app, in turn, RUNS times each after one
 * warm-up run each, each in its own HOME kept across its runs (as a person's, whose font and
 * settings caches exist), waiting for the last run's processes to be gone each time. In turn,
 * so that what changes over the minute the runs take (a disk still writing a build back,
 * another program waking) falls on both alike: run one after the other, the app's five came
 * after the window's five, and a sitting right after a build gave the app 1.28x.
 */
async function coldStarts() {
  // The app as it starts most days, its first frame kept by its last start (kept_paint.rs),
  // and as it starts the first time or after its list changed, with nothing kept.
  const kinds = [
    { emptyWindow: true, forget: false },
    { emptyWindow: false, forget: false },
    { emptyWindow: false, forget: true },
  ].map((kind) => ({ ...kind, box: world(), times: [], breakdowns: [] }));
  try {
    for (let i = 0; i <= RUNS; i++) {
      for (const kind of kinds) {
        if (kind.forget) rmSync(join(kind.box.home, ".cache/dev.mcp-manager.app/first-paint.json"), { force: true });
        const run = start(kind.box, kind.emptyWindow);
        try {
          const ready = await run.until("ready");
          // The startup line follows "ready" at once.
          await new Promise((r) => setTimeout(r, 200));
          if (i > 0) {
            kind.times.push(ready);
            if (run.seen.breakdown) kind.breakdowns.push(run.seen.breakdown);
          }
        } finally {
          await run.stop();
        }
        await settle();
      }
    }
  } finally {
    for (const kind of kinds) rmSync(kind.box.dir, { recursive: true, force: true });
  }
  return kinds.map(({ times, breakdowns }) => {
    times.breakdowns = breakdowns;
    times.breakdown = Object.fromEntries(
      [...new Set(breakdowns.flatMap((b) => Object.keys(b)))].map((key) => [key, median(breakdowns.map((b) => b[key]).filter((v) => v !== undefined))]),
    );
    return times;
  });
}

/** Waits until no server of an earlier run is left (at most 10 s). */
async function settle() {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && serverCount() > 0) await new Promise((r) => setTimeout(r, 100));
}

function serverCount() {
  return readdirSync("/proc").filter((p) => {
    try {
      return /^\d+$/.test(p) && readFileSync(`/proc/${p}/environ`, "latin1").includes("MCP_BENCH_SERVER=");
    } catch {
      return false;
    }
  }).length;
}

/** The app's process: the child of dbus-run-session. */
function appProcess(run) {
  const app = (children().get(run.child.pid) ?? []).find((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, "latin1").includes("mcp-manager");
    } catch {
      return false;
    }
  });
  if (!app) throw new Error("the app process was not found");
  return app;
}

/** Waits until only one process per configured server runs, for a second (at most 60 s). */
async function onePerServer() {
  const deadline = Date.now() + 60_000;
  let steadySince = null;
  while (Date.now() < deadline) {
    if (serverCount() === SERVERS) {
      steadySince ??= Date.now();
      if (Date.now() - steadySince >= 1_000) return;
    } else steadySince = null;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`still ${serverCount()} server processes for ${SERVERS} servers after 60 s`);
}

async function idleMemory(emptyWindow, extraEnv = {}) {
  const box = world();
  try {
    if (!emptyWindow) {
      // A day after the first: the first start finds each server's protocol era beside its
      // session and remembers it (server-everything speaks both, so its session moves to
      // 2026-07-28 and a process asked beside it comes and goes). The start measured is the
      // next one, whose eras are remembered, once its one process per server is all that runs.
      const first = start(box, false, extraEnv);
      try {
        await first.until("settled", 120_000);
        await onePerServer();
      } finally {
        await first.stop();
      }
      await settle();
    }
    const run = start(box, emptyWindow, extraEnv);
    try {
      await run.until(emptyWindow ? "ready" : "settled", 120_000);
      if (!emptyWindow) await onePerServer();
      await new Promise((r) => setTimeout(r, 5_000));
      return { pss: pss(appProcess(run)), servers: serverCount() };
    } finally {
      await run.stop();
    }
  } finally {
    rmSync(box.dir, { recursive: true, force: true });
  }
}

console.log(`binary: ${app}`);
// BENCH_ONLY=start or BENCH_ONLY=memory measures one of the two.
const only = process.env.BENCH_ONLY ?? "";
if (only !== "memory") {
const [emptyStart, appStart, freshStart] = await coldStarts();
console.log(`cold start, median of ${RUNS} after a warm-up run, the three in turn (the empty window's runs: ${emptyStart.map(ms).join(", ")}; MCP Manager's: ${appStart.map(ms).join(", ")}; with nothing kept: ${freshStart.map(ms).join(", ")}):`);
console.log(`  empty Tauri window   ${ms(median(emptyStart))}`);
console.log(`  MCP Manager, 20 servers configured   ${ms(median(appStart))}   = ${(median(appStart) / median(emptyStart)).toFixed(2)}x (goal: 1.2x or less)`);
console.log(`  MCP Manager with nothing kept from its last start (the first start, or a changed list)   ${ms(median(freshStart))}   = ${(median(freshStart) / median(emptyStart)).toFixed(2)}x`);
console.log(`where the time goes (medians; exec→main from the benchmark's clock, the rest in ms since main):`);
const order = (b) => Object.entries(b).sort((x, y) => x[1] - y[1]);
console.log(`  empty Tauri window: ${order(emptyStart.breakdown).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ")}`);
console.log(`  MCP Manager:        ${order(appStart.breakdown).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ")}`);
console.log(`  nothing kept:       ${order(freshStart.breakdown).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ")}`);
console.log(`  the list painted from the markup kept by the last start in ${appStart.breakdowns.filter((b) => "kept-markup" in b).length} of ${appStart.breakdowns.length} of MCP Manager's runs`);
// The page waits for its stylesheet when it came after the script (ui/src/shared/stylesheets.ts).
console.log(`  the stylesheet came after the page's script in ${freshStart.breakdowns.filter((b) => "styles-awaited" in b).length} of ${freshStart.breakdowns.length} of the runs with nothing kept`);
}
if (only !== "start") {
const empty = await idleMemory(true);
// The app paints in software (src-tauri/launch.rs); the same setting on the empty window shows
// what is left of the difference once that choice is taken out.
const emptySoftware = await idleMemory(true, { WEBKIT_DISABLE_COMPOSITING_MODE: "1" });
const full = await idleMemory(false);
const times = (a, b) => `${(a / b).toFixed(2)}x`;
console.log(`memory, PSS of the app and its WebKit processes, idle, servers excluded:`);
console.log(`  empty Tauri window (Tauri's defaults)   ${mib(empty.pss)}`);
console.log(`  empty Tauri window painting in software, as the app does   ${mib(emptySoftware.pss)}`);
console.log(`  MCP Manager, ${full.servers} servers connected   ${mib(full.pss)}`);
console.log(`    = ${times(full.pss, empty.pss)} the empty window (goal: 1.2x or less)`);
console.log(`    = ${times(full.pss, emptySoftware.pss)} the empty window painting in software`);
}
