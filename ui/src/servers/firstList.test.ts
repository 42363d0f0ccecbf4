import { describe, expect, it } from "vitest";
import type { ServerList } from "../bindings";
import { takeFirstList } from "./firstList";

const list: ServerList = { projectDir: "/p", managed: null, trusted: true, servers: [], problems: [], plugins: [] };

describe("takeFirstList", () => {
  it("gives the list put in the page once, and removes it", () => {
    const page = { __MCP_MANAGER_FIRST_LIST__: list };
    expect(takeFirstList(page, "navigate")).toBe(list);
    expect("__MCP_MANAGER_FIRST_LIST__" in page).toBe(false);
    expect(takeFirstList(page, "navigate")).toBeNull();
  });

  it("gives nothing to a reloaded page, whose list may be another project's", () => {
    const page = { __MCP_MANAGER_FIRST_LIST__: list };
    expect(takeFirstList(page, "reload")).toBeNull();
    expect("__MCP_MANAGER_FIRST_LIST__" in page).toBe(false);
  });

  it("gives nothing when the app put nothing in", () => {
    expect(takeFirstList({}, "navigate")).toBeNull();
  });
});
