import { describe, expect, it } from "vitest";
import type { ProfilePlan, ProjectBudget } from "../bindings";
import { budgetChange } from "./present";

describe("a profile's budget", () => {
  it("drops what the servers turned off cost and names the ones turned on it cannot count", () => {
    const plan = { turnOn: ["db"], turnOff: ["github", "fs"] } as unknown as ProfilePlan;
    const budget = {
      totalUpfront: 10_000,
      servers: [
        { server: "github", upfront: 6_000 },
        { server: "fs", upfront: 1_500 },
        { server: "docs", upfront: 2_500 },
      ],
    } as unknown as ProjectBudget;
    expect(budgetChange(plan, budget)).toEqual({ before: 10_000, after: 2_500, unknown: ["db"] });
  });
});
