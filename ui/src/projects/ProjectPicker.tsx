// Which project the window shows: the one open, the projects Claude Code knows, or a folder
// chosen in the system's folder dialog. Opening one stops this project's servers first.
import { useEffect, useRef, useState } from "react";
import type { ApiError, RecentProject } from "../bindings";
import type { Outcome } from "../ipc/api";
import { errorTitle } from "../servers/present";

export interface ProjectApi {
  recent: () => Promise<Outcome<RecentProject[]>>;
  open: (folder: string) => Promise<Outcome<null>>;
  /** The system's folder dialog; null when the person cancelled. */
  chooseFolder: () => Promise<string | null>;
}

/** The folders above a project's own (`/home/ann` of `/home/ann/app`); empty for `/`. */
export const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf("/")));
/** A project's own folder with the slash before it (`/app`); the rest of `path` after `parentOf`. */
export const nameOf = (path: string) => path.slice(parentOf(path).length);

export function ProjectPicker({ projectDir, api }: { projectDir: string; api: ProjectApi }) {
  const [open, setOpen] = useState(false);
  // null while Claude Code's list is being read: "None yet." only once it says so.
  const [recent, setRecent] = useState<RecentProject[] | null>(null);
  const [unread, setUnread] = useState<ApiError | null>(null);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    let current = true;
    setRecent(null);
    setUnread(null);
    void api.recent().then((outcome) => {
      if (!current) return;
      if (outcome.ok) setRecent(outcome.value);
      else {
        setRecent([]);
        setUnread(outcome.error);
      }
    });
    const close = (event: MouseEvent) => {
      if (panel.current && !panel.current.contains(event.target as Node)) setOpen(false);
    };
    window.addEventListener("mousedown", close);
    return () => {
      current = false;
      window.removeEventListener("mousedown", close);
    };
  }, [open, api]);

  const go = async (folder: string | null) => {
    if (folder === null) return;
    const outcome = await api.open(folder);
    if (outcome.ok) setOpen(false);
    else setFailure(outcome.error);
  };

  return (
    <div className="relative min-w-0 shrink" ref={panel}>
      <button
        type="button"
        data-testid="project-picker"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={`Project: ${projectDir}. Open another project`}
        onClick={() => {
          setFailure(null);
          setOpen(!open);
        }}
        className="flex min-w-0 max-w-full items-center gap-1 rounded px-1 font-mono text-xs text-slate-500 hover:bg-slate-100 dark:text-slate-400 dark:hover:bg-slate-800"
      >
        {/* The folder's own name is what tells projects apart: when the header is short of
            room, the folders above it are cut first, then the search box narrows (App.tsx),
            and the name keeps 4rem at least. */}
        <span data-testid="project-dir" className="flex min-w-0" title={projectDir}>
          <span className="min-w-0 shrink-[1000] truncate">{parentOf(projectDir)}</span>
          <span className="min-w-16 truncate">{nameOf(projectDir)}</span>
        </span>
        <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div
          role="menu"
          data-testid="project-menu"
          className="absolute left-0 top-7 z-10 w-[32rem] rounded-md border border-slate-200 bg-white p-2 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <p className="px-2 pb-1 text-xs font-medium text-slate-500">Projects Claude Code knows</p>
          {recent === null && (
            <p role="status" data-testid="recent-projects-reading" className="px-2 py-1 text-xs text-slate-500">
              Reading the projects Claude Code knows…
            </p>
          )}
          {unread && (
            <p role="alert" data-testid="recent-projects-error" className="px-2 py-1 text-xs text-red-700 dark:text-red-300">
              {errorTitle(unread)}: {unread.message}
            </p>
          )}
          {recent?.length === 0 && !unread && <p className="px-2 py-1 text-xs text-slate-500">None yet.</p>}
          {recent?.map((project) => (
            <button
              key={project.path}
              type="button"
              role="menuitem"
              data-testid="recent-project"
              data-path={project.path}
              disabled={project.current}
              onClick={() => void go(project.path)}
              className="flex w-full items-baseline gap-2 rounded px-2 py-1 text-left font-mono text-xs hover:bg-slate-100 disabled:font-semibold disabled:hover:bg-transparent dark:hover:bg-slate-800"
            >
              <span className="truncate">{project.path}</span>
              <span className="ml-auto shrink-0 font-sans text-slate-500">
                {project.current ? "open" : `${project.localServers} local`}
              </span>
            </button>
          ))}
          <hr className="my-1 border-slate-200 dark:border-slate-700" />
          <button
            type="button"
            role="menuitem"
            data-testid="choose-folder"
            onClick={() => void api.chooseFolder().then(go)}
            className="w-full rounded px-2 py-1 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
          >
            Choose a folder…
          </button>
          {failure && (
            <p role="alert" data-testid="project-error" className="px-2 pt-1 text-xs text-red-700 dark:text-red-300">
              {errorTitle(failure)}: {failure.message}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
