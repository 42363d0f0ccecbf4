import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { App, type Backend } from "./App";
import { loadServerList, loadStatuses } from "./ipc/api";
import { commands, events } from "./bindings";
import { ServerListStore } from "./servers/listStore";
import { StatusStore } from "./servers/statusStore";
import { draftApi, serverActions } from "./servers/actions";
import { followProtocolLog } from "./logs/follow";
import { projectApi } from "./projects/api";
import { interopApi } from "./interop/api";
import { loginApi } from "./login/api";
import { doctorApi } from "./doctor/api";
import { toolsApi } from "./tools/api";
import { browseApi } from "./browse/api";
import { asksApi } from "./asks/api";
import { sessionApi } from "./session/api";
import { trustApi } from "./trust/api";
import "./styles.css";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");

const backend: Backend = {
  onConfigChanged: (changed) => events.configChanged.listen((event) => changed(event.payload.servers)),
  // Listen first, then ask for the snapshot: no transition falls between the two.
  connectStatuses: async (store) => {
    const stop = await events.serverStatusChanged.listen((event) => store.apply(event.payload));
    await store.load(loadStatuses);
    return stop;
  },
  actions: serverActions,
  drafts: draftApi,
  followLog: followProtocolLog,
  projects: projectApi,
  interop: interopApi,
  login: loginApi,
  doctor: doctorApi,
  tools: toolsApi,
  browse: browseApi,
  asks: asksApi,
  session: sessionApi,
  trust: trustApi,
  onFirstPaint: () => void commands.windowReady(),
};

/** Fresh stores, and a fresh App, for each project opened. */
function Root() {
  const [opened, setOpened] = useState(0);
  useEffect(() => {
    const stop = events.projectOpened.listen(() => setOpened((n) => n + 1));
    return () => void stop.then((s) => s());
  }, []);
  return <Project key={opened} />;
}

function Project() {
  const [stores] = useState(() => ({ list: new ServerListStore(loadServerList), statuses: new StatusStore() }));
  return <App store={stores.list} statuses={stores.statuses} backend={backend} />;
}

createRoot(root).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
