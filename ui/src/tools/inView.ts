// Which rows of a list of equal rows a scrolled box shows: the All tools list draws only those.
//
// A general virtualizer (@tanstack/react-virtual, used here before) keeps a measurement object
// per row and makes them all again whenever the number of rows changes, which every keystroke
// in the search does: 5,000 objects made and dropped per key. Rows of one height need none of
// that; the rows in view follow from the scroll position by division.

/** The rows `[first, end)` to draw, and where the first one goes. */
export interface InView {
  first: number;
  end: number;
  /** The list's whole height, in pixels. */
  total: number;
}

/**
 * The rows of `count`, each `height` pixels, that a box `viewport` pixels tall scrolled to
 * `top` shows, with `overscan` more each side. A `top` beyond the list's end (the list grew
 * shorter before the box's scroll event said so) is taken as the end, as the box will.
 */
export function inView(count: number, height: number, top: number, viewport: number, overscan: number): InView {
  const total = count * height;
  const scrolled = Math.max(0, Math.min(top, total - viewport));
  const first = Math.max(0, Math.floor(scrolled / height) - overscan);
  const end = Math.min(count, Math.ceil((scrolled + viewport) / height) + overscan);
  return { first, end: Math.max(first, end), total };
}
