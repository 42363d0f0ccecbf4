// One server's login activity as a React value, from a store made for it.
import { useEffect, useMemo, useSyncExternalStore } from "react";
import { LoginActivityStore, type ActivitySource, type ActivityView } from "./activityStore";

export function useActivity(server: string, source: ActivitySource): ActivityView & { reload: () => void } {
  const store = useMemo(() => new LoginActivityStore(server, source), [server, source]);
  const view = useSyncExternalStore(store.subscribe, store.getSnapshot);
  useEffect(() => {
    const stop = store.connect();
    return () => void stop.then((s) => s());
  }, [store]);
  return { ...view, reload: () => void store.load() };
}
