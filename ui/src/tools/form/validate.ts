// Checking arguments against a tool's inputSchema before sending, with @cfworker/json-schema:
// it interprets schemas (drafts 4, 7, 2019-09 and 2020-12, formats included) without compiling
// them to code, which the window's Content Security Policy forbids (no 'unsafe-eval'). Errors
// come back by JSON pointer, so each is shown at its field; for a oneOf/anyOf only the option
// closest to the value (fewest errors) speaks, not every option the value is not.
import { format, Validator, type OutputUnit, type SchemaDraft } from "@cfworker/json-schema";
import type { Json, JsonObject } from "./schema";
import { linearPattern, Unsupported } from "./linearPattern";

/** The format name under which a `pattern` is checked by the linear-time engine. */
const PATTERN_FORMAT = "x-mcp-manager-pattern:";

/**
 * The schema with every string `pattern` moved into an `allOf` of a format that our
 * linear-time engine checks (linearPattern.ts): the validator library would hand the
 * server's pattern to RegExp, which backtracks. A pattern the engine cannot run is left
 * unchecked here and said so.
 */
function withLinearPatterns(node: Json, depth = 0): Json {
  if (depth > 64 || node === null || typeof node !== "object") return node;
  if (Array.isArray(node)) return node.map((item) => withLinearPatterns(item, depth + 1));
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    // Keys of `properties`, `$defs` and the like are names, not schemas: only values recurse.
    out[key] = key === "pattern" ? value : withLinearPatterns(value, depth + 1);
  }
  if (typeof out.pattern === "string") {
    const source = out.pattern;
    delete out.pattern;
    const name = `${PATTERN_FORMAT}${source}`;
    if (!(name in format)) {
      const compiled = linearPattern(source);
      (format as Record<string, (s: string) => boolean>)[name] =
        compiled instanceof Unsupported ? () => true : (s: string) => compiled.test(s);
    }
    out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { format: name }];
  }
  return out;
}

/** Why `pattern` is not checked in the window, when it is not (a backreference, lookaround). */
export function uncheckedPattern(pattern: string): string | null {
  const compiled = linearPattern(pattern);
  return compiled instanceof Unsupported
    ? `The pattern is not checked here (it uses ${compiled.message}, which cannot be matched in bounded time); the server checks it.`
    : null;
}

const validators = new WeakMap<object, Validator | string>();

function draftOf(schema: JsonObject): SchemaDraft {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.includes("draft-04")) return "4";
  if (declared.includes("draft-07") || declared.includes("draft-06")) return "7";
  if (declared.includes("2019-09")) return "2019-09";
  // MCP's default dialect (2025-11-25) is 2020-12.
  return "2020-12";
}

/** The schema's validator, or why it cannot be used. */
export function compile(schema: JsonObject): Validator | string {
  const known = validators.get(schema);
  if (known) return known;
  let result: Validator | string;
  try {
    result = new Validator(withLinearPatterns(schema) as object, draftOf(schema), false);
  } catch (error) {
    result = (error as Error).message;
  }
  validators.set(schema, result);
  return result;
}

/** Problems by JSON pointer of the field they belong to ("" for the whole). */
export type Problems = Record<string, string[]>;

/** Keywords that only say "something inside failed"; the inner error says what. */
const AGGREGATE = new Set(["properties", "items", "additionalItems", "prefixItems", "allOf", "$ref", "$dynamicRef", "dependentSchemas", "then", "else", "if", "unevaluatedProperties", "unevaluatedItems", "contains"]);

export function validate(schema: JsonObject, value: Json): Problems {
  const validator = compile(schema);
  if (typeof validator === "string") return { "": [`The tool's schema cannot be used: ${validator}`] };
  const result = validator.validate(value);
  if (result.valid) return {};
  const errors = closestOptions(result.errors);
  const problems: Problems = {};
  for (const error of errors) {
    if (AGGREGATE.has(error.keyword)) continue;
    let path = error.instanceLocation.replace(/^#/, "");
    let message = error.error;
    if (error.keyword === "required") {
      const missing = /required property "(.*)"/.exec(error.error)?.[1];
      if (missing !== undefined) path = `${path}/${missing.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      message = "Required.";
    } else if ((error.keyword === "oneOf" || error.keyword === "anyOf") && hasBranchErrors(errors, error.keywordLocation)) {
      continue;
    } else if (error.keyword === "enum") {
      message = "Not one of the allowed values.";
    } else if (error.keyword === "format" && error.error.includes(PATTERN_FORMAT)) {
      message = `Does not match the pattern ${error.error.split(PATTERN_FORMAT)[1]?.replace(/"\.?$/, "") ?? ""}.`;
    }
    const list = (problems[decodeURIComponent(path)] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return problems;
}

/** Errors with, for each oneOf/anyOf, only those of its option with the fewest errors. */
function closestOptions(errors: OutputUnit[]): OutputUnit[] {
  const branch = /\/(oneOf|anyOf)\/(\d+)(?=\/|$)/g;
  // Per combinator (its keyword location), the error count of each option.
  const counts = new Map<string, Map<number, number>>();
  for (const error of errors) {
    for (const match of error.keywordLocation.matchAll(branch)) {
      const at = error.keywordLocation.slice(0, match.index) + `/${match[1]}`;
      const options = counts.get(at) ?? new Map<number, number>();
      options.set(Number(match[2]), (options.get(Number(match[2])) ?? 0) + 1);
      counts.set(at, options);
    }
  }
  const chosen = new Map<string, number>();
  for (const [at, options] of counts) {
    let best = -1;
    let fewest = Infinity;
    for (const [option, count] of options) {
      if (count < fewest) {
        fewest = count;
        best = option;
      }
    }
    chosen.set(at, best);
  }
  return errors.filter((error) => {
    for (const match of error.keywordLocation.matchAll(branch)) {
      const at = error.keywordLocation.slice(0, match.index) + `/${match[1]}`;
      if (chosen.get(at) !== Number(match[2])) return false;
    }
    return true;
  });
}

function hasBranchErrors(errors: OutputUnit[], combinator: string): boolean {
  return errors.some((e) => e.keywordLocation.startsWith(`${combinator}/`));
}
