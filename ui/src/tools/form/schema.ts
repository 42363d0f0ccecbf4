// What a tool's inputSchema asks for, as a tree of fields a form can show faithfully.
//
// Real servers send draft-07 and 2020-12 schemas from zod, pydantic and hand-written JSON:
// nullable types (`type: [T, "null"]`, `anyOf` with `{type: "null"}`), enums and `oneOf`/`anyOf`
// of constants, local `$ref`s into `$defs`/`definitions`, `additionalProperties` maps, arrays
// of anything, `oneOf`/`anyOf` of objects. Each becomes a Field of one kind; what has no
// faithful widget (conditionals, tuples, `not`, mixed unions) becomes a "json" field edited
// as JSON, so nothing a server asks for is lost or guessed.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

interface Common {
  title: string | null;
  description: string | null;
  /** The schema's `default`, when it has one. */
  default: Json | undefined;
  /** `null` is a value this field may take. */
  nullable: boolean;
  /** `writeOnly` or `format: password`: shown masked, never kept in history. */
  secret: boolean;
  /** The (resolved) schema this field was made from, for validation messages. */
  schema: JsonObject;
}

export type Field = Common &
  (
    | { kind: "string"; format: string | null; pattern: string | null; minLength: number | null; maxLength: number | null; multiline: boolean }
    | { kind: "number"; integer: boolean; minimum: number | null; maximum: number | null; exclusiveMinimum: number | null; exclusiveMaximum: number | null; multipleOf: number | null }
    | { kind: "boolean" }
    | { kind: "choice"; options: Choice[] }
    | { kind: "object"; properties: Property[]; additional: Field | null }
    | { kind: "array"; items: Field; minItems: number | null; maxItems: number | null }
    | { kind: "variant"; options: Variant[] }
    | { kind: "json"; why: string }
  );

export interface Choice {
  value: Json;
  title: string;
}

export interface Property {
  name: string;
  required: boolean;
  field: Field;
}

export interface Variant {
  title: string;
  field: Field;
}

/** How deep `$ref`s are followed before a field falls back to JSON (recursive schemas). */
const MAX_DEPTH = 12;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** Resolves a local JSON pointer (`#/$defs/Thing`, `#/definitions/x`, `#`) in `root`. */
export function resolvePointer(root: JsonObject, ref: string): JsonObject | null {
  if (!ref.startsWith("#")) return null;
  const parts = ref
    .slice(1)
    .split("/")
    .filter((p) => p !== "")
    .map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"));
  let at: Json = root;
  for (const part of parts) {
    if (Array.isArray(at)) at = at[Number(part)] ?? null;
    else if (isObject(at)) at = at[part] ?? null;
    else return null;
  }
  return isObject(at) ? at : null;
}

/** `schema` with its `$ref` followed (siblings of `$ref` win over the target's keywords). */
function followRef(root: JsonObject, schema: JsonObject, seen: Set<string>): JsonObject | string {
  let current = schema;
  while (typeof current.$ref === "string") {
    const ref = current.$ref;
    if (seen.has(ref)) return `recursive $ref ${ref}`;
    seen.add(ref);
    const target = resolvePointer(root, ref);
    if (!target) return `$ref ${ref} is not in this schema`;
    const { $ref: _, ...siblings } = current;
    current = { ...target, ...siblings };
  }
  return current;
}

const text = (value: Json | undefined): string | null => (typeof value === "string" && value.trim() !== "" ? value : null);
const num = (value: Json | undefined): number | null => (typeof value === "number" ? value : null);
const isNullSchema = (s: Json): boolean => isObject(s) && (s.type === "null" || (Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null));

function common(schema: JsonObject, nullable: boolean): Common {
  return {
    title: text(schema.title),
    description: text(schema.description),
    // `default: null` on a field that may not be null (pydantic's Optional, as some servers
    // publish it) says "nothing": the server's own default applies when the field is omitted.
    default: "default" in schema && !(schema.default === null && !nullable) ? schema.default : undefined,
    nullable,
    secret: schema.writeOnly === true || schema.format === "password",
    schema,
  };
}

/** The constants of `oneOf`/`anyOf` options, when every option is one (titled choices). */
function constants(options: Json[]): Choice[] | null {
  const choices: Choice[] = [];
  for (const option of options) {
    if (!isObject(option)) return null;
    const value = "const" in option ? option.const : Array.isArray(option.enum) && option.enum.length === 1 ? option.enum[0] : undefined;
    if (value === undefined) return null;
    choices.push({ value, title: text(option.title) ?? text(option.description) ?? JSON.stringify(value) });
  }
  return choices;
}

/**
 * The field for `schema`, a part of the tool's whole `root` schema. Its `schema` is the one
 * written (its `$ref` followed), nullable options included, so that validating a value of the
 * field (a `null` default, say) asks what the server asks.
 */
export function describe(schema: Json, root: JsonObject, depth = 0, seen = new Set<string>()): Field {
  const field = shape(schema, root, depth, seen);
  if (!isObject(schema)) return field;
  const followed = followRef(root, schema, new Set(seen));
  return typeof followed === "string" ? field : { ...field, schema: followed };
}

