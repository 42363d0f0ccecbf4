import { describe, expect, it } from "vitest";
import { fireEvent, render, screen } from "@testing-library/preact";
import { JsonTree, PAGE } from "./JsonTree";
import { LongText, PIECE } from "./LongText";
import { Markdown } from "./Markdown";
import { Words } from "./Words";
import { nameOf, parentOf } from "../projects/ProjectPicker";

describe("JsonTree", () => {
  it("renders closed nodes' children only when opened, and long lists a page at a time", () => {
    const value = { a: { b: { c: { d: 1 } } }, list: Array.from({ length: PAGE * 3 }, (_, i) => i) };
    const { container } = render(<JsonTree value={value} openDepth={2} />);
    const node = (path: string) => container.querySelector(`[data-path="${path}"]`);
    expect(node("/a/b")?.getAttribute("data-open")).toBe("false");
    expect(node("/a/b/c")).toBeNull();
    fireEvent.click(node("/a/b")!.querySelector("[data-testid=json-toggle]")!);
    expect(node("/a/b/c")).not.toBeNull();
    expect(container.querySelectorAll('[data-path^="/list/"]').length).toBe(PAGE);
    fireEvent.click(screen.getByTestId("json-more"));
    expect(container.querySelectorAll('[data-path^="/list/"]').length).toBe(PAGE * 2);
  });
});

describe("LongText", () => {
  it("paints the first piece of a long text and more on demand", () => {
    const text = "x".repeat(PIECE * 10);
    render(<LongText text={text} testId="t" />);
    expect(screen.getByTestId("t").textContent!.length).toBe(PIECE);
    fireEvent.click(screen.getByTestId("show-more"));
    expect(screen.getByTestId("t").textContent!.length).toBe(PIECE * 4);
  });
});

describe("Markdown", () => {
  it("renders Markdown and shows raw HTML as text", () => {
    render(<Markdown text={"# Title\n\n**bold** <script>alert(1)</script> [x](javascript:alert(1))"} />);
    const shown = screen.getByTestId("markdown");
    expect(shown.querySelector("h1")?.textContent).toBe("Title");
    expect(shown.querySelector("strong")?.textContent).toBe("bold");
    expect(shown.querySelector("script")).toBeNull();
    expect(shown.textContent).toContain("<script>");
    expect(shown.querySelector('a[href^="javascript"]')).toBeNull();
  });
});

describe("Words", () => {
  it("draws Claude Code's ⏸ rather than taking it from a font, and keeps the words as they are", () => {
    const { container } = render(
      <p data-testid="words">
        <Words text="⏸ Pending approval · needs trust" />
      </p>,
    );
    expect(screen.getByTestId("words").textContent).toBe("⏸ Pending approval · needs trust");
    expect(container.querySelector(".pause-glyph")?.textContent).toBe("⏸");
    render(
      <p data-testid="plain">
        <Words text="✘ Failed to connect" />
      </p>,
    );
    expect(screen.getByTestId("plain").innerHTML).toBe("✘ Failed to connect");
  });
});

describe("a project's path in the header", () => {
  it("splits into the folders above, cut first, and the project's own folder", () => {
    expect([parentOf("/home/ann/app"), nameOf("/home/ann/app")]).toEqual(["/home/ann", "/app"]);
    expect([parentOf("/app"), nameOf("/app")]).toEqual(["", "/app"]);
    expect([parentOf("/"), nameOf("/")]).toEqual(["", "/"]);
  });
});
