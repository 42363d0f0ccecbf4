// End-to-end: the window follows the system's dark theme (GTK_THEME=Adwaita:dark makes
// WebKitGTK report prefers-color-scheme: dark), with a real server listed.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { everything, launch, lightness, sandbox, screenshot, waitForState } from "./harness.mjs";

let session;
let browser;

before(async () => {
  const box = sandbox();
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({ projects: { [box.project]: { mcpServers: { everything: { type: "stdio", command: "node", args: [everything, "stdio"], env: {} } } } } }),
  );
  session = await launch(box, { GTK_THEME: "Adwaita:dark" });
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

test("with a dark system theme the window is dark, its text light", async () => {
  await waitForState(browser, "everything", "local", "connected");
  const [background, text, dark] = await browser.execute(() => {
    const shell = document.querySelector("#root > div");
    const style = getComputedStyle(shell);
    return [style.backgroundColor, style.color, matchMedia("(prefers-color-scheme: dark)").matches];
  });
  assert.equal(dark, true, "the system's dark theme reaches the page");
  assert.ok(lightness(background) < 0.25, `a dark background: ${background}`);
  assert.ok(lightness(text) > 0.8, `light text: ${text}`);
  await screenshot(browser, "servers-dark");
});
