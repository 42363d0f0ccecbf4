//! Approval of project servers (those in `.mcp.json`), through Claude Code's settings files.
//!
//! A project file can come from anyone who commits to the repository, so Claude Code starts
//! none of its servers until the person approves them. The choice lives in
//! `enabledMcpjsonServers`, `disabledMcpjsonServers` and `enableAllProjectMcpServers` of the
//! settings files, read from `~/.claude/settings.json`, `.claude/settings.json` and
//! `.claude/settings.local.json` (and from the project's entry in `~/.claude.json`, where
//! older Claude Code kept them and 2.1.332 still reads them); a name in any `disabledMcpjsonServers` is rejected whatever
//! else says (rejection wins); names are compared after [`normalize`]. Choices made here are
//! written to `.claude/settings.local.json`, which is the person's own and not committed.
//!
//! The project's two settings files sit in the repository as much as `.mcp.json` does (a
//! hostile repository commits `{"enableAllProjectMcpServers": true}` beside a server that runs
//! `sh -c '…'`), so their approvals count only in a trusted folder ([`super::trust`]), as in
//! Claude Code; their rejections always count. The person's own approvals count anywhere, but
//! an approved server of a folder not trusted still does not start
//! ([`super::catalog::Standing::AwaitingTrust`]).
//!
//! Approval is by name, so the content hash of each approved entry is kept in the app's data
//! folder: when it was approved here, or, for one approved elsewhere (by Claude Code), the
//! first time it starts here ([`record_first_starts`]). An entry whose hash differs is
//! "changed since approval" and does not start until it is approved again.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::document::{self, NewFileMode};
use super::names::normalize;
use crate::error::ConfigError;
use crate::locations::Locations;

/// Whether a project server may start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum Approval {
    /// Approved by name or by `enableAllProjectMcpServers`: it may start.
    Approved,
    /// In a `disabledMcpjsonServers` list: it never starts. Show an Approve button.
    Rejected,
    /// Nobody has decided: it does not start. Show Approve and Reject buttons.
    Pending,
}

/// The approval lists of every settings file, merged.
#[derive(Debug, Default)]
pub struct ApprovalSettings {
    enabled: Vec<(String, PathBuf)>,
    disabled: Vec<(String, PathBuf)>,
    enable_all: bool,
    /// Approvals of the project's settings files set aside because the folder is not trusted:
    /// by name, and `enableAllProjectMcpServers` (as the name `*`).
    waiting_for_trust: Vec<(String, PathBuf)>,
    /// Whether the folder is trusted.
    pub trusted: bool,
    /// Settings files that could not be read; their lists count as empty.
    pub problems: Vec<ConfigError>,
}

impl ApprovalSettings {
    /// Reads the three settings files. Missing files are empty; broken ones are problems.
    pub fn load(locations: &Locations) -> Self {
        let mut settings = ApprovalSettings {
            trusted: super::trust::is_trusted(locations),
            ..ApprovalSettings::default()
        };
        let files = std::iter::once((locations.user_settings(), false)).chain(
            locations
                .project_settings_files()
                .into_iter()
                .map(|path| (path, true)),
        );
        for (path, from_project) in files {
            match document::read(&path) {
                Ok(Some(doc)) if from_project && !settings.trusted => {
                    settings.absorb_untrusted(&path, &doc.value)
                }
                Ok(Some(doc)) => settings.absorb(&path, &doc.value),
                Ok(None) => {}
                Err(err) => settings.problems.push(err),
            }
        }
        // Older Claude Code kept the same three keys under the project's entry in
        // `~/.claude.json`; 2.1.332 still honours them (it moves them into
        // `.claude/settings.local.json` the next time it runs), so they count as that file does.
        let claude_json = locations.claude_json();
        if let Ok(Some(doc)) = document::read(&claude_json) {
            if let Some(project) = doc
                .value
                .get("projects")
                .and_then(|p| p.get(locations.project_key()))
            {
                if settings.trusted {
                    settings.absorb(&claude_json, project);
                } else {
                    settings.absorb_untrusted(&claude_json, project);
                }
            }
        }
        settings
    }

    /// A project settings file of a folder not trusted: its rejections count, its approvals
    /// wait.
    fn absorb_untrusted(&mut self, path: &Path, value: &Value) {
        let mut only_rejections = ApprovalSettings::default();
        only_rejections.absorb(path, value);
        self.disabled.extend(only_rejections.disabled);
        self.waiting_for_trust.extend(only_rejections.enabled);
        if only_rejections.enable_all {
            self.waiting_for_trust
                .push(("*".to_string(), path.to_path_buf()));
        }
    }

