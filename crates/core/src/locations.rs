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
    /// Where an administrator puts `managed-mcp.json` (per OS, as Claude Code; tests point it
    /// elsewhere).
    pub managed_dir: PathBuf,
}

/// The app's identifier (`tauri.conf.json`), which names its data folder.
pub const APP_IDENTIFIER: &str = "dev.mcp-manager.app";

impl Locations {
    /// The folder where the app keeps its own data (the history of calls, the last project):
    /// `$XDG_DATA_HOME/dev.mcp-manager.app`, else `~/.local/share/dev.mcp-manager.app` on Linux
    /// (the folder Tauri's `app_data_dir` names), so that `mcpctl` and the window share it.
    pub fn app_data_dir(&self) -> PathBuf {
        let base = if cfg!(target_os = "macos") {
            self.home.join("Library/Application Support")
        } else if cfg!(windows) {
            std::env::var_os("APPDATA")
                .map(PathBuf::from)
                .unwrap_or_else(|| self.home.join("AppData/Roaming"))
        } else {
            std::env::var_os("XDG_DATA_HOME")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .filter(|d| d.is_absolute())
                .unwrap_or_else(|| self.home.join(".local/share"))
        };
        base.join(APP_IDENTIFIER)
    }
}

/// Claude Code's managed-settings folder on this OS.
pub fn default_managed_dir() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode")
    } else if cfg!(windows) {
        let program_files = PathBuf::from(r"C:\Program Files\ClaudeCode");
        if program_files.exists() {
            program_files
        } else {
            PathBuf::from(r"C:\ProgramData\ClaudeCode")
        }
    } else {
        PathBuf::from("/etc/claude-code")
    }
}

impl Locations {
    /// Reads `HOME`, `CLAUDE_CONFIG_DIR` and `MCP_MANAGER_MANAGED_DIR` from the environment;
    /// `project` defaults to the current folder.
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
        let mut locations = Self::new(home, claude_config_dir, &project)?;
        // Lets tests (and administrators trying a policy) point at another managed folder.
        if let Some(dir) = std::env::var_os("MCP_MANAGER_MANAGED_DIR").filter(|d| !d.is_empty()) {
            locations.managed_dir = PathBuf::from(dir);
        }
        Ok(locations)
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
            managed_dir: default_managed_dir(),
        })
    }

    /// `~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json` when that is set.
    pub fn claude_json(&self) -> PathBuf {
        self.claude_config_dir
            .as_deref()
            .unwrap_or(&self.home)
            .join(".claude.json")
    }

    /// The project root: the nearest folder at or above the project that holds `.git` (a
    /// folder, or a file for worktrees), else the project folder itself. Claude Code keys
    /// local-scope servers by it, and new project servers go to its `.mcp.json`.
    pub fn project_root(&self) -> PathBuf {
        self.project
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(&self.project)
            .to_path_buf()
    }

    /// The `.mcp.json` new project servers are written to: the project root's.
    pub fn project_mcp_json(&self) -> PathBuf {
        self.project_root().join(".mcp.json")
    }

    /// Every `.mcp.json` Claude Code reads for this project: from the filesystem root down to
    /// the project folder, so that a later (closer) file wins a name clash.
    pub fn project_mcp_jsons(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self
            .project
            .ancestors()
            .map(|dir| dir.join(".mcp.json"))
            .collect();
        files.reverse();
        files
    }

    /// The key of this project under `projects` in `~/.claude.json`.
    pub fn project_key(&self) -> String {
        self.project_root().to_string_lossy().into_owned()
    }

    /// Claude Code's own folder: `~/.claude`, or `$CLAUDE_CONFIG_DIR` when that is set.
    pub fn claude_dir(&self) -> PathBuf {
        match &self.claude_config_dir {
            Some(dir) => dir.clone(),
            None => self.home.join(".claude"),
        }
    }

    /// The person's Claude Code settings: `~/.claude/settings.json`, or
    /// `$CLAUDE_CONFIG_DIR/settings.json`.
    pub fn user_settings(&self) -> PathBuf {
        match &self.claude_config_dir {
            Some(dir) => dir.join("settings.json"),
            None => self.home.join(".claude").join("settings.json"),
        }
    }

    /// The project's shared settings, `.claude/settings.json`.
    pub fn project_settings(&self) -> PathBuf {
        self.project_root().join(".claude").join("settings.json")
    }

    /// The person's own settings for this project, `.claude/settings.local.json`.
    pub fn project_local_settings(&self) -> PathBuf {
        self.project_root()
            .join(".claude")
            .join("settings.local.json")
    }

    /// `managed-mcp.json` in the administrator's folder.
    pub fn managed_mcp_json(&self) -> PathBuf {
        self.managed_dir.join("managed-mcp.json")
    }
}
