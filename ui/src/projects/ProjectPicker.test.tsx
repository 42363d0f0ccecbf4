import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import type { RecentProject } from "../bindings";
import type { Outcome } from "../ipc/api";
import { ProjectPicker, type ProjectApi } from "./ProjectPicker";

afterEach(cleanup);

/** An api whose list of projects the test hands out when it chooses. */
function controlled() {
  const answers: Array<(value: Outcome<RecentProject[]>) => void> = [];
  const api: ProjectApi = {
    recent: () => new Promise((resolve) => answers.push(resolve)),
    open: () => Promise.resolve({ ok: true, value: null }),
    chooseFolder: () => Promise.resolve(null),
  };
  return { api, answers };
}

describe("ProjectPicker", () => {
  it("says it is reading Claude Code's projects until they come, and never says none meanwhile", async () => {
    const { api, answers } = controlled();
    render(<ProjectPicker projectDir="/home/ann/app" api={api} />);
    fireEvent.click(screen.getByRole("button", { name: /Open another project/ }));
    expect(answers.length).toBe(1);
    expect(screen.getByRole("status").textContent).toBe("Reading the projects Claude Code knows…");
    expect(screen.queryByText("None yet.")).toBeNull();
    answers[0]?.({ ok: true, value: [{ path: "/home/ann/app", localServers: 2, current: true }] });
    await waitFor(() => expect(screen.queryByRole("status")).toBeNull());
    const item = screen.getByRole("menuitem", { name: /\/home\/ann\/app/ });
    expect((item as HTMLButtonElement).disabled).toBe(true);
  });

  it("says why the list could not be read", async () => {
    const { api, answers } = controlled();
    render(<ProjectPicker projectDir="/home/ann/app" api={api} />);
    fireEvent.click(screen.getByRole("button", { name: /Open another project/ }));
    expect(answers.length).toBe(1);
    answers[0]?.({ ok: false, error: { code: "config-unreadable", message: "~/.claude.json could not be read." } } as Outcome<RecentProject[]>);
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("~/.claude.json could not be read."));
    expect(screen.queryByText("None yet.")).toBeNull();
  });
});
