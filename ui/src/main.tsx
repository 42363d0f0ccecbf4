// The moment this script runs, for the start-up breakdown (src-tauri/startup.rs).
performance.mark("script");
import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { App, type Backend } from "./App";
import { loadServerList, loadStatuses, type Outcome } from "./ipc/api";
import { takeFirstList } from "./servers/firstList";
import { stylesheetsLoaded } from "./shared/stylesheets";
import { commands, type KeptNode, type ServerList } from "./bindings";
import { keptFrame } from "./start/keptFrame";
import { fedEvents } from "./ipc/feed";
import { ServerListStore } from "./servers/listStore";
import { StatusStore } from "./servers/statusStore";
import { draftApi, serverActions } from "./servers/actions";
import { followProtocolLog } from "./logs/follow";
import { projectApi } from "./projects/api";
import { interopApi } from "./interop/api";
import { loginApi } from "./login/api";
import { doctorApi } from "./doctor/api";
import { clientsApi } from "./clients/api";
import { usageApi } from "./usage/api";
import { loginsApi } from "./logins/api";
import { profilesApi } from "./profiles/api";
import { agentsApi } from "./agents/api";
import { toolsApi } from "./tools/api";
import { browseApi } from "./browse/api";
import { skillsApi } from "./skills/api";
import { asksApi } from "./asks/api";
import { sessionApi } from "./session/api";
import { trustApi } from "./trust/api";
import { collectionsApi } from "./collections/api";
import { registryApi } from "./registry/api";
import { connectSurfaceChanges, surfacesApi } from "./surfaces/api";
import { preflightApi } from "./preflight/api";
import { surfaceChanges } from "./surfaces/changes";
import { connectPinChecks, pinChecks } from "./pins/checks";
import "./styles.css";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");

const backend: Backend = {
  onConfigChanged: (changed) => fedEvents.configChanged.listen((event) => changed(event.payload.servers)),
  // Listen first, then ask for the snapshot: no transition falls between the two.
  connectStatuses: async (store) => {
    const stop = await fedEvents.serverStatusChanged.listen((event) => store.apply(event.payload));
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
  clients: clientsApi,
  usage: usageApi,
  logins: loginsApi,
  profiles: profilesApi,
  agents: agentsApi,
  tools: toolsApi,
  browse: browseApi,
  skills: skillsApi,
  asks: asksApi,
  session: sessionApi,
  trust: trustApi,
  collections: collectionsApi,
  surfaces: surfacesApi,
  registry: registryApi,
  preflight: preflightApi,
  // The first list as made from the list the app put in the page, kept by the app for the
  // next start with the same list (src-tauri/kept_paint.rs, start/keptFrame.ts, start/keptPaint.ts).
  onListCommitted: () => {
    if (frameWanted) firstFrame = keptFrame(root);
    frameWanted = false;
  },
  onFirstPaint: () => {
    const marks = performance
      .getEntriesByType("mark")
      .map((mark) => ({ name: mark.name, at: mark.startTime }));
    const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
    if (navigation) marks.push({ name: "html-loaded", at: navigation.responseEnd }, { name: "dom-ready", at: navigation.domContentLoadedEventStart });
    marks.push({ name: "painted", at: performance.now() });
    void commands.windowReady(marks, performance.now());
    if (firstFrame !== null) void commands.keepFirstPaint(firstFrame);
    firstFrame = null;
  },
};

/** Fresh stores, and a fresh App, for each project opened. */
function Root() {
  const [opened, setOpened] = useState(0);
  useEffect(() => {
    const stop = fedEvents.projectOpened.listen(() => {
      surfaceChanges.clear();
      pinChecks.clear();
      setOpened((n) => n + 1);
    });
    const stopChanges = connectSurfaceChanges(surfaceChanges);
    const stopPins = connectPinChecks(pinChecks);
    return () => {
      void stopPins.then((s) => s());
      void stop.then((s) => s());
      void stopChanges.then((s) => s());
    };
  }, []);
  return <Project key={opened} />;
}

/** The list of servers, with when it was asked for and received (the start-up breakdown). */
async function loadServerListTimed() {
  performance.mark("list-asked");
  const list = await loadServerList();
  performance.mark("list-received");
  return list;
}

// The first frame painted is the list itself, not "Reading configuration…" and then the list
// (each frame painted in software costs tens of milliseconds). The app puts the list in the
// page before it loads (src-tauri/first_list.rs); without it (a reloaded page), it is asked
// for as the script starts, before the first render, and a list that takes longer than
// FIRST_LIST_WAIT is waited for on screen, with the words that say so.
const FIRST_LIST_WAIT = 150;
const embedded = takeFirstList();
if (embedded) performance.mark("list-embedded");
/** The first list's frame is kept only when made from the list the app put in the page. */
let frameWanted = embedded !== null;
let firstFrame: KeptNode[] | null = null;
let early: ReturnType<typeof loadServerListTimed> | null = null;
let earlyOutcome: Outcome<ServerList> | null;
if (embedded) {
  earlyOutcome = { ok: true, value: embedded };
} else {
  early = loadServerListTimed();
  earlyOutcome = await Promise.race([early, new Promise<null>((done) => setTimeout(() => done(null), FIRST_LIST_WAIT))]);
}
/** The early reading once (the first list's), then a plain reading each time. */
function loadList() {
  const first = early;
  early = null;
  return first ?? loadServerList();
}

function Project() {
  const [stores] = useState(() => {
    const first = earlyOutcome ?? undefined;
    earlyOutcome = null;
    return { list: new ServerListStore(loadList, first), statuses: new StatusStore() };
  });
  return <App store={stores.list} statuses={stores.statuses} backend={backend} />;
}

// Laid out once, with its styles (shared/stylesheets.ts).
await stylesheetsLoaded();
performance.mark("render");
createRoot(root).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
