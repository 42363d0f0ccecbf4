// RFC 6570 URI templates, as resource templates use them: the variables a template names,
// and the URI it gives for values (levels 1 to 3: {var}, {+var}, {#var}, {.var}, {/var},
// {;var}, {?var}, {&var}, with lists of variables).

const OPERATORS = "+#./;?&";

interface Expression {
  operator: string;
  names: string[];
}

function expressions(template: string): Array<{ text: string; expression: Expression }> {
  const found: Array<{ text: string; expression: Expression }> = [];
  for (const match of template.matchAll(/\{([^}]*)\}/g)) {
    let body = match[1]!;
    const operator = OPERATORS.includes(body[0] ?? "") ? body[0]! : "";
    if (operator) body = body.slice(1);
    const names = body
      .split(",")
      .map((n) => n.replace(/\*$/, "").replace(/:\d+$/, "").trim())
      .filter(Boolean);
    found.push({ text: match[0], expression: { operator, names } });
  }
  return found;
}

/** The variables of a template, in order, each once. */
export function variables(template: string): string[] {
  const out: string[] = [];
  for (const { expression } of expressions(template)) for (const name of expression.names) if (!out.includes(name)) out.push(name);
  return out;
}

const unreserved = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const reserved = (text: string) => encodeURI(text);

/** The URI for `values`; variables without a value are left out, as RFC 6570 says. */
export function expand(template: string, values: Record<string, string>): string {
  let out = template;
  for (const { text, expression } of expressions(template)) {
    const { operator, names } = expression;
    const given = names.filter((n) => values[n] !== undefined && values[n] !== "");
    const encode = operator === "+" || operator === "#" ? reserved : unreserved;
    let replacement = "";
    if (given.length > 0) {
      const first = { "": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&" }[operator] ?? "";
      const separator = { "": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&" }[operator] ?? ",";
      const named = operator === ";" || operator === "?" || operator === "&";
      replacement =
        first +
        given
          .map((n) => {
            const value = encode(values[n]!);
            if (!named) return value;
            return operator === ";" && value === "" ? n : `${n}=${value}`;
          })
          .join(separator);
    }
    out = out.replace(text, replacement);
  }
  return out;
}
