//! `mcpctl agents`: the servers subagents name or define in their files' frontmatter, which
//! connect only while that subagent runs and which `claude mcp list` does not show, with what
//! Claude Code does with each ([`mcp_manager_core::config::agents`]).

use mcp_manager_core::config::agents::{self, AgentSource};
use mcp_manager_core::{ApiError, Locations};

pub fn run(locations: &Locations, json: bool) -> Result<bool, ApiError> {
    let configured = mcp_manager_usage::configured(locations);
    let found = agents::list(locations, &configured);
    if json {
        crate::print_json(&found);
        return Ok(true);
    }
    if found.agents.is_empty() {
        out!("No subagent names or defines a server.");
    }
    for agent in &found.agents {
        let source = match &agent.source {
            AgentSource::User => "user".to_string(),
            AgentSource::Project => "project".to_string(),
            AgentSource::Plugin(id) => format!("plugin {id}"),
        };
        shown!(
            "{} ({}, {})",
            crate::one_line(&agent.name),
            crate::one_line(&source),
            crate::one_line(&agent.file)
        );
        for server in &agent.servers {
            let what = match (&server.target, server.inline) {
                (Some(target), true) => format!("inline: {}", crate::one_line(target)),
                (None, true) => "inline".to_string(),
                (_, false) => "configured server".to_string(),
            };
            shown!(
                "  {}  {what}{}",
                crate::one_line(&server.name),
                server
                    .problem
                    .as_deref()
                    .map(|p| format!("  ! {}", crate::one_line(p)))
                    .unwrap_or_default()
            );
        }
    }
    for problem in &found.problems {
        eprintln!("warning: {}", mcp_manager_connect::sanitize::strip(problem));
    }
    Ok(true)
}
