// A form's state: the arguments as JSON (a key that is absent is omitted, which differs from
// an empty value), the text a person is typing where it is not yet a value (a number half
// typed, JSON not yet valid), and the variant chosen for each `oneOf`/`anyOf` of objects.
import type { Field, Json, JsonObject } from "./schema";

export interface FormState {
  /** The arguments; `undefined` nowhere inside: omitted keys are absent. */
  value: JsonObject;
  /** By JSON pointer: text typed that does not (yet) parse, shown in place of the value. */
  texts: Readonly<Record<string, string>>;
  /** By JSON pointer: the variant chosen where the value alone does not say. */
  variants: Readonly<Record<string, number>>;
}

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

export function pointer(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function keys(path: string): string[] {
  return path
    .split("/")
    .slice(1)
    .map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value at `path`, or undefined when omitted. */
export function getAt(value: Json | undefined, path: string): Json | undefined {
  let at: Json | undefined = value;
  for (const key of keys(path)) {
    if (Array.isArray(at)) at = at[Number(key)];
    else if (isObject(at)) at = Object.prototype.hasOwnProperty.call(at, key) ? at[key] : undefined;
    else return undefined;
  }
  return at;
}

/** `value` with `next` at `path` (undefined: the key removed), copied along the path. */
export function setAt(value: Json | undefined, path: string, next: Json | undefined): Json | undefined {
  const [head, ...rest] = keys(path);
  if (head === undefined) return next;
  const restPath = rest.length ? "/" + rest.map((k) => k.replace(/~/g, "~0").replace(/\//g, "~1")).join("/") : "";
  if (Array.isArray(value)) {
    const copy = [...value];
    const child = setAt(copy[Number(head)], restPath, next);
    if (child === undefined) copy.splice(Number(head), 1);
    else copy[Number(head)] = child;
    return copy;
  }
  const copy: JsonObject = isObject(value) ? { ...value } : {};
  const child = setAt(copy[head], restPath, next);
  if (child === undefined) delete copy[head];
  else copy[head] = child;
  return copy;
}

/**
 * A new form: the root object with its required properties' defaults, and the structure of
 * its required objects, arrays and variants (which have no "omitted" to show); required
 * scalars start unset, for the person to give.
 */
export function initial(field: Field): FormState {
  const value: JsonObject = {};
  if (field.kind === "object") {
    for (const property of field.properties) {
      if (!property.required) continue;
      if (property.field.default !== undefined) value[property.name] = property.field.default;
      else if (["object", "array", "variant"].includes(property.field.kind)) value[property.name] = emptyOf(property.field);
    }
  }
  return { value, texts: {}, variants: {} };
}

/** The form for `value` (the raw JSON view's, or a past call's arguments). */
export function fromJson(field: Field, value: JsonObject): FormState {
  const variants: Record<string, number> = {};
  const visit = (f: Field, v: Json | undefined, path: string) => {
    if (v === undefined || v === null) return;
    switch (f.kind) {
      case "object":
        if (!isObject(v)) return;
        for (const property of f.properties) visit(property.field, v[property.name], pointer(path, property.name));
        if (f.additional) {
          const declared = new Set(f.properties.map((p) => p.name));
          for (const [key, item] of Object.entries(v)) if (!declared.has(key)) visit(f.additional, item, pointer(path, key));
        }
        return;
      case "array":
        if (Array.isArray(v)) v.forEach((item, i) => visit(f.items, item, pointer(path, i)));
        return;
      case "variant": {
        const chosen = variantOf(f, v);
        if (chosen > 0) variants[path] = chosen;
        visit(f.options[chosen]!.field, v, path);
        return;
      }
      default:
        return;
    }
  };
  visit(field, value, "");
  return { value, texts: {}, variants };
}

/** The arguments the form stands for. */
export function toJson(state: FormState): JsonObject {
  return state.value;
}

/** Which option of a variant field `value` belongs to: the first it fits, else the first. */
export function variantOf(field: Extract<Field, { kind: "variant" }>, value: Json): number {
  const scores = field.options.map((option) => fit(option.field, value));
  let best = 0;
  scores.forEach((score, i) => {
    if (score > scores[best]!) best = i;
  });
  return best;
}

/** How well `value` fits `field`: 0 not at all, higher is better. */
function fit(field: Field, value: Json): number {
  if (value === null) return field.nullable ? 1 : 0;
  switch (field.kind) {
    case "string":
      return typeof value === "string" ? 2 : 0;
    case "number":
      return typeof value === "number" && (!field.integer || Number.isInteger(value)) ? 2 : 0;
    case "boolean":
      return typeof value === "boolean" ? 2 : 0;
    case "choice":
      return field.options.some((o) => JSON.stringify(o.value) === JSON.stringify(value)) ? 3 : 0;
    case "array":
      return Array.isArray(value) ? 2 : 0;
    case "json":
      return 1;
    case "variant":
      return Math.max(0, ...field.options.map((o) => fit(o.field, value)));
    case "object": {
      if (!isObject(value)) return 0;
      let score = 2;
      const declared = new Set(field.properties.map((p) => p.name));
      for (const property of field.properties) {
        const item = value[property.name];
        if (item === undefined) {
          if (property.required) return 0;
          continue;
        }
        const inner = fit(property.field, item);
        if (inner === 0) return 0;
        // A matching constant (a discriminator) says the most.
        score += property.field.kind === "choice" && property.field.options.length === 1 ? 10 : 1;
      }
      for (const key of Object.keys(value)) if (!declared.has(key) && !field.additional) return 0;
      return score;
    }
  }
}

/** An empty value of the field's kind, for a field switched from omitted to given. */
export function emptyOf(field: Field): Json {
  if (field.default !== undefined) return field.default;
  switch (field.kind) {
    case "string":
      return "";
    case "number":
      return field.minimum ?? 0;
    case "boolean":
      return false;
    case "choice":
      return field.options[0]?.value ?? null;
    case "object": {
      const value: JsonObject = {};
      for (const property of field.properties) if (property.required) value[property.name] = emptyOf(property.field);
      return value;
    }
    case "array":
      return [];
    case "variant":
      return emptyOf(field.options[0]!.field);
    case "json":
      return null;
  }
}

/**
 * A number as typed: its value, or why it is refused. Integers beyond what JavaScript holds
 * exactly, and decimals with more digits than a double keeps, are refused, never rounded.
 */
export function parseNumber(text: string, integer: boolean): { value: number } | { error: string } {
  const trimmed = text.trim();
  if (!/^-?(\d+)(\.\d+)?([eE][+-]?\d+)?$/.test(trimmed)) return { error: integer ? "Not a whole number." : "Not a number." };
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return { error: "Too large." };
  if (integer && !Number.isInteger(value)) return { error: "Not a whole number." };
  if (!exact(trimmed)) return { error: "More digits than can be sent exactly: the value would be changed." };
  return { value };
}

/** Whether a JSON number literal survives being read into a double. */
export function exact(literal: string): boolean {
  if (/^-?\d+$/.test(literal)) {
    try {
      return BigInt(literal) === BigInt(Number(literal));
    } catch {
      return false;
    }
  }
  const digits = literal.replace(/^-/, "").replace(/[eE].*$/, "").replace(".", "").replace(/^0+/, "");
  return digits.length <= 15;
}

/** Parses raw JSON arguments, refusing numbers that would not survive exactly. */
export function parseArguments(text: string): { value: JsonObject } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `Not JSON: ${(error as Error).message}` };
  }
  if (!isObject(value)) return { error: "The arguments must be a JSON object." };
  const tokens = text.match(/"(?:\\.|[^"\\])*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? [];
  const inexact = tokens.find((t) => !t.startsWith('"') && !exact(t));
  if (inexact) return { error: `${inexact} has more digits than can be sent exactly; it would be changed.` };
  return { value };
}
