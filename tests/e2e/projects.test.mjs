// End-to-end: picking the project the window shows (from the projects Claude Code knows, and
// through the system's folder dialog), and moving through servers with the keyboard. Opening
// another project stops the first project's servers before the second's start.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { everything, eventually, launch, sandbox, screenshot, serverPids, sessionPid, waitForState } from "./harness.mjs";

let box;
let session;
let browser;
let other;

const server = (name) => ({ type: "stdio", command: "node", args: [everything, "stdio"], env: { MCP_E2E_SERVER: name } });

before(async () => {
  box = sandbox();
  writeFileSync(join(box.project, ".mcp.json"), JSON.stringify({ mcpServers: {} }));
  other = join(box.dir, "other-project");
  mkdirSync(join(other, ".git"), { recursive: true });
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      projects: {
        [box.project]: { mcpServers: { "first-a": server("first-a"), "first-b": server("first-b") } },
        [other]: { mcpServers: { "second-a": server("second-a") } },
      },
    }),
  );
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

async function openMenu() {
  const picker = browser.$('[data-testid="project-picker"]');
  if ((await picker.getAttribute("aria-expanded")) !== "true") await picker.click();
  await browser.$('[data-testid="project-menu"]').waitForExist({ timeout: 5_000 });
  // Claude Code's list is read as the menu opens, and the menu says so until it is.
  await browser.$('[data-testid="recent-projects-reading"]').waitForExist({ reverse: true, timeout: 5_000 });
}

test("arrow keys move through the servers and Enter opens one", async () => {
  await waitForState(browser, "first-a", "local", "connected");
  const rows = await browser.$$('[data-testid="server-open"]');
  await rows[0].click();
  await browser.keys(["ArrowDown"]);
  await browser.keys(["Enter"]);
  const detail = browser.$('[data-testid="server-detail"]');
  await browser.waitUntil(async () => (await detail.getAttribute("data-server-name")) === "first-b", {
    timeout: 5_000,
    timeoutMsg: "the second server's detail opens",
  });
});

test("the projects Claude Code knows are offered, and opening one swaps the servers", async () => {
  await openMenu();
  const offered = [];
  for (const item of await browser.$$('[data-testid="recent-project"]')) {
    offered.push([await item.getAttribute("data-path"), await item.isEnabled()]);
  }
  assert.deepEqual(offered, [[box.project, false], [other, true]], "both projects, the open one not clickable");
  await screenshot(browser, "project-picker");
  await browser.$(`[data-testid="recent-project"][data-path="${other}"]`).click();
  await waitForState(browser, "second-a", "local", "connected");
  assert.equal(await browser.$('[data-testid="project-dir"]').getProperty("textContent"), other);
  assert.equal((await browser.$$('[data-testid="server-row"]')).length, 1, "only the second project's servers");
  await eventually(
    () => serverPids(box, "first-a").length === 0 && serverPids(box, "first-b").length === 0,
    "the first project's servers stop",
  );
  assert.ok(await sessionPid(box, "second-a"), "one process runs it");
});

test("Choose a folder opens the system's folder dialog, and cancelling it changes nothing", async () => {
  const before = await browser.$('[data-testid="project-dir"]').getProperty("textContent");
  await openMenu();
  await browser.$('[data-testid="choose-folder"]').click();
  // The GTK folder chooser is a window of its own, outside the webview.
  const env = { ...process.env };
  const dialog = await eventually(() => {
    const search = spawnSync("xdotool", ["search", "--onlyvisible", "--name", "Open a project folder"], { env, encoding: "utf8" });
    return search.stdout.trim().split("\n").filter(Boolean)[0];
  }, "the folder dialog opens", 15_000);
  // No window manager under Xvfb: give the dialog the keyboard focus, then press Escape.
  spawnSync("xdotool", ["windowfocus", "--sync", dialog], { env });
  spawnSync("xdotool", ["key", "Escape"], { env });
  await eventually(() => {
    const search = spawnSync("xdotool", ["search", "--onlyvisible", "--name", "Open a project folder"], { env, encoding: "utf8" });
    return search.stdout.trim() === "";
  }, "Escape closes the dialog");
  assert.equal(await browser.$('[data-testid="project-dir"]').getProperty("textContent"), before);
  assert.equal(await browser.$('[data-testid="project-error"]').isExisting(), false, "a cancel is no error");
});
