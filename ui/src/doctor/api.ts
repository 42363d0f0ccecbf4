// The doctor's door to the backend.
import { commands } from "../bindings";
import { call } from "../ipc/api";

export const doctorApi = {
  examine: (server: string) => call(() => commands.examineServer(server)),
};

export type DoctorApi = typeof doctorApi;
