// Checking arguments against a tool's inputSchema before sending, with ajv (the validator the
// MCP TypeScript SDK uses): draft-07 or 2020-12 by the schema's `$schema`, formats included,
// and errors by JSON pointer so each is shown at its field.
import Ajv, { type ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { Json, JsonObject } from "./schema";

const draft07 = addFormats(new Ajv({ strict: false, allErrors: true, validateSchema: false }));
const draft2020 = addFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: false }));
const compiled = new WeakMap<object, ValidateFunction | string>();

/** The compiled schema, or why it does not compile. */
export function compile(schema: JsonObject): ValidateFunction | string {
  const known = compiled.get(schema);
  if (known) return known;
  const ajv = typeof schema.$schema === "string" && schema.$schema.includes("2020-12") ? draft2020 : draft07;
  const { $schema: _, $id: __, ...rest } = schema;
  let result: ValidateFunction | string;
  try {
    result = ajv.compile(rest);
  } catch (error) {
    result = (error as Error).message;
  }
  compiled.set(schema, result);
  return result;
}

/** Problems by JSON pointer of the field they belong to ("" for the whole). */
export type Problems = Record<string, string[]>;

export function validate(schema: JsonObject, value: Json): Problems {
  const check = compile(schema);
  if (typeof check === "string") return { "": [`The tool's schema does not compile: ${check}`] };
  if (check(value)) return {};
  const problems: Problems = {};
  for (const error of check.errors ?? []) {
    let path = error.instancePath;
    let message = error.message ?? "is not valid";
    if (error.keyword === "required" && typeof error.params.missingProperty === "string") {
      path = `${path}/${error.params.missingProperty.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      message = "Required.";
    } else if (error.keyword === "enum") {
      message = "Not one of the allowed values.";
    }
    (problems[path] ??= []).push(message);
  }
  return problems;
}
