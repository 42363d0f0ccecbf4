// Markdown a server wrote, rendered: markdown-it with raw HTML off (what the server wrote as
// HTML shows as text), and links that do not navigate the window (their address shows on
// hover). Remote images stay blank: the window's CSP loads none.
import MarkdownIt from "markdown-it";
import { useMemo } from "react";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });
md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx]!;
  const href = token.attrGet("href");
  if (href) token.attrSet("title", href);
  return self.renderToken(tokens, idx, options);
};

/** Above this, Markdown is not offered: rendering it would hold the window. */
export const MARKDOWN_LIMIT = 512 * 1024;

export function Markdown({ text, testId = "markdown" }: { text: string; testId?: string }) {
  const html = useMemo(() => md.render(text), [text]);
  return (
    <div
      data-testid={testId}
      className="markdown max-h-96 overflow-auto rounded bg-slate-50 p-3 text-sm dark:bg-slate-900"
      onClick={(event) => {
        const link = (event.target as HTMLElement).closest("a");
        if (link) event.preventDefault();
      }}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
