// End-to-end: trying tools by hand in the window, against real servers: server-everything's
// tools (the sum, echo through the raw JSON view, an image, structured content), and the tools
// of a real published server's tools/list (zod-sdk's, from tests/fixtures/schemas) served by
// edge-server, which answers each call with the arguments it received: so what the form sends
// is checked exactly, through nested objects, a oneOf variant, a map and a titled choice. The
// history is the app's real SQLite file, across a restart of the app.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, everything, launch, open, root, sandbox, screenshot, type, waitForState } from "./harness.mjs";

let box;
let session;
let browser;

before(async () => {
  box = sandbox();
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      mcpServers: {
        everything: { command: "node", args: [everything, "stdio"] },
        corpus: {
          command: "node",
          args: [join(root, "tests/fixtures/servers/edge-server.mjs")],
          env: { EDGE_TOOLS_FROM: join(root, "tests/fixtures/schemas/zod-sdk.tools.json") },
        },
        pydantic: {
          command: "node",
          args: [join(root, "tests/fixtures/servers/edge-server.mjs")],
          env: { EDGE_TOOLS_FROM: join(root, "tests/fixtures/schemas/fastmcp-pydantic.tools.json") },
        },
        desktop: {
          command: "node",
          args: [join(root, "tests/fixtures/servers/edge-server.mjs")],
          env: { EDGE_TOOLS_FROM: join(root, "tests/fixtures/schemas/desktop-commander.tools.json") },
        },
        edge: { command: "node", args: [join(root, "tests/fixtures/servers/edge-server.mjs")] },
      },
    }),
  );
  session = await launch(box, browserEnv());
  browser = session.browser;
});

/** $BROWSER logs what it is handed (xdg-open passes files to it too). */
function browserEnv() {
  return { BROWSER: join(root, "tests/fixtures/browser/complete-login.mjs"), BROWSER_LOG: join(box.dir, "browser.log") };
}

function browserLog() {
  return existsSync(join(box.dir, "browser.log")) ? readFileSync(join(box.dir, "browser.log"), "utf8") : "";
}

after(async () => {
  await session?.close();
});

async function openTool(server, tool) {
  await waitForState(browser, server, "user", "connected");
  await open(browser, server, "user");
  await browser.$('[data-testid="tab-tools"]').click();
  await type(browser.$('[data-testid="tool-search"]'), "");
  await browser.$(`[data-testid="tool-row"][data-tool="${tool}"]`).click();
  const runner = browser.$(`[data-testid="tool-runner"][data-tool="${tool}"]`);
  await runner.waitForExist({ timeout: 5_000 });
  return runner;
}

const field = (path) => browser.$(`[data-testid="form-field"][data-path="${path}"]`);

async function run() {
  await browser.$('[data-testid="run-tool"]').click();
}

/** The result's first text, as plain text (JSON text is shown as a tree first). */
async function resultText() {
  const view = browser.$('[data-testid="content-text-view"]');
  await view.waitForExist({ timeout: 15_000, timeoutMsg: "no result came" });
  if ((await view.getAttribute("data-mode")) !== "plain") await view.$('[data-testid="view-plain"]').click();
  return view.$('[data-testid="content-text"]').getText();
}

test("the sum: numbers checked before sending, refused rather than rounded, then the exact exchange", async () => {
  await openTool("everything", "get-sum");
  await type(browser.$('[data-testid="tool-search"]'), "sum");
  assert.equal((await browser.$$('[data-testid="tool-row"]')).length, 1, "the search keeps only get-sum");
  await type(field("/a").$('[data-testid="number-input"]'), "2");
  await run();
  const problem = browser.$('[data-testid="field-problem"][data-path="/b"]');
  await problem.waitForExist({ timeout: 5_000, timeoutMsg: "b is required, and said so at b" });
  assert.equal(await problem.getText(), "Required.");
  await type(field("/b").$('[data-testid="number-input"]'), "9007199254740993");
  assert.match(await field("/b").$('[data-testid="typed-problem"]').getText(), /^More digits than can be sent exactly/);
  await type(field("/b").$('[data-testid="number-input"]'), "3.5");
  await run();
  assert.match(await resultText(), /5\.5/);
  await browser.$('[data-testid="show-exchange"]').click();
  const request = JSON.parse(await browser.$('[data-testid="exchange-request"]').getText());
  const response = JSON.parse(await browser.$('[data-testid="exchange-response"]').getText());
  assert.equal(request.method, "tools/call");
  assert.deepEqual(request.params.arguments, { a: 2, b: 3.5 });
  assert.equal(response.id, request.id);
  await screenshot(browser, "tools-sum");

  // Saved to a file, opened with the person's default application; nothing else may be.
  await browser.$('[data-testid="save-result"]').click();
  const saved = await browser.$('[data-testid="saved-path"]');
  await saved.waitForExist({ timeout: 5_000 });
  const path = await saved.getText();
  assert.ok(path.startsWith(join(box.home, ".local/share/dev.mcp-manager.app/results/everything__get-sum__")), path);
  assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), response.result);
  await browser.$('[data-testid="open-saved"]').click();
  await eventually(() => browserLog().includes(path.split("/").pop()), "xdg-open handed the saved result over");
  const refused = await browser.execute(() =>
    window.__TAURI_INTERNALS__.invoke("open_saved_result", { path: "/etc/passwd" }).then(
      () => "opened",
      (error) => error.message,
    ),
  );
  assert.equal(refused, "/etc/passwd is not a saved result");
});

