import { describe, expect, it } from "vitest";
import { fitLine, remembered, widthOf } from "./fit";

// A face where "i" is 2 px, "…" 6 px, and everything else 5.
const face = (char: string) => (char === "i" ? 2 : char === "…" ? 6 : 5);

describe("a row's line cut to its room", () => {
  it("is whole when it fits, to the pixel", () => {
    expect(fitLine("abcd", 20, face)).toBe("abcd");
    expect(fitLine("", 20, face)).toBe("");
  });

  it("is cut where the ellipsis still fits, and says so", () => {
    // a b c d e = 25 px > 22: "abc" (15) + "…" (6) = 21 fits, "abcd…" (26) would not.
    expect(fitLine("abcde", 22, face)).toBe("abc…");
    expect(widthOf("abc…", face)).toBeLessThanOrEqual(22);
    // Narrow letters take less room: "iiiiiii" (14) + "…" = 20.
    expect(fitLine("iiiiiiiiiiii", 20, face)).toBe("iiiiiii…");
    for (let room = 1; room < 60; room++) {
      const fitted = fitLine("the quick brown fox", room, face);
      expect(widthOf(fitted, face)).toBeLessThanOrEqual(room);
    }
  });

  it("never splits a character made of two UTF-16 units", () => {
    expect(fitLine("ab😀cd", 17, face)).toBe("ab…");
    expect(fitLine("ab😀cd", 21, face)).toBe("ab😀…");
  });

  it("is an ellipsis alone when not even one letter fits with it, and nothing without room for that", () => {
    expect(fitLine("abc", 8, face)).toBe("…");
    expect(fitLine("abc", 5, face)).toBe("");
    expect(fitLine("abc", 0, face)).toBe("");
  });
});

describe("glyph widths", () => {
  it("are measured once per character", () => {
    const asked: string[] = [];
    const width = remembered((char) => {
      asked.push(char);
      return 7;
    });
    expect(widthOf("aabba", width)).toBe(35);
    expect(asked).toEqual(["a", "b"]);
  });
});
