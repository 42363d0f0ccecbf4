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
