// The list of servers the app puts in the page before it loads (src-tauri/first_list.rs), so
// that the first frame needs no IPC round trip. Taken once: every later reading is an IPC call.
import type { ServerList } from "../bindings";

const GLOBAL = "__MCP_MANAGER_FIRST_LIST__";

type WithFirstList = { [GLOBAL]?: ServerList };

/**
 * The list put in the page, once, on its first load. A reloaded page gets null: the app put
 * the list in when it opened the window, and another project may be open since.
 */
export function takeFirstList(page: WithFirstList = window as unknown as WithFirstList, navigation = navigationType()): ServerList | null {
  const list = page[GLOBAL] ?? null;
  delete page[GLOBAL];
  return navigation === "navigate" ? list : null;
}

function navigationType(): string | undefined {
  const entry = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
  return entry?.type;
}
