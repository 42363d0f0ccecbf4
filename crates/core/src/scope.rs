//! Configuration scopes, named and ranked as Claude Code names and ranks them.
//!
//! A server name can be defined in several scopes at once; Claude Code then uses the entry of
//! the most specific scope whole (local, then project, then user) and never merges entries.
//! Managed configuration (`managed-mcp.json`) is not ranked: when present it takes exclusive
//! control, which the config engine implements.

use serde::{Deserialize, Serialize};

/// Where a server entry is stored.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, specta::Type,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// `projects["<absolute project path>"].mcpServers` in `~/.claude.json`: this person, this
    /// project only.
    Local,
    /// `.mcp.json` in the project: shared with everyone who checks the project out.
    Project,
    /// The top-level `mcpServers` of `~/.claude.json`: this person, every project.
    User,
    /// `managed-mcp.json` (or `managedMcpServers` of managed settings), written by an
    /// administrator; read-only.
    Managed,
    /// Declared by a Claude Code plugin (`plugin:<plugin>:<server>`); read-only here, turned
    /// on and off with its plugin.
    Plugin,
    /// Defined inline in a subagent's frontmatter (`agent:<agent>:<server>` here); Claude Code
    /// connects it only while that subagent runs. Read-only here; started here only once the
    /// person approves it ([`crate::config::agents`]).
    Agent,
}

impl Scope {
    /// Scopes in the order a name clash is decided: the first one that defines a name wins.
    pub const BY_PRECEDENCE: [Scope; 3] = [Scope::Local, Scope::Project, Scope::User];

    /// The word Claude Code uses for the scope (`claude mcp add -s <word>`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Local => "local",
            Scope::Project => "project",
            Scope::User => "user",
            Scope::Managed => "managed",
            Scope::Plugin => "plugin",
            Scope::Agent => "agent",
        }
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