test("a long operation shows its progress, and Cancel ends it and tells the server", async () => {
  await openTool("everything", "trigger-long-running-operation");
  await field("/duration").$('[data-testid="toggle-omitted"]').click();
  await type(field("/duration").$('[data-testid="number-input"]'), "30");
  await field("/steps").$('[data-testid="toggle-omitted"]').click();
  await type(field("/steps").$('[data-testid="number-input"]'), "30");
  const started = Date.now();
  await run();
  const bar = browser.$('[data-testid="call-progress"]');
  await browser.waitUntil(async () => Number(await bar.getAttribute("data-progress")) >= 2, {
    timeout: 15_000,
    timeoutMsg: "progress notifications move the bar",
  });
  assert.equal(await bar.getAttribute("data-total"), "30");
  await screenshot(browser, "tools-progress");
  await browser.$('[data-testid="cancel-call"]').click();
  const failure = browser.$('[data-testid="call-failure"]');
  await failure.waitForExist({ timeout: 5_000, timeoutMsg: "Cancel ends the call at once" });
  assert.match(await failure.getText(), /the call was cancelled; the server was told \(notifications\/cancelled\)/);
  assert.ok(Date.now() - started < 20_000, "long before the operation's 30 s");
  // The server was told: the protocol log holds the notification for that request.
  await browser.$('[data-testid="tab-protocol"]').click();
  await type(browser.$('[data-testid="protocol-filter"]'), "cancelled");
  await eventually(async () => {
    for (const message of await browser.$$('[data-testid="protocol-message"]')) {
      if ((await message.getAttribute("data-method")) === "notifications/cancelled" && (await message.getAttribute("data-direction")) === "out") return true;
    }
    return false;
  }, "notifications/cancelled went out");
  await browser.$('[data-testid="tab-tools"]').click();
  const kept = browser.$('[data-testid="history-call"][data-tool="trigger-long-running-operation"]');
  await kept.waitForExist({ timeout: 5_000 });
  assert.equal(await kept.getAttribute("data-status"), "failed", "kept as failed, with why");
});

test("echo through the raw JSON view: switching back to the form keeps the values", async () => {
  await openTool("everything", "echo");
  await browser.$('[data-testid="json-mode"]').click();
  const raw = browser.$('[data-testid="raw-arguments"]');
  await type(raw, '{"message": "hello from JSON"}');
  await browser.$('[data-testid="form-mode"]').click();
  assert.equal(await field("/message").$('[data-testid="string-input"]').getValue(), "hello from JSON");
  await run();
  assert.equal(await resultText(), "Echo: hello from JSON");
});

test("an image and structured content are shown as what they are", async () => {
  await openTool("everything", "get-tiny-image");
  await run();
  const image = await browser.$('[data-testid="content-image"] img');
  await image.waitForExist({ timeout: 10_000 });
  assert.match(await image.getAttribute("src"), /^data:image\/png;base64,/);
  await eventually(() => browser.execute((img) => img.complete && img.naturalWidth > 0, image), "the image decodes");

  await browser.$('[data-testid="tool-row"][data-tool="get-structured-content"]').click();
  await field("/location").$('[data-testid="choice-input"]').selectByVisibleText("Chicago");
  await run();
  const structured = browser.$('[data-testid="structured-content-view"]');
  await structured.waitForExist({ timeout: 10_000 });
  assert.equal(await structured.getAttribute("data-mode"), "json", "shown as a tree first");
  assert.ok(await structured.$('[data-testid="json-leaf"][data-path="/temperature"]').isExisting());
  await structured.$('[data-testid="view-plain"]').click();
  assert.ok(JSON.parse(await structured.$('[data-testid="structured-content"]').getText()).temperature !== undefined);
  assert.equal(await browser.$('[data-testid="schema-errors"]').isExisting(), false, "it matches its outputSchema");
});

