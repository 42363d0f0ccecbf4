// Follows a server's protocol log through a Tauri channel: the backend sends each batch of new
// messages as it comes; stopping tells the backend to end the follower.
import { Channel } from "@tauri-apps/api/core";
import { commands, type LoggedMessage } from "../bindings";
import { call } from "../ipc/api";
import type { FollowLog } from "./ProtocolLog";

export const followProtocolLog: FollowLog = async (server, store) => {
  const channel = new Channel<LoggedMessage[]>();
  channel.onmessage = (batch) => store.append(batch);
  const outcome = await call(() => commands.followProtocolLog(server, store.last, channel));
  return () => {
    if (outcome.ok) void commands.unfollowProtocolLog(outcome.value);
  };
};
