// A tool's form, generated from its inputSchema: one widget per field kind, every label and
// help text from the schema, an omitted optional field visibly apart from an empty one, what a
// person types kept apart from the value it parses to, and each problem shown at its field.
import { useState } from "react";
import type { Field, Json, JsonObject, Property } from "./schema";
import { emptyOf, getAt, pointer, setAt, variantOf, parseNumber, type FormState } from "./value";
import { uncheckedPattern, type Problems } from "./validate";

interface Props {
  field: Field;
  state: FormState;
  onChange: (state: FormState) => void;
  problems: Problems;
}

const input =
  "w-full min-w-0 rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900";

/** The whole form: the root object's properties. */
export function ToolForm({ field, state, onChange, problems }: Props) {
  if (field.kind !== "object") {
    return <p className="text-sm text-red-700">This tool's arguments are not an object.</p>;
  }
  const ctx: Context = { state, onChange, problems };
  return (
    <div data-testid="tool-form" className="flex flex-col gap-3">
      {field.properties.length === 0 && !field.additional && <p className="text-sm text-slate-500">This tool takes no arguments.</p>}
      {field.properties.map((property) => (
        <PropertyRow key={property.name} property={property} path={pointer("", property.name)} ctx={ctx} />
      ))}
      {field.additional && <MapRows field={field} path="" ctx={ctx} />}
      <FieldProblems path="" problems={problems} />
    </div>
  );
}

interface Context {
  state: FormState;
  onChange: (state: FormState) => void;
  problems: Problems;
}

function setValue(ctx: Context, path: string, next: Json | undefined) {
  const texts = { ...ctx.state.texts };
  delete texts[path];
  ctx.onChange({ ...ctx.state, value: (setAt(ctx.state.value, path, next) as JsonObject | undefined) ?? {}, texts });
}

function setText(ctx: Context, path: string, text: string) {
  ctx.onChange({ ...ctx.state, texts: { ...ctx.state.texts, [path]: text } });
}

function label(property: Property): string {
  return property.field.title ?? property.name;
}

function PropertyRow({ property, path, ctx }: { property: Property; path: string; ctx: Context }) {
  const value = getAt(ctx.state.value, path);
  const omitted = value === undefined;
  const id = `field${path.replace(/[^a-zA-Z0-9_-]/g, "_")}`;
  const { field } = property;
  return (
    <div data-testid="form-field" data-path={path} data-kind={field.kind} data-omitted={omitted} className="flex flex-col gap-1">
      <div className="flex items-baseline gap-2">
        <label htmlFor={id} className="text-sm font-medium">
          {label(property)}
          {property.required && (
            <span className="text-red-600" aria-label="required">
              {" "}
              *
            </span>
          )}
        </label>
        {field.title && <code className="text-xs text-slate-500">{property.name}</code>}
        {!property.required && (
          <button
            type="button"
            data-testid="toggle-omitted"
            onClick={() => setValue(ctx, path, omitted ? emptyOf(field) : undefined)}
            className="ml-auto rounded border border-slate-300 px-1.5 text-xs dark:border-slate-700"
          >
            {omitted ? "Give a value" : "Omit"}
          </button>
        )}
      </div>
      {field.description && <p className="whitespace-pre-wrap text-xs text-slate-600 dark:text-slate-400">{field.description}</p>}
      {field.kind === "string" && field.pattern !== null && uncheckedPattern(field.pattern) && (
        <p data-testid="pattern-unchecked" className="text-xs text-amber-700 dark:text-amber-400">
          {uncheckedPattern(field.pattern)}
        </p>
      )}
      {omitted && !property.required ? (
        <p data-testid="omitted" className="rounded border border-dashed border-slate-300 px-2 py-1 text-xs text-slate-500 dark:border-slate-700">
          Omitted{field.default !== undefined ? `: the server uses its default, ${JSON.stringify(field.default)}` : ": not sent"}
        </p>
      ) : (
        <Widget field={field} path={path} id={id} ctx={ctx} />
      )}
      <FieldProblems path={path} problems={ctx.problems} />
    </div>
  );
}

function FieldProblems({ path, problems }: { path: string; problems: Problems }) {
  const mine = problems[path];
  if (!mine?.length) return null;
  return (
    <p data-testid="field-problem" data-path={path} className="text-xs text-red-700 dark:text-red-300">
      {mine.join(" ")}
    </p>
  );
}

function Widget({ field, path, id, ctx }: { field: Field; path: string; id: string; ctx: Context }) {
  const value = getAt(ctx.state.value, path);
  if (value === null && field.nullable) {
    return (
      <div className="flex items-center gap-2 text-sm">
        <code data-testid="null-value">null</code>
        <button type="button" className="rounded border border-slate-300 px-1.5 text-xs dark:border-slate-700" onClick={() => setValue(ctx, path, emptyOf({ ...field, default: undefined }))}>
          Give a value
        </button>
      </div>
    );
  }
  const nullButton = field.nullable ? (
    <button type="button" data-testid="set-null" onClick={() => setValue(ctx, path, null)} className="rounded border border-slate-300 px-1.5 text-xs dark:border-slate-700">
      null
    </button>
  ) : null;
  return (
    <div className="flex items-start gap-2">
      <div className="min-w-0 flex-1">
        <Inner field={field} path={path} id={id} value={value} ctx={ctx} />
      </div>
      {nullButton}
    </div>
  );
}

