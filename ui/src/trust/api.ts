// Workspace trust and the review of a project server before approving it, through the IPC door.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const trustApi = {
  /** Where the folder stands and what trusting it would write and enable. */
  state: () => call(commands.folderTrust),
  /** Trusts the folder as Claude Code's trust dialog does. */
  trust: () => call(commands.trustFolder),
  /** A project server's whole entry and its risks. */
  review: (name: string) => call(() => commands.reviewServer(name)),
};

export type TrustApi = typeof trustApi;
