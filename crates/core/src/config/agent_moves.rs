//! Moving a server into a subagent's frontmatter, and out of it into a scope: the person's
//! and the project's agent files edited line by line ([`super::agents`] reads and edits the
//! text), the configured server removed or added through [`crate::api`], and each step
//! checked so that nothing is half done, nothing unapproved gets out of its door and no
//! credential goes into a file shared with the project.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::agents::{
    add_inline, entry_name, read_all, remove_inline, same_but_servers, servers_list, AgentFile,
    AgentSource,
};
use super::catalog::Catalog;
use crate::error::ConfigError;
use crate::Locations;

/// What a move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Moved {
    /// The server's name where it is now.
    pub name: String,
    /// The files written.
    pub files: Vec<String>,
}

/// Every agent of the person's and of the project (with servers or not), plugins' aside,
/// but those another file of the same name overrides.
fn own_agents(locations: &Locations) -> Vec<AgentFile> {
    let plugins = crate::config::plugins::PluginSet::load(locations).plugins;
    let (mut all, _) = read_all(locations, &plugins);
    all.retain(|a| !matches!(a.source, AgentSource::Plugin(_)) && a.overridden_by.is_none());
    all
}

/// The agents a server can move into: the person's and the project's, by name.
pub fn agent_names(locations: &Locations) -> Vec<String> {
    let mut names: Vec<String> = own_agents(locations).into_iter().map(|a| a.name).collect();
    names.sort();
    names.dedup();
    names
}

fn agent_file(locations: &Locations, agent: &str) -> Result<AgentFile, ConfigError> {
    own_agents(locations)
        .into_iter()
        .find(|a| a.name == agent)
        .ok_or_else(|| ConfigError::Invalid(format!(
            "no agent of yours or of this project is named \"{agent}\" (a plugin's agents are its own)"
        )))
}

/// An agent file's text: a project's read only inside the project.
fn read_agent_text(
    locations: &Locations,
    source: &AgentSource,
    file: &Path,
) -> Result<Option<String>, ConfigError> {
    let read = match source {
        AgentSource::Project => {
            crate::files::read_text_within(file, &locations.project_root(), 1024 * 1024)
        }
        _ => crate::files::read_text(file, 1024 * 1024),
    };
    read.map_err(|err| ConfigError::Invalid(err.to_string()))
}

fn write_agent(locations: &Locations, agent: &AgentFile, text: &str) -> Result<(), ConfigError> {
    let root = match agent.source {
        AgentSource::Project => locations.project_root(),
        _ => locations.claude_dir(),
    };
    crate::files::write(
        &agent.file,
        text.as_bytes(),
        &crate::files::Write::new(crate::files::Mode::SharedOrKept).within(&root),
    )
    .map_err(|err| ConfigError::Write {
        path: agent.file.clone(),
        source: err.into_io(),
    })
}

