import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { loadServerList } from "./api";
import { events } from "./bindings";
import { ServerListStore } from "./store";
import "./styles.css";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");

createRoot(root).render(
  <StrictMode>
    <App
      store={new ServerListStore(loadServerList)}
      onConfigChanged={(refresh) => events.configChanged.listen(() => refresh())}
    />
  </StrictMode>,
);
