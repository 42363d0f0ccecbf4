import { describe, expect, it } from "vitest";
import { LinearPattern, linearPattern, Unsupported } from "./linearPattern";
import { validate } from "./validate";

describe("linear-time patterns", () => {
  it("answers as RegExp does on the patterns servers send", () => {
    const cases: [string, string[]][] = [
      ["^[a-z0-9_-]{1,64}$", ["abc", "a-b_c", "", "ABC", "a".repeat(64), "a".repeat(65)]],
      ["^\\d{4}-\\d{2}-\\d{2}$", ["2026-12-01", "2026-1-01", "x2026-12-01"]],
      ["^https?://", ["https://x", "http://x", "ftp://x", " https://x"]],
      ["colou?r", ["color", "the colour", "colr"]],
      ["^(?:[A-Z]{2}|\\d+)$", ["EU", "123", "E1", ""]],
      ["^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$", ["a@b.c", "a b@c.d", "a@b"]],
      ["\\bcat\\b", ["a cat!", "concat", "cat"]],
      ["^(?<year>\\d{4})$", ["2026", "26"]],
      ["^[\\-.\\w]+$", ["a-b.c", "a b"]],
      ["^a{2,}b?$", ["aa", "aaab", "ab"]],
      ["^\\u00e9t\\u{e9}$", ["été", "ete"]],
      ["^.*$", ["anything", "two\nlines"]],
      ["^(a|ab)(c|bcd)(d*)$", ["abcd", "acd", "abcdd", "abc"]],
    ];
    for (const [pattern, texts] of cases) {
      const ours = new LinearPattern(pattern);
      const theirs = new RegExp(pattern, "u");
      for (const text of texts) expect(ours.test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(theirs.test(text));
    }
  });

  it("takes linear time where RegExp takes exponential time", () => {
    // The attack: 7.9 s at 27 characters in node with RegExp, doubling per character.
    const hostile = new LinearPattern("^(a+)+$");
    const text = `${"a".repeat(5000)}!`;
    const started = performance.now();
    expect(hostile.test(text)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(new LinearPattern("^(a|a)*b$").test("a".repeat(3000))).toBe(false);
  });

  it("refuses what it cannot run in linear time instead of running it", () => {
    for (const pattern of ["(a)\\1", "(?=a)a", "(?<!b)a", "\\p{L}", "(a", "a{3,2}"]) {
      expect(linearPattern(pattern)).toBeInstanceOf(Unsupported);
    }
  });

  it("checks a server's hostile pattern and default without freezing the form", () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string", pattern: "^(a+)+$", default: `${"a".repeat(40)}!` } },
    };
    const started = performance.now();
    const problems = validate(schema, { name: `${"a".repeat(40)}!` });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(problems["/name"]).toEqual(["Does not match the pattern ^(a+)+$."]);
    expect(validate(schema, { name: "aaa" })).toEqual({});
  });
});
