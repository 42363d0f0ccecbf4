// The end-to-end harness: the real `mcp-manager` binary in its real window (WebKitGTK under
// Xvfb), driven through tauri-driver and Debian's WebKitWebDriver. Each test file launches the
// app once with its own HOME, XDG folders and project, so it never reads the machine's real
// configuration, and its own private D-Bus session, which ends with it.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { remote } from "webdriverio";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const targetDir = process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, "target");
/** The app under test: the debug build, or what MCP_E2E_APP names (the installed package's). */
export const application = process.env.MCP_E2E_APP ?? join(targetDir, "debug", "mcp-manager");
export const mcpctl = process.env.MCP_E2E_MCPCTL ?? join(targetDir, "debug", "mcpctl");
export const artifacts = join(root, "tests", "e2e", "artifacts");
/** crates/connect/examples/task-server.rs (the tasks extension on rmcp's server side), built by `cargo test`. */
export const taskServer = join(targetDir, "debug", "examples", "task-server");
/** server-everything's entry point, run with `node`. */
export const everything = join(root, "tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const driverPort = Number(process.env.TAURI_DRIVER_PORT ?? 4444);
/**
 * The driver process groups this file started and has not ended. The test runner ends a file
 * that runs out of time with SIGTERM, which skips every `after` hook: the groups (driver, app,
 * its servers, the private bus) are then killed here, or they would hold the driver's port
 * for every later file and the run's output open after it.
 */
const drivers = new Set();
/** The sandboxes launched in: what left the groups (a server in a session of its own) carries their marker. */
const launched = new Set();
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.once(signal, () => {
    const pids = [...drivers].map((driver) => -driver.pid);
    for (const box of launched) pids.push(...sandboxProcesses(box).map((found) => found.pid));
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    process.exit(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal]);
  });
}
/** The session of this test file (one per file), for helpers that type keys. */
let current;
/** The sandbox of the app launched last, to find its window. */
let currentBox;

