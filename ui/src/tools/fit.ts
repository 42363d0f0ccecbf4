// A row's text cut to the pixels it has, here rather than by WebKit.
//
// A box with `text-overflow: ellipsis` whose text overflows makes WebKit find where to cut
// it as it lays the row out, and in the All tools list that was most of a keystroke's layout:
// 21 rows whose descriptions overflowed took 8–12 ms to lay out, against 3 ms when each
// description fitted its row (measured in the real window, the same rows either way). So a
// row's line is cut here, from each character's width in the row's font, measured once by a
// canvas; the CSS ellipsis stays as the safety net for a line this lets overflow (a face
// that differs from the canvas's, a pair kerned wider).

/** The width in pixels of one character (a code point) in one font. */
export type GlyphWidth = (char: string) => number;

/** Each character's width as `measure` gives it, asked once per character. */
export function remembered(measure: GlyphWidth): GlyphWidth {
  const known = new Map<string, number>();
  return (char) => {
    let width = known.get(char);
    if (width === undefined) {
      width = measure(char);
      known.set(char, width);
    }
    return width;
  };
}

/** A font's glyph widths as this page's canvas measures them, or null where it cannot. */
export function canvasWidths(font: string): GlyphWidth | null {
  const context = document.createElement("canvas").getContext("2d");
  if (!context) return null;
  context.font = font;
  return remembered((char) => context.measureText(char).width);
}

/** The width of `text` in pixels: its characters' widths added up. */
export function widthOf(text: string, width: GlyphWidth): number {
  let sum = 0;
  for (const char of text) sum += width(char);
  return sum;
}

/**
 * `line` as it fits `room` pixels: whole, or cut after the last character that leaves room
 * for an "…", which is added, or nothing where not even the "…" fits. Adding up single characters' widths leaves out kerning and
 * ligatures, which in the faces of a row narrow a line more often than they widen it.
 */
export function fitLine(line: string, room: number, width: GlyphWidth): string {
  if (room <= 0) return "";
  const ellipsis = width("…");
  let used = 0;
  // Where the line could be cut with its ellipsis still fitting.
  let cut = 0;
  let index = 0;
  for (const char of line) {
    used += width(char);
    if (used > room) return ellipsis <= room ? `${line.slice(0, cut)}…` : "";
    index += char.length;
    if (used + ellipsis <= room) cut = index;
  }
  return line;
}
