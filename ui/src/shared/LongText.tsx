// Text of any length, shown a piece at a time: a 50 MB result paints its first 64 KB at once
// and the rest only when asked for, so the window stays responsive.
import { useState } from "react";

export const PIECE = 64 * 1024;

export function LongText({ text, testId, className = "" }: { text: string; testId: string; className?: string }) {
  const [shown, setShown] = useState(PIECE);
  const cut = text.length > shown;
  return (
    <div>
      <pre data-testid={testId} data-length={text.length} className={`max-h-96 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 font-mono text-xs dark:bg-slate-900 ${className}`}>
        {cut ? text.slice(0, shown) : text}
      </pre>
      {cut && (
        <p data-testid="text-cut" className="flex items-center gap-2 text-xs text-slate-500">
          Showing {shown.toLocaleString()} of {text.length.toLocaleString()} characters.
          <button type="button" data-testid="show-more" onClick={() => setShown(shown * 4)} className="rounded border border-slate-300 px-1.5 dark:border-slate-700">
            Show more
          </button>
        </p>
      )}
    </div>
  );
}