export function waitForPort(port, deadlineMs, log = () => "") {
  const start = Date.now();
  return new Promise((resolvePort, reject) => {
    const attempt = () => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.end();
        resolvePort();
      });
      socket.on("error", () => {
        if (Date.now() - start > deadlineMs) reject(new Error(`nothing listened on ${port}:\n${log()}`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port) {
  return new Promise((resolvePort) => {
    const socket = createConnection({ host: "127.0.0.1", port }, () => {
      socket.end();
      resolvePort(true);
    });
    socket.on("error", () => resolvePort(false));
  });
}

/** A fresh sandbox: `home/` and `project/` (a git root), both real paths. */
export function sandbox() {
  // scripts/test keeps every sandbox of the run (MCP_E2E_KEEP_SANDBOXES) to search them for
  // tokens at the end.
  const kept = process.env.MCP_E2E_KEEP_SANDBOXES;
  if (kept) mkdirSync(kept, { recursive: true });
  const dir = realpathSync(mkdtempSync(join(kept || tmpdir(), "mcp-manager-e2e-")));
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  return { dir, home, project };
}

/** The environment the app (and whatever it starts) runs with. */
export function sandboxEnv(box, runtimeDir) {
  const env = {
    ...process.env,
    XDG_RUNTIME_DIR: runtimeDir,
    HOME: box.home,
    XDG_CONFIG_HOME: join(box.home, ".config"),
    XDG_DATA_HOME: join(box.home, ".local/share"),
    XDG_CACHE_HOME: join(box.home, ".cache"),
    XDG_STATE_HOME: join(box.home, ".local/state"),
    // Every process the app starts inherits this; the tests find them by it in /proc.
    MCP_E2E_SANDBOX: box.dir,
    // No test asks the public registry (this machine cannot reach it): a test that needs one
    // starts tests/fixtures/registry and names it.
    MCP_MANAGER_REGISTRY: "http://127.0.0.1:9",
  };
  delete env.CLAUDE_CONFIG_DIR;
  return env;
}

/**
 * Starts tauri-driver and the app on `box.project` (with `extraEnv`, and `args` in place of
 * `--project box.project` when given); returns the session and a way to end it.
 */
export async function launch(box, extraEnv = {}, { args = ["--project", box.project], desktop = null } = {}) {
  assert.ok(existsSync(application), `${application} must be built first (scripts/test builds it)`);
  // WebKit's helpers (xdg-document-portal) mount a FUSE file system under XDG_RUNTIME_DIR;
  // keep it out of the folder deleted afterwards.
  const runtimeDir = mkdtempSync(join(tmpdir(), "mcp-manager-e2e-run-"));
  const env = { ...sandboxEnv(box, runtimeDir), ...extraEnv };
  let log = "";
  // A private session bus, so that whatever WebKit activates on it (portals, a11y) runs with
  // the sandbox's HOME and ends with the test, with a real, unlocked gnome-keyring of its own
  // on it (scripts/with-keychain) for the app's tokens. `detached` puts it all in one
  // process group, which `close` ends as a whole.
  // `desktop`: a log file; the bus then has a desktop's tray and notification services on it
  // too (tests/fixtures/desktop-bus.py), which record into it.
  const withDesktop = desktop ? ["/usr/bin/python3", join(root, "tests/fixtures/desktop-bus.py"), "serve", desktop, "--"] : [];
  const driver = spawn(
    "dbus-run-session",
    [
      "--",
      ...withDesktop,
      "env",
      "MCP_MANAGER_PRIVATE_BUS=1",
      join(root, "scripts/with-keychain"),
      "tauri-driver",
      "--port",
      String(driverPort),
      "--native-port",
      String(driverPort + 1),
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  drivers.add(driver);
  launched.add(box);
  driver.once("exit", () => drivers.delete(driver));
  driver.stdout.on("data", (chunk) => (log += chunk));
  driver.stderr.on("data", (chunk) => (log += chunk));
  // tauri-driver starts WebKitWebDriver beside its own server and does not wait for it: a
  // session asked for before WebKitWebDriver listens fails ("tcp connect error", stop 35's CI,
  // on the first launch of a cold machine). Both must listen first.
  await waitForPort(driverPort, 15_000, () => log);
  await waitForPort(driverPort + 1, 15_000, () => log);
  const connect = () =>
    remote({
      hostname: "127.0.0.1",
      port: driverPort,
      logLevel: process.env.MCP_E2E_WDIO_LOG ?? "warn",
      connectionRetryCount: 0,
      // A command WebKitWebDriver never answers fails the test that sent it, by name, well
      // inside the file's time (webdriverio would wait 120 s, the whole file's budget).
      connectionRetryTimeout: 45_000,
      capabilities: {
        // WebKitWebDriver speaks classic WebDriver only; without this webdriverio 9 asks for
        // BiDi (webSocketUrl) and no capabilities match.
        "wdio:enforceWebDriverClassic": true,
        "tauri:options": { application, args },
      },
    });
  // Right after an earlier session (a restart of the app), the driver may reset the first
  // connection while WebKitWebDriver of the last session lets go of its port: once more.
  const browser = await connect()
    .catch(async (error) => {
      if (!String(error?.message).includes("ECONNRESET")) throw error;
      await new Promise((r) => setTimeout(r, 2_000));
      return connect();
    })
    .catch((error) => {
      // No session: the driver (and whatever it started) must not outlive this launch, or it
      // holds the port every later launch needs.
      try {
        process.kill(-driver.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
      throw new Error(`${error.message}\n${log}`);
    });
  current = browser;
  currentBox = box;
  let closed = false;
  const session = {
    browser,
    env,
    log: () => log,
    /**
     * Ends the app as the desktop does at logout (SIGTERM: it shuts its servers down and
     * saves its window's state), then the driver; idempotent.
     */
    async quit() {
      if (closed) return;
      closed = true;
      // WebDriver's end of session kills the app outright; let it leave on its own first.
      const apps = appProcesses(box);
      for (const app of apps) {
        try {
          process.kill(app.pid, "SIGTERM");
        } catch {
          // Already gone.
        }
      }
      await eventually(() => apps.every((app) => !alive(app.pid)), "the app leaves on SIGTERM", 15_000).catch((error) =>
        console.warn(error.message),
      );
      await browser.deleteSession().catch(() => {});
      if (driver.exitCode === null) {
        const exited = new Promise((done) => driver.once("exit", done));
        process.kill(-driver.pid, "SIGTERM");
        await exited;
      }
      // The next session's driver needs both ports.
      for (const port of [driverPort, driverPort + 1]) {
        await eventually(async () => !(await listening(port)), `port ${port} is free again`, 10_000).catch((error) =>
          console.warn(error.message),
        );
      }
    },
    /** `quit`, then removes the sandbox. Best effort: a slow helper must not fail a run. */
    async close() {
      await session.quit();
      for (const dir of process.env.MCP_E2E_KEEP_SANDBOXES ? [runtimeDir] : [box.dir, runtimeDir]) {
        spawnSync("fusermount", ["-uz", join(dir, "doc")], { stdio: "ignore" });
        try {
          rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
        } catch (error) {
          console.warn(`could not remove ${dir}: ${error.message}`);
        }
      }
    },
  };
  return session;
}

/** Processes whose environment carries this sandbox's marker (the app's servers), by pid. */
export function sandboxProcesses(box, more = "") {
  const found = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
      if (!environ.includes(`MCP_E2E_SANDBOX=${box.dir}`)) continue;
      if (more && !environ.includes(more)) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
      found.push({ pid: Number(pid), cmdline });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** The app's own processes in this sandbox (not its WebKit helpers, not its servers). */
export function appProcesses(box) {
  return sandboxProcesses(box).filter((p) => p.cmdline.split(" ")[0] === application);
}

/** Whether a process runs (a zombie waiting for its parent does not). */
export function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** The pids of the server processes started with `MCP_E2E_SERVER=<name>` in their env. */
export function serverPids(box, name) {
  return sandboxProcesses(box, `MCP_E2E_SERVER=${name}`)
    .filter((p) => !p.cmdline.includes("mcp-manager"))
    .map((p) => p.pid);
}

/**
 * The one process of a server's session, once no other runs it: a first start asks
 * server/discover of a second process beside the session, which ends once it answered.
 */
export async function sessionPid(box, name) {
  return eventually(() => {
    const pids = serverPids(box, name);
    return pids.length === 1 && pids[0];
  }, `${name} runs in one process`);
}

/** Waits until `check` returns a truthy value, or fails with `message`. */
export async function eventually(check, message, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${message} (last seen: ${JSON.stringify(last)})`);
}

/** The row of a server in a scope. */
export function row(browser, name, scope) {
  return browser.$(`[data-testid="server-row"][data-server-name="${name}"][data-scope="${scope}"]`);
}

/** Waits for a row to show a state (connected, failed, pending, needs-auth, disabled). */
export async function waitForState(browser, name, scope, state, timeout = 30_000) {
  const element = row(browser, name, scope);
  await element.waitForExist({ timeout, timeoutMsg: `${scope}:${name} never appeared` });
  let seen;
  try {
    await browser.waitUntil(async () => (seen = await element.getAttribute("data-state")) === state, { timeout });
  } catch {
    // What the window says at the end, to tell why: the row's state and every alert shown.
    const alerts = await browser.$$('[role="alert"]').map((alert) => alert.getText()).catch(() => []);
    await screenshot(browser, `failed-state-${scope}-${name}`).catch(() => {});
    throw new Error(`${scope}:${name} never reached ${state} in ${timeout} ms (it is ${seen}); alerts: ${JSON.stringify(alerts)}`);
  }
  return element;
}

/** Opens a server's detail pane by clicking its row. */
export async function open(browser, name, scope) {
  await row(browser, name, scope).$('[data-testid="server-open"]').click();
  const detail = browser.$(`[data-testid="server-detail"][data-server-name="${name}"][data-scope="${scope}"]`);
  await detail.waitForExist({ timeout: 5_000 }).catch(async (error) => {
    await screenshot(browser, `failed-open-${scope}-${name}`);
    throw error;
  });
  return detail;
}

/**
 * Clicks an element once it has stopped moving. WebDriver finds where an element is and then
 * clicks there; a page still laying out (a tool's result arriving beside an App's consent)
 * can move it in between, and the click lands on whatever is there instead, silently.
 */
export async function press(element, timeoutMs = 10_000) {
  await element.waitForDisplayed({ timeout: timeoutMs });
  const where = async () => JSON.stringify([await element.getLocation(), await element.getSize()]);
  let last = await where();
  await eventually(async () => {
    await new Promise((r) => setTimeout(r, 100));
    const now = await where();
    const steady = now === last;
    last = now;
    return steady;
  }, "the element kept moving", timeoutMs);
  await element.click();
}

/**
 * Replaces an input's value as a person does: select all, delete, type. (WebDriver's
 * clear sets the value without the input events React listens to.)
 */
export async function type(element, text) {
  await element.waitForDisplayed({ timeout: 10_000 });
  await element.click();
  await current.keys(["Control", "a"]);
  await current.keys(["Backspace"]);
  if (text !== "") await element.addValue(text);
}

/**
 * Saves what the X server shows of the app's window to `path`, as a person sees it. (The app
 * paints in software, where WebKitWebDriver's own screenshot never answers.)
 */
export function captureWindow(path) {
  const apps = appProcesses(currentBox);
  assert.ok(apps.length > 0, "the app runs");
  let best;
  for (const app of apps) {
    const ids = spawnSync("xdotool", ["search", "--onlyvisible", "--pid", String(app.pid)], { encoding: "utf8" }).stdout;
    for (const id of ids.split("\n").filter(Boolean)) {
      const geometry = spawnSync("xdotool", ["getwindowgeometry", id], { encoding: "utf8" }).stdout;
      const [width, height] = (/Geometry: (\d+)x(\d+)/.exec(geometry) ?? [0, 0, 0]).slice(1).map(Number);
      if (!best || width * height > best.area) best = { id, area: width * height };
    }
  }
  assert.ok(best, "the app has a visible window");
  const capture = spawnSync("import", ["-window", best.id, path], { encoding: "utf8" });
  assert.equal(capture.status, 0, `import failed: ${capture.stderr}`);
}

/**
 * Saves a screenshot under artifacts/ (after WebKit has painted the last change); with
 * UPDATE_SCREENSHOT=1 also as the README's copy in docs/screens/.
 */
export async function screenshot(browser, name) {
  mkdirSync(artifacts, { recursive: true });
  await new Promise((r) => setTimeout(r, 300));
  const path = join(artifacts, `${name}.png`);
  captureWindow(path);
  if (process.env.UPDATE_SCREENSHOT) {
    const docs = join(root, "docs", "screens");
    mkdirSync(docs, { recursive: true });
    copyFileSync(path, join(docs, `${name}.png`));
  }
  return path;
}

/** The perceived lightness (0 to 1) of a computed CSS colour, oklch or rgb. */
export function lightness(color) {
  const oklch = /oklch\(([\d.]+)/.exec(color);
  if (oklch) return Number(oklch[1]);
  const [r, g, b] = (color.match(/[\d.]+/g) ?? []).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