    /// The project settings file whose approval of this server waits for the folder to be
    /// trusted, when the server is not approved otherwise.
    pub fn waiting_for_trust(&self, name: &str) -> Option<&Path> {
        if self.status(name) != Approval::Pending {
            return None;
        }
        let name = normalize(name);
        self.waiting_for_trust
            .iter()
            .find(|(n, _)| *n == name || n == "*")
            .map(|(_, p)| p.as_path())
    }

    fn absorb(&mut self, path: &Path, value: &Value) {
        let names = |key: &str| -> Vec<(String, PathBuf)> {
            value
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|name| (normalize(name), path.to_path_buf()))
                .collect()
        };
        self.enabled.extend(names("enabledMcpjsonServers"));
        self.disabled.extend(names("disabledMcpjsonServers"));
        self.enable_all |= value.get("enableAllProjectMcpServers") == Some(&Value::Bool(true));
    }

    /// The approval of a project server.
    pub fn status(&self, name: &str) -> Approval {
        let name = normalize(name);
        if self.disabled.iter().any(|(n, _)| *n == name) {
            Approval::Rejected
        } else if self.enable_all || self.enabled.iter().any(|(n, _)| *n == name) {
            Approval::Approved
        } else {
            Approval::Pending
        }
    }

    /// The files whose `disabledMcpjsonServers` name this server.
    pub fn rejected_in(&self, name: &str) -> Vec<PathBuf> {
        let name = normalize(name);
        self.disabled
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, p)| p.clone())
            .collect()
    }
}

/// Records a person's choice in `.claude/settings.local.json`: the name goes into one list and
/// out of the other. Other keys and files are untouched.
pub fn record_choice(locations: &Locations, name: &str, approve: bool) -> Result<(), ConfigError> {
    let path = locations.project_local_settings();
    locations.confine(&path)?;
    let (add_to, remove_from) = if approve {
        ("enabledMcpjsonServers", "disabledMcpjsonServers")
    } else {
        ("disabledMcpjsonServers", "enabledMcpjsonServers")
    };
    document::update(&path, NewFileMode::Shared, |value| {
        let settings = document::object_at(&path, value, &[])?;
        let wanted = normalize(name);
        if let Some(Value::Array(list)) = settings.get_mut(remove_from) {
            list.retain(|v| v.as_str().map(normalize).as_deref() != Some(wanted.as_str()));
        }
        let list = settings
            .entry(add_to)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            return Err(ConfigError::Shape {
                path: path.clone(),
                message: format!("`{add_to}` must be a list"),
            });
        };
        if !list
            .iter()
            .any(|v| v.as_str().map(normalize).as_deref() == Some(wanted.as_str()))
        {
            list.push(Value::String(name.to_string()));
        }
        Ok(())
    })
}

/// What the person approved here: for each project (by its key) the content hash of each
/// server's entry when they approved it, kept in the app's data folder (`approvals.json`),
/// never in Claude Code's files. Approval is by name, as in Claude Code; this is how the
/// window notices that an approved server's command, URL or environment changed since, and
/// asks again before starting it.
pub fn approvals_file(locations: &Locations) -> PathBuf {
    locations.app_data_dir().join("approvals.json")
}

/// What the person approved of subagents' own servers here: for each project the content hash
/// of each `agent:<agent>:<server>` entry, by its exact name. A file of its own, so that no
/// configured server (whose name may be anything, `agent:x:y` too) can lend its approval to a
/// subagent's server, or borrow one.
pub fn agent_approvals_file(locations: &Locations) -> PathBuf {
    locations.app_data_dir().join("agent-approvals.json")
}

/// Records (or, with `None`, forgets) the hash of the subagent's server the person approved.
pub fn record_agent_approval(
    locations: &Locations,
    name: &str,
    hash: Option<&str>,
) -> Result<(), ConfigError> {
    keep_hash(
        &agent_approvals_file(locations),
        locations,
        name.to_string(),
        hash,
    )
}

/// Records (or, with `None`, forgets) the hash of the entry the person approved.
pub fn record_approved_hash(
    locations: &Locations,
    name: &str,
    hash: Option<&str>,
) -> Result<(), ConfigError> {
    keep_hash(&approvals_file(locations), locations, normalize(name), hash)
}

