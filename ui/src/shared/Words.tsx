// Words shown as Claude Code writes them, some with a symbol before them. "⏸" (U+23F8, "⏸
// Pending approval") is in no font a minimal Debian installs (DejaVu has every other symbol
// the window uses), so WebKit drew an empty box there: it is drawn by CSS instead (two bars,
// `.pause-glyph` in styles.css), and the character stays in the text, for copying and for
// screen readers.

const PAUSE = "⏸";

/** `text`, with its "⏸" drawn rather than taken from a font. */
export function Words({ text }: { text: string }) {
  const at = text.indexOf(PAUSE);
  if (at === -1) return <>{text}</>;
  return (
    <>
      {text.slice(0, at)}
      <span className="pause-glyph">{PAUSE}</span>
      {text.slice(at + PAUSE.length)}
    </>
  );
}
