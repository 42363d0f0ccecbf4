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

/// What the trust question shows: where the decision goes and what it changes.
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
    /// The project's own settings files whose approvals count only once it is trusted, with
    /// what each approves; empty when they approve nothing.
    pub approvals_waiting: Vec<WaitingApproval>,
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

/// Where this folder stands and what trusting it would change.
pub fn folder_trust(locations: &Locations) -> FolderTrust {
    let key = locations.project_key();
    let approvals_waiting = [
        locations.project_settings(),
        locations.project_local_settings(),
    ]
    .iter()
    .filter_map(|path| waiting_in(path))
    .collect();
    FolderTrust {
        trusted: is_trusted(locations),
        file: locations.claude_json().display().to_string(),
        writes: format!(
            "projects[{}].hasTrustDialogAccepted: true",
            Value::String(key.clone())
        ),
        folder: key,
        approvals_waiting,
    }
}

fn waiting_in(path: &Path) -> Option<WaitingApproval> {
    let doc = document::read(path).ok()??;
    let servers = document::strings(Some(&doc.value), "enabledMcpjsonServers");
    let all = doc.value.get("enableAllProjectMcpServers") == Some(&Value::Bool(true));
    (all || !servers.is_empty()).then(|| WaitingApproval {
        file: path.display().to_string(),
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
