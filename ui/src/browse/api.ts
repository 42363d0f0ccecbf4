// Resources and prompts: their door to the backend.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const browseApi = {
  resources: (server: string) => call(() => commands.listResources(server)),
  read: (server: string, uri: string) => call(() => commands.readResource(server, uri)),
  prompts: (server: string) => call(() => commands.listPrompts(server)),
  getPrompt: (server: string, prompt: string, argumentsJson: string) => call(() => commands.getPrompt(server, prompt, argumentsJson)),
  complete: (server: string, prompt: string, argument: string, value: string, contextJson: string) =>
    call(() => commands.completeArgument(server, prompt, argument, value, contextJson)),
};

export type BrowseApi = typeof browseApi;
