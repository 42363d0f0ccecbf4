// The usage view's door to the backend: what Claude Code's own records say it used.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const usageApi = {
  /** Claude Code's MCP calls and connections over the last `days` days, in the open project's
   * folder or in `all` folders; the backend first reads what is new in its records. */
  report: (days: number, all: boolean) => call(() => commands.claudeCodeUsage(days, all)),
};

export type UsageApi = typeof usageApi;
