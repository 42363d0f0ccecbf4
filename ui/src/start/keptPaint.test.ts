import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startLoader, withKeptPaintStart } from "./keptPaint";

// index.html as Vite builds it.
const BUILT = `<!doctype html>
<html lang="en">
  <head>
    <title>MCP Manager</title>
    <script type="module" crossorigin src="/assets/index-abc.js"></script>
    <link rel="modulepreload" crossorigin href="/assets/compat-def.js">
    <link rel="stylesheet" crossorigin href="/assets/index-ghi.css">
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>`;

describe("withKeptPaintStart", () => {
  it("preloads the entry module from the head and loads it from the loader, the body's last element", () => {
    const html = withKeptPaintStart(BUILT);
    expect(html).not.toContain('<script type="module"');
    expect(html).toContain('<link rel="modulepreload" crossorigin href="/assets/index-abc.js">');
    expect(html).toContain('<link rel="stylesheet" crossorigin href="/assets/index-ghi.css">');
    expect(html).toMatch(/<div id="root"><\/div>\s*<script>\(\(\) => \{[\s\S]*"\/assets\/index-abc\.js"[\s\S]*\}\)\(\);<\/script>\s*<\/body>/);
  });

  it("refuses a page it cannot start so, rather than building one that never loads", () => {
    expect(() => withKeptPaintStart(BUILT.replace(/<script type="module"[^\n]*\n/, ""))).toThrow(/no entry module/);
    expect(() => withKeptPaintStart(BUILT.replace('<div id="root"></div>', '<div id="app"></div>'))).toThrow(/no empty/);
  });
});

describe("the loader", () => {
  const invoke = vi.fn(() => Promise.resolve(null));

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "requestAnimationFrame"] });
    document.head.innerHTML = "";
    document.body.innerHTML = '<div id="root"></div>';
    performance.clearMarks();
    invoke.mockClear();
    (window as unknown as { __TAURI_INTERNALS__: unknown }).__TAURI_INTERNALS__ = { invoke };
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  const run = () => new Function(startLoader("/assets/index-abc.js"))();
  const loaded = () => [...document.head.querySelectorAll('script[type="module"]')].map((s) => s.getAttribute("src"));

  it("loads the module at once when nothing was kept", () => {
    run();
    expect(loaded()).toEqual(["/assets/index-abc.js"]);
    vi.runAllTimers();
    expect(invoke).not.toHaveBeenCalled();
    expect(performance.getEntriesByName("kept-markup")).toHaveLength(0);
  });

  it("with a kept list, says the window painted once its frame is, then loads the module", () => {
    document.getElementById("root")!.innerHTML = '<div data-testid="server-row">a</div>';
    run();
    expect(loaded()).toEqual([]);
    expect(performance.getEntriesByName("kept-markup")).toHaveLength(1);
    vi.runAllTimers();
    expect(loaded()).toEqual(["/assets/index-abc.js"]);
    expect(invoke).toHaveBeenCalledTimes(1);
    const [command, args] = invoke.mock.calls[0] as unknown as [string, { marks: { name: string; at: number }[]; now: number }];
    expect(command).toBe("window_ready");
    expect(args.marks.map((mark) => mark.name)).toEqual(expect.arrayContaining(["kept-markup", "painted"]));
    expect(typeof args.now).toBe("number");
  });
});
