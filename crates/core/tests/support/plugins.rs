//! A sandbox home and project for plugin tests (core's and `mcpctl`'s): the person's
//! installed plugin `slack@official` with an option and a secret of its own, and skills folder
//! plugins of the person or of the repository.
#![allow(dead_code)] // each test file uses part of it

use std::path::{Path, PathBuf};

use mcp_manager_core::Locations;
use serde_json::{json, Value};

/// The installed plugin's own secret, in `~/.claude/.credentials.json` `pluginSecrets`.
pub const PLUGIN_SECRET: &str = "xoxb-0123456789-installed-plugin-secret";
/// The installed plugin's own option, in `~/.claude/settings.json` `pluginConfigs`.
pub const PLUGIN_OPTION: &str = "private-workspace-of-the-person";

pub struct PluginWorld {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub project: PathBuf,
}

impl PluginWorld {
    /// An empty home (with `~/.claude`) and a project folder beside it.
    pub fn new() -> PluginWorld {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project) = (root.join("home"), root.join("repo"));
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        PluginWorld {
            _dir: dir,
            root,
            home,
            project,
        }
    }

    pub fn write(&self, path: &Path, value: Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, value.to_string()).unwrap();
    }

    /// `slack@official`, installed and on, with [`PLUGIN_OPTION`] and [`PLUGIN_SECRET`].
    pub fn install_slack(&self) {
        let plugin = self.root.join("installed/slack");
        self.write(
            &plugin.join(".claude-plugin/plugin.json"),
            json!({"name": "slack", "version": "1.0.0"}),
        );
        let plugins = self.home.join(".claude/plugins");
        self.write(
            &plugins.join("installed_plugins.json"),
            json!({"version": 2, "plugins": {"slack@official": [{"scope": "user", "installPath": plugin}]}}),
        );
        self.write(
            &plugins.join("known_marketplaces.json"),
            json!({"official": {"source": {"source": "github", "repo": "o/r"}, "installLocation": self.root.join("mkt")}}),
        );
        self.write(
            &self.home.join(".claude/settings.json"),
            json!({
                "enabledPlugins": {"slack@official": true},
                "pluginConfigs": {"slack@official": {"options": {"workspace": PLUGIN_OPTION}}}
            }),
        );
        self.write(
            &self.home.join(".claude/.credentials.json"),
            json!({"pluginSecrets": {"slack@official": {"token": PLUGIN_SECRET}}}),
        );
    }

    /// A skills folder plugin of the repository, in `.claude/skills/<folder>`.
    pub fn project_plugin(&self, folder: &str, manifest: Value) {
        self.skills_plugin(&self.project.join(".claude/skills"), folder, manifest);
    }

    /// A skills folder plugin of the person, in `~/.claude/skills/<folder>`.
    pub fn personal_plugin(&self, folder: &str, manifest: Value) {
        self.skills_plugin(&self.home.join(".claude/skills"), folder, manifest);
    }

    fn skills_plugin(&self, skills: &Path, folder: &str, manifest: Value) {
        self.write(
            &skills.join(folder).join(".claude-plugin/plugin.json"),
            manifest,
        );
    }

    /// A file whose presence says that something ran.
    pub fn marker(&self, what: &str) -> PathBuf {
        self.root.join(format!("{what}.ran"))
    }

    /// This home and project, with managed settings under `<root>/managed`.
    pub fn locations(&self) -> Locations {
        let mut locations = Locations::new(self.home.clone(), None, &self.project).unwrap();
        locations.managed_dir = self.root.join("managed");
        locations
    }
}
