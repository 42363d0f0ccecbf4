// The first render of the page waits for its stylesheet. Vite links the stylesheet in
// index.html after the module script, and WebKit may run the script before the sheet has
// arrived (seen on a loaded two-core machine in about half the starts): the list of servers
// was then made and laid out without styles, and styled and laid out again before its first
// frame, 30–40 ms later than once.

/** How long the page waits for a stylesheet at most; it then shows unstyled rather than never. */
export const STYLES_WAIT_MS = 1000;

/**
 * Resolves once every stylesheet the page links has loaded or failed, or after `waitMs`: a
 * sheet whose `error` came before this was called (a link fires it once) would otherwise be
 * waited for forever. In development the styles come with the modules, and a page whose sheets
 * are in resolves at once; either way nothing waits.
 */
export function stylesheetsLoaded(page: Document = document, waitMs = STYLES_WAIT_MS): Promise<void> {
  const pending = [...page.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].filter((link) => !link.sheet);
  if (pending.length === 0) return Promise.resolve();
  performance.mark("styles-awaited");
  const loaded = Promise.all(
    pending.map(
      (link) =>
        new Promise<void>((done) => {
          link.addEventListener("load", () => done(), { once: true });
          link.addEventListener("error", () => done(), { once: true });
        }),
    ),
  );
  return new Promise<void>((resolve) => {
    const late = setTimeout(() => {
      performance.mark("styles-not-loaded");
      resolve();
    }, waitMs);
    void loaded.then(() => {
      clearTimeout(late);
      performance.mark("styles-loaded");
      resolve();
    });
  });
}
