// A server's resources: the list and the templates (filled by a form of their RFC 6570
// variables), and the resource chosen, read (see ResourceView).
import { useEffect, useState } from "react";
import type { ApiError } from "../bindings";
import type { BrowseApi } from "./api";
import { ResourceView } from "./ResourceView";
import type { FollowStore } from "./followStore";
import { expand, variables } from "./uriTemplate";

interface Resource {
  uri: string;
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
}
interface Template {
  uriTemplate: string;
  name?: string;
  title?: string;
  description?: string;
}
export function ResourcesPanel({ server, api, follows }: { server: string; api: BrowseApi; follows?: FollowStore }) {
  const [lists, setLists] = useState<{ resources: Resource[]; templates: Template[] } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    void api.resources(server).then((outcome) => {
      if (!current) return;
      if (outcome.ok) setLists({ resources: JSON.parse(outcome.value.resources) as Resource[], templates: JSON.parse(outcome.value.templates) as Template[] });
      else setError(outcome.error);
    });
    return () => {
      current = false;
    };
  }, [server, api]);
  const open = (uri: string) => setChosen(uri);
  if (error) return <p className="text-sm text-red-700 dark:text-red-300">{error.message}</p>;
  if (!lists) return <p className="text-sm text-slate-500">Loading the resources…</p>;
  return (
    <div data-testid="resources-panel" className="flex flex-col gap-3">
      <ul className="flex max-h-56 flex-col overflow-auto rounded border border-slate-200 dark:border-slate-800">
        {lists.resources.map((r) => (
          <li key={r.uri}>
            <button type="button" data-testid="resource-row" data-uri={r.uri} onClick={() => open(r.uri)} className="flex w-full items-baseline gap-2 px-2 py-1 text-left text-sm hover:bg-slate-50 dark:hover:bg-slate-800/60">
              <span className="shrink-0 font-medium">{r.title ?? r.name ?? r.uri}</span>
              <code className="min-w-0 truncate text-xs text-slate-500">{r.uri}</code>
              {r.mimeType && <span className="ml-auto shrink-0 text-xs text-slate-500">{r.mimeType}</span>}
            </button>
          </li>
        ))}
        {lists.resources.length === 0 && <li className="px-2 py-1 text-sm text-slate-500">No resources listed.</li>}
      </ul>
      {lists.templates.map((t) => (
        <TemplateForm key={t.uriTemplate} template={t} onRead={(uri) => open(uri)} />
      ))}
      {chosen && <ResourceView key={chosen} server={server} uri={chosen} api={api} follows={follows} />}
    </div>
  );
}

function TemplateForm({ template, onRead }: { template: Template; onRead: (uri: string) => void }) {
  const names = variables(template.uriTemplate);
  const [values, setValues] = useState<Record<string, string>>({});
  const uri = expand(template.uriTemplate, values);
  return (
    <form
      data-testid="resource-template"
      data-template={template.uriTemplate}
      onSubmit={(e) => {
        e.preventDefault();
        onRead(uri);
      }}
      className="flex flex-col gap-1 rounded border border-slate-200 p-2 text-sm dark:border-slate-800"
    >
      <p className="font-medium">
        {template.title ?? template.name} <code className="text-xs font-normal text-slate-500">{template.uriTemplate}</code>
      </p>
      {template.description && <p className="text-xs text-slate-600 dark:text-slate-400">{template.description}</p>}
      <div className="flex flex-wrap items-center gap-2">
        {names.map((name) => (
          <label key={name} className="flex items-center gap-1 text-xs">
            {name}
            <input
              data-testid="template-variable"
              data-name={name}
              value={values[name] ?? ""}
              onChange={(e) => setValues({ ...values, [name]: e.target.value })}
              className="w-32 rounded border border-slate-300 bg-white px-1 py-0.5 dark:border-slate-700 dark:bg-slate-900"
            />
          </label>
        ))}
        <button type="submit" data-testid="template-read" className="rounded border border-slate-300 px-2 text-xs dark:border-slate-700">
          Read
        </button>
        <code data-testid="template-uri" className="text-xs text-slate-500">
          {uri}
        </code>
      </div>
    </form>
  );
}
