//! Workspace trust, as Claude Code keeps it.
//!
//! A project folder is anyone's: whoever commits to the repository writes its `.mcp.json` and
//! its `.claude/settings*.json`. So until the person trusts the folder, nothing those files say
//! can start a process: approvals (`enabledMcpjsonServers`, `enableAllProjectMcpServers`) from
//! the project's settings files do not count, no server that came with the folder starts
//! (not even one the person's own settings approve, since those approve the servers of every
//! repository they open: [`super::catalog`]), and a project `headersHelper` does not run.
//! A rejection from any file always wins.
//!
//! Claude Code 2.1.332 keeps the decision in `~/.claude.json` as
//! `projects["<project key>"].hasTrustDialogAccepted: true`, the key being the project root
//! (the nearest folder with `.git`, else the folder). Checked against it: trusting a folder
//! above the root, or a subfolder of it, does not count. Trusting here writes the same key, so
//! a folder trusted in one program is trusted in the other.

use std::path::Path;

use serde::Serialize;
use serde_json::{json, Value};

use super::document::{self, NewFileMode};
use crate::error::ConfigError;
use crate::locations::Locations;

/// Whether the person has trusted this project folder (in Claude Code or here).
pub fn is_trusted(locations: &Locations) -> bool {
    let Ok(Some(doc)) = document::read(&locations.claude_json()) else {
        return false;
    };
    trusted_in(&doc.value, &locations.project_key())
}

fn trusted_in(claude_json: &Value, key: &str) -> bool {
    claude_json
        .get("projects")
        .and_then(|p| p.get(key))
        .and_then(|p| p.get("hasTrustDialogAccepted"))
        == Some(&Value::Bool(true))
}

/// The fields Claude Code gives a project it has not seen before when it records trust; a
/// project it has seen keeps its fields and gains the flag.
fn new_project_entry() -> Value {
    json!({
        "allowedTools": [],
        "mcpContextUris": [],
        "mcpServers": {},
        "enabledMcpjsonServers": [],
        "disabledMcpjsonServers": [],
        "hasTrustDialogAccepted": true,
        "hasClaudeMdExternalIncludesApproved": false,
        "hasClaudeMdExternalIncludesWarningShown": false
    })
}

/// Records that the person trusts this folder, where Claude Code records it. Idempotent.
pub fn trust(locations: &Locations) -> Result<(), ConfigError> {
    let path = locations.claude_json();
    let key = locations.project_key();
    document::update(&path, NewFileMode::Private, |value| {
        let projects = document::object_at(&path, value, &["projects"])?;
        match projects.get_mut(&key) {
            Some(Value::Object(project)) => {
                project.insert("hasTrustDialogAccepted".into(), Value::Bool(true));
            }
            Some(_) => {
                return Err(ConfigError::Shape {
                    path: path.clone(),
                    message: format!("projects[{}] must be a JSON object", Value::String(key)),
                })
            }
            None => {
                projects.insert(key.clone(), new_project_entry());
            }
        }
        Ok(())
    })
}

/// What the trust question shows: where the decision goes, and everything in the folder that
/// trusting it lets run or count. The question is asked whenever any of it exists
/// ([`FolderTrust::asks`]), not only when `.mcp.json` has servers: a repository can hold
/// settings that turn on a plugin the person left off, give a plugin options, or bring a
/// skills plugin of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FolderTrust {
    /// The folder the decision is for (the project root).
    pub folder: String,
    pub trusted: bool,
    /// The file the decision is written to (`~/.claude.json`).
    pub file: String,
    /// What is written there, exactly: `projects["<folder>"].hasTrustDialogAccepted: true`.
    pub writes: String,
    /// Not trusted, and it holds something trusting it would let run or count: ask.
    pub asks: bool,
    /// The servers of its `.mcp.json` files, which can start once it is trusted (and
    /// approved).
    pub servers: Vec<FolderServer>,
    /// The project's own settings files that exist (the root's `.claude/settings*.json`, and
    /// the opened subfolder's): they count once it is trusted.
    pub settings_files: Vec<String>,
    /// Approvals in those files that count only once it is trusted; empty when they approve
    /// nothing.
    pub approvals_waiting: Vec<WaitingApproval>,
    /// Plugins those files turn on (`enabledPlugins`).
    pub plugins_turned_on: Vec<PluginTurnedOn>,
    /// Plugins those files give options to (`pluginConfigs`): they reach the plugin's command
    /// line, URL or headers.
    pub plugins_configured: Vec<PluginConfigured>,
    /// The project's own skills plugins (`.claude/skills/*/.claude-plugin/plugin.json`).
    pub skills_plugins: Vec<SkillsPlugin>,
}

/// A server of the folder's `.mcp.json`, as the trust question names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FolderServer {
    pub name: String,
    /// The command line or the URL.
    pub target: String,
    pub file: String,
}

/// Approvals in one of the project's settings files that wait for trust.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct WaitingApproval {
    pub file: String,
    /// The servers it approves by name.
    pub servers: Vec<String>,
    /// It says `enableAllProjectMcpServers: true`: every server of `.mcp.json`, now and later.
    pub all: bool,
}

/// A plugin a project settings file turns on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PluginTurnedOn {
    /// `NAME@MARKETPLACE`.
    pub id: String,
    pub file: String,
    /// The person's own settings turn it off: the project's file would win.
    pub off_in_your_settings: bool,
}

