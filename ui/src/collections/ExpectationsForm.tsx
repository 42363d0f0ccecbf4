// A case's expectations as a form: outcome, texts, values at JSON Pointers, outputSchema,
// time, and the snapshot's ignored pointers. Lists are one entry per line.
import { useId, useState } from "react";
import type { Case, Expect, Outcome, ValueCheck } from "../bindings";

const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter(Boolean);

type Row = { pointer: string; inText: boolean; equals: string; matches: string; exists: "" | "yes" | "no"; min: string; max: string };

function toRow(check: ValueCheck): Row {
  return {
    pointer: check.pointer,
    inText: !!check.inText,
    equals: check.equals === undefined || check.equals === null ? "" : JSON.stringify(check.equals),
    matches: check.matches ?? "",
    exists: check.exists === true ? "yes" : check.exists === false ? "no" : "",
    min: check.min === undefined || check.min === null ? "" : String(check.min),
    max: check.max === undefined || check.max === null ? "" : String(check.max),
  };
}

function fromRow(row: Row): ValueCheck | string {
  const check: ValueCheck = { pointer: row.pointer.trim() };
  if (!check.pointer.startsWith("/") && check.pointer !== "") return `the pointer “${row.pointer}” must start with /`;
  if (row.inText) check.inText = true;
  if (row.equals.trim()) {
    try {
      check.equals = JSON.parse(row.equals);
    } catch {
      return `“${row.equals}” (equals, at ${row.pointer}) is not JSON: write strings in quotes`;
    }
  }
  if (row.matches) check.matches = row.matches;
  if (row.exists) check.exists = row.exists === "yes";
  for (const key of ["min", "max"] as const) {
    if (row[key].trim()) {
      const n = Number(row[key]);
      if (!Number.isFinite(n)) return `${key} at ${row.pointer} is not a number`;
      check[key] = n;
    }
  }
  return check;
}