test("a real server's nested schema: a oneOf variant, a map, a titled choice, sent exactly as filled", async () => {
  await openTool("corpus", "send_notification");
  await run();
  await browser.$('[data-testid="field-problem"][data-path="/message"]').waitForExist({ timeout: 5_000 });
  assert.match(await browser.$('[data-testid="field-problem"][data-path="/channel/to"]').getText(), /too few items/);

  await field("/channel").$('[data-testid="variant-input"]').selectByVisibleText("type: webhook");
  await type(field("/channel/url").$('[data-testid="string-input"]'), "https://hooks.example.com/x");
  await field("/channel/headers").$('[data-testid="toggle-omitted"]').click();
  await type(field("/channel/headers").$('[data-testid="map-key"]'), "X-Trace");
  await field("/channel/headers").$('[data-testid="map-add"]').click();
  await type(field("/channel/headers").$('[data-testid="map-entry"] [data-testid="string-input"]'), "abc");
  assert.match(await field("/channel/method").$('[data-testid="omitted"]').getText(), /the server uses its default, "POST"/);
  await type(field("/message").$('[data-testid="string-input"]'), "Deploy done");
  assert.equal(await browser.$('[data-testid="field-problem"][data-path="/message"]').isExisting(), false, "the problem goes once fixed");
  await field("/priority").$('[data-testid="toggle-omitted"]').click();
  await field("/priority").$('[data-testid="choice-input"]').selectByVisibleText("3");
  await screenshot(browser, "tools-nested-form");
  await run();
  const sent = JSON.parse(await resultText());
  assert.deepEqual(sent, {
    channel: { type: "webhook", url: "https://hooks.example.com/x", headers: { "X-Trace": "abc" } },
    message: "Deploy done",
    priority: 3,
  });
});

test("a real server's array of objects: items added, filled, reordered and removed, sent in that order", async () => {
  await openTool("corpus", "create_invoice");
  await type(field("/customer/name").$('[data-testid="string-input"]'), "Ada");
  await type(field("/customer/email").$('[data-testid="string-input"]'), "ada@example.com");
  await type(field("/customer/billingAddress/street").$('[data-testid="string-input"]'), "1 Analytical Way");
  await type(field("/customer/billingAddress/city").$('[data-testid="string-input"]'), "London");
  await type(field("/customer/billingAddress/postalCode").$('[data-testid="string-input"]'), "12345");
  const items = field("/lineItems");
  for (const [sku, quantity, price] of [["AAA-0001", "2", "9.99"], ["BBB-0002", "1", "100"], ["CCC-0003", "5", "0.5"]]) {
    await items.$('[data-testid="add-item"]').click();
    const index = (await items.$$('[data-testid="array-item"]').length) - 1;
    await type(field(`/lineItems/${index}/sku`).$('[data-testid="string-input"]'), sku);
    await type(field(`/lineItems/${index}/quantity`).$('[data-testid="number-input"]'), quantity);
    await type(field(`/lineItems/${index}/unitPrice`).$('[data-testid="number-input"]'), price);
  }
  // CCC up to second place, then AAA removed: CCC, BBB.
  await items.$$('[data-testid="array-item"]')[2].$('[data-testid="move-up"]').click();
  await items.$$('[data-testid="array-item"]')[0].$('[data-testid="remove-item"]').click();
  await screenshot(browser, "tools-array-form");
  const lineItems = [
    { sku: "CCC-0003", quantity: 5, unitPrice: 0.5 },
    { sku: "BBB-0002", quantity: 1, unitPrice: 100 },
  ];
  // The form's request as JSON; the two required dates are given there.
  await browser.$('[data-testid="json-mode"]').click();
  const request = JSON.parse(await browser.$('[data-testid="raw-arguments"]').getValue());
  assert.deepEqual(request.lineItems, lineItems);
  request.issueDate = "2026-12-01";
  request.dueAt = "2026-12-31T12:00:00Z";
  await type(browser.$('[data-testid="raw-arguments"]'), JSON.stringify(request));
  await run();
  const sent = JSON.parse(await resultText());
  assert.deepEqual(sent.lineItems, lineItems);
  assert.deepEqual(sent.customer, { name: "Ada", email: "ada@example.com", billingAddress: { street: "1 Analytical Way", city: "London", postalCode: "12345" } });
});

