//! Approval of project servers (those in `.mcp.json`), through Claude Code's settings files.
//!
//! A project file can come from anyone who commits to the repository, so Claude Code starts
//! none of its servers until the person approves them. The choice lives in
//! `enabledMcpjsonServers`, `disabledMcpjsonServers` and `enableAllProjectMcpServers` of the
//! settings files, read from `~/.claude/settings.json`, `.claude/settings.json` and
//! `.claude/settings.local.json`; a name in any `disabledMcpjsonServers` is rejected whatever
//! else says (rejection wins); names are compared after [`normalize`]. Choices made here are
//! written to `.claude/settings.local.json`, which is the person's own and not committed.

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
    /// Settings files that could not be read; their lists count as empty.
    pub problems: Vec<ConfigError>,
}

impl ApprovalSettings {
    /// Reads the three settings files. Missing files are empty; broken ones are problems.
    pub fn load(locations: &Locations) -> Self {
        let mut settings = ApprovalSettings::default();
        for path in [
            locations.user_settings(),
            locations.project_settings(),
            locations.project_local_settings(),
        ] {
            match document::read(&path) {
                Ok(Some(doc)) => settings.absorb(&path, &doc.value),
                Ok(None) => {}
                Err(err) => settings.problems.push(err),
            }
        }
        settings
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
