// JSON as a tree to fold and unfold: objects and arrays open to the first levels, deeper
// ones closed; a closed node renders nothing of its children, and a long array or object
// shows its entries 100 at a time, so a large document paints quickly.
import { useState } from "react";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const PAGE = 100;

export function JsonTree({ value, testId = "json-tree", openDepth = 2 }: { value: Json; testId?: string; openDepth?: number }) {
  return (
    <div data-testid={testId} className="max-h-96 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs dark:bg-slate-900">
      <Node value={value} label={null} path="" depth={0} openDepth={openDepth} />
    </div>
  );
}

function Node({ value, label, path, depth, openDepth }: { value: Json; label: string | null; path: string; depth: number; openDepth: number }) {
  const composite = typeof value === "object" && value !== null;
  const [open, setOpen] = useState(depth < openDepth);
  const [shown, setShown] = useState(PAGE);
  const name = label !== null && <span className="text-violet-700 dark:text-violet-300">{label}: </span>;
  if (!composite) {
    return (
      <div data-testid="json-leaf" data-path={path} style={{ paddingLeft: depth ? "1rem" : 0 }}>
        {name}
        <Leaf value={value} />
      </div>
    );
  }
  const entries: [string, Json][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const [openMark, closeMark] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return (
    <div data-testid="json-node" data-path={path} data-open={open} style={{ paddingLeft: depth ? "1rem" : 0 }}>
      <button type="button" data-testid="json-toggle" aria-expanded={open} onClick={() => setOpen(!open)} className="text-left hover:underline">
        <span className="inline-block w-3 text-slate-400">{open ? "▾" : "▸"}</span>
        {name}
        {openMark}
        {!open && (
          <span className="text-slate-500">
            {" "}
            {entries.length} {Array.isArray(value) ? (entries.length === 1 ? "item" : "items") : entries.length === 1 ? "key" : "keys"} {closeMark}
          </span>
        )}
      </button>
      {open && (
        <>
          {entries.slice(0, shown).map(([key, child]) => (
            <Node key={key} value={child} label={Array.isArray(value) ? null : key} path={`${path}/${key}`} depth={depth + 1} openDepth={openDepth} />
          ))}
          {entries.length > shown && (
            <button type="button" data-testid="json-more" onClick={() => setShown(shown + PAGE)} style={{ paddingLeft: "1rem" }} className="text-indigo-700 hover:underline dark:text-indigo-300">
              … {(entries.length - shown).toLocaleString()} more
            </button>
          )}
          <div>{closeMark}</div>
        </>
      )}
    </div>
  );
}

function Leaf({ value }: { value: Json }) {
  if (typeof value === "string") {
    const text = value.length > 2000 ? `${value.slice(0, 2000)}… (${value.length.toLocaleString()} characters)` : value;
    return <span className="whitespace-pre-wrap break-all text-emerald-800 dark:text-emerald-300">{JSON.stringify(text)}</span>;
  }
  return <span className="text-sky-800 dark:text-sky-300">{JSON.stringify(value)}</span>;
}
