import { afterEach, describe, expect, it } from "vitest";
import { stylesheetsLoaded } from "./stylesheets";

/** A page with `count` linked stylesheets that have not loaded (jsdom loads none). */
function page(count: number) {
  const doc = document.implementation.createHTMLDocument("page");
  const links = Array.from({ length: count }, (_, i) => {
    const link = doc.createElement("link");
    link.rel = "stylesheet";
    link.href = `/assets/index-${i}.css`;
    doc.head.append(link);
    return link;
  });
  return { doc, links };
}

/** Whether the promise has settled once pending callbacks have run. */
async function settled(promise: Promise<unknown>) {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((r) => setTimeout(r, 0));
  return done;
}

afterEach(() => performance.clearMarks());

describe("stylesheetsLoaded", () => {
  it("resolves at once on a page that links no stylesheet, and marks nothing", async () => {
    const { doc } = page(0);
    expect(await settled(stylesheetsLoaded(doc))).toBe(true);
    expect(performance.getEntriesByName("styles-awaited")).toHaveLength(0);
  });

  it("waits for every linked stylesheet to load, and marks the wait", async () => {
    const { doc, links } = page(2);
    const loaded = stylesheetsLoaded(doc, 50);
    expect(await settled(loaded)).toBe(false);
    links[0]!.dispatchEvent(new Event("load"));
    expect(await settled(loaded)).toBe(false);
    links[1]!.dispatchEvent(new Event("load"));
    expect(await settled(loaded)).toBe(true);
    expect(performance.getEntriesByName("styles-awaited")).toHaveLength(1);
    expect(performance.getEntriesByName("styles-loaded")).toHaveLength(1);
    // Past the longest wait, nothing says the sheets did not load.
    await new Promise((r) => setTimeout(r, 60));
    expect(performance.getEntriesByName("styles-not-loaded")).toHaveLength(0);
  });

  it("stops waiting for a stylesheet that never says it loaded or failed, after the wait", async () => {
    const { doc } = page(1);
    const loaded = stylesheetsLoaded(doc, 50);
    expect(await settled(loaded)).toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(await settled(loaded)).toBe(true);
    expect(performance.getEntriesByName("styles-not-loaded")).toHaveLength(1);
    expect(performance.getEntriesByName("styles-loaded")).toHaveLength(0);
  });

  it("stops waiting for a stylesheet that failed to load", async () => {
    const { doc, links } = page(1);
    const loaded = stylesheetsLoaded(doc);
    links[0]!.dispatchEvent(new Event("error"));
    expect(await settled(loaded)).toBe(true);
  });
});