/// Options a project settings file gives a plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfigured {
    pub id: String,
    pub file: String,
    /// The options' names (their values are not shown: they may be anything).
    pub options: Vec<String>,
}

/// A skills plugin the project brings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SkillsPlugin {
    pub name: String,
    pub folder: String,
    /// Its servers, by full name.
    pub servers: Vec<String>,
}

/// Where this folder stands and what trusting it would let run or count.
pub fn folder_trust(locations: &Locations) -> FolderTrust {
    let key = locations.project_key();
    let trusted = is_trusted(locations);
    let settings: Vec<(String, Value)> = locations
        .project_settings_files()
        .iter()
        .filter_map(|path| {
            Some((
                path.display().to_string(),
                document::read(path).ok()??.value,
            ))
        })
        .collect();
    let yours = document::read(&locations.user_settings())
        .ok()
        .flatten()
        .map(|d| d.value);
    let off_in_yours = |id: &str| {
        yours
            .as_ref()
            .and_then(|v| v.get("enabledPlugins")?.get(id))
            == Some(&Value::Bool(false))
    };
    let entries = |value: &Value, key: &str| -> Vec<(String, Value)> {
        value
            .get(key)
            .and_then(Value::as_object)
            .map(|map| map.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    };
    let mut trust = FolderTrust {
        trusted,
        file: locations.claude_json().display().to_string(),
        writes: format!(
            "projects[{}].hasTrustDialogAccepted: true",
            Value::String(key.clone())
        ),
        folder: key,
        asks: false,
        servers: project_servers(locations),
        settings_files: settings.iter().map(|(file, _)| file.clone()).collect(),
        approvals_waiting: settings
            .iter()
            .filter_map(|(file, value)| waiting_in(file, value))
            .collect(),
        plugins_turned_on: settings
            .iter()
            .flat_map(|(file, value)| {
                entries(value, "enabledPlugins")
                    .into_iter()
                    .filter(|(_, on)| *on == Value::Bool(true))
                    .map(|(id, _)| PluginTurnedOn {
                        off_in_your_settings: off_in_yours(&id),
                        id,
                        file: file.clone(),
                    })
            })
            .collect(),
        plugins_configured: settings
            .iter()
            .flat_map(|(file, value)| {
                entries(value, "pluginConfigs")
                    .into_iter()
                    .map(|(id, config)| PluginConfigured {
                        options: entries(&config, "options")
                            .into_iter()
                            .map(|(name, _)| name)
                            .collect(),
                        id,
                        file: file.clone(),
                    })
            })
            .collect(),
        skills_plugins: skills_plugins(locations),
    };
    let brings_something = !trust.servers.is_empty()
        || !trust.settings_files.is_empty()
        || !trust.skills_plugins.is_empty();
    trust.asks = !trust.trusted && brings_something;
    trust
}

/// The servers of the project's `.mcp.json` files (those read: not the ones set aside).
fn project_servers(locations: &Locations) -> Vec<FolderServer> {
    let mut servers = Vec::new();
    for path in locations.project_mcp_jsons() {
        let Ok(Some(doc)) = document::read(&path) else {
            continue;
        };
        let Ok(Some(entries)) = super::entry::servers_object(&path, &doc.value, &["mcpServers"])
        else {
            continue;
        };
        for (name, raw) in entries {
            servers.push(FolderServer {
                name: name.clone(),
                target: super::entry::parse_entry(&path, name, raw)
                    .map(|config| config.target())
                    .unwrap_or_else(|_| raw.to_string()),
                file: path.display().to_string(),
            });
        }
    }
    servers
}

/// The project's skills plugins, with their servers.
fn skills_plugins(locations: &Locations) -> Vec<SkillsPlugin> {
    let folder = locations.project_root().join(".claude").join("skills");
    super::plugins::PluginSet::load(locations)
        .plugins
        .into_iter()
        .filter(|p| {
            p.from_skills
                && p.root
                    .as_deref()
                    .is_some_and(|root| Path::new(root).starts_with(&folder))
        })
        .map(|p| SkillsPlugin {
            name: p.name,
            folder: p.root.unwrap_or_default(),
            servers: p.servers,
        })
        .collect()
}

fn waiting_in(file: &str, value: &Value) -> Option<WaitingApproval> {
    let servers = document::strings(Some(value), "enabledMcpjsonServers");
    let all = value.get("enableAllProjectMcpServers") == Some(&Value::Bool(true));
    (all || !servers.is_empty()).then(|| WaitingApproval {
        file: file.to_string(),
        servers,
        all,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_true_under_the_exact_key_counts() {
        let cases = [
            (json!({}), false),
            (
                json!({"projects": {"/p": {"hasTrustDialogAccepted": true}}}),
                true,
            ),
            (
                json!({"projects": {"/p": {"hasTrustDialogAccepted": "true"}}}),
                false,
            ),
            (
                json!({"projects": {"/p": {"hasTrustDialogAccepted": false}}}),
                false,
            ),
            (
                json!({"projects": {"/": {"hasTrustDialogAccepted": true}}}),
                false,
            ),
            (
                json!({"projects": {"/p/sub": {"hasTrustDialogAccepted": true}}}),
                false,
            ),
        ];
        for (doc, want) in cases {
            assert_eq!(trusted_in(&doc, "/p"), want, "{doc}");
        }
    }
}
