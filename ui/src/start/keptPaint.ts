// The page's start when the app served it with its first frame kept from the last start
// (src-tauri/kept_paint.rs): the list of servers is already in `#root`, as markup, and WebKit
// paints it before it runs any script, if no script is due. A module script in the page makes
// it wait: WebKit painted nothing until the page's script had run (measured with
// `scripts/bench-page`: the kept list painted 69 ms after the HTML with the script as Vite
// links it, 37–46 ms with the script loaded after that frame). So the build replaces Vite's
// module script with this loader, at the end of the body, which loads it at once when the
// root is empty (the first start, a changed list) and after the kept frame has been painted
// otherwise. That frame is the window's first paint: the loader tells the app
// (`window_ready`), and the script then renders over the same elements (Preact diffs against
// what is in the root) and makes them live.
//
// Used by vite.config.ts at build time; the loader is plain JavaScript, inline in index.html
// (Tauri puts its hash in the page's CSP).

/** The loader for the module at `main`, as the text of an inline script. */
export function startLoader(main: string): string {
  return `(() => {
  const load = () => {
    const script = document.createElement("script");
    script.type = "module";
    script.crossOrigin = "";
    script.src = ${JSON.stringify(main)};
    document.head.append(script);
  };
  if (!document.getElementById("root")?.firstElementChild) return load();
  performance.mark("kept-markup");
  // The frame that shows the kept list is the next one; a task queued from its
  // animation-frame callback runs once it has been painted.
  requestAnimationFrame(() => setTimeout(() => {
    performance.mark("painted");
    const marks = performance.getEntriesByType("mark").map((mark) => ({ name: mark.name, at: mark.startTime }));
    const navigation = performance.getEntriesByType("navigation")[0];
    if (navigation) marks.push({ name: "html-loaded", at: navigation.responseEnd });
    window.__TAURI_INTERNALS__?.invoke("window_ready", { marks, now: performance.now() }).catch(() => {});
    load();
  }));
})();`;
}

const MODULE_SCRIPT = /<script type="module" crossorigin src="([^"]+)"><\/script>\s*/;

/**
 * Vite's `index.html` with its entry module loaded by the loader: the module is preloaded
 * from the head (fetched and compiled, not run), and the loader is the body's last element.
 * Throws when the page has no entry module, or the root is not the empty one the app fills.
 */
export function withKeptPaintStart(html: string): string {
  const entry = MODULE_SCRIPT.exec(html);
  const main = entry?.[1];
  if (!entry || !main) throw new Error("index.html: no entry module script to load after the kept frame");
  if (!html.includes('<div id="root"></div>')) throw new Error('index.html: no empty <div id="root"></div> for the app to fill');
  return html
    .replace(entry[0], `<link rel="modulepreload" crossorigin href="${main}">\n    `)
    .replace("</body>", `<script>${startLoader(main)}</script>\n  </body>`);
}
