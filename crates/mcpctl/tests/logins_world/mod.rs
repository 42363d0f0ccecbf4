//! What the keeper's tests share: a temporary home (with `~/.claude.json` holding the user's
//! servers) and project, and `mcpctl` and Claude Code run in it.
#![allow(dead_code)] // each test file uses part of it

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{json, Value};

use crate::support;

pub struct World {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub project: PathBuf,
}

impl World {
    pub fn new(servers: Value) -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project) = (root.join("home"), root.join("project"));
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        let world = World {
            _dir: dir,
            root,
            home,
            project,
        };
        world.servers(servers);
        world
    }

    /// The user's servers are `servers`.
    pub fn servers(&self, servers: Value) {
        std::fs::write(
            self.home.join(".claude.json"),
            json!({"hasCompletedOnboarding": true, "mcpServers": servers}).to_string(),
        )
        .unwrap();
    }

    /// `mcpctl ARGS` in this world; its browser completes a login page.
    pub fn mcpctl(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
        command
            .arg("--project")
            .arg(&self.project)
            .args(args)
            .env("HOME", &self.home)
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove(mcp_manager_core::secrets::UNENCRYPTED_FILE_VAR)
            .env("MCP_MANAGER_MANAGED_DIR", self.home.join("managed"))
            .env(
                "BROWSER",
                support::repo("tests/fixtures/browser/complete-login.mjs"),
            )
            .env("BROWSER_LOG", self.root.join("browser.log"));
        command
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.mcpctl(args).output().unwrap()
    }

    /// Claude Code (the pinned CLI) in the project, in this world's home.
    pub fn claude(&self, args: &[&str]) -> Command {
        let mut command = support::claude_cli();
        command
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("DISABLE_TELEMETRY", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("BROWSER", "/bin/false");
        command
    }

    pub fn credentials(&self) -> PathBuf {
        self.home.join(".claude/.credentials.json")
    }

    pub fn app_data(&self) -> PathBuf {
        self.home.join(".local/share/dev.mcp-manager.app")
    }
}

/// What a program printed, both streams.
pub fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
