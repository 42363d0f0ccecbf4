//! `mcpctl compat`: what a client sends its model of each server's tools.
//!
//! The view itself is [`mcp_manager_clients::claude_code`], judged against Claude Code; this
//! module only feeds it the tools a live session listed, exactly as the server sent them
//! (`Connection::list_tools_as_sent`), with Claude Code's environment for the project (its
//! settings files' `env` over ours), and prints the answer: the same view the window's Clients
//! tab shows.

use mcp_manager_clients::claude_code::{self, Knobs, Server, View};
use serde_json::{json, Map, Value};

/// Claude Code's view of one server's tools as it sent them.
pub fn claude_code(
    name: &str,
    always_load: Option<bool>,
    listed: &[Value],
    knobs: &Knobs,
) -> View<'static> {
    let listing = json!({ "tools": listed });
    let server = Server {
        always_load,
        ..Server::named(name)
    };
    claude_code::view(&server, &listing, knobs).into_owned()
}

/// `--json`: per server `sent`, `dropped` and `deferred` (with the rest of the view); else
/// the cuts and drops with their reasons, a line per tool.
pub fn print(views: &[View<'_>], json: bool) {
    if json {
        let servers: Map<String, Value> = views
            .iter()
            .map(|v| {
                (
                    v.server.clone(),
                    serde_json::to_value(v).unwrap_or(Value::Null),
                )
            })
            .collect();
        crate::print_json(&json!({
            "client": "claude-code",
            "version": claude_code::VERSION,
            "servers": servers,
        }));
        return;
    }
    for view in views {
        shown!(
            "{}: Claude Code {} sends {} of its tools ({} deferred behind ToolSearch), drops {}",
            view.server,
            claude_code::VERSION,
            view.sent.len(),
            view.deferred.len(),
            view.dropped.len()
        );
        for dropped in &view.dropped {
            shown!("  dropped {}: {}", dropped.tool, dropped.words);
        }
        for cut in &view.cuts {
            shown!(
                "  cut {}: description of {} characters cut at {} upfront, {} through ToolSearch",
                cut.name,
                cut.length,
                cut.upfront_at,
                cut.loaded_at
            );
        }
        for (name, flattened) in &view.flattened {
            shown!(
                "  rewritten {name}: root {} flattened; description starts \"{}\"",
                flattened.combinators.join("/"),
                flattened.note
            );
        }
        for collision in &view.collisions {
            shown!("  collision {}: {}", collision.name, collision.words);
        }
    }
}

/// Another client's view of the servers' tools: `--json` as the library shapes it (`client`,
/// `holdsFor`, `tools` with the name each gets, `findings`); else a line per finding.
pub fn print_other(view: &mcp_manager_clients::ClientView, json: bool) {
    if json {
        crate::print_json(&serde_json::to_value(view).unwrap_or(Value::Null));
        return;
    }
    let dropped = view.tools.iter().filter(|t| t.name.is_none()).count();
    shown!(
        "{} ({}): sends {} of {} tools, drops {}",
        view.client.label(),
        view.holds_for,
        view.tools.len() - dropped,
        view.tools.len(),
        dropped
    );
    for finding in &view.findings {
        let whom = match (&finding.tool, finding.server.as_str()) {
            (Some(tool), server) => format!("{server} {tool}"),
            (None, "") => "the project".to_string(),
            (None, server) => server.to_string(),
        };
        let effect = serde_json::to_value(finding.effect).unwrap_or(Value::Null);
        shown!(
            "  {} {whom}: {}",
            effect.as_str().unwrap_or(""),
            finding.words
        );
        shown!("    to fix: {}", finding.fix);
    }
}
