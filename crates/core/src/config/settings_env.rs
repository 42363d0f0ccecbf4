//! The environment Claude Code runs its MCP servers' tools under: the `env` of its settings
//! files over the process's own.
//!
//! How Claude Code presents tools to the model depends on a few variables
//! (`ENABLE_TOOL_SEARCH`, `CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH`, `MAX_MCP_OUTPUT_TOKENS`),
//! and people set them in a settings file's `env` more often than in their shell. Claude Code
//! applies each settings file's `env` over the process environment, lowest first: the
//! person's `~/.claude/settings.json`, the project's `.claude/settings.json` and
//! `.claude/settings.local.json`, then managed settings, which win. A project's own files are
//! the repository's words, so they count only in a trusted folder, like everything else it
//! says ([`super::trust`]).
//!
//! Each value keeps where it came from, so the window can say "`ENABLE_TOOL_SEARCH=auto:5`
//! from `.claude/settings.json`" rather than a bare setting.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::document;
use crate::Locations;

/// Where a variable's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvOrigin {
    /// The environment this program was started with.
    Process,
    /// The `env` of a settings file.
    Settings(PathBuf),
}

/// Claude Code's view of a few environment variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaudeEnv {
    values: BTreeMap<String, (String, EnvOrigin)>,
}

impl ClaudeEnv {
    /// `names` as Claude Code would see them in this project: `process` first, then the
    /// settings files' `env` over it (the project's only when `trusted`). Files that cannot
    /// be read count as empty: their problems are reported where the settings are read for
    /// approvals.
    pub fn read(
        locations: &Locations,
        trusted: bool,
        names: &[&str],
        process: impl Fn(&str) -> Option<String>,
    ) -> ClaudeEnv {
        let mut env = ClaudeEnv::default();
        for name in names {
            if let Some(value) = process(name) {
                env.values
                    .insert((*name).to_string(), (value, EnvOrigin::Process));
            }
        }
        let mut files = vec![locations.user_settings()];
        if trusted {
            files.extend(locations.project_settings_files());
        }
        files.extend(super::policy::managed_settings_files(locations));
        for path in files {
            let Ok(Some(doc)) = document::read(&path) else {
                continue;
            };
            let Some(settings_env) = doc.value.get("env").and_then(Value::as_object) else {
                continue;
            };
            for name in names {
                let value = match settings_env.get(*name) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    Some(Value::Bool(b)) => b.to_string(),
                    _ => continue,
                };
                env.values.insert(
                    (*name).to_string(),
                    (value, EnvOrigin::Settings(path.clone())),
                );
            }
        }
        env
    }

    /// The value of `name`, if set anywhere.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(|(value, _)| value.as_str())
    }

    /// Where `name`'s value came from.
    pub fn origin(&self, name: &str) -> Option<&EnvOrigin> {
        self.values.get(name).map(|(_, origin)| origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> (tempfile::TempDir, Locations) {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        let locations = Locations {
            home,
            claude_config_dir: None,
            project,
            managed_dir: dir.path().join("managed"),
        };
        (dir, locations)
    }

    #[test]
    fn settings_files_override_the_process_and_the_project_counts_only_when_trusted() {
        let (_dir, locations) = world();
        std::fs::write(
            locations.user_settings(),
            r#"{"env":{"ENABLE_TOOL_SEARCH":"auto:5","MAX_MCP_OUTPUT_TOKENS":40000}}"#,
        )
        .unwrap();
        std::fs::write(
            locations.project_settings(),
            r#"{"env":{"ENABLE_TOOL_SEARCH":"false"}}"#,
        )
        .unwrap();
        let process = |name: &str| (name == "ENABLE_TOOL_SEARCH").then(|| "true".to_string());
        let names = ["ENABLE_TOOL_SEARCH", "MAX_MCP_OUTPUT_TOKENS"];

        let untrusted = ClaudeEnv::read(&locations, false, &names, process);
        assert_eq!(untrusted.get("ENABLE_TOOL_SEARCH"), Some("auto:5"));
        assert_eq!(untrusted.get("MAX_MCP_OUTPUT_TOKENS"), Some("40000"));
        assert_eq!(
            untrusted.origin("ENABLE_TOOL_SEARCH"),
            Some(&EnvOrigin::Settings(locations.user_settings()))
        );

        let trusted = ClaudeEnv::read(&locations, true, &names, process);
        assert_eq!(trusted.get("ENABLE_TOOL_SEARCH"), Some("false"));

        let bare = ClaudeEnv::read(
            &locations,
            false,
            &["CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH"],
            process,
        );
        assert_eq!(bare.get("CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH"), None);
    }
}
