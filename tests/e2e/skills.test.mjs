// End-to-end: a server's skills (the Skills extension) in its Skills tab, against a real skills
// server (tests/fixtures/servers/skills-server.mjs): listed without a file read, loaded with
// every file checked; a server that lies about a digest has that file refused and its content
// not shown; the skills Claude Code loads from disk beside them; skills in All tools' search.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launch, open, sandbox, screenshot, type, waitForState } from "./harness.mjs";

const server = join(import.meta.dirname, "../fixtures/servers/skills-server.mjs");
let box;
let session;
let browser;

before(async () => {
  box = sandbox();
  const skills = join(box.dir, "skills");
  mkdirSync(join(skills, "pdf-tools/references"), { recursive: true });
  writeFileSync(join(skills, "pdf-tools/SKILL.md"), "---\nname: pdf-tools\ndescription: Fill and merge PDF forms\nlicense: Apache-2.0\n---\n\n# PDF tools\n\nRead the forms guide first.\n");
  writeFileSync(join(skills, "pdf-tools/references/FORMS.md"), "# Forms\n\nField names are case-sensitive.\n");
  // A skill of the person's own, on disk, as Claude Code finds it.
  mkdirSync(join(box.home, ".claude/skills/release-notes"), { recursive: true });
  writeFileSync(join(box.home, ".claude/skills/release-notes/SKILL.md"), "---\nname: release-notes\ndescription: Write the release notes\n---\nBody\n");
  writeFileSync(
    join(box.home, ".claude.json"),
    JSON.stringify({
      mcpServers: {
        skills: { command: "node", args: [server, skills] },
        liar: { command: "node", args: [server, skills], env: { SKILLS_LIE: "skill://pdf-tools/references/FORMS.md" } },
      },
    }),
  );
  session = await launch(box);
  browser = session.browser;
});

after(async () => {
  await session?.close();
});

async function openSkills(name) {
  await waitForState(browser, name, "user", "connected");
  const detail = await open(browser, name, "user");
  await detail.$('[data-testid="tab-skills"]').click();
  await detail
    .$('[data-testid="skill"][data-skill="pdf-tools"]')
    .waitForExist({ timeout: 10_000 })
    .catch(async (error) => {
      await screenshot(browser, `failed-skills-${name}`);
      throw new Error(`${name}'s skills are not listed; the panel says: ${await detail.$('[data-testid="skills-panel"]').getText().catch(() => "(no panel)")}`, { cause: error });
    });
}

const checks = async () => {
  const out = [];
  for (const file of await browser.$$('[data-testid="skill-file"]')) out.push(await file.getAttribute("data-check"));
  return out;
};

test("a server's skills are listed without a file read, then loaded with every file checked", async () => {
  await openSkills("skills");
  assert.deepEqual(await checks(), ["not-loaded", "not-loaded"], "listing reads no file");
  assert.ok((await browser.$('[data-testid="skills-panel"]').getText()).includes("Apache-2.0"), "the frontmatter is shown");
  await browser.$('[data-testid="skill-load"]').click();
  await browser.$('[data-testid="skill-verdict"]').waitForExist({ timeout: 10_000 });
  assert.deepEqual(await checks(), ["verified", "verified"]);
  assert.match(await browser.$('[data-testid="skill-text"]').getText(), /# PDF tools/);
  // Beside them, the person's skill on disk.
  const disk = await browser.$('[data-testid="disk-skill"][data-skill="release-notes"]');
  assert.ok(await disk.isExisting());
  assert.match(await disk.getText(), /user/);
  await screenshot(browser, "skills-verified");
});

test("a server that lies about a file's digest: that file is refused and its content not shown", async () => {
  await openSkills("liar");
  await browser.$('[data-testid="skill-load"]').click();
  await browser.$('[data-testid="skill-verdict"]').waitForExist({ timeout: 10_000 });
  assert.deepEqual(await checks(), ["verified", "failed"]);
  const panel = await browser.$('[data-testid="skills-panel"]').getText();
  assert.match(panel, /Not loaded: a file is not what the server published/);
  assert.match(panel, /SHA-256/);
  assert.ok(!(await browser.getPageSource()).includes("case-sensitive"), "the refused file's content is nowhere in the page");
  assert.equal(await browser.$('[data-testid="skill-text"]').isExisting(), false, "a skill not loaded is not offered");
  await screenshot(browser, "skills-refused");
});

test("All tools' search finds skills too", async () => {
  await browser.$('[data-testid="view-tools"]').click();
  await type(browser.$('[data-testid="all-tools-search"]'), "pdf");
  await browser.$('[data-testid="skill-match"][data-skill="pdf-tools"]').waitForExist({ timeout: 10_000 });
  const servers = (await browser.$('[data-testid="skill-matches"]').getText());
  assert.match(servers, /skills/);
  assert.match(servers, /liar/);
});
