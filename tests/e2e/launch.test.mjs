// End-to-end: how the app starts. A second `mcp-manager --project DIR` hands its project to
// the running window instead of starting a second supervisor over the same servers; the
// window comes back with its size, position and last project, and `--project` wins over the
// remembered project.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { application, appProcesses, everything, eventually, launch, sandbox, sandboxProcesses, serverPids, sessionPid, waitForState } from "./harness.mjs";

let box;
let other;
let session;

const server = (name) => ({ type: "stdio", command: "node", args: [everything, "stdio"], env: { MCP_E2E_SERVER: name } });

before(() => {
  box = sandbox();
  other = join(box.dir, "other");
  mkdirSync(join(other, ".git"), { recursive: true });
  // Local-scope servers start without approval, so a second supervisor would show as a
  // second process of the same server.
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      projects: {
        [box.project]: { mcpServers: { "first-server": server("first-server") } },
        [other]: { mcpServers: { "other-server": server("other-server") } },
      },
    }),
  );
});

after(async () => {
  await session?.close();
});

async function projectShown(browser) {
  // Found and read in one script, never through an element handle: opening a project draws
  // the header again, and WebKitWebDriver can fail even to *find* an element (stale node
  // handle) while that happens. Seen once in CI (stop 34).
  const read = () => browser.execute(() => document.querySelector('[data-testid="project-dir"]')?.textContent ?? null);
  return eventually(read, "the window shows a project");
}


/** Runs `mcp-manager ARGS` as a person would from a terminal in `cwd`, on the app's own bus. */
function secondLaunch(args, cwd) {
  const [app] = appProcesses(box);
  assert.ok(app, "the first app runs");
  const environ = readFileSync(`/proc/${app.pid}/environ`, "latin1").split("\0");
  const bus = environ.find((v) => v.startsWith("DBUS_SESSION_BUS_ADDRESS="));
  assert.ok(bus, "the app runs on a session bus");
  const started = Date.now();
  const result = spawnSync(application, args, {
    cwd,
    env: { ...session.env, DBUS_SESSION_BUS_ADDRESS: bus.slice("DBUS_SESSION_BUS_ADDRESS=".length) },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { ...result, ms: Date.now() - started };
}

test("a second launch hands its project to the running window and exits", async () => {
  session = await launch(box);
  const { browser } = session;
  assert.equal(await projectShown(browser), box.project);
  await waitForState(browser, "first-server", "local", "connected");

  // What the app sets for its own WebKit (painting in software, no optimizing JavaScript
  // compilers) reaches the web process it starts, and not the server it started.
  const environ = (pid) => readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
  const own = ["WEBKIT_DISABLE_COMPOSITING_MODE=1", "JSC_useDFGJIT=false"];
  const web = sandboxProcesses(box).find((p) => p.cmdline.includes("WebKitWebProcess"));
  assert.ok(web, "the web process runs");
  for (const setting of own) assert.ok(environ(web.pid).includes(setting), `the web process runs with ${setting}`);
  const served = environ(await sessionPid(box, "first-server"));
  assert.ok(served.includes("MCP_E2E_SERVER=first-server"), "the server's own env is there");
  for (const setting of own) {
    const name = setting.split("=")[0];
    assert.equal(served.find((v) => v.startsWith(`${name}=`)), undefined, `${name} does not reach the server`);
  }

  // Relative to the folder it was started in, as a shell would mean it.
  const second = secondLaunch(["--project", "other"], box.dir);
  assert.equal(second.status, 0, `the second launch exits cleanly: ${second.stderr}`);
  assert.equal(appProcesses(box).length, 1, "no second app keeps running");

  await eventually(async () => (await projectShown(browser)) === other, "the running window opens the second launch's project");
  await waitForState(browser, "other-server", "local", "connected");
  await eventually(() => serverPids(box, "first-server").length === 0, "the first project's server is stopped");
  assert.ok(await sessionPid(box, "other-server"), "one supervisor: the server runs once");

  // Without --project, a second launch only brings the window forward.
  const bare = secondLaunch([], box.project);
  assert.equal(bare.status, 0, bare.stderr);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await projectShown(browser), other, "a bare second launch changes nothing");
  assert.equal(serverPids(box, "other-server").length, 1, "and restarts nothing");

  // A folder that does not exist is said by the launch that was given it.
  const wrong = secondLaunch(["--project", join(box.dir, "no-such-folder")], box.dir);
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /no-such-folder/);
  assert.equal(await projectShown(browser), other);
});

test("the window comes back with its size, position and last project; --project wins", async () => {
  const { browser } = session;
  await browser.setWindowRect(40, 30, 900, 620);
  await eventually(async () => {
    const rect = await browser.getWindowRect();
    return rect.width === 900 && rect.height === 620 && rect.x === 40 && rect.y === 30;
  }, "the window takes the size and position asked");
  await session.quit();
  assert.equal(appProcesses(box).length, 0, "the app has left");
  const stateFile = join(box.home, ".config/dev.mcp-manager.app/.window-state.json");
  assert.ok(existsSync(stateFile), "the window's state is kept in the app's config folder");

  // Started from the menu: no --project, and the home folder as the current folder.
  session = await launch(box, {}, { args: [] });
  let browser2 = session.browser;
  assert.equal(await projectShown(browser2), other, "the last project opens again");
  const rect = await browser2.getWindowRect();
  assert.deepEqual([rect.x, rect.y, rect.width, rect.height], [40, 30, 900, 620], "same place, same size");
  // The first list came in the page (src-tauri/first_list.rs), so it was not asked for over
  // IPC, and it was the last project's, not the one the app was started with.
  const firstList = () =>
    browser2.execute(() => ({
      embedded: performance.getEntriesByName("list-embedded").length,
      asked: performance.getEntriesByName("list-asked").length,
      rows: [...document.querySelectorAll('[data-testid="server-row"]')].map((row) => row.dataset.serverName),
    }));
  const listShown = (what) => eventually(async () => ((await firstList()).rows.length > 0 ? firstList() : null), what);
  assert.deepEqual(await listShown("the list of servers is shown"), { embedded: 1, asked: 0, rows: ["other-server"] });
  // A reloaded page asks over IPC: the window's script still holds the list it was opened with.
  await browser2.refresh();
  assert.deepEqual(await listShown("the reloaded page shows the list"), { embedded: 0, asked: 1, rows: ["other-server"] });
  await session.quit();

  session = await launch(box);
  browser2 = session.browser;
  assert.equal(await projectShown(browser2), box.project, "--project wins over the remembered one");
});
