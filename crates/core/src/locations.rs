//! Where Claude Code's configuration files are for one person and one project.
//!
//! Everything that reads or writes configuration takes a [`Locations`] instead of looking at
//! the process environment itself, so that tests (and the end-to-end test of the real app)
//! can point the whole program at a temporary home folder and a fixture project.

use std::path::{Path, PathBuf};

use crate::error::ConfigError;

/// The home folder, Claude Code's config folder and the open project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// The person's home folder (`$HOME`).
    pub home: PathBuf,
    /// `$CLAUDE_CONFIG_DIR` when set: the folder that holds `.claude.json` instead of `home`.
    pub claude_config_dir: Option<PathBuf>,
    /// The project folder, absolute and with symbolic links resolved, because Claude Code keys
    /// local-scope servers by the real path of the folder it was started in.
    pub project: PathBuf,
}

impl Locations {
    /// Reads `HOME` and `CLAUDE_CONFIG_DIR` from the environment; `project` defaults to the
    /// current folder.
    pub fn from_env(project: Option<&Path>) -> Result<Self, ConfigError> {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(std::env::home_dir)
            .ok_or(ConfigError::NoHome)?;
        let claude_config_dir = std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from);
        let project = match project {
            Some(p) => p.to_path_buf(),
            None => std::env::current_dir().map_err(|source| ConfigError::Project {
                path: PathBuf::from("."),
                source,
            })?,
        };
        Self::new(home, claude_config_dir, &project)
    }

    /// Builds locations from explicit folders; fails when the project folder does not exist.
    pub fn new(
        home: PathBuf,
        claude_config_dir: Option<PathBuf>,
        project: &Path,
    ) -> Result<Self, ConfigError> {
        let project = project
            .canonicalize()
            .map_err(|source| ConfigError::Project {
                path: project.to_path_buf(),
                source,
            })?;
        if !project.is_dir() {
            return Err(ConfigError::Project {
                path: project,
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder"),
            });
        }
        Ok(Self {
            home,
            claude_config_dir,
            project,
        })
    }

    /// `~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json` when that is set.
    pub fn claude_json(&self) -> PathBuf {
        self.claude_config_dir
            .as_deref()
            .unwrap_or(&self.home)
            .join(".claude.json")
    }

    /// The project's `.mcp.json`.
    pub fn project_mcp_json(&self) -> PathBuf {
        self.project.join(".mcp.json")
    }

    /// The key of this project under `projects` in `~/.claude.json`.
    pub fn project_key(&self) -> String {
        self.project.to_string_lossy().into_owned()
    }
}
