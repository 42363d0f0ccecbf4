//! The operations that both doors — the app's Tauri commands and `mcpctl` — call.
//!
//! Each one takes [`Locations`] and returns plain data that serializes to the shapes the UI
//! (through generated TypeScript bindings) and `mcpctl --json` document. A broken file is a
//! [`ConfigProblem`] in the answer, not a failure of the whole call: the other scopes keep
//! working, as they do in Claude Code.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use crate::config::{read_document, servers_at, TransportKind};
use crate::error::{ConfigError, ErrorCode};
use crate::locations::Locations;
use crate::scope::Scope;

/// One server entry as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerSummary {
    pub name: String,
    pub scope: Scope,
    pub transport: TransportKind,
    /// The command line or the URL; never `env` or `headers`, which may hold secrets.
    pub target: String,
    /// The file the entry is in.
    pub source: String,
    /// Set when a more specific scope defines the same name: this entry is then not used.
    pub shadowed_by: Option<Scope>,
}

/// A file or entry that could not be used. The rest of the configuration still is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ConfigProblem {
    pub code: ErrorCode,
    pub scope: Scope,
    /// The file at fault.
    pub path: String,
    /// The server entry at fault, when only one entry is.
    pub server: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// What failed and what to do, with path, line and column where known.
    pub message: String,
}

impl ConfigProblem {
    fn new(scope: Scope, path: &Path, err: &ConfigError) -> Self {
        let (line, column) = match err {
            ConfigError::Syntax { line, column, .. } => (Some(*line), Some(*column)),
            _ => (None, None),
        };
        let server = match err {
            ConfigError::Entry { name, .. } => Some(name.clone()),
            _ => None,
        };
        ConfigProblem {
            code: err.code(),
            scope,
            path: path.display().to_string(),
            server,
            line,
            column,
            message: err.to_string(),
        }
    }
}

/// Every server entry of the project, user and local scopes, and the problems met reading them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerList {
    /// The project folder, absolute.
    pub project_dir: String,
    /// Entries by scope in precedence order (local, project, user), each scope in file order.
    pub servers: Vec<ServerSummary>,
    pub problems: Vec<ConfigProblem>,
}

/// Lists the servers of every scope. Never fails: unreadable files become problems.
pub fn list_servers(locations: &Locations) -> ServerList {
    let mut servers = Vec::new();
    let mut problems = Vec::new();

    let claude_json = locations.claude_json();
    let project_mcp_json = locations.project_mcp_json();
    let project_key = locations.project_key();

    // ~/.claude.json holds two scopes; read it once and report a broken file once.
    let claude_doc = read_document(&claude_json);
    let project_doc = read_document(&project_mcp_json);
    if let Err(err) = &claude_doc {
        problems.push(ConfigProblem::new(Scope::User, &claude_json, err));
    }
    if let Err(err) = &project_doc {
        problems.push(ConfigProblem::new(Scope::Project, &project_mcp_json, err));
    }

    let sources: [(Scope, &Path, Option<&serde_json::Value>, Vec<&str>); 3] = [
        (
            Scope::Local,
            &claude_json,
            claude_doc.as_ref().ok().and_then(Option::as_ref),
            vec!["projects", project_key.as_str(), "mcpServers"],
        ),
        (
            Scope::Project,
            &project_mcp_json,
            project_doc.as_ref().ok().and_then(Option::as_ref),
            vec!["mcpServers"],
        ),
        (
            Scope::User,
            &claude_json,
            claude_doc.as_ref().ok().and_then(Option::as_ref),
            vec!["mcpServers"],
        ),
    ];

    let mut winner: HashMap<String, Scope> = HashMap::new();
    for (scope, path, document, keys) in sources {
        let Some(document) = document else { continue };
        let entries = match servers_at(path, document, &keys) {
            Ok(entries) => entries,
            Err(err) => {
                problems.push(ConfigProblem::new(scope, path, &err));
                continue;
            }
        };
        for (name, entry) in entries {
            match entry {
                Ok(config) => {
                    let shadowed_by = winner.get(&name).copied();
                    winner.entry(name.clone()).or_insert(scope);
                    servers.push(ServerSummary {
                        name,
                        scope,
                        transport: config.kind(),
                        target: config.target(),
                        source: path.display().to_string(),
                        shadowed_by,
                    });
                }
                Err(err) => problems.push(ConfigProblem::new(scope, path, &err)),
            }
        }
    }

    ServerList {
        project_dir: locations.project.display().to_string(),
        servers,
        problems,
    }
}
