// Every tool of every real server in tests/fixtures/schemas (and ../shared/schemas beside the
// checkout, when it is there) must be understood, round-trip (form → JSON → form unchanged) and have defaults that
// its own schema accepts. New files are covered without code changes.
import { afterEach, describe as group, expect, it } from "vitest";
import { cleanup, render } from "@testing-library/preact";
import { ToolForm } from "./ToolForm";
import { describe, type Field, type Json, type JsonObject } from "./schema";
import { fromJson, initial, toJson } from "./value";
import { compile, validate } from "./validate";

interface Tool {
  name: string;
  inputSchema: JsonObject;
}

afterEach(cleanup);

// Read by Vite at test time: every file of both folders, whatever their names.
const files = {
  ...import.meta.glob<{ tools: Tool[] }>("../../../../tests/fixtures/schemas/*.tools.json", { eager: true, import: "default" }),
  ...import.meta.glob<{ tools: Tool[] }>("../../../../../shared/schemas/*.tools.json", { eager: true, import: "default" }),
};

const corpus: Array<{ file: string; tool: Tool }> = [];
const seen = new Set<string>();
for (const [path, content] of Object.entries(files)) {
  const file = path.split("/").pop()!;
  const text = JSON.stringify(content);
  if (seen.has(text)) continue;
  seen.add(text);
  for (const tool of content.tools) corpus.push({ file, tool });
}

/** A value for `field` that uses every property and the `choice`-th option of each variant. */
function sample(field: Field, choice: number): Json {
  if (field.default !== undefined && field.kind !== "object" && field.kind !== "variant") return field.default;
  switch (field.kind) {
    case "string": {
      const byFormat: Record<string, string> = {
        date: "2026-12-01",
        "date-time": "2026-12-01T10:00:00Z",
        time: "10:00:00Z",
        email: "ada@example.com",
        uri: "https://example.com/a",
        url: "https://example.com/a",
        uuid: "123e4567-e89b-12d3-a456-426614174000",
      };
      return (field.format && byFormat[field.format]) ?? "x".repeat(Math.max(1, field.minLength ?? 1));
    }
    case "number":
      return field.minimum ?? (field.exclusiveMinimum !== null ? field.exclusiveMinimum + 1 : 1);
    case "boolean":
      return true;
    case "choice":
      return field.options[choice % field.options.length]!.value;
    case "array":
      return [sample(field.items, choice)];
    case "object": {
      const out: JsonObject = {};
      for (const property of field.properties) out[property.name] = sample(property.field, choice);
      return out;
    }
    case "variant":
      return sample(field.options[choice % field.options.length]!.field, choice);
    case "json":
      return field.default ?? { any: ["json", 1, null] };
  }
}

/** Every field with a default, with the path it is at. */
function defaults(field: Field, path: string, out: Array<{ path: string; field: Field }>) {
  if (field.default !== undefined) out.push({ path, field });
  if (field.kind === "object") for (const p of field.properties) defaults(p.field, `${path}/${p.name}`, out);
  if (field.kind === "array") defaults(field.items, `${path}/items`, out);
  if (field.kind === "variant") field.options.forEach((o, i) => defaults(o.field, `${path}/${i}`, out));
  return out;
}

it("the corpus is there", () => {
  expect(corpus.length).toBeGreaterThan(600);
});

group.each([...new Set(corpus.map((c) => c.file))])("%s", (file) => {
  for (const { tool } of corpus.filter((c) => c.file === file)) {
    it(tool.name, () => {
      const root = tool.inputSchema;
      expect(typeof compile(root), "the schema can be used").toBe("object");
      const field = describe(root, root);
      expect(field.kind, "a tool's arguments are an object").toBe("object");

      // A new form round-trips and its required defaults are accepted.
      const fresh = initial(field);
      expect(fromJson(field, toJson(fresh))).toEqual(fresh);

      // It renders, empty and filled: one row per property, every value where it belongs.
      const empty = render(<ToolForm field={field} state={fresh} onChange={() => {}} problems={{}} />);
      if (field.kind === "object") {
        const top = empty.container.querySelectorAll('[data-testid="tool-form"] > [data-testid="form-field"]');
        expect(top.length).toBe(field.properties.length);
      }
      cleanup();
      const filled = fromJson(field, sample(field, 1) as JsonObject);
      const shown = render(<ToolForm field={field} state={filled} onChange={() => {}} problems={{}} />);
      for (const row of shown.container.querySelectorAll('[data-testid="form-field"]')) {
        expect(row.getAttribute("data-omitted"), `${row.getAttribute("data-path")} is filled`).toBe("false");
      }
      cleanup();

      // A form with every field filled, each variant in turn, round-trips unchanged.
      for (let choice = 0; choice < 3; choice++) {
        const value = sample(field, choice) as JsonObject;
        const state = fromJson(field, structuredClone(value));
        const sent = JSON.parse(JSON.stringify(toJson(state)));
        expect(sent).toEqual(value);
        expect(fromJson(field, sent)).toEqual(state);
      }

      // Each default is a value its own schema accepts.
      for (const { path, field: withDefault } of defaults(field, "", [])) {
        const own: JsonObject = { ...withDefault.schema };
        for (const key of ["$defs", "definitions"]) if (root[key] && !own[key]) own[key] = root[key]!;
        if (root.$schema) own.$schema = root.$schema;
        const problems = validate(own, withDefault.default as Json);
        expect(problems, `the default at ${path || "/"} is accepted`).toEqual({});
      }
    });
  }
});
