import { describe as group, expect, it } from "vitest";
import { describe, type JsonObject } from "./schema";
import { emptyOf, fromJson, getAt, initial, parseArguments, parseNumber, setAt, toJson, variantOf } from "./value";
import { validate } from "./validate";

const of = (schema: JsonObject) => describe(schema, schema);

group("fields from real schema shapes", () => {
  it("nullable comes from a type list or an anyOf with null, and a null default on a non-nullable field is none", () => {
    const field = of({
      type: "object",
      properties: {
        a: { type: ["string", "null"] },
        b: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }], default: null, title: "B" },
        c: { type: "string", default: null },
      },
    });
    if (field.kind !== "object") throw new Error(field.kind);
    const [a, b, c] = field.properties.map((p) => p.field);
    expect([a!.kind, a!.nullable]).toEqual(["string", true]);
    expect([b!.kind, b!.nullable, b!.title, b!.default]).toEqual(["number", true, "B", null]);
    expect([c!.kind, c!.nullable, c!.default]).toEqual(["string", false, undefined]);
  });

  it("oneOf of constants is a titled choice; oneOf of objects a variant told apart by its constant", () => {
    const field = of({
      type: "object",
      properties: {
        unit: { oneOf: [{ const: "c", title: "Celsius" }, { const: "f", title: "Fahrenheit" }] },
        shape: {
          oneOf: [
            { type: "object", properties: { kind: { const: "circle" }, r: { type: "number" } }, required: ["kind", "r"] },
            { type: "object", properties: { kind: { const: "square" }, side: { type: "number" } }, required: ["kind", "side"] },
          ],
        },
      },
    });
    if (field.kind !== "object") throw new Error(field.kind);
    const [unit, shape] = field.properties.map((p) => p.field);
    expect(unit!.kind === "choice" && unit!.options.map((o) => o.title)).toEqual(["Celsius", "Fahrenheit"]);
    if (shape!.kind !== "variant") throw new Error(shape!.kind);
    expect(shape!.options.map((o) => o.title)).toEqual(["kind: circle", "kind: square"]);
    expect(variantOf(shape!, { kind: "square", side: 2 })).toBe(1);
    const state = fromJson(field, { shape: { kind: "square", side: 2 } });
    expect(state.variants).toEqual({ "/shape": 1 });
  });

  it("local $refs are followed; a recursive one ends in a JSON field", () => {
    const schema: JsonObject = {
      type: "object",
      $defs: { Node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } } } },
      properties: { root: { $ref: "#/$defs/Node" } },
    };
    const field = of(schema);
    if (field.kind !== "object") throw new Error(field.kind);
    const root = field.properties[0]!.field;
    if (root.kind !== "object") throw new Error(root.kind);
    const children = root.properties[1]!.field;
    if (children.kind !== "array") throw new Error(children.kind);
    expect(children.items.kind).toBe("json");
  });

  it("what has no faithful widget is a JSON field that says why", () => {
    const field = of({ type: "object", properties: { x: { allOf: [{ type: "string" }, { minLength: 2 }] } } });
    expect(field.kind === "object" && field.properties[0]!.field).toMatchObject({ kind: "json", why: "`allOf` has no form widget" });
  });

  it("a map (additionalProperties) is an open object", () => {
    const field = of({ type: "object", properties: { env: { type: "object", additionalProperties: { type: "string" } } } });
    expect(field.kind === "object" && field.properties[0]!.field).toMatchObject({ kind: "object", additional: { kind: "string" } });
  });
});

group("values", () => {
  it("omitted and empty differ: an absent key is omitted, an empty string is sent", () => {
    const field = of({ type: "object", properties: { q: { type: "string" } } });
    let value = initial(field).value;
    expect(toJson({ value, texts: {}, variants: {} })).toEqual({});
    value = setAt(value, "/q", "") as JsonObject;
    expect(value).toEqual({ q: "" });
    value = setAt(value, "/q", undefined) as JsonObject;
    expect(value).toEqual({});
    expect(getAt({ a: [{ b: 1 }] }, "/a/0/b")).toBe(1);
  });

  it("required defaults fill a new form; other defaults stay the server's", () => {
    const field = of({ type: "object", properties: { a: { type: "integer", default: 3 }, b: { type: "string", default: "x" } }, required: ["a"] });
    expect(initial(field).value).toEqual({ a: 3 });
    expect(emptyOf(field)).toEqual({ a: 3 });
  });

  it("integers JavaScript cannot hold exactly are refused, never rounded", () => {
    expect(parseNumber("9007199254740991", true)).toEqual({ value: 9007199254740991 });
    expect(parseNumber("9007199254740993", true)).toHaveProperty("error");
    expect(parseNumber("1.5", true)).toEqual({ error: "Not a whole number." });
    expect(parseNumber("0.1", false)).toEqual({ value: 0.1 });
    expect(parseNumber("12abc", false)).toEqual({ error: "Not a number." });
    expect(parseArguments('{"id": 12345678901234567890}')).toEqual({
      error: "12345678901234567890 has more digits than can be sent exactly; it would be changed.",
    });
    expect(parseArguments('{"id": "12345678901234567890", "n": 2}')).toEqual({ value: { id: "12345678901234567890", n: 2 } });
    expect(parseArguments("[1]")).toEqual({ error: "The arguments must be a JSON object." });
  });

  it("validation puts each problem at its field", () => {
    const schema: JsonObject = {
      type: "object",
      properties: { n: { type: "integer", minimum: 1 }, when: { type: "string", format: "date" } },
      required: ["n", "who"],
    };
    const problems = validate(schema, { n: 0, when: "yesterday" });
    expect(Object.keys(problems).sort()).toEqual(["/n", "/when", "/who"]);
    expect(problems["/who"]).toEqual(["Required."]);
    expect(problems["/n"]![0]).toMatch(/0.*1/);
    expect(problems["/when"]![0]).toMatch(/date/);
    expect(validate(schema, { n: 1, who: "x", when: "2026-12-01" })).toEqual({});
  });

  it("for a oneOf of objects, only the option closest to the value speaks", () => {
    const schema: JsonObject = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        channel: {
          oneOf: [
            { type: "object", properties: { type: { const: "email" }, to: { type: "array", minItems: 1 } }, required: ["type", "to"] },
            { type: "object", properties: { type: { const: "sms" }, phone: { type: "string" } }, required: ["type", "phone"] },
          ],
        },
      },
    };
    const problems = validate(schema, { channel: { type: "email", to: [] } });
    expect(Object.keys(problems)).toEqual(["/channel/to"]);
    expect(problems["/channel/to"]![0]).toMatch(/too few items/);
  });
});
