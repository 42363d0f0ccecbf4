//! Claude Code's permission rules for MCP tools: `mcp__server__tool` (one tool) or
//! `mcp__server` (every tool of the server) in `permissions.allow`, `permissions.ask` or
//! `permissions.deny` of a settings file.
//!
//! Why here: what a person decides while trying a tool ("always allow this one", "never that")
//! must reach Claude Code, which reads these lists from `~/.claude/settings.json`,
//! `.claude/settings.json` (shared with the project) and `.claude/settings.local.json` (the
//! person's own). A rule is written to the file chosen, through the same locked, lossless
//! update as every other write (only the list changes, formatting and other keys stay), and
//! removed from that file's other two lists so one file never says two things. The rule in
//! force is read from all three: `deny` wins over `ask`, which wins over `allow`, whichever
//! file says it, as in Claude Code; a rule for the tool and one for its whole server count
//! alike.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::document::{self, NewFileMode};
use super::names::{normalize, qualified_tool_name};
use crate::error::ConfigError;
use crate::locations::Locations;

/// What Claude Code does when a model wants the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum Rule {
    Allow,
    Ask,
    Deny,
}

impl Rule {
    fn key(self) -> &'static str {
        match self {
            Rule::Allow => "allow",
            Rule::Ask => "ask",
            Rule::Deny => "deny",
        }
    }

    const ALL: [Rule; 3] = [Rule::Deny, Rule::Ask, Rule::Allow];
}

/// Which settings file a rule is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum SettingsFile {
    /// `.claude/settings.local.json`: the person's own, not committed.
    Local,
    /// `.claude/settings.json`: shared with everyone who has the project.
    Project,
    /// `~/.claude/settings.json`: every project of the person.
    User,
}

impl SettingsFile {
    pub fn path(self, locations: &Locations) -> PathBuf {
        match self {
            SettingsFile::Local => locations.project_local_settings(),
            SettingsFile::Project => locations.project_settings(),
            SettingsFile::User => locations.user_settings(),
        }
    }

    /// How a new file is made: the person's own settings `0600`, project files shared.
    fn mode(self) -> NewFileMode {
        match self {
            SettingsFile::User => NewFileMode::Private,
            _ => NewFileMode::Shared,
        }
    }

    const ALL: [SettingsFile; 3] = [
        SettingsFile::Local,
        SettingsFile::Project,
        SettingsFile::User,
    ];
}

/// The rule that decides for a tool, and where it is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RuleInForce {
    /// `mcp__server__tool` (or `mcp__server` for the whole server).
    pub name: String,
    /// None: no rule, Claude Code asks.
    pub rule: Option<Rule>,
    /// The entry that decides (`mcp__server__tool` or `mcp__server`).
    pub entry: Option<String>,
    pub file: Option<SettingsFile>,
    pub path: Option<String>,
}

/// The permission entry for `tool` of `server`, or for the whole server.
pub fn entry(server: &str, tool: Option<&str>) -> String {
    match tool {
        Some(tool) => qualified_tool_name(server, tool),
        None => format!("mcp__{}", normalize(server)),
    }
}

/// Writes `rule` for `tool` of `server` (every tool when `None`) into `file`, removing the
/// entry from that file's other lists; with `rule` `None`, only removes it there. Returns the
/// file written.
pub fn set_rule(
    locations: &Locations,
    server: &str,
    tool: Option<&str>,
    rule: Option<Rule>,
    file: SettingsFile,
) -> Result<PathBuf, ConfigError> {
    let path = file.path(locations);
    let wanted = entry(server, tool);
    let mode = file.mode();
    locations.confine(&path)?;
    document::update(&path, mode, |value| {
        let permissions = document::object_at(&path, value, &["permissions"])?;
        for other in Rule::ALL {
            if let Some(Value::Array(list)) = permissions.get_mut(other.key()) {
                list.retain(|v| v.as_str() != Some(wanted.as_str()));
            }
        }
        if let Some(rule) = rule {
            let list = permissions
                .entry(rule.key())
                .or_insert_with(|| Value::Array(Vec::new()));
            let Value::Array(list) = list else {
                return Err(ConfigError::Shape {
                    path: path.clone(),
                    message: format!("`permissions.{}` must be a list", rule.key()),
                });
            };
            list.push(Value::String(wanted.clone()));
        }
        Ok(())
    })?;
    Ok(path)
}

/// Adds `entry` to `permissions.<rule>` of `file` when it is not in that list already; only
/// that list changes (an `allow` of the same entry stays, and Claude Code's `deny` wins over
/// it). Whether it was added: an entry the person wrote themselves is theirs, not ours.
pub fn add_entry(
    locations: &Locations,
    file: SettingsFile,
    rule: Rule,
    entry: &str,
) -> Result<bool, ConfigError> {
    let path = file.path(locations);
    let mode = file.mode();
    locations.confine(&path)?;
    document::update(&path, mode, |value| {
        let permissions = document::object_at(&path, value, &["permissions"])?;
        let list = permissions
            .entry(rule.key())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            return Err(ConfigError::Shape {
                path: path.clone(),
                message: format!("`permissions.{}` must be a list", rule.key()),
            });
        };
        if list.iter().any(|v| v.as_str() == Some(entry)) {
            return Ok(false);
        }
        list.push(Value::String(entry.to_string()));
        Ok(true)
    })
}

