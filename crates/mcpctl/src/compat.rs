//! `mcpctl compat`: what a client sends its model of each server's tools.
//!
//! The view itself is [`mcp_manager_clients::claude_code`], judged against Claude Code; this
//! module only feeds it the tools a live session listed and prints the answer. The session
//! gives the tools as the connection engine keeps them (pages joined, hidden control
//! characters already stripped), so a listing Claude Code would refuse for its shape, or whose
//! pages run past Claude Code's 20, may read differently here than in the library's tests.

use mcp_manager_clients::claude_code::{self, Knobs, Server, View};
use mcp_manager_connect::ToolSummary;
use serde_json::{json, Map, Value};

/// Claude Code's view of one server's listed tools, with the environment's knobs.
pub fn claude_code(name: &str, always_load: Option<bool>, tools: &[ToolSummary]) -> View {
    let listing = json!({ "tools": tools.iter().map(listed).collect::<Vec<_>>() });
    let server = Server {
        always_load,
        ..Server::named(name)
    };
    claude_code::view(
        &server,
        &listing,
        &Knobs::from_env(|n| std::env::var(n).ok()),
    )
}

/// A listed tool back in the shape of `tools/list`.
fn listed(tool: &ToolSummary) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), json!(tool.name));
    let optional = [
        ("title", tool.title.clone().map(Value::String)),
        ("description", tool.description.clone().map(Value::String)),
        ("inputSchema", Some(tool.input_schema.clone())),
        ("outputSchema", tool.output_schema.clone()),
        ("annotations", tool.annotations.clone()),
        ("_meta", tool.meta.clone()),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            out.insert(key.into(), value);
        }
    }
    Value::Object(out)
}

/// `--json`: per server `sent`, `dropped` and `deferred` (with the rest of the view); else
/// the cuts and drops with their reasons, a line per tool.
pub fn print(views: &[View], json: bool) {
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
        out!(
            "{}: Claude Code {} sends {} of its tools ({} deferred behind ToolSearch), drops {}",
            view.server,
            claude_code::VERSION,
            view.sent.len(),
            view.deferred.len(),
            view.dropped.len()
        );
        for dropped in &view.dropped {
            out!("  dropped {}: {}", dropped.tool, dropped.words);
        }
        for cut in &view.cuts {
            out!(
                "  cut {}: description of {} characters cut at {} upfront, {} through ToolSearch",
                cut.name,
                cut.length,
                cut.upfront_at,
                cut.loaded_at
            );
        }
        for (name, flattened) in &view.flattened {
            out!(
                "  rewritten {name}: root {} flattened; description starts \"{}\"",
                flattened.combinators.join("/"),
                flattened.note
            );
        }
        for collision in &view.collisions {
            out!("  collision {}: {}", collision.name, collision.words);
        }
    }
}
