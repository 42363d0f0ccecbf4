// End-to-end: the window's first frame kept from the last start (src-tauri/kept_paint.rs,
// ui/src/start/keptFrame.ts, ui/src/start/keptPaint.ts). The first start keeps its first list,
// as data (elements, attributes, text), in the app's cache folder; the next start with the same
// list is served its markup, written by the app, in its page, and paints it
// before the page's script runs; the script then makes the same rows live. A list changed
// between starts is not painted from the old markup, a server's name in the markup stays
// text, and a kept file someone made to run a script is never served, nor one that would hide
// the rest of the page (an unterminated comment). The window never leaves its own page.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { eventually, launch, open, sandbox, screenshot } from "./harness.mjs";

let box;
let session;
// A name that would close the row's markup and add an image whose error runs a script, were it
// ever read as markup rather than text. It is never started (a command that is not installed).
const HOSTILE = '</div><img src="x" onerror="window.__pwned = 1">';
const kept = () => join(box.home, ".cache/dev.mcp-manager.app/first-paint.json");
const servers = (more = {}) => ({
  mcpServers: {
    plain: { command: "mcp-manager-e2e-not-installed", args: [] },
    [HOSTILE]: { command: "mcp-manager-e2e-not-installed", args: ["--hostile"] },
    ...more,
  },
});

before(() => {
  box = sandbox();
  writeFileSync(join(box.home, ".claude.json"), JSON.stringify(servers()));
});

after(async () => {
  await session?.close();
});

/** The kept file: its key, and the frame (JSON). */
const readKept = () => {
  const [key, json] = readFileSync(kept(), "utf8").split(/\n([\s\S]*)/);
  return { key, frame: JSON.parse(json) };
};

/** Every element name and every text of a kept frame. */
function contents(frame, into = { names: [], texts: [] }) {
  for (const node of frame) {
    if (typeof node === "string") into.texts.push(node);
    else {
      into.names.push(node.name);
      contents(node.children, into);
    }
  }
  return into;
}

/** How the page started, read in one script once its list is shown. */
async function howItStarted(browser) {
  const read = () =>
    browser.execute(() => {
      const names = [...document.querySelectorAll('[data-testid="server-row"]')].map((row) => row.dataset.serverName);
      const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
      return {
        rows: names.length > 0 ? names : null,
        kept: performance.getEntriesByName("kept-markup").length,
        painted: at("painted"),
        script: at("script"),
        pwned: window.__pwned ?? null,
        images: document.querySelectorAll("img").length,
      };
    });
  return eventually(async () => {
    const seen = await read();
    return seen.rows && seen.script !== null ? seen : null;
  }, "the list is shown and the page's script has run");
}

test("the second start paints the list the first kept before its script runs; a hostile name stays text", async () => {
  session = await launch(box);
  const first = await howItStarted(session.browser);
  assert.equal(first.kept, 0, "nothing was kept before the first start");
  assert.deepEqual(first.rows.sort(), [HOSTILE, "plain"].sort());
  const markup = await eventually(() => {
    try {
      return readFileSync(kept(), "utf8");
    } catch {
      return null;
    }
  }, "the first list is kept in the app's cache folder");
  assert.ok(markup.includes('["data-testid","server-row"]'), "the rows are kept");
  const { names, texts } = contents(readKept().frame);
  assert.ok(texts.includes(HOSTILE), "the name is kept as text");
  assert.ok(!names.includes("img"), "no image element was kept");
  assert.equal(statSync(kept()).mode & 0o777, 0o600, "readable by the person alone");
  await session.quit();

  session = await launch(box);
  const { browser } = session;
  const second = await howItStarted(browser);
  assert.equal(second.kept, 1, "the kept list was in the page");
  assert.ok(second.painted < second.script, `the list was painted (${second.painted} ms) before the page's script ran (${second.script} ms)`);
  assert.deepEqual(second.rows.sort(), [HOSTILE, "plain"].sort());
  assert.equal(second.pwned, null, "nothing in a name ran");
  assert.equal(second.images, 0);
  // The rows are live: the script made them its own.
  await open(browser, "plain", "user");
  await screenshot(browser, "kept-paint-second-start");
  assert.equal(readFileSync(kept(), "utf8"), markup, "the same list keeps the same markup");
});