test("a call is found again in the history after a restart, loaded into the form and run again", async () => {
  await openTool("everything", "echo");
  await type(field("/message").$('[data-testid="string-input"]'), "remember me");
  await run();
  assert.equal(await resultText(), "Echo: remember me");

  await session.quit();
  session = await launch(box, browserEnv());
  browser = session.browser;
  await waitForState(browser, "everything", "user", "connected");
  await open(browser, "everything", "user");
  await browser.$('[data-testid="tab-tools"]').click();
  await type(browser.$('[data-testid="history-search"]'), "remember me");
  const kept = browser.$('[data-testid="history-call"][data-tool="echo"]');
  await kept.waitForExist({ timeout: 5_000, timeoutMsg: "the call survived the restart" });
  assert.equal(await kept.getAttribute("data-status"), "ok");
  assert.equal((await browser.$$('[data-testid="history-call"]')).length, 1, "the search keeps only it");

  await kept.$('[data-testid="history-load"]').click();
  assert.equal(await field("/message").$('[data-testid="string-input"]').getValue(), "remember me", "loaded into the form");
  await kept.$('[data-testid="history-rerun"]').click();
  assert.equal(await resultText(), "Echo: remember me");
  await eventually(async () => (await browser.$$('[data-testid="history-call"]')).length === 2, "the rerun is kept too");

  await kept.$('[data-testid="history-save"]').click();
  await type(browser.$('[data-testid="history-name-input"]'), "greeting");
  await browser.$('[data-testid="history-name-save"]').click();
  await browser.$('[data-testid="history-saved"]').click();
  await eventually(async () => {
    const names = await browser.$$('[data-testid="history-name"]').map((e) => e.getText());
    return names.length === 1 && names[0] === "greeting";
  }, "only the saved call, under its name");
  await screenshot(browser, "tools-history");
});

test("a secret field's value never reaches the history file", async () => {
  const secret = "sk-e2e-history-secret-5d1e";
  await openTool("pydantic", "raw_payload");
  await browser.$('[data-testid="json-mode"]').click();
  await type(browser.$('[data-testid="raw-arguments"]'), `{"payload": {"a": 1}, "api_key": "${secret}"}`);
  await run();
  await resultText();
  const kept = browser.$('[data-testid="history-call"][data-tool="raw_payload"] [data-testid="history-arguments"]');
  await kept.waitForExist({ timeout: 5_000 });
  assert.equal(await kept.getProperty("textContent"), '{"payload":{"a":1},"api_key":"[not stored]"}');
  const data = join(box.home, ".local/share/dev.mcp-manager.app");
  let bytes = "";
  for (const name of readdirSync(data, { recursive: true })) {
    const path = join(data, name);
    if (statSync(path).isFile()) bytes += readFileSync(path, "latin1");
  }
  assert.ok(bytes.includes("raw_payload"), "the call is in the file");
  assert.ok(!bytes.includes(secret), "its secret is not");
});

test("Allow, Ask and Deny for Claude Code are written to the chosen settings file and read back", async () => {
  await openTool("everything", "get-sum");
  const inForce = browser.$('[data-testid="rule-in-force"]');
  await browser.waitUntil(async () => (await inForce.getText()).includes("no rule"), { timeout: 5_000 });
  await browser.$('[data-testid="rule-allow"]').click();
  const local = join(box.project, ".claude/settings.local.json");
  await eventually(() => existsSync(local), "the local settings file is written");
  assert.equal(
    readFileSync(local, "utf8"),
    '{\n  "permissions": {\n    "allow": [\n      "mcp__everything__get-sum"\n    ]\n  }\n}',
    "Claude Code's own format, byte for byte",
  );
  await browser.waitUntil(async () => (await inForce.getText()).startsWith("In Claude Code: Allowed by mcp__everything__get-sum in "), { timeout: 5_000 });

  await browser.$('[data-testid="rule-file"]').selectByAttribute("value", "user");
  await browser.$('[data-testid="rule-deny"]').click();
  await browser.waitUntil(async () => (await inForce.getText()).includes("Denied by mcp__everything__get-sum"), { timeout: 5_000, timeoutMsg: "a deny anywhere wins" });
  const user = JSON.parse(readFileSync(join(box.home, ".claude/settings.json"), "utf8"));
  assert.deepEqual(user.permissions.deny, ["mcp__everything__get-sum"]);
  await browser.$('[data-testid="rule-remove"]').click();
  await browser.waitUntil(async () => (await inForce.getText()).includes("Allowed by"), { timeout: 5_000, timeoutMsg: "the local allow is in force again" });
  await screenshot(browser, "tools-permission");
});