const FORMAT_INPUT: Record<string, string> = { date: "date", email: "email", uri: "url", url: "url", time: "time" };

function Inner({ field, path, id, value, ctx }: { field: Field; path: string; id: string; value: Json | undefined; ctx: Context }) {
  const typed = ctx.state.texts[path];
  switch (field.kind) {
    case "string": {
      const text = typeof value === "string" ? value : "";
      const common = {
        id,
        "data-testid": "string-input",
        value: text,
        placeholder: field.format === "date-time" ? "2026-12-01T10:00:00Z" : (field.pattern ?? undefined),
        minLength: field.minLength ?? undefined,
        maxLength: field.maxLength ?? undefined,
        className: input,
      };
      if (field.multiline && !field.format && !field.secret) {
        return <textarea {...common} rows={Math.min(6, Math.max(2, text.split("\n").length))} onChange={(e) => setValue(ctx, path, e.target.value)} />;
      }
      const type = field.secret ? "password" : (field.format && FORMAT_INPUT[field.format]) || "text";
      return <input {...common} type={type} onChange={(e) => setValue(ctx, path, e.target.value)} />;
    }
    case "number": {
      const text = typed ?? (typeof value === "number" ? String(value) : "");
      const limits = [
        field.minimum !== null ? `≥ ${field.minimum}` : null,
        field.exclusiveMinimum !== null ? `> ${field.exclusiveMinimum}` : null,
        field.maximum !== null ? `≤ ${field.maximum}` : null,
        field.exclusiveMaximum !== null ? `< ${field.exclusiveMaximum}` : null,
        field.multipleOf !== null ? `a multiple of ${field.multipleOf}` : null,
      ].filter(Boolean);
      const parsed = typed !== undefined ? parseNumber(typed, field.integer) : null;
      return (
        <div>
          <input
            id={id}
            data-testid="number-input"
            inputMode={field.integer ? "numeric" : "decimal"}
            value={text}
            onChange={(e) => {
              const next = parseNumber(e.target.value, field.integer);
              if ("value" in next) setValue(ctx, path, next.value);
              else setText(ctx, path, e.target.value);
            }}
            className={input}
          />
          <p className="text-xs text-slate-500">
            {field.integer ? "A whole number" : "A number"}
            {limits.length ? `, ${limits.join(", ")}` : ""}
          </p>
          {parsed && "error" in parsed && (
            <p data-testid="typed-problem" className="text-xs text-red-700 dark:text-red-300">
              {parsed.error} Not sent as typed; the value stays {value === undefined ? "unset" : JSON.stringify(value)}.
            </p>
          )}
        </div>
      );
    }
    case "boolean":
      return (
        <label className="flex items-center gap-2 text-sm">
          <input id={id} data-testid="boolean-input" type="checkbox" checked={value === true} onChange={(e) => setValue(ctx, path, e.target.checked)} />
          {value === true ? "true" : "false"}
        </label>
      );
    case "choice": {
      const index = field.options.findIndex((o) => JSON.stringify(o.value) === JSON.stringify(value));
      return (
        <select id={id} data-testid="choice-input" value={index} onChange={(e) => setValue(ctx, path, field.options[Number(e.target.value)]!.value)} className={input}>
          {index < 0 && <option value={-1}>{value === undefined ? "Choose…" : `${JSON.stringify(value)} (not one of the choices)`}</option>}
          {field.options.map((option, i) => (
            <option key={i} value={i}>
              {option.title}
            </option>
          ))}
        </select>
      );
    }
    case "object":
      return (
        <fieldset data-testid="object-fields" className="flex flex-col gap-3 rounded border border-slate-200 p-2 dark:border-slate-800">
          {field.properties.map((property) => (
            <PropertyRow key={property.name} property={property} path={pointer(path, property.name)} ctx={ctx} />
          ))}
          {field.additional && <MapRows field={field} path={path} ctx={ctx} />}
        </fieldset>
      );
    case "array":
      return <ArrayRows field={field} path={path} value={Array.isArray(value) ? value : []} ctx={ctx} />;
    case "variant": {
      const chosen = ctx.state.variants[path] ?? (value === undefined ? 0 : variantOf(field, value));
      const option = field.options[chosen]!;
      return (
        <div className="flex flex-col gap-2">
          <select
            id={id}
            data-testid="variant-input"
            value={chosen}
            onChange={(e) => {
              const next = Number(e.target.value);
              const variants = { ...ctx.state.variants, [path]: next };
              ctx.onChange({ ...ctx.state, variants, value: (setAt(ctx.state.value, path, emptyOf(field.options[next]!.field)) as JsonObject) ?? {} });
            }}
            className={input}
          >
            {field.options.map((o, i) => (
              <option key={i} value={i}>
                {o.title}
              </option>
            ))}
          </select>
          <Widget field={option.field} path={path} id={`${id}-v`} ctx={ctx} />
        </div>
      );
    }
    case "json":
      return <JsonInput path={path} id={id} value={value} why={field.why} ctx={ctx} />;
  }
}

