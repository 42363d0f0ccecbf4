// Resources and prompts: their door to the backend.
import { Channel } from "@tauri-apps/api/core";
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const browseApi = {
  resources: (server: string) => call(() => commands.listResources(server)),
  read: (server: string, uri: string) => call(() => commands.readResource(server, uri)),
  prompts: (server: string) => call(() => commands.listPrompts(server)),
  getPrompt: (server: string, prompt: string, argumentsJson: string) => call(() => commands.getPrompt(server, prompt, argumentsJson)),
  complete: (server: string, prompt: string, argument: string, value: string, contextJson: string) =>
    call(() => commands.completeArgument(server, prompt, argument, value, contextJson)),
  /** Subscribes to a resource; `updated` is called on each change. The id is for `unfollow`. */
  follow: (server: string, uri: string, updated: () => void) => {
    const channel = new Channel<string>();
    channel.onmessage = () => updated();
    return call(() => commands.followResource(server, uri, channel));
  },
  unfollow: (id: number) => call(() => commands.unfollowResource(id)),
  /** Saves one content of a read (a blob as its bytes) in the results folder; its path. */
  save: (server: string, contentJson: string) => call(() => commands.saveResource(server, contentJson)),
  openSaved: (path: string) => call(() => commands.openSavedResource(path)),
};

export type BrowseApi = typeof browseApi;