test("every server's tools in one list: grouped, found by name, by mcp__server__tool and by description, run from there", async () => {
  for (const server of ["everything", "corpus", "pydantic", "desktop", "edge"]) await waitForState(browser, server, "user", "connected");
  await browser.$('[data-testid="view-tools"]').click();
  const count = browser.$('[data-testid="all-tools-count"]');
  await count.waitForExist({ timeout: 10_000 });
  const expected = JSON.parse(readFileSync(join(root, "tests/fixtures/schemas/desktop-commander.tools.json"), "utf8")).tools.length;
  assert.match(await count.getText(), / tools · 5 connected servers with tools$/);
  const groups = await browser.$$('[data-testid="tools-group"]').map((g) => g.getAttribute("data-server"));
  assert.deepEqual(groups.slice(0, 2), ["corpus", "desktop"], "grouped by server, in order (the rest is scrolled away)");
  assert.ok((await browser.$$('[data-testid="all-tools"] [data-testid="tool-row"]').length) < 60, "only the rows in view exist");

  const firstLines = await browser.execute(() =>
    [...document.querySelectorAll('[data-testid="all-tools"] [data-testid="tool-line"]')].map((line) => ({ text: line.textContent, over: line.scrollWidth - line.clientWidth })),
  );
  await type(browser.$('[data-testid="all-tools-search"]'), "mcp__desktop__");
  await eventually(async () => Number(await count.getAttribute("data-matches")) === expected, "every desktop tool, and only them");
  // Each row shows its description's first line with words (desktop-commander's begin with a
  // line break and spaces), cut by the app to the row's width with an "…", so that WebKit's
  // own ellipsis, costly to lay out, is not needed: nothing overflows.
  const shownLines = () =>
    browser.execute(() =>
      [...document.querySelectorAll('[data-testid="all-tools"] [data-testid="tool-line"]')].map((line) => ({ text: line.textContent, over: line.scrollWidth - line.clientWidth })),
    );
  // And in a narrow window, where the corpus's descriptions are cut.
  const rect = await browser.getWindowRect();
  await browser.setWindowRect(null, null, 640, rect.height);
  const narrow = await eventually(async () => {
    const shown = await shownLines();
    return shown.some((line) => line.text.endsWith("…")) && shown;
  }, "a long description is cut to a narrow row, and says so");
  await browser.setWindowRect(null, null, rect.width, rect.height);
  const wide = [...firstLines, ...(await shownLines())];
  assert.ok(wide.length > 10, `rows in view: ${wide.length}`);
  for (const line of wide) assert.match(line.text, /^\S/, "a description's words, not its leading spaces");
  // A row whose name leaves no room for even "…" shows no description, rather than overflow.
  for (const line of [...wide, ...narrow]) assert.equal(line.over, 0, `"${line.text}" fits its row`);
  await type(browser.$('[data-testid="all-tools-search"]'), "GET-SUM");
  const listed = () => browser.$$('[data-testid="all-tools"] [data-testid="tool-row"]');
  await eventually(async () => (await listed().length) === 1, "one tool by name");
  const sum = browser.$('[data-testid="all-tools"] [data-testid="tool-row"][data-server="everything"][data-tool="get-sum"]');
  assert.ok(await sum.isExisting());
  // By a word of the description only.
  await type(browser.$('[data-testid="all-tools-search"]'), "Returns one of each content type");
  await eventually(async () => (await listed().length) === 1, "found by its description");
  await browser.$('[data-testid="all-tools"] [data-testid="tool-row"][data-server="edge"][data-tool="whole"]').click();
  await browser.$('[data-testid="tool-runner"][data-tool="whole"]').waitForExist({ timeout: 5_000 });
  await run();
  await browser.$('[data-testid="content-audio"] audio').waitForExist({ timeout: 10_000 });
  assert.ok(await browser.$('[data-testid="content-link"][data-uri="file:///tmp/a.txt"]').isExisting());
  assert.equal(await browser.$('[data-testid="content-resource-text"]').getText(), "embedded");
  await screenshot(browser, "all-tools");

  // A tool's _meta is shown whole.
  await type(browser.$('[data-testid="all-tools-search"]'), "get_config");
  await browser.$('[data-testid="all-tools"] [data-testid="tool-row"][data-server="desktop"][data-tool="get_config"]').click();
  const meta = browser.$('[data-testid="tool-meta"]');
  await meta.waitForExist({ timeout: 5_000 });
  await meta.$("summary").click();
  assert.match(await meta.getText(), /"openai\/outputTemplate": "ui:\/\/desktop-commander\/config-editor"/);
  await browser.$('[data-testid="close-tool"]').click();
  await browser.$('[data-testid="view-servers"]').click();
});

