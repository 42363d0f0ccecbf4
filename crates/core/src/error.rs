//! Typed errors of the core, and the one error shape that crosses the IPC boundary.
//!
//! Inside the core each area has its own `thiserror` enum so callers can match on what went
//! wrong. At the boundary (Tauri commands, `mcpctl --json`) every error becomes an
//! [`ApiError`] `{ code, message }`: the UI branches on `code`, a stable kebab-case word, and
//! shows `message`, which says what failed, with what input, and what to do.

use std::path::PathBuf;

use serde::Serialize;

/// What can go wrong while reading configuration.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("{}: could not be read: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON. It is reported, never overwritten.
    #[error("{} line {line} column {column}: {message} — the file was not changed", path.display())]
    Syntax {
        path: PathBuf,
        line: u32,
        column: u32,
        message: String,
    },
    /// Valid JSON of the wrong shape (for example `mcpServers` is not an object).
    #[error("{}: {message}", path.display())]
    Shape { path: PathBuf, message: String },
    /// One server entry is unusable; the other entries of the file still are.
    #[error("{}: server \"{name}\": {message}", path.display())]
    Entry {
        path: PathBuf,
        name: String,
        message: String,
    },
    /// The file could not be written; it is unchanged.
    #[error("{}: could not be written ({source}) — the file was not changed", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A new server's name breaks the naming rules.
    #[error(transparent)]
    Name(#[from] crate::config::names::NameError),
    /// A server of that name already exists in that scope.
    #[error("MCP server \"{name}\" already exists in the {scope} scope ({}); remove it first or choose another name", path.display())]
    ServerExists {
        name: String,
        scope: crate::scope::Scope,
        path: PathBuf,
    },
    /// No server of that name (in that scope).
    #[error("no MCP server named \"{name}\"{}", scope.map(|s| format!(" in the {s} scope")).unwrap_or_default())]
    ServerNotFound {
        name: String,
        scope: Option<crate::scope::Scope>,
    },
    /// The name exists in several scopes and the operation needs one.
    #[error("MCP server \"{name}\" exists in several scopes ({}); name one with --scope", scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))]
    AmbiguousScope {
        name: String,
        scopes: Vec<crate::scope::Scope>,
    },
    /// `managed-mcp.json` is present and has exclusive control, as in Claude Code.
    #[error("Cannot {verb} MCP server: enterprise MCP configuration is active and has exclusive control over MCP servers ({} is present; ask your administrator)", path.display())]
    Managed { path: PathBuf, verb: &'static str },
    /// Enterprise policy blocks the server: Claude Code's words, then the rule and its file.
    #[error("{message} ({rule})")]
    Policy { message: String, rule: String },
    /// A request that cannot be carried out as given (bad flag values, wrong transport).
    #[error("{0}")]
    Invalid(String),
    /// Neither `HOME` nor the platform knows a home folder.
    #[error("no home folder is known: set HOME")]
    NoHome,
    /// A project file is a symbolic link (or lies under one) that leads out of the project.
    #[error("{} leads to {}, outside the project: a project file is never written through a link out of the project — the file was not changed; replace the link with a plain file", path.display(), target.display())]
    LinkOutOfProject { path: PathBuf, target: PathBuf },
    /// The project folder is not trusted, and the change needs it to be.
    #[error("{} is not trusted: {what} Trust it first (`mcpctl trust`, or Trust this folder in the window), as Claude Code asks in its trust dialog", folder.display())]
    Untrusted { folder: PathBuf, what: String },
    /// The server may not be started, so what was asked (which would run or contact it) is
    /// not done.
    #[error("\"{name}\" may not start: {why}")]
    NotAllowed { name: String, why: String },
    /// A `.mcp.json` above the project that is not used, and why.
    #[error("{} is not used: {why}, so anyone could have put it there; move its servers into your project's .mcp.json if you want them", path.display())]
    SetAside { path: PathBuf, why: String },
    /// The project folder given does not exist or is not a folder.
    #[error("project folder {}: {source}", path.display())]
    Project {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ConfigError {
    /// The stable code the UI and `mcpctl --json` branch on.
    pub fn code(&self) -> ErrorCode {
        match self {
            ConfigError::Read { .. } => ErrorCode::ConfigUnreadable,
            ConfigError::Write { .. } => ErrorCode::ConfigUnwritable,
            ConfigError::Name(_) => ErrorCode::InvalidName,
            ConfigError::ServerExists { .. } => ErrorCode::ServerExists,
            ConfigError::ServerNotFound { .. } => ErrorCode::ServerNotFound,
            ConfigError::AmbiguousScope { .. } => ErrorCode::AmbiguousScope,
            ConfigError::Managed { .. } => ErrorCode::ManagedExclusive,
            ConfigError::Invalid(_) => ErrorCode::InvalidRequest,
            ConfigError::Syntax { .. } => ErrorCode::ConfigSyntax,
            ConfigError::Shape { .. } | ConfigError::Entry { .. } => ErrorCode::ConfigInvalid,
            ConfigError::NoHome => ErrorCode::NoHome,
            ConfigError::Project { .. } => ErrorCode::ProjectNotFound,
            ConfigError::LinkOutOfProject { .. } => ErrorCode::ConfigUnwritable,
            ConfigError::Untrusted { .. } => ErrorCode::Untrusted,
            ConfigError::SetAside { .. } => ErrorCode::SetAside,
            ConfigError::NotAllowed { .. } => ErrorCode::NotAllowed,
            ConfigError::Policy { .. } => ErrorCode::BlockedByPolicy,
        }
    }
}

/// Stable error codes. New codes may be added; existing ones never change meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// A configuration file exists but could not be read (permissions, I/O).
    ConfigUnreadable,
    /// A configuration file could not be written; it is unchanged.
    ConfigUnwritable,
    /// A new server's name breaks the naming rules.
    InvalidName,
    /// A server of that name already exists in that scope.
    ServerExists,
    /// No server of that name.
    ServerNotFound,
    /// The name exists in several scopes; the request must name one.
    AmbiguousScope,
    /// Managed configuration has exclusive control; nothing can be changed.
    ManagedExclusive,
    /// The request cannot be carried out as given; the message says why.
    InvalidRequest,
    /// The OS keychain could not be used; the message names the cause.
    Keychain,
    /// A configuration file is not valid JSON; the message has its line and column.
    ConfigSyntax,
    /// A configuration file or entry has the wrong shape.
    ConfigInvalid,
    /// No home folder is known.
    NoHome,
    /// The project folder does not exist.
    ProjectNotFound,
    /// The project folder is not trusted yet; trusting it (as Claude Code does) comes first.
    Untrusted,
    /// A file above the project was not used because anyone could have put it there.
    SetAside,
    /// The server may not be started (pending or rejected approval, disabled, shadowed), so
    /// nothing that would run it or contact it is done.
    NotAllowed,
    /// Enterprise policy (`allowedMcpServers`, `deniedMcpServers`…) blocks the server.
    BlockedByPolicy,
    /// A bug: the message says where.
    Internal,
}

/// The one error shape at the IPC boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

impl From<ConfigError> for ApiError {
    fn from(err: ConfigError) -> Self {
        ApiError {
            code: err.code(),
            message: err.to_string(),
        }
    }
}