test("a list changed between starts is not painted from the markup of the old one", async () => {
  await session.quit();
  writeFileSync(join(box.home, ".claude.json"), JSON.stringify(servers({ added: { command: "mcp-manager-e2e-not-installed", args: ["--added"] } })));
  session = await launch(box);
  const started = await howItStarted(session.browser);
  assert.equal(started.kept, 0, "the old list's markup was not served");
  assert.ok(started.rows.includes("added"));
  await eventually(() => readFileSync(kept(), "utf8").includes('["data-server-name","added"]'), "the new list is kept");
});

test("a kept file made to run a script is never served", async () => {
  await session.quit();
  // The key of this very list, as the app wrote it, with an image whose error runs a script.
  const { key, frame } = readKept();
  const image = { name: "img", attributes: [["src", "x"], ["onerror", "window.__pwned = 1"]], children: [] };
  writeFileSync(kept(), `${key}\n${JSON.stringify([image, ...frame])}`);
  session = await launch(box);
  const started = await howItStarted(session.browser);
  assert.equal(started.kept, 0, "the file was not served");
  assert.equal(started.pwned, null);
  assert.equal(started.images, 0);
  // And the next keep replaces it with the page's own.
  await eventually(() => !contents(readKept().frame).names.includes("img"), "the page's own frame is kept again");
});

test("a kept file that ends in an unterminated comment is not served: the window paints and works", async () => {
  await session.quit();
  // Served as it was, it would make the rest of index.html (the page's script too) a comment,
  // at every start with this list.
  const [key] = readFileSync(kept(), "utf8").split("\n");
  writeFileSync(kept(), `${key}\n<div data-planted="comment">planted</div><!--`);
  session = await launch(box);
  const { browser } = session;
  const started = await howItStarted(browser);
  assert.equal(started.kept, 0, "the file was not served");
  assert.ok(started.rows.includes("plain"), `the list is shown: ${started.rows}`);
  assert.equal(await browser.execute(() => document.querySelectorAll("[data-planted]").length), 0);
  await open(browser, "plain", "user");
  await screenshot(browser, "kept-paint-unterminated-comment");
  await eventually(() => !readFileSync(kept(), "utf8").includes("planted"), "the page's own frame is kept again");

  // The same words as data, in a text and an attribute: served, as text, and the page works.
  await session.quit();
  const { key: same, frame } = readKept();
  const comment = { name: "p", attributes: [["data-planted", "<!--"], ["title", "<!x a=\"-->"]], children: ["<!-->", "<!--"] };
  writeFileSync(kept(), `${same}\n${JSON.stringify([comment, ...frame])}`);
  session = await launch(box);
  const served = await howItStarted(session.browser);
  assert.equal(served.kept, 1, "the frame was served");
  assert.ok(served.rows.includes("plain"), `the list is shown: ${served.rows}`);
  assert.equal(served.images, 0);
  await open(session.browser, "plain", "user");
  await screenshot(session.browser, "kept-paint-comment-as-text");
});

test("the window never leaves its own page: a navigation elsewhere is refused", async () => {
  let asked = 0;
  const elsewhere = createServer((_req, res) => {
    asked += 1;
    res.end("elsewhere");
  });
  await new Promise((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
  try {
    const { browser } = session;
    const url = await browser.getUrl();
    await browser.execute((to) => {
      setTimeout(() => {
        location.href = to;
      }, 0);
    }, `http://127.0.0.1:${elsewhere.address().port}/elsewhere`);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal(await browser.getUrl(), url, "the window's page is unchanged");
    assert.equal(asked, 0, "the page elsewhere was never asked for");
    await open(browser, "plain", "user");
  } finally {
    elsewhere.close();
  }
});
