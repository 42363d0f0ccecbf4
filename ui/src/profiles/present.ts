// The project's budget before and after a profile, from the budget's per-server figures.
import type { ProfilePlan, ProjectBudget } from "../bindings";

export interface BudgetChange {
  before: number;
  after: number;
  /** Servers the profile turns on whose cost is not known (they are not connected now). */
  unknown: string[];
}

export function budgetChange(plan: ProfilePlan, budget: ProjectBudget): BudgetChange {
  const cost = new Map(budget.servers.map((s) => [s.server, s.upfront]));
  const off = plan.turnOff.reduce((sum, s) => sum + (cost.get(s) ?? 0), 0);
  const on = plan.turnOn.reduce((sum, s) => sum + (cost.get(s) ?? 0), 0);
  return {
    before: budget.totalUpfront,
    after: budget.totalUpfront - off + on,
    unknown: plan.turnOn.filter((s) => !cost.has(s)),
  };
}
