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
    ///
    /// A `.git` in a folder that is not the person's to vouch for ([`Locations::set_aside`]:
    /// above their home folder, or writable by others, like `/tmp`) is not used: anyone could
    /// have planted it to widen the project to that folder.
    pub fn project_root(&self) -> PathBuf {
        self.project
            .ancestors()
            .filter(|dir| *dir == self.project || self.set_aside(dir).is_none())
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(&self.project)
            .to_path_buf()
    }

    /// Why a folder above the project is not trusted to hold configuration for it, if it is
    /// not: it contains the person's home folder (`/home`, `/`), others may write to it
    /// (`/tmp`), people of a group may (a shared `2775` folder), or it belongs to another
    /// user (who could write to it whenever they like). A `.mcp.json` or `.git` there could
    /// have been put there by someone else, so it is never used without saying so (see
    /// [`crate::config::catalog`]).
    ///
    /// A folder writable by the person's own private group (the usual `0775` under a `002`
    /// umask: their primary group, holding no one else) stays theirs.
    pub fn set_aside(&self, dir: &Path) -> Option<&'static str> {
        if self.home.starts_with(dir) && self.home != dir {
            return Some("it is above your home folder");
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if let Ok(meta) = std::fs::metadata(dir) {
                let person = owner::Person::current();
                if meta.mode() & 0o002 != 0 {
                    return Some("others can write to that folder");
                }
                if meta.uid() != 0 && meta.uid() != person.uid {
                    return Some("it belongs to another user");
                }
                if meta.mode() & 0o020 != 0 && !person.group_is_private(meta.gid()) {
                    return Some("people in its group can write to that folder");
                }
            }
        }
        None
    }

    /// Refuses a write to a project file that is (or sits under) a symbolic link leading out
    /// of the project: a committed `.claude/settings.local.json` linking to
    /// `~/.claude/settings.json` must not turn an approval into a change of the person's own
    /// settings. Files outside the project (`~/.claude.json`, which dotfile managers link)
    /// are written through their links as before.
    pub fn confine(&self, path: &Path) -> Result<(), ConfigError> {
        let root = self.project_root();
        let Ok(relative) = path.strip_prefix(&root) else {
            return Ok(());
        };
        let real_root = root.canonicalize().unwrap_or_else(|_| root.clone());
        let mut walked = root.clone();
        for part in relative.components() {
            walked.push(part);
            let Ok(meta) = std::fs::symlink_metadata(&walked) else {
                break;
            };
            if meta.file_type().is_symlink() {
                let target = walked.canonicalize().unwrap_or_else(|_| {
                    std::fs::read_link(&walked).unwrap_or_else(|_| walked.clone())
                });
                if !target.starts_with(&real_root) {
                    return Err(ConfigError::LinkOutOfProject {
                        path: path.to_path_buf(),
                        target,
                    });
                }
            }
        }
        Ok(())
    }

    /// The `.mcp.json` new project servers are written to: the project root's.
    pub fn project_mcp_json(&self) -> PathBuf {
        self.project_root().join(".mcp.json")
    }

    /// Every `.mcp.json` Claude Code reads for this project: from the filesystem root down to
    /// the project folder, so that a later (closer) file wins a name clash.
    ///
    /// Files in folders [`Locations::set_aside`] are left out here; [`Locations::set_aside_mcp_jsons`]
    /// lists them, so that they are reported instead of silently used or silently ignored.
    pub fn project_mcp_jsons(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self
            .project
            .ancestors()
            .filter(|dir| *dir == self.project || self.set_aside(dir).is_none())
            .map(|dir| dir.join(".mcp.json"))
            .collect();
        files.reverse();
        files
    }

    /// The `.mcp.json` files above the project that exist but are not used, with why.
    pub fn set_aside_mcp_jsons(&self) -> Vec<(PathBuf, &'static str)> {
        self.project
            .ancestors()
            .filter(|dir| *dir != self.project)
            .filter_map(|dir| Some((dir.join(".mcp.json"), self.set_aside(dir)?)))
            .filter(|(file, _)| file.is_file())
            .collect()
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

    /// Every project settings file Claude Code reads, lowest first: the project root's
    /// `.claude/settings.json` and `settings.local.json`, then, when the project folder is
    /// below the root, that folder's own two (Claude Code 2.1.332 reads both places, not the
    /// folders between).
    pub fn project_settings_files(&self) -> Vec<PathBuf> {
        let mut files = vec![self.project_settings(), self.project_local_settings()];
        if self.project != self.project_root() {
            let own = self.project.join(".claude");
            files.push(own.join("settings.json"));
            files.push(own.join("settings.local.json"));
        }
        files
    }

    /// `managed-mcp.json` in the administrator's folder.
    pub fn managed_mcp_json(&self) -> PathBuf {
        self.managed_dir.join("managed-mcp.json")
    }
}

#[cfg(unix)]
mod owner {
    //! Who the person is, for [`super::Locations::set_aside`]: their user, and whether a
    //! group is theirs alone (their primary group, named in `/etc/group` with no other member
    //! and the primary group of no other account in `/etc/passwd`). Accounts only a directory
    //! service knows are not seen; a group of theirs is then judged by `/etc/passwd` alone.

    pub struct Person {
        pub uid: u32,
        gid: u32,
    }

    impl Person {
        pub fn current() -> Person {
            // SAFETY: geteuid and getegid have no preconditions and cannot fail.
            unsafe {
                Person {
                    uid: libc::geteuid(),
                    gid: libc::getegid(),
                }
            }
        }

        /// Whether nobody but the person is in this group.
        pub fn group_is_private(&self, gid: u32) -> bool {
            if gid != self.gid {
                return false;
            }
            let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
            let accounts: Vec<Vec<&str>> = passwd
                .lines()
                .map(|line| line.split(':').collect::<Vec<_>>())
                .filter(|fields| fields.len() >= 4)
                .collect();
            let numbered = |field: &str| field.parse::<u32>().ok();
            if accounts
                .iter()
                .any(|f| numbered(f[3]) == Some(gid) && numbered(f[2]) != Some(self.uid))
            {
                return false;
            }
            let name = accounts
                .iter()
                .find(|f| numbered(f[2]) == Some(self.uid))
                .map(|f| f[0]);
            let groups = std::fs::read_to_string("/etc/group").unwrap_or_default();
            groups
                .lines()
                .map(|line| line.split(':').collect::<Vec<_>>())
                .filter(|f| f.len() >= 4 && numbered(f[2]) == Some(gid))
                .all(|f| {
                    f[3].split(',')
                        .filter(|member| !member.is_empty())
                        .all(|member| Some(member) == name)
                })
        }
    }
}
