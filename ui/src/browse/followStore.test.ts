import { describe, expect, it } from "vitest";
import { FollowStore } from "./followStore";

function fakeApi() {
  const updated = new Map<number, () => void>();
  const unfollowed: number[] = [];
  let next = 1;
  return {
    updated,
    unfollowed,
    api: {
      follow: async (_server: string, uri: string, on: () => void) => {
        if (uri === "refused") return { ok: false as const, error: { code: "invalid-request" as const, message: "no subscriptions" } };
        const id = next++;
        updated.set(id, on);
        return { ok: true as const, value: id };
      },
      unfollow: async (id: number) => {
        unfollowed.push(id);
        return { ok: true as const, value: null };
      },
    },
  };
}

describe("FollowStore", () => {
  it("counts a followed resource's updates until it is unfollowed", async () => {
    const fake = fakeApi();
    const store = new FollowStore(fake.api);
    expect(await store.follow("s", "x://a")).toBeNull();
    fake.updated.get(1)!();
    fake.updated.get(1)!();
    expect(store.of("s", "x://a")).toMatchObject({ id: 1, updates: 2 });
    expect(store.of("t", "x://a")).toBeUndefined();
    await store.unfollow("s", "x://a");
    expect(store.of("s", "x://a")).toBeUndefined();
    expect(fake.unfollowed).toEqual([1]);
  });

  it("says why a server refuses, and keeps nothing", async () => {
    const store = new FollowStore(fakeApi().api);
    expect((await store.follow("s", "refused"))?.message).toBe("no subscriptions");
    expect(store.of("s", "refused")).toBeUndefined();
  });
});
