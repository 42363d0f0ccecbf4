// The project picker's door to the backend and to the system's folder dialog.
import { open } from "@tauri-apps/plugin-dialog";
import { commands } from "../bindings";
import { call } from "../ipc/api";
import type { ProjectApi } from "./ProjectPicker";

export const projectApi: ProjectApi = {
  recent: () => call(commands.recentProjects),
  open: (folder) => call(() => commands.openProject(folder)),
  chooseFolder: async () => {
    const chosen = await open({ directory: true, multiple: false, title: "Open a project folder" });
    return typeof chosen === "string" ? chosen : null;
  },
};
