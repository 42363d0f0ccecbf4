//! Cursor's view of a project's tools. Cursor is closed source: these rules come from
//! secondary pages, not from its program, and say so.
//!
//! - A server's name and a tool's name together over 60 characters give a warning
//!   (easymanage.com "MCP Server Advanced" tutorial: "Server Name + Tool Name length must be
//!   <= 60 chars"; research file `client-limits.md` §1, evidence key s).
//! - Cursor addresses servers as `user-<name>` or `project-0-<folder>-<name>`
//!   (tirth8205/code-review-graph#304); the name the model calls is not documented, so the
//!   tool keeps its raw name here.
//! - The historical 40-tool cap is gone since "dynamic context discovery" (cursor.com blog,
//!   ~2026-01): tools are loaded on demand and no count rule is applied.

use crate::view::{Client, ClientView, Effect, Listed};

pub const HOLDS_FOR: &str =
    "Cursor (closed source): easymanage.com MCP tutorial and cursor.com blog, read 2026-12";
/// Server name + tool name.
pub const MAX_COMBINED: usize = 60;

pub(crate) fn view(servers: &[Listed<'_>]) -> ClientView {
    let mut out = ClientView::new(Client::Cursor, HOLDS_FOR);
    for listed in servers {
        let server = listed.server;
        for (raw, _) in listed.tools() {
            let combined = server.chars().count() + raw.chars().count();
            if combined > MAX_COMBINED {
                out.finding(
                    server,
                    Some(raw),
                    Effect::Warning,
                    format!(
                        "The server's name and the tool's name have {combined} characters \
                         together; Cursor warns above {MAX_COMBINED} and may not call the tool."
                    ),
                    format!(
                        "Shorten the server's name in .cursor/mcp.json (or the tool's name) to \
                         {MAX_COMBINED} characters together."
                    ),
                );
            }
            out.tool(server, raw, Some(raw.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // easymanage.com tutorial: "Server Name + Tool Name length must be <= 60 chars".
    #[test]
    fn over_sixty_characters_together_is_warned() {
        let listing = json!({"tools": [{"name": "a".repeat(50)}, {"name": "b".repeat(51)}]});
        let view = view(&[Listed::plain("ten-chars!", &listing)]);
        assert_eq!(view.findings.len(), 1);
        assert_eq!(
            view.findings[0].tool.as_deref(),
            Some("b".repeat(51).as_str())
        );
    }
}