fn keep_hash(
    path: &Path,
    locations: &Locations,
    key: String,
    hash: Option<&str>,
) -> Result<(), ConfigError> {
    let project_key = locations.project_key();
    let _ = crate::private::dir(&locations.app_data_dir());
    document::update(path, NewFileMode::Private, |value| {
        let project = document::object_at(path, value, &[&project_key])?;
        match hash {
            Some(hash) => {
                project.insert(key.clone(), Value::String(hash.to_string()));
            }
            None => {
                project.shift_remove(&key);
            }
        }
        Ok(())
    })
}

/// Records the hash of each started entry (name, content hash) that has none kept here yet:
/// a project server approved elsewhere (by Claude Code, in `~/.claude.json` or a settings
/// file's `enabledMcpjsonServers`, or by `enableAllProjectMcpServers`) is remembered as it
/// was the first time it started, so that a later change of its entry (a new commit that
/// swaps its command) stops it and asks again, as for one approved here. A hash already kept
/// is never replaced: only an approval replaces it ([`record_approved_hash`]). Nothing is
/// written when every hash is kept already.
pub fn record_first_starts<'a>(
    locations: &Locations,
    started: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<(), ConfigError> {
    let path = approvals_file(locations);
    let key = locations.project_key();
    let kept = document::read(&path)
        .ok()
        .flatten()
        .and_then(|doc| doc.value.get(&key).cloned());
    let missing: Vec<(String, String)> = started
        .into_iter()
        .map(|(name, hash)| (normalize(name), hash.to_string()))
        .filter(|(name, _)| kept.as_ref().and_then(|p| p.get(name)).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let _ = crate::private::dir(&locations.app_data_dir());
    document::update(&path, NewFileMode::Private, |value| {
        let project = document::object_at(&path, value, &[&key])?;
        for (name, hash) in &missing {
            if !project.contains_key(name) {
                project.insert(name.clone(), Value::String(hash.clone()));
            }
        }
        Ok(())
    })
}

/// The keys a person's project choices live under.
const CHOICE_KEYS: [&str; 3] = [
    "enabledMcpjsonServers",
    "disabledMcpjsonServers",
    "enableAllProjectMcpServers",
];

/// Approves every server of this project's `.mcp.json`, now and later: Claude Code's "Use this
/// and all future MCP servers in this project", `enableAllProjectMcpServers: true` in
/// `.claude/settings.local.json`.
pub fn approve_all(locations: &Locations) -> Result<(), ConfigError> {
    let path = locations.project_local_settings();
    locations.confine(&path)?;
    document::update(&path, NewFileMode::Shared, |value| {
        let settings = document::object_at(&path, value, &[])?;
        settings.insert("enableAllProjectMcpServers".into(), Value::Bool(true));
        Ok(())
    })
}

/// What `claude mcp reset-project-choices` does, checked against Claude Code 2.1.332: the
/// approvals and rejections stored for this project (`enabledMcpjsonServers`,
/// `disabledMcpjsonServers`, `enableAllProjectMcpServers`) are removed from
/// `.claude/settings.local.json` and from `projects["<root>"]` in `~/.claude.json`; every
/// other key stays, and the shared `.claude/settings.json` and the person's own settings are
/// not touched (what they approve or reject still counts). Files that hold none of those keys
/// are not written.
pub fn reset_choices(locations: &Locations) -> Result<(), ConfigError> {
    let local = locations.project_local_settings();
    if let Ok(Some(doc)) = document::read(&local) {
        if CHOICE_KEYS.iter().any(|k| doc.value.get(k).is_some()) {
            locations.confine(&local)?;
            // As Claude Code 2.1.332 rewrites it: two spaces and a final newline.
            let claude_codes = document::Layout {
                indent: "  ".into(),
                final_newline: true,
            };
            document::update_in(&local, NewFileMode::Shared, Some(claude_codes), |value| {
                if let Some(settings) = value.as_object_mut() {
                    for key in CHOICE_KEYS {
                        settings.shift_remove(key);
                    }
                }
                Ok(())
            })?;
        }
    }
    let claude_json = locations.claude_json();
    let key = locations.project_key();
    if let Ok(Some(doc)) = document::read(&claude_json) {
        let project = doc.value.get("projects").and_then(|p| p.get(&key));
        if project.is_some_and(|p| CHOICE_KEYS.iter().any(|k| p.get(k).is_some())) {
            document::update(&claude_json, NewFileMode::Private, |value| {
                if let Some(project) = value
                    .get_mut("projects")
                    .and_then(|p| p.get_mut(&key))
                    .and_then(Value::as_object_mut)
                {
                    for key in CHOICE_KEYS {
                        project.shift_remove(key);
                    }
                }
                Ok(())
            })?;
        }
    }
    Ok(())
}