/// Removes `entry` from `permissions.<rule>` of `file`, and nothing else. Whether it was there.
pub fn remove_entry(
    locations: &Locations,
    file: SettingsFile,
    rule: Rule,
    entry: &str,
) -> Result<bool, ConfigError> {
    let path = file.path(locations);
    if !path.exists() {
        return Ok(false);
    }
    locations.confine(&path)?;
    let mode = file.mode();
    document::update(&path, mode, |value| {
        let Some(Value::Array(list)) = value
            .get_mut("permissions")
            .and_then(|p| p.get_mut(rule.key()))
        else {
            return Ok(false);
        };
        let before = list.len();
        list.retain(|v| v.as_str() != Some(entry));
        Ok(list.len() != before)
    })
}

/// The rule Claude Code applies to `tool` of `server` (to the server when `None`), read from
/// every settings file. Broken files count as empty (their problem is reported elsewhere).
pub fn rule_in_force(locations: &Locations, server: &str, tool: Option<&str>) -> RuleInForce {
    let name = entry(server, tool);
    let mut candidates = vec![name.clone()];
    if tool.is_some() {
        candidates.push(entry(server, None));
    }
    let files: Vec<(SettingsFile, PathBuf, Value)> = SettingsFile::ALL
        .iter()
        .filter_map(|&file| {
            let path = file.path(locations);
            document::read(&path)
                .ok()
                .flatten()
                .map(|doc| (file, path, doc.value))
        })
        .collect();
    for rule in Rule::ALL {
        for (file, path, value) in &files {
            let listed = value
                .pointer(&format!("/permissions/{}", rule.key()))
                .and_then(Value::as_array);
            if let Some(found) = listed
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .find(|e| candidates.iter().any(|c| c == e))
            {
                return RuleInForce {
                    name,
                    rule: Some(rule),
                    entry: Some(found.to_string()),
                    file: Some(*file),
                    path: Some(path.display().to_string()),
                };
            }
        }
    }
    RuleInForce {
        name,
        rule: None,
        entry: None,
        file: None,
        path: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> (tempfile::TempDir, Locations) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        std::fs::create_dir_all(root.join("project/.git")).unwrap();
        let locations = Locations::new(root.join("home"), None, &root.join("project")).unwrap();
        (dir, locations)
    }

    #[test]
    fn a_rule_is_written_as_claude_code_reads_it_and_moves_between_lists() {
        let (_dir, locations) = world();
        let path = locations.project_local_settings();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\"]\n  }\n}\n").unwrap();
        set_rule(
            &locations,
            "my server",
            Some("get-sum"),
            Some(Rule::Allow),
            SettingsFile::Local,
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            // JSON.stringify(settings, null, 2), as Claude Code writes; the file's final newline kept.
            "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls:*)\",\n      \"mcp__my_server__get-sum\"\n    ]\n  }\n}\n"
        );
        set_rule(
            &locations,
            "my server",
            Some("get-sum"),
            Some(Rule::Deny),
            SettingsFile::Local,
        )
        .unwrap();
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            value["permissions"]["allow"],
            serde_json::json!(["Bash(ls:*)"])
        );
        assert_eq!(
            value["permissions"]["deny"],
            serde_json::json!(["mcp__my_server__get-sum"])
        );
        let force = rule_in_force(&locations, "my server", Some("get-sum"));
        assert_eq!(
            (force.rule, force.file),
            (Some(Rule::Deny), Some(SettingsFile::Local))
        );
        set_rule(
            &locations,
            "my server",
            Some("get-sum"),
            None,
            SettingsFile::Local,
        )
        .unwrap();
        assert_eq!(
            rule_in_force(&locations, "my server", Some("get-sum")).rule,
            None
        );
    }

    #[test]
    fn deny_anywhere_wins_and_a_server_rule_covers_its_tools() {
        let (_dir, locations) = world();
        set_rule(
            &locations,
            "gh",
            None,
            Some(Rule::Allow),
            SettingsFile::User,
        )
        .unwrap();
        let force = rule_in_force(&locations, "gh", Some("create_issue"));
        assert_eq!(force.rule, Some(Rule::Allow));
        assert_eq!(force.entry.as_deref(), Some("mcp__gh"));
        assert_eq!(force.file, Some(SettingsFile::User));
        set_rule(
            &locations,
            "gh",
            Some("create_issue"),
            Some(Rule::Deny),
            SettingsFile::Project,
        )
        .unwrap();
        let force = rule_in_force(&locations, "gh", Some("create_issue"));
        assert_eq!(
            (force.rule, force.file),
            (Some(Rule::Deny), Some(SettingsFile::Project))
        );
        assert_eq!(
            rule_in_force(&locations, "gh", Some("list_issues")).rule,
            Some(Rule::Allow)
        );
    }
}
