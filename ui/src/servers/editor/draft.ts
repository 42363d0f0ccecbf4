// The server form's values, kept exactly as typed; the backend parses and checks them
// (check_server_draft), so the form and `mcpctl` apply one set of rules.
import type { DraftNote, KeyValue, Scope, ServerDraft, TransportKind } from "../../bindings";

export function emptyDraft(scope: Scope = "project", transport: TransportKind = "stdio"): ServerDraft {
  return {
    name: "",
    scope,
    transport,
    command: "",
    args: [],
    env: [],
    url: "",
    headers: [],
    headersHelper: "",
    clientId: "",
    callbackPort: "",
    authServerMetadataUrl: "",
    scopes: "",
    grant: "",
    assertionFile: "",
    assertionCommand: "",
  };
}

export type RowList = "env" | "headers";

export const emptyRow = (): KeyValue => ({ key: "", value: "", kept: false });

/** A copy of `items` with the item at `from` moved by `by` places (clamped). */
export function move<T>(items: readonly T[], from: number, by: number): T[] {
  const to = Math.max(0, Math.min(items.length - 1, from + by));
  const next = [...items];
  const [item] = next.splice(from, 1);
  if (item !== undefined) next.splice(to, 0, item);
  return next;
}

/** Sets one row's value as typed; a kept row stops being kept once the person types. */
export function setRowValue(rows: readonly KeyValue[], index: number, value: string): KeyValue[] {
  return rows.map((row, i) => (i === index ? { ...row, value, kept: false } : row));
}

/** The notes about one field (`url`, `env.2.value`, …). */
export function notesFor(notes: readonly DraftNote[], field: string): DraftNote[] {
  return notes.filter((note) => note.field === field);
}

/** Applies a suggestion (`${VAR}` for a secret) to the field it is about. */
export function applySuggestion(draft: ServerDraft, note: DraftNote): ServerDraft {
  if (note.suggestion === null) return draft;
  const row = /^(env|headers)\.(\d+)\.value$/.exec(note.field);
  if (row) {
    const list = row[1] as RowList;
    return { ...draft, [list]: setRowValue(draft[list], Number(row[2]), note.suggestion) };
  }
  return draft;
}