test("a resource link in a result is read on a click", async () => {
  await openTool("everything", "get-resource-links");
  await run();
  const link = browser.$('[data-testid="content-link"][data-uri="demo://resource/dynamic/text/2"]');
  await link.waitForExist({ timeout: 10_000 });
  await link.$('[data-testid="read-link"]').click();
  const text = link.$('[data-testid="resource-contents"] [data-testid="resource-text"]');
  await text.waitForExist({ timeout: 10_000 });
  assert.match(await text.getText(), /^Resource 2: This is a plaintext resource created at/);
});

test("a 50 MB result is shown a piece at a time, its size told, the window still answering, and saved whole", async () => {
  await openTool("edge", "huge");
  await field("/megabytes").$('[data-testid="toggle-omitted"]').click();
  await type(field("/megabytes").$('[data-testid="number-input"]'), "50");
  await run();
  const size = browser.$('[data-testid="result-size"]');
  await size.waitForExist({ timeout: 60_000, timeoutMsg: "the result came" });
  const bytes = Number(await size.getAttribute("data-bytes"));
  assert.ok(bytes > 50 * 1024 * 1024, `${bytes} bytes`);
  const shown = browser.$('[data-testid="content-text"]');
  assert.equal(Number(await shown.getAttribute("data-length")), 50 * 1024 * 1024);
  const painted = async () => (await shown.getProperty("textContent")).length;
  assert.equal(await painted(), 64 * 1024, "only the first piece is painted");
  assert.match(await browser.$('[data-testid="text-cut"]').getProperty("textContent"), /^Showing 65.?536 of 52.?428.?800 characters\./);
  await browser.$('[data-testid="show-more"]').click();
  await eventually(async () => (await painted()) === 4 * 64 * 1024, "more on a click");
  // The window still answers: typing in the search changes the list at once.
  await type(browser.$('[data-testid="tool-search"]'), "huge");
  assert.equal((await browser.$$('[data-testid="tool-row"]')).length, 1);
  await browser.$('[data-testid="save-result"]').click();
  const saved = browser.$('[data-testid="saved-path"]');
  await saved.waitForExist({ timeout: 60_000 });
  const file = JSON.parse(readFileSync(await saved.getText(), "utf8"));
  assert.equal(file.content[0].text.length, 50 * 1024 * 1024, "saved whole");
});

test("a damaged history file is reported with what to do, left untouched, and calls go on without it", async () => {
  await session.quit();
  const data = join(box.home, ".local/share/dev.mcp-manager.app");
  const garbage = "this is not a SQLite database, and must stay as it is\n".repeat(100);
  for (const suffix of ["-wal", "-shm"]) rmSync(join(data, `history.sqlite${suffix}`), { force: true });
  writeFileSync(join(data, "history.sqlite"), garbage);
  session = await launch(box, browserEnv());
  browser = session.browser;
  await openTool("everything", "echo");
  const problem = browser.$('[data-testid="history-error"]');
  await problem.waitForExist({ timeout: 10_000, timeoutMsg: "the history pane says what went wrong" });
  const said = await problem.getText();
  assert.match(said, /history\.sqlite/, said);
  await type(field("/message").$('[data-testid="string-input"]'), "still works");
  await run();
  assert.equal(await resultText(), "Echo: still works");
  assert.match(await browser.$('[data-testid="history-problem"]').getText(), /^Not kept in the history: /);
  await problem.scrollIntoView();
  await screenshot(browser, "history-damaged");
  assert.equal(readFileSync(join(data, "history.sqlite"), "utf8"), garbage, "the file is left as it was");
});
