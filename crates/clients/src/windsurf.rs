//! Windsurf's view of a project's tools. Windsurf is closed source; its documentation says:
//! "Cascade has a limit of 100 total tools that it has access to at any given time"
//! (docs.windsurf.com/windsurf/cascade/mcp, "Configuring MCP tools", read 2026-12). Which
//! tools stay past 100 is the person's choice (per-server tool toggles), so the rule is a
//! project note. Tool names are not documented; the raw name is shown.

use crate::view::{Client, ClientView, Effect, Listed};

pub const HOLDS_FOR: &str =
    "Windsurf (closed source): docs.windsurf.com/windsurf/cascade/mcp, read 2026-12";
/// Tools Cascade can have at a time.
pub const MAX_TOOLS: usize = 100;

pub(crate) fn view(servers: &[Listed<'_>]) -> ClientView {
    let mut out = ClientView::new(Client::Windsurf, HOLDS_FOR);
    for listed in servers {
        for (raw, _) in listed.tools() {
            out.tool(listed.server, raw, Some(raw.to_string()));
        }
    }
    let total = out.tools.len();
    if total > MAX_TOOLS {
        out.finding(
            "",
            None,
            Effect::Hidden,
            format!(
                "The project's servers list {total} tools; Cascade has a limit of {MAX_TOOLS} \
                 total tools at any given time, so {} of them stay out until others are turned \
                 off.",
                total - MAX_TOOLS
            ),
            "Turn off the tools the project does not need in each server's Tools tab \
             (Windsurf Settings > Manage plugins).",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // docs.windsurf.com: "Cascade has a limit of 100 total tools".
    #[test]
    fn more_than_a_hundred_tools_are_over_the_limit() {
        let tools: Vec<_> = (0..101).map(|i| json!({"name": format!("t{i}")})).collect();
        let listing = json!({ "tools": tools });
        let view = view(&[Listed::plain("s", &listing)]);
        assert_eq!(view.findings.len(), 1);
        let listing = json!({ "tools": tools[..100] });
        assert!(super::view(&[Listed::plain("s", &listing)])
            .findings
            .is_empty());
    }
}
