import { describe, expect, it } from "vitest";
import { keptFrame } from "./keptFrame";

describe("keptFrame", () => {
  it("reads elements, attributes and text as data, never as markup", () => {
    const root = document.createElement("div");
    const row = document.createElement("button");
    row.setAttribute("data-testid", "server-row");
    row.setAttribute("data-server-name", '</div><img src="x" onerror="alert(1)"><!--');
    row.textContent = '</div><img src="x" onerror="alert(1)"><!--';
    root.append(row, document.createComment(" left out "), "tail");
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    root.append(svg);
    expect(keptFrame(root)).toEqual([
      {
        name: "button",
        attributes: [
          ["data-testid", "server-row"],
          ["data-server-name", '</div><img src="x" onerror="alert(1)"><!--'],
        ],
        children: ['</div><img src="x" onerror="alert(1)"><!--'],
      },
      "tail",
      { name: "svg", attributes: [["viewBox", "0 0 24 24"]], children: [] },
    ]);
  });
});
