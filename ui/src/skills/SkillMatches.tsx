// The skills the All tools search finds: every connected server's that serves skills (their
// listing only: no file is read), matched by name or description, with the server that
// serves each.
import { useEffect, useState } from "react";
import type { SkillEntry } from "../bindings";
import type { SkillsApi } from "./api";

export function SkillMatches({ api, servers, query }: { api: SkillsApi; servers: string[]; query: string }) {
  const [skills, setSkills] = useState<{ server: string; skill: SkillEntry }[]>([]);
  const key = servers.join("\n");
  useEffect(() => {
    let current = true;
    void Promise.all(servers.map(async (server) => {
      const outcome = await api.list(server);
      return outcome.ok ? outcome.value.map((skill) => ({ server, skill })) : [];
    })).then((found) => current && setSkills(found.flat()));
    return () => {
      current = false;
    };
  }, [api, key]);
  const words = query.trim().toLowerCase();
  if (!words || skills.length === 0) return null;
  const matching = skills.filter(({ skill }) => `${skill.name} ${skill.description}`.toLowerCase().includes(words));
  if (matching.length === 0) return null;
  return (
    <section data-testid="skill-matches" aria-label="Skills matching the search" className="rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
      <h3 className="text-xs font-semibold text-slate-500">Skills ({matching.length})</h3>
      <ul>
        {matching.map(({ server, skill }) => (
          <li key={`${server}\n${skill.uri}`} data-testid="skill-match" data-skill={skill.name} className="flex items-baseline gap-2">
            <code className="font-semibold">{skill.name}</code>
            <span className="text-xs text-slate-500">{server}</span>
            <span className="min-w-0 truncate text-xs">{skill.description}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
