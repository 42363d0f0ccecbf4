// A server's skills (the Skills extension, SEP-2640): each listed skill with its frontmatter
// and files, none read until the person loads it; a load shows every file checked against the
// digest and size the server published (and the SKILL.md's frontmatter against the listed
// one). A file that fails is marked and its content not shown. Skill content is the server's
// data: shown as plain text, never rendered as HTML, never run. Below, the skills Claude Code
// loads from disk, read-only, so both kinds are seen in one place.
import { useEffect, useState } from "react";
import type { ApiError, DiskSkill, LoadedSkill, SkillEntry } from "../bindings";
import type { SkillsApi } from "./api";

function fields(frontmatter: string): [string, string][] {
  try {
    const value = JSON.parse(frontmatter) as Record<string, unknown> | null;
    return value ? Object.entries(value).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]) : [];
  } catch {
    return [];
  }
}

export function SkillsPanel({ server, api }: { server: string; api: SkillsApi }) {
  const [skills, setSkills] = useState<SkillEntry[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [onDisk, setOnDisk] = useState<DiskSkill[] | null>(null);
  useEffect(() => {
    let current = true;
    void api.list(server).then((outcome) => {
      if (!current) return;
      if (outcome.ok) setSkills(outcome.value);
      else setError(outcome.error);
    });
    void api.onDisk().then((found) => current && setOnDisk(found));
    return () => {
      current = false;
    };
  }, [server, api]);
  return (
    <div data-testid="skills-panel" className="flex flex-col gap-4">
      <section aria-label={`Skills of ${server}`} className="flex flex-col gap-2">
        <h3 className="text-sm font-semibold">Skills this server serves</h3>
        {error ? (
          <p className="text-sm text-red-700 dark:text-red-300">{error.message}</p>
        ) : !skills ? (
          <p className="text-sm text-slate-500">Listing the skills (no file is read)…</p>
        ) : skills.length === 0 ? (
          <p className="text-sm text-slate-500">It lists no skills.</p>
        ) : (
          skills.map((skill) => <ServedSkill key={skill.uri} server={server} skill={skill} api={api} />)
        )}
      </section>
      <section aria-label="Skills on disk" className="flex flex-col gap-2">
        <h3 className="text-sm font-semibold">Skills Claude Code loads from disk</h3>
        <p className="text-xs text-slate-500">Read-only: the person's (~/.claude/skills), the project's (.claude/skills) and enabled plugins'.</p>
        {!onDisk ? (
          <p className="text-sm text-slate-500">Looking…</p>
        ) : onDisk.length === 0 ? (
          <p className="text-sm text-slate-500">None.</p>
        ) : (
          <ul data-testid="disk-skills" className="flex flex-col rounded border border-slate-200 text-sm dark:border-slate-800">
            {onDisk.map((skill) => (
              <li key={skill.path} data-testid="disk-skill" data-skill={skill.name} className="flex flex-col px-2 py-1">
                <span>
                  <code className="font-semibold">{skill.name}</code> <span className="text-xs text-slate-500">({skill.source})</span>
                </span>
                {skill.description && <span className="text-xs">{skill.description}</span>}
                <span className="break-all font-mono text-xs text-slate-500">{skill.path}</span>
                {skill.problem && <span className="text-xs text-amber-700 dark:text-amber-300">{skill.problem}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function ServedSkill({ server, skill, api }: { server: string; skill: SkillEntry; api: SkillsApi }) {
  const [loaded, setLoaded] = useState<LoadedSkill | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const load = async () => {
    setLoading(true);
    setError(null);
    const outcome = await api.load(server, skill.uri);
    setLoading(false);
    if (outcome.ok) setLoaded(outcome.value);
    else setError(outcome.error);
  };
  const skillMd = loaded?.files.find((f) => f.uri === skill.uri);
  return (
    <article data-testid="skill" data-skill={skill.name} className="flex flex-col gap-2 rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
      <header className="flex items-baseline gap-2">
        <code className="font-semibold">{skill.name}</code>
        <span className="min-w-0 flex-1 text-xs">{skill.description}</span>
        <button type="button" data-testid="skill-load" onClick={() => void load()} disabled={loading || skill.files === null} className="rounded border border-slate-300 px-2 py-0.5 text-xs disabled:opacity-50 dark:border-slate-700">
          {loading ? "Loading and checking…" : loaded ? "Load again" : "Load and check"}
        </button>
      </header>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-3 text-xs">
        {fields(skill.frontmatter).map(([key, value]) => (
          <div key={key} className="contents">
            <dt className="text-slate-500">{key}</dt>
            <dd className="break-all">{value}</dd>
          </div>
        ))}
      </dl>
      {skill.files === null ? (
        <p className="text-xs text-amber-700 dark:text-amber-300">Its files are “dynamic”: the server publishes no digests, so nothing can be checked, and it is not loaded.</p>
      ) : (
        <ul className="flex flex-col gap-1 text-xs" aria-label={`Files of ${skill.name}`}>
          {skill.files.map((file) => {
            const check = loaded?.files.find((f) => f.uri === file.uri)?.check;
            return (
              <li key={file.uri} data-testid="skill-file" data-check={check?.state ?? "not-loaded"} className="flex flex-col rounded bg-slate-50 px-2 py-1 dark:bg-slate-900">
                <span className="break-all font-mono">{file.uri}</span>
                <span className="truncate text-slate-500" title={file.digest}>
                  {file.size} bytes · {file.digest}
                </span>
                {!check ? (
                  <span className="text-slate-500">Not read</span>
                ) : check.state === "verified" ? (
                  <span className="text-emerald-700 dark:text-emerald-300">✓ Matches what the server published</span>
                ) : check.state === "failed" ? (
                  <span className="break-all text-red-700 dark:text-red-300">✘ Not what the server published: {check.why}. Its content is not shown.</span>
                ) : (
                  <span className="text-slate-500">Not read: {check.why}</span>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {error && <p className="text-xs text-red-700 dark:text-red-300">{error.message}</p>}
      {loaded && (
        <p data-testid="skill-verdict" className={`text-xs font-medium ${loaded.verified ? "text-emerald-700 dark:text-emerald-300" : "text-red-700 dark:text-red-300"}`}>
          {loaded.verified ? "Every file is what the server published." : "Not loaded: a file is not what the server published, so its content is not offered."}
        </p>
      )}
      {loaded?.verified && skillMd?.text != null && (
        <pre data-testid="skill-text" aria-label={`SKILL.md of ${skill.name}`} className="max-h-80 overflow-auto whitespace-pre-wrap rounded bg-slate-50 p-2 text-xs dark:bg-slate-900">
          {skillMd.text}
        </pre>
      )}
    </article>
  );
}
