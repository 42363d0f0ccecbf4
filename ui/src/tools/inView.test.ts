import { describe, expect, it } from "vitest";
import { inView } from "./inView";

describe("the rows in view", () => {
  it("are those the box shows, and the overscan each side", () => {
    // 100 rows of 30 px in a 300 px box at the top: rows 0–9, and 3 more below.
    expect(inView(100, 30, 0, 300, 3)).toEqual({ first: 0, end: 13, total: 3000 });
    // Scrolled to 615 px: rows 20 (partly) to 30 (partly), and 3 more each side.
    expect(inView(100, 30, 615, 300, 3)).toEqual({ first: 17, end: 34, total: 3000 });
    // At the end.
    expect(inView(100, 30, 2700, 300, 3)).toEqual({ first: 87, end: 100, total: 3000 });
  });

  it("follow a list that grew shorter before the box scrolled back", () => {
    // Scrolled far down a long list, then a search leaves 12 rows: the last ones are shown.
    expect(inView(12, 30, 2700, 300, 3)).toEqual({ first: 0, end: 12, total: 360 });
    expect(inView(40, 30, 2700, 300, 3)).toEqual({ first: 27, end: 40, total: 1200 });
  });

  it("are none in an empty list, and all of a short one", () => {
    expect(inView(0, 30, 0, 300, 3)).toEqual({ first: 0, end: 0, total: 0 });
    expect(inView(5, 30, 0, 300, 3)).toEqual({ first: 0, end: 5, total: 150 });
  });
});