function shape(schema: Json, root: JsonObject, depth: number, seen: Set<string>): Field {
  if (schema === true || (isObject(schema) && Object.keys(schema).filter((k) => !["description", "title", "default", "$schema"].includes(k)).length === 0)) {
    return { ...common(isObject(schema) ? schema : {}, true), kind: "json", why: "any JSON value" };
  }
  if (!isObject(schema)) return { ...common({}, false), kind: "json", why: "a schema that accepts nothing" };
  if (depth > MAX_DEPTH) return { ...common(schema, false), kind: "json", why: "nested too deep" };
  // The refs followed on the way here, so that a schema that refers to itself ends.
  seen = new Set(seen);
  const followed = followRef(root, schema, seen);
  if (typeof followed === "string") return { ...common(schema, false), kind: "json", why: followed };
  let s: JsonObject = followed;
  let nullable = false;

  // anyOf/oneOf with a null option: the rest, nullable.
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.some(isNullSchema)) {
      const rest = options.filter((o) => !isNullSchema(o));
      nullable = true;
      const { [key]: _, ...others } = s;
      s = rest.length === 1 && isObject(rest[0]) ? { ...others, ...(rest[0] as JsonObject), ...pick(others) } : { ...others, [key]: rest };
      const again = followRef(root, s, seen);
      if (typeof again === "string") return { ...common(s, nullable), kind: "json", why: again };
      s = again;
    }
  }
  // A type list with null: the other type, nullable.
  let type = s.type;
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== "null");
    if (types.length < type.length) nullable = true;
    if (types.length === 1) type = types[0]!;
    else return { ...common(s, nullable), kind: "json", why: `one of the types ${types.join(", ")}` };
  }
  if (Array.isArray(s.enum)) {
    const values = s.enum.filter((v) => v !== null);
    if (values.length < s.enum.length) nullable = true;
    return { ...common(s, nullable), kind: "choice", options: values.map((value) => ({ value, title: typeof value === "string" ? value : JSON.stringify(value) })) };
  }
  if ("const" in s) return { ...common(s, nullable), kind: "choice", options: [{ value: s.const!, title: typeof s.const === "string" ? s.const : JSON.stringify(s.const) }] };
  for (const key of ["oneOf", "anyOf"] as const) {
    const options = s[key];
    if (!Array.isArray(options)) continue;
    const choices = constants(options);
    if (choices) return { ...common(s, nullable), kind: "choice", options: choices };
    return {
      ...common(s, nullable),
      kind: "variant",
      options: options.map((option, i) => {
        const field = describe(mergeSiblings(s, option, key), root, depth + 1, seen);
        return { title: field.title ?? variantTitle(option, root, i), field };
      }),
    };
  }
  if (["allOf", "not", "if", "prefixItems", "patternProperties", "dependentSchemas"].some((k) => k in s)) {
    const why = ["allOf", "not", "if", "prefixItems", "patternProperties", "dependentSchemas"].find((k) => k in s)!;
    return { ...common(s, nullable), kind: "json", why: `\`${why}\` has no form widget` };
  }
  if (type === undefined && isObject(s.properties)) type = "object";
  switch (type) {
    case "string":
      return {
        ...common(s, nullable),
        kind: "string",
        format: text(s.format),
        pattern: text(s.pattern),
        minLength: num(s.minLength),
        maxLength: num(s.maxLength),
        multiline: num(s.maxLength) === null || (num(s.maxLength) ?? 0) > 200,
      };
    case "number":
    case "integer":
      return {
        ...common(s, nullable),
        kind: "number",
        integer: type === "integer",
        minimum: num(s.minimum),
        maximum: num(s.maximum),
        exclusiveMinimum: num(s.exclusiveMinimum),
        exclusiveMaximum: num(s.exclusiveMaximum),
        multipleOf: num(s.multipleOf),
      };
    case "boolean":
      return { ...common(s, nullable), kind: "boolean" };
    case "null":
      return { ...common(s, true), kind: "choice", options: [{ value: null, title: "null" }] };
    case "array": {
      const items = Array.isArray(s.items) ? null : (s.items ?? true);
      if (items === null) return { ...common(s, nullable), kind: "json", why: "a tuple (`items` as a list)" };
      return { ...common(s, nullable), kind: "array", items: describe(items, root, depth + 1, seen), minItems: num(s.minItems), maxItems: num(s.maxItems) };
    }
    case "object": {
      const properties = isObject(s.properties) ? s.properties : {};
      const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : [];
      const additional = s.additionalProperties;
      return {
        ...common(s, nullable),
        kind: "object",
        properties: Object.entries(properties).map(([name, property]) => ({
          name,
          required: required.includes(name),
          field: describe(property, root, depth + 1, seen),
        })),
        // Open objects without declared properties are maps; declared ones stay closed unless said.
        additional:
          isObject(additional) || (additional === undefined && Object.keys(properties).length === 0)
            ? describe(isObject(additional) ? additional : true, root, depth + 1, seen)
            : additional === true
              ? describe(true, root, depth + 1, seen)
              : null,
      };
    }
    default:
      return { ...common(s, nullable), kind: "json", why: type === undefined ? "no type given" : `type ${JSON.stringify(type)}` };
  }
}

/** The keywords of `parent` an option inherits (title and description stay the option's). */
function pick(parent: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of ["description", "title", "default"]) if (key in parent) out[key] = parent[key]!;
  return out;
}

function mergeSiblings(parent: JsonObject, option: Json, key: string): Json {
  if (!isObject(option)) return option;
  const { [key]: _, title: __, description: ___, default: ____, ...shared } = parent;
  return { ...shared, ...option };
}

function variantTitle(option: Json, root: JsonObject, index: number): string {
  if (isObject(option)) {
    if (typeof option.$ref === "string") return option.$ref.split("/").pop() ?? `Option ${index + 1}`;
    const resolved = followRef(root, option, new Set());
    if (typeof resolved !== "string") {
      if (typeof resolved.title === "string") return resolved.title;
      // A discriminating constant property names the variant.
      if (isObject(resolved.properties)) {
        for (const [name, property] of Object.entries(resolved.properties)) {
          if (isObject(property) && "const" in property) return `${name}: ${String(property.const)}`;
        }
      }
      if (typeof resolved.type === "string") return resolved.type;
    }
  }
  return `Option ${index + 1}`;
}