/// Moves configured server `server` into agent `agent`'s frontmatter as its own server, and
/// out of its scope. The agent file is checked before it is written: the body and every other
/// key read as before. Nothing is written when a step would fail.
pub fn move_into(locations: &Locations, server: &str, agent: &str) -> Result<Moved, ConfigError> {
    let catalog = Catalog::load(locations);
    let entry = catalog.require(server)?;
    if !matches!(
        entry.scope,
        crate::Scope::Local | crate::Scope::Project | crate::Scope::User
    ) {
        return Err(ConfigError::Invalid(format!(
            "\"{server}\" is a {} server: only a local, project or user server can move into an agent",
            entry.scope
        )));
    }
    if entry.from_project()
        && !(entry.approval == Some(crate::config::approval::Approval::Approved)
            && entry.trusted_folder
            && !entry.changed_since_approval)
    {
        return Err(ConfigError::Invalid(format!(
            "\"{server}\" came with the project and is not approved here: in an agent it would run without approval. Approve it first"
        )));
    }
    let target = agent_file(locations, agent)?;
    if target.source == AgentSource::Project {
        refuse_written_secrets(server, &entry.raw, &target.file)?;
    }
    let before = read_agent_text(locations, &target.source, &target.file)?.unwrap_or_default();
    let after = add_inline(&before, server, &entry.raw).map_err(ConfigError::Invalid)?;
    let mut servers = servers_list(&before).map_err(ConfigError::Invalid)?;
    if servers
        .iter()
        .any(|i| i.as_object().is_some_and(|m| m.contains_key(server)))
    {
        return Err(ConfigError::Invalid(format!(
            "agent \"{agent}\" already has a server named \"{server}\""
        )));
    }
    servers.push(serde_json::json!({ server: entry.raw }));
    same_but_servers(&before, &after, &Value::Array(servers)).map_err(ConfigError::Invalid)?;
    let scope = entry.scope;
    write_agent(locations, &target, &after)?;
    if let Err(err) = crate::api::remove_server(locations, server, Some(scope)) {
        // Put the agent file back: the server stays where it was.
        let _ = write_agent(locations, &target, &before);
        return Err(err);
    }
    let (path, ..) = crate::config::draft::servers_location(locations, scope);
    Ok(Moved {
        name: entry_name(agent, server),
        files: vec![
            target.file.display().to_string(),
            path.display().to_string(),
        ],
    })
}

/// Refuses to copy an entry that holds a credential written out into `file`, a file shared
/// with the project: it names the fields to turn into `${VAR}`s first.
fn refuse_written_secrets(server: &str, entry: &Value, file: &Path) -> Result<(), ConfigError> {
    let fields = crate::config::draft::written_secrets(entry);
    if fields.is_empty() {
        return Ok(());
    }
    Err(ConfigError::Invalid(format!(
        "\"{server}\" holds what looks like a credential ({}), and {} is shared with the project: put it in a ${{VAR}} first",
        fields.join(", "),
        file.display()
    )))
}

/// Moves agent `agent`'s own server `server` out of its frontmatter into `scope`.
pub fn move_out(
    locations: &Locations,
    agent: &str,
    server: &str,
    scope: crate::Scope,
) -> Result<Moved, ConfigError> {
    let target = agent_file(locations, agent)?;
    if target.source == AgentSource::Project {
        let catalog = Catalog::load(locations);
        // The agent's own entry only: a configured server may carry the same name.
        let approved = catalog.named(&entry_name(agent, server)).any(|e| {
            e.scope == crate::Scope::Agent
                && e.approval == Some(crate::config::approval::Approval::Approved)
                && e.trusted_folder
                && !e.changed_since_approval
        });
        if !approved {
            return Err(ConfigError::Invalid(format!(
                "\"{server}\" came with the project's agent \"{agent}\" and is not approved here: moved into a scope it would run without approval. Approve agent:{agent}:{server} first"
            )));
        }
    }
    let before = read_agent_text(locations, &target.source, &target.file)?.unwrap_or_default();
    let mut servers = servers_list(&before).map_err(ConfigError::Invalid)?;
    let defines = |i: &Value| {
        i.as_object()
            .is_some_and(|m| m.len() == 1 && m.contains_key(server))
    };
    if servers.iter().filter(|i| defines(i)).count() > 1 {
        return Err(ConfigError::Invalid(format!(
            "agent \"{agent}\" defines \"{server}\" twice: give one another name first"
        )));
    }
    servers.retain(|i| !defines(i));
    let (after, entry) = remove_inline(&before, server).map_err(ConfigError::Invalid)?;
    same_but_servers(&before, &after, &Value::Array(servers)).map_err(ConfigError::Invalid)?;
    if scope == crate::Scope::Project {
        let (path, ..) = crate::config::draft::servers_location(locations, scope);
        refuse_written_secrets(server, &entry, &path)?;
    }
    let written = crate::api::insert_entry(locations, server, scope, entry)?;
    if let Err(err) = write_agent(locations, &target, &after) {
        let _ = crate::api::remove_server(locations, server, Some(scope));
        return Err(err);
    }
    Ok(Moved {
        name: server.to_string(),
        files: vec![written.path, target.file.display().to_string()],
    })
}
