//! `mcpctl agents`: the servers subagents name or define in their files' frontmatter, which
//! connect only while that subagent runs and which `claude mcp list` does not show, with what
//! Claude Code does with each ([`mcp_manager_core::config::agents`]).

use clap::Subcommand;
use mcp_manager_core::config::agent_moves;
use mcp_manager_core::config::agents::{self, AgentSource};
use mcp_manager_core::{ApiError, Locations, Scope};

#[derive(Subcommand)]
pub enum AgentsCommand {
    /// Move a local, project or user server into an agent's frontmatter (--into AGENT), or an
    /// agent's own server (agent:AGENT:SERVER) out into a scope (--to local|project|user). The
    /// agent file's body and other keys are left as they are.
    Move {
        server: String,
        #[arg(
            long,
            value_name = "AGENT",
            conflicts_with = "to",
            required_unless_present = "to"
        )]
        into: Option<String>,
        #[arg(long, value_parser = ["local", "project", "user"])]
        to: Option<String>,
    },
}

pub fn run(
    locations: &Locations,
    command: Option<AgentsCommand>,
    json: bool,
) -> Result<bool, ApiError> {
    if let Some(AgentsCommand::Move { server, into, to }) = command {
        let moved = match (into, to) {
            (Some(agent), _) => agent_moves::move_into(locations, &server, &agent)?,
            (None, Some(scope)) => {
                let scope = match scope.as_str() {
                    "local" => Scope::Local,
                    "project" => Scope::Project,
                    _ => Scope::User,
                };
                // A server's own name has no `:` (see `agents::entry_name`); an agent's may
                // (a plugin's agents are `<plugin>:<name>`).
                let Some((agent, name)) = server
                    .strip_prefix("agent:")
                    .and_then(|rest| rest.rsplit_once(':'))
                else {
                    return Err(crate::failure(format!(
                        "\"{server}\" is not an agent's own server: name it agent:AGENT:SERVER (`mcpctl agents` lists them)"
                    )));
                };
                agent_moves::move_out(locations, agent, name, scope)?
            }
            (None, None) => unreachable!("clap requires --into or --to"),
        };
        if json {
            crate::print_json(&moved);
        } else {
            shown!("Moved: now \"{}\"", crate::one_line(&moved.name));
            for file in &moved.files {
                shown!("File modified: {}", crate::one_line(file));
            }
        }
        return Ok(true);
    }
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
        eout!("warning: {}", mcp_manager_connect::sanitize::strip(problem));
    }
    Ok(true)
}