function JsonInput({ path, id, value, why, ctx }: { path: string; id: string; value: Json | undefined; why: string; ctx: Context }) {
  const typed = ctx.state.texts[path];
  const text = typed ?? (value === undefined ? "" : JSON.stringify(value, null, 2));
  let problem: string | null = null;
  if (typed !== undefined) {
    try {
      JSON.parse(typed);
    } catch (error) {
      problem = (error as Error).message;
    }
  }
  return (
    <div>
      <textarea
        id={id}
        data-testid="json-input"
        value={text}
        rows={Math.min(8, Math.max(2, text.split("\n").length))}
        onChange={(e) => {
          try {
            const parsed = JSON.parse(e.target.value) as Json;
            setValue(ctx, path, parsed);
          } catch {
            setText(ctx, path, e.target.value);
          }
        }}
        className={`${input} font-mono text-xs`}
      />
      <p className="text-xs text-slate-500">JSON ({why})</p>
      {problem && <p className="text-xs text-red-700 dark:text-red-300">Not JSON yet: {problem}</p>}
    </div>
  );
}

function ArrayRows({ field, path, value, ctx }: { field: Extract<Field, { kind: "array" }>; path: string; value: Json[]; ctx: Context }) {
  const move = (from: number, to: number) => {
    const next = [...value];
    const [item] = next.splice(from, 1);
    next.splice(to, 0, item!);
    setValue(ctx, path, next);
  };
  return (
    <div data-testid="array-items" className="flex flex-col gap-2">
      {value.map((_, i) => (
        <div key={i} data-testid="array-item" className="flex items-start gap-1 rounded border border-slate-200 p-1 dark:border-slate-800">
          <span className="w-5 pt-1 text-right text-xs text-slate-400">{i + 1}</span>
          <div className="min-w-0 flex-1">
            <Widget field={field.items} path={pointer(path, i)} id={`${path}-${i}`} ctx={ctx} />
          </div>
          <button type="button" data-testid="move-up" aria-label="Move up" disabled={i === 0} onClick={() => move(i, i - 1)} className="px-1 text-xs disabled:opacity-30">
            ↑
          </button>
          <button type="button" data-testid="move-down" aria-label="Move down" disabled={i === value.length - 1} onClick={() => move(i, i + 1)} className="px-1 text-xs disabled:opacity-30">
            ↓
          </button>
          <button type="button" data-testid="remove-item" aria-label="Remove" onClick={() => setValue(ctx, path, value.filter((_, j) => j !== i))} className="px-1 text-xs text-red-700">
            ✕
          </button>
        </div>
      ))}
      <button
        type="button"
        data-testid="add-item"
        disabled={field.maxItems !== null && value.length >= field.maxItems}
        onClick={() => setValue(ctx, path, [...value, emptyOf(field.items)])}
        className="self-start rounded border border-slate-300 px-2 text-xs dark:border-slate-700"
      >
        Add an item
      </button>
    </div>
  );
}

function MapRows({ field, path, ctx }: { field: Extract<Field, { kind: "object" }>; path: string; ctx: Context }) {
  const [key, setKey] = useState("");
  const value = getAt(ctx.state.value, path);
  const declared = new Set(field.properties.map((p) => p.name));
  const extra = value && typeof value === "object" && !Array.isArray(value) ? Object.keys(value).filter((k) => !declared.has(k)) : [];
  return (
    <div data-testid="map-entries" className="flex flex-col gap-2">
      {extra.map((name) => (
        <div key={name} data-testid="map-entry" className="flex items-start gap-2">
          <code className="w-32 shrink-0 truncate pt-1 text-xs">{name}</code>
          <div className="min-w-0 flex-1">
            <Widget field={field.additional!} path={pointer(path, name)} id={`${path}-${name}`} ctx={ctx} />
          </div>
          <button type="button" aria-label={`Remove ${name}`} onClick={() => setValue(ctx, pointer(path, name), undefined)} className="px-1 text-xs text-red-700">
            ✕
          </button>
        </div>
      ))}
      <div className="flex gap-2">
        <input data-testid="map-key" placeholder="New key" value={key} onChange={(e) => setKey(e.target.value)} className={`${input} w-40`} />
        <button
          type="button"
          data-testid="map-add"
          disabled={!key || declared.has(key) || extra.includes(key)}
          onClick={() => {
            setValue(ctx, pointer(path, key), emptyOf(field.additional!));
            setKey("");
          }}
          className="rounded border border-slate-300 px-2 text-xs dark:border-slate-700"
        >
          Add
        </button>
      </div>
    </div>
  );
}
