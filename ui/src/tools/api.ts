// The tools' door to the backend: a server's tools, a call (with its progress as it comes,
// and Cancel), and the history of calls.
import { Channel } from "@tauri-apps/api/core";
import { commands, type CallFilter, type Progress, type Rule, type SettingsFile } from "../bindings";
import { call } from "../ipc/api";

let nextCall = 1;

export const toolsApi = {
  list: (server: string) => call(() => commands.listTools(server)),
  /** The tools the last list named that are not offered, with why (read after `list`). */
  dropped: (server: string) => call(() => commands.droppedTools(server)),
  /** The tools of every connected server, by server. */
  all: () => call(() => commands.allTools()),
  /** Starts a call; `started` gets its id (for `cancel`) before the answer comes. */
  call: (server: string, tool: string, argumentsJson: string, asTask: boolean, onProgress: (step: Progress) => void, started: (id: number) => void) => {
    const id = nextCall++;
    const channel = new Channel<Progress>();
    channel.onmessage = onProgress;
    started(id);
    return call(() => commands.callTool(server, tool, argumentsJson, id, asTask, channel));
  },
  cancel: (id: number) => call(() => commands.cancelCall(id)),
  save: (server: string, tool: string, resultJson: string) => call(() => commands.saveResult(server, tool, resultJson)),
  openSaved: (path: string) => call(() => commands.openSavedResult(path)),
  rule: (server: string, tool: string | null) => call(() => commands.toolRule(server, tool)),
  setRule: (server: string, tool: string | null, rule: Rule | null, file: SettingsFile) =>
    call(() => commands.setToolRule(server, tool, rule, file)),
  /** Listed without their results: the window shows none, and one may be 50 MB. */
  history: (filter: CallFilter) => call(() => commands.callHistory({ ...filter, withoutResults: true })),
  name: (id: number, name: string | null) => call(() => commands.nameCall(id, name)),
  /** Removes every call not saved under a name. */
  clear: () => call(() => commands.clearHistory()),
};

export type ToolsApi = typeof toolsApi;