export function ExpectationsForm({ value, onSave, onCancel }: { value: Case; onSave: (updated: Case) => void; onCancel: () => void }) {
  const expect: Expect = value.expect ?? {};
  const id = useId();
  const [outcome, setOutcome] = useState<Outcome | "">(expect.outcome ?? "");
  const [messageMatches, setMessageMatches] = useState(expect.messageMatches ?? "");
  const [contains, setContains] = useState((expect.textContains ?? []).join("\n"));
  const [matches, setMatches] = useState((expect.textMatches ?? []).join("\n"));
  const [outputSchema, setOutputSchema] = useState(!!expect.outputSchema);
  const [maxMs, setMaxMs] = useState(expect.maxMs === undefined || expect.maxMs === null ? "" : String(expect.maxMs));
  const [keepSnapshot, setKeepSnapshot] = useState(expect.snapshot !== undefined && expect.snapshot !== null);
  const [ignore, setIgnore] = useState((expect.ignore ?? []).join("\n"));
  const [rows, setRows] = useState<Row[]>((expect.values ?? []).map(toRow));
  const [problem, setProblem] = useState<string | null>(null);
  const input = "rounded border border-slate-300 bg-transparent px-1 dark:border-slate-700";

  const save = () => {
    const values: ValueCheck[] = [];
    for (const row of rows) {
      const made = fromRow(row);
      if (typeof made === "string") return setProblem(made);
      values.push(made);
    }
    if (maxMs.trim() && !/^\d+$/.test(maxMs.trim())) return setProblem("“took at most” must be a whole number of milliseconds");
    const next: Expect = {
      outcome: outcome || null,
      messageMatches: outcome === "fails" && messageMatches ? messageMatches : null,
      values,
      textContains: lines(contains),
      textMatches: lines(matches),
      outputSchema,
      maxMs: maxMs.trim() ? Number(maxMs) : null,
      snapshot: keepSnapshot ? expect.snapshot : null,
      ignore: keepSnapshot ? lines(ignore) : [],
    };
    onSave({ ...value, expect: next });
  };

  return (
    <form
      data-testid="expectations-form"
      aria-label={`Expectations of ${value.name}`}
      className="flex flex-col gap-2 rounded-md border border-slate-200 p-3 text-xs dark:border-slate-800"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <label htmlFor={`${id}-outcome`} className="flex items-center gap-2">
        Outcome
        <select id={`${id}-outcome`} data-testid="expect-outcome" value={outcome} onChange={(e) => setOutcome(e.target.value as Outcome | "")} className={input}>
          <option value="">any</option>
          <option value="ok">ok</option>
          <option value="tool-error">tool error (isError)</option>
          <option value="fails">the request fails</option>
        </select>
      </label>
      {outcome === "fails" && (
        <label htmlFor={`${id}-message`} className="flex flex-col">
          Its message matches (regular expression)
          <input id={`${id}-message`} value={messageMatches} onChange={(e) => setMessageMatches(e.target.value)} className={input} />
        </label>
      )}
      <label htmlFor={`${id}-contains`} className="flex flex-col">
        Text contains (one per line)
        <textarea id={`${id}-contains`} data-testid="expect-text-contains" rows={2} value={contains} onChange={(e) => setContains(e.target.value)} className={`${input} font-mono`} />
      </label>
      <label htmlFor={`${id}-matches`} className="flex flex-col">
        Text matches (regular expressions, one per line)
        <textarea id={`${id}-matches`} rows={2} value={matches} onChange={(e) => setMatches(e.target.value)} className={`${input} font-mono`} />
      </label>
      <fieldset className="flex flex-col gap-1">
        <legend>Values at JSON Pointers of structuredContent (or of the text, parsed as JSON)</legend>
        {rows.map((row, index) => {
          const set = (patch: Partial<Row>) => setRows((now) => now.map((r, i) => (i === index ? { ...r, ...patch } : r)));
          const label = `value ${index + 1}`;
          return (
            <div key={index} data-testid="expect-value" className="flex flex-wrap items-center gap-1">
              <input aria-label={`Pointer of ${label}`} placeholder="/pointer" value={row.pointer} onChange={(e) => set({ pointer: e.target.value })} className={`${input} w-28 font-mono`} />
              <label className="flex items-center gap-1">
                <input type="checkbox" checked={row.inText} onChange={(e) => set({ inText: e.target.checked })} /> in text
              </label>
              <input aria-label={`Equals (JSON) of ${label}`} placeholder="equals (JSON)" value={row.equals} onChange={(e) => set({ equals: e.target.value })} className={`${input} w-28 font-mono`} />
              <input aria-label={`Matches of ${label}`} placeholder="matches" value={row.matches} onChange={(e) => set({ matches: e.target.value })} className={`${input} w-24 font-mono`} />
              <select aria-label={`Exists of ${label}`} value={row.exists} onChange={(e) => set({ exists: e.target.value as Row["exists"] })} className={input}>
                <option value="">exists: any</option>
                <option value="yes">exists</option>
                <option value="no">absent</option>
              </select>
              <input aria-label={`At least, of ${label}`} placeholder="min" value={row.min} onChange={(e) => set({ min: e.target.value })} className={`${input} w-14`} />
              <input aria-label={`At most, of ${label}`} placeholder="max" value={row.max} onChange={(e) => set({ max: e.target.value })} className={`${input} w-14`} />
              <button type="button" aria-label={`Remove ${label}`} onClick={() => setRows((now) => now.filter((_, i) => i !== index))} className="rounded border border-slate-300 px-1 dark:border-slate-700">
                ✕
              </button>
            </div>
          );
        })}
        <button
          type="button"
          data-testid="expect-add-value"
          onClick={() => setRows((now) => [...now, { pointer: "", inText: false, equals: "", matches: "", exists: "", min: "", max: "" }])}
          className="self-start rounded border border-slate-300 px-2 dark:border-slate-700"
        >
          Add a value
        </button>
      </fieldset>
      <label className="flex items-center gap-2">
        <input type="checkbox" data-testid="expect-output-schema" checked={outputSchema} onChange={(e) => setOutputSchema(e.target.checked)} />
        structuredContent satisfies the tool’s outputSchema
      </label>
      <label htmlFor={`${id}-max`} className="flex items-center gap-2">
        Took at most
        <input id={`${id}-max`} data-testid="expect-max-ms" inputMode="numeric" value={maxMs} onChange={(e) => setMaxMs(e.target.value)} className={`${input} w-20`} /> ms
      </label>
      {expect.snapshot !== undefined && expect.snapshot !== null && (
        <>
          <label className="flex items-center gap-2">
            <input type="checkbox" data-testid="expect-snapshot" checked={keepSnapshot} onChange={(e) => setKeepSnapshot(e.target.checked)} />
            equals the snapshot
          </label>
          {keepSnapshot && (
            <label htmlFor={`${id}-ignore`} className="flex flex-col">
              Left out of the comparison (JSON Pointers, one per line: times, ids)
              <textarea id={`${id}-ignore`} data-testid="expect-ignore" rows={2} value={ignore} onChange={(e) => setIgnore(e.target.value)} className={`${input} font-mono`} />
            </label>
          )}
        </>
      )}
      {problem && (
        <p role="alert" data-testid="expectations-problem" className="text-red-700 dark:text-red-300">
          {problem}
        </p>
      )}
      <div className="flex gap-2">
        <button type="submit" data-testid="expectations-save" className="rounded border border-indigo-600 bg-indigo-600 px-2 py-0.5 text-white">
          Save expectations
        </button>
        <button type="button" onClick={onCancel} className="rounded border border-slate-300 px-2 py-0.5 dark:border-slate-700">
          Cancel
        </button>
      </div>
    </form>
  );
}
