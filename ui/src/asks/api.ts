// The door to what servers ask of the person: the requests waiting now, the event that says
// the list changed, and the person's replies.
import { commands, type Reply } from "../bindings";
import { fedEvents } from "../ipc/feed";
import { call } from "../ipc/api";

export const asksApi = {
  pending: () => call(() => commands.pendingAsks()),
  answer: (id: number, reply: Reply) => call(() => commands.answerAsk(id, reply)),
  /** Declines every request of one server that waits. */
  declineAll: (server: string) => call(() => commands.declineAllAsks(server)),
  /** Opens the page of a URL-mode request in the browser and accepts the request. */
  openUrl: (id: number) => call(() => commands.openAskUrl(id)),
  onChanged: (changed: () => void) => fedEvents.asksChanged.listen(() => changed()),
};

export type AsksApi = typeof asksApi;
