import { describe, expect, it } from "vitest";
import { SurfaceChanges } from "./changes";

describe("SurfaceChanges", () => {
  it("keeps the newest change of each server and tells its listeners", () => {
    const store = new SurfaceChanges();
    let told = 0;
    store.subscribe(() => told++);
    const before = store.getSnapshot();
    store.apply({ server: "a", sinceMs: 1, atMs: 2, previousId: 1, id: 2 });
    store.apply({ server: "a", sinceMs: 2, atMs: 3, previousId: 2, id: 3 });
    expect(store.getSnapshot()).not.toBe(before);
    expect(store.getSnapshot().get("a")?.id).toBe(3);
    expect(told).toBe(2);
    store.clear();
    expect(store.getSnapshot().size).toBe(0);
  });
});
