import { describe, expect, it } from "vitest";
import type { OAuthActivity } from "../bindings";
import type { Outcome } from "../ipc/api";
import { describePhase, inProgress, LoginActivityStore } from "./activityStore";

const activity = (phase: OAuthActivity["phase"]): OAuthActivity => ({
  server: "remote",
  phase,
  token: { hasToken: false, hasRefreshToken: false, scopes: [], expiresAtMs: null, clientId: null, issuer: null, keptIn: "the OS keychain", store: "keychain", hasRegistration: false, account: "tokens:remote|0", dpopBound: false },
  traces: [],
});

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the login activity store", () => {
  it("reloads on its own server's changes only, and keeps the newest answer", async () => {
    let changed: (server: string) => void = () => {};
    const answers: Array<(o: Outcome<OAuthActivity>) => void> = [];
    const store = new LoginActivityStore("remote", {
      activity: () => new Promise((resolve) => answers.push(resolve)),
      onChanged: async (listener) => ((changed = listener), () => {}),
    });
    const connected = store.connect();
    await flush();
    answers[0]!({ ok: true, value: activity({ phase: "discovering" }) });
    await connected;
    expect(store.getSnapshot().activity?.phase).toEqual({ phase: "discovering" });

    changed("another");
    expect(answers).toHaveLength(1);
    changed("remote");
    changed("remote");
    expect(answers).toHaveLength(3);
    // The later question answers first; the earlier answer, arriving late, is dropped.
    answers[2]!({ ok: true, value: activity({ phase: "exchanging" }) });
    answers[1]!({ ok: true, value: activity({ phase: "registering" }) });
    await flush();
    expect(store.getSnapshot().activity?.phase).toEqual({ phase: "exchanging" });
  });

  it("says each phase in words, and which are under way", () => {
    expect(describePhase({ phase: "waiting-for-browser", url: "http://x", opened: false })).toBe(
      "No browser opened. Open this address in a browser to log in:",
    );
    expect(describePhase({ phase: "failed", message: "the login was not completed within 300 s" })).toBe(
      "The login failed: the login was not completed within 300 s",
    );
    expect(inProgress({ phase: "exchanging" })).toBe(true);
    expect(inProgress({ phase: "connected" })).toBe(false);
    expect(inProgress(null)).toBe(false);
  });
});
