// The Debian package, as a person installs it: `dpkg -i` the .deb that scripts/package built
// (MCP_E2E_DEB), check what it holds and that what its binaries link comes from its
// dependencies, start the installed /usr/bin/mcp-manager in its real window on a fixture
// project, run the installed mcpctl, then remove the package and check that nothing of it is
// left but the person's own files.
//
// Run by scripts/test-package (not by `npm test`: it installs a package on the machine). It
// needs root; run as the runner sets it up (MCP_E2E_APP=/usr/bin/mcp-manager).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { application, appProcesses, eventually, launch, root, sandbox, screenshot } from "./harness.mjs";

const deb = process.env.MCP_E2E_DEB;
const installedApp = "/usr/bin/mcp-manager";
const installedCli = "/usr/bin/mcpctl";
const hicolorSizes = [16, 24, 32, 48, 64, 128, 256, 512];

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", ...options });
  assert.equal(result.status, 0, `${command} ${args.join(" ")} failed: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

const packageName = () => run("dpkg-deb", ["-f", deb, "Package"]).trim();

/** The paths the .deb installs (files and folders), without the leading ".". */
function contents() {
  // Lines as `tar tv` prints them: mode, owner, size, date, time, then the path.
  const paths = run("dpkg-deb", ["-c", deb])
    .split("\n")
    .filter(Boolean)
    .map((line) => `/${line.split(/\s+/).slice(5).join(" ").replace(/^\.?\//, "").replace(/\/$/, "")}`)
    .filter((path) => path !== "/");
  assert.ok(paths.includes(installedApp), `the listing was read: ${paths.join(", ")}`);
  return paths;
}

let box;
let session;
let existedBefore;

before(() => {
  assert.ok(deb && existsSync(deb), "MCP_E2E_DEB names the .deb to install");
  assert.equal(application, installedApp, "the harness drives the installed app (MCP_E2E_APP)");
  assert.equal(process.getuid(), 0, "installing a package needs root");
  const installed = spawnSync("dpkg-query", ["-W", "-f=${Status}", packageName()], { encoding: "utf8" });
  // "install ok installed" (not "unknown ok not-installed", a package dpkg once knew).
  assert.ok(!/ installed$/.test(installed.stdout.trim()), `${packageName()} is already installed on this machine: remove it first`);
  existedBefore = new Set(contents().filter((path) => existsSync(path)));
  box = sandbox();
  cpSync(join(root, "tests/fixtures/project"), box.project, { recursive: true });
  const template = readFileSync(join(root, "tests/fixtures/home/claude.json.template"), "utf8");
  writeFileSync(join(box.home, ".claude.json"), template.replace("@PROJECT@", box.project));
});

after(async () => {
  await session?.close();
  // Whatever happened, the machine is left as it was found.
  spawnSync("dpkg", ["--purge", packageName()], { stdio: "ignore" });
});

test("the package holds both binaries, the desktop entry and the icons in every hicolor size", () => {
  const paths = contents();
  for (const path of [installedApp, installedCli, "/usr/share/applications/MCP Manager.desktop"]) {
    assert.ok(paths.includes(path), `${path} is in the package: ${paths.join(", ")}`);
  }
  for (const size of hicolorSizes) {
    const icon = `/usr/share/icons/hicolor/${size}x${size}/apps/mcp-manager.png`;
    assert.ok(paths.includes(icon), `${icon} is in the package`);
  }
  const fields = run("dpkg-deb", ["-f", deb, "Depends", "Recommends", "Section"]);
  assert.match(fields, /libwebkit2gtk-4\.1-0/);
  assert.match(fields, /libc6 \(>= /, "versions come from dpkg-shlibdeps");
  assert.match(fields, /Recommends: .*gnome-keyring/);
});

test("dpkg installs it with its dependencies satisfied", () => {
  run("dpkg", ["-i", deb]);
  assert.match(run("dpkg-query", ["-W", "-f=${Status}", packageName()]), /install ok installed/);
  run("apt-get", ["check", "-qq"]);
  assert.equal(run("dpkg", ["--audit"]).trim(), "", "dpkg finds nothing half-installed");
});

/** The installed packages `name` depends on, through every level (alternatives included). */
function dependencyClosure(name) {
  const seen = new Set();
  const queue = [name];
  while (queue.length) {
    const next = queue.pop();
    if (seen.has(next)) continue;
    seen.add(next);
    const query = spawnSync("dpkg-query", ["-W", "-f=${Depends}, ${Pre-Depends}", next], { encoding: "utf8" });
    if (query.status !== 0) continue; // a virtual package or an alternative not installed
    for (const alternative of query.stdout.split(/[,|]/)) {
      const dependency = alternative.trim().split(/[\s(]/)[0].replace(/:any$/, "");
      if (dependency) queue.push(dependency);
    }
  }
  return seen;
}

test("every library the installed binaries load comes from the package's dependencies", () => {
  const closure = dependencyClosure(packageName());
  const libraries = new Set();
  for (const binary of [installedApp, installedCli]) {
    for (const line of run("ldd", [binary]).split("\n")) {
      const resolved = /=>\s+(\/\S+)/.exec(line)?.[1];
      assert.ok(!line.includes("not found"), `${binary}: ${line.trim()}`);
      if (resolved) libraries.add(resolved);
    }
  }
  assert.ok(libraries.size > 20, `ldd resolved the libraries (${libraries.size})`);
  const missing = [];
  for (const library of libraries) {
    // With merged /usr, dpkg knows a library under one of /lib and /usr/lib.
    const variants = [library, library.startsWith("/usr/") ? library.slice(4) : `/usr${library}`];
    const owner = variants
      .map((path) => spawnSync("dpkg", ["-S", path], { encoding: "utf8" }))
      .find((result) => result.status === 0);
    if (!owner) {
      missing.push(`${library} (no package owns it)`);
      continue;
    }
    const packages = owner.stdout.split(": ")[0];
    if (!packages.split(", ").some((p) => closure.has(p.replace(/:.*$/, "")))) missing.push(`${library} (${packages})`);
  }
  assert.deepEqual(missing, [], "libraries whose package no dependency brings");
});

test("the desktop entry is valid and names the window it opens", () => {
  const entry = "/usr/share/applications/MCP Manager.desktop";
  const validation = spawnSync("desktop-file-validate", [entry], { encoding: "utf8" });
  assert.equal(validation.stdout.split("\n").filter((l) => l.includes("error")).join("\n"), "", "no validation errors");
  const text = readFileSync(entry, "utf8");
  assert.match(text, /^Exec=mcp-manager$/m);
  assert.match(text, /^Icon=mcp-manager$/m);
  assert.match(text, /^Name=MCP Manager$/m);
  assert.match(text, /^Categories=Development;/m);
  assert.match(text, /^StartupWMClass=mcp-manager$/m);
});

test("the installed app opens the project in its window, under the class its desktop entry names", async () => {
  session = await launch(box);
  const { browser } = session;
  await browser.$('[data-testid="server-row"]').waitForExist({ timeout: 20_000 });
  const rows = await browser.$$('[data-testid="server-row"]');
  const names = [];
  for (const row of rows) names.push(await row.getAttribute("data-server-name"));
  assert.ok(names.includes("everything") && names.includes("legacy-sse"), `the fixture's servers are listed: ${names}`);
  assert.equal(await browser.$('[data-testid="project-dir"]').getProperty("textContent"), box.project);
  await screenshot(browser, "installed");

  const [app] = appProcesses(box);
  assert.ok(app, "the installed binary runs");
  const windows = await eventually(() => {
    const found = spawnSync("xdotool", ["search", "--pid", String(app.pid)], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
    return found.length ? found : null;
  }, "the app's X window");
  const classes = windows.map((id) => run("xprop", ["-id", id, "WM_CLASS"]));
  assert.ok(
    classes.some((c) => /"mcp-manager"/.test(c)),
    `a window's WM_CLASS matches StartupWMClass=mcp-manager: ${classes.join(" / ")}`,
  );
});

test("the installed mcpctl reports its version and lists the project's servers", () => {
  const version = run(installedCli, ["--version"]);
  assert.match(version, /^mcpctl \d+\.\d+\.\d+/);
  const list = run(installedCli, ["list"], { cwd: box.project, env: session.env });
  for (const name of ["everything", "docs-http", "legacy-sse"]) assert.match(list, new RegExp(name));
});

test("the installed app's start at login is switched on and off: an XDG autostart entry of the installed program", () => {
  const entry = join(box.home, ".config/autostart/dev.mcp-manager.app.desktop");
  const on = run(installedApp, ["--autostart", "on"], { env: session.env });
  assert.match(on, /starts, in the tray, at login/);
  const text = readFileSync(entry, "utf8");
  assert.match(text, /\nExec=\/usr\/bin\/mcp-manager --background\n/);
  assert.equal(run("desktop-file-validate", [entry]).trim(), "", "a valid desktop entry");
  run(installedApp, ["--autostart", "off"], { env: session.env });
  assert.ok(!existsSync(entry), "switched off, the entry is gone");
});

test("removing the package leaves nothing of it but the person's own files", async () => {
  await session.quit();
  const mine = [
    join(box.home, ".claude.json"),
    join(box.project, ".mcp.json"),
    join(box.home, ".local/share/dev.mcp-manager.app/last-project.json"),
    join(box.home, ".config/dev.mcp-manager.app/.window-state.json"),
  ];
  for (const file of mine) assert.ok(existsSync(file), `${file} exists before removal`);
  const before = mine.map((file) => readFileSync(file, "utf8"));

  run("dpkg", ["--purge", packageName()]);
  const left = contents().filter((path) => !existedBefore.has(path) && existsSync(path));
  assert.deepEqual(left, [], "paths the package brought that are still there");
  assert.ok(!existsSync(installedApp) && !existsSync(installedCli));
  const status = spawnSync("dpkg-query", ["-W", "-f=${Status}", packageName()], { encoding: "utf8" });
  assert.ok(!/ installed$/.test(status.stdout.trim()), `dpkg forgot it: ${status.stdout}`);
  assert.deepEqual(
    mine.map((file) => readFileSync(file, "utf8")),
    before,
    "the person's configuration, last project and window state are untouched",
  );
  assert.ok(statSync(box.home).isDirectory());
});
