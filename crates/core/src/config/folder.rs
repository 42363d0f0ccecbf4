//! What trusting a folder would let run or count, shown before the person decides: its
//! `.mcp.json` servers, its settings files, the approvals they hold, the plugins they turn on
//! or configure, and the skills plugins it brings. Trust itself ([`super::trust`]) knows none
//! of this; this module reads the folder through it and through the plugins.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::document;
use super::trust::is_trusted;
use crate::locations::Locations;

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
