//! Reading MCP server entries from Claude Code's files.
//!
//! Files are parsed into `serde_json::Value` with key order preserved, never into structs that
//! would drop what they do not know: the config engine writes these files back, and a person's
//! (or Claude Code's) unknown keys must survive. Entries are then read one by one, so one bad
//! entry is reported on its own and the others stay usable, as in Claude Code.
//!
//! Entry rules follow Claude Code: `type` defaults to `stdio` when `command` is present;
//! `streamable-http` is read as `http`; a `url` without a `type` is an error.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ConfigError;

/// How a server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// A child process spoken to over stdin and stdout.
    Stdio,
    /// Streamable HTTP (MCP 2025-03-26 and later).
    Http,
    /// The legacy HTTP+SSE transport (MCP 2024-11-05).
    Sse,
    /// WebSocket.
    Ws,
}

impl TransportKind {
    /// The word used in `type` and by `claude mcp add -t`.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
            TransportKind::Sse => "sse",
            TransportKind::Ws => "ws",
        }
    }
}

/// A transport with what it needs to connect. Values are as written in the file: `${VAR}`
/// expansion is applied when connecting, not here.
#[derive(Clone, PartialEq, Eq)]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        /// In file order. Values are often secrets: `Debug` redacts them.
        env: Vec<(String, String)>,
    },
    Remote {
        kind: TransportKind,
        url: String,
        /// In file order. Values are often tokens: `Debug` redacts them.
        headers: Vec<(String, String)>,
    },
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let redacted = |pairs: &[(String, String)]| -> Vec<String> {
            pairs
                .iter()
                .map(|(k, _)| format!("{k}=[redacted]"))
                .collect()
        };
        match self {
            Transport::Stdio { command, args, env } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &redacted(env))
                .finish(),
            Transport::Remote { kind, url, headers } => f
                .debug_struct("Remote")
                .field("kind", kind)
                .field("url", url)
                .field("headers", &redacted(headers))
                .finish(),
        }
    }
}

/// One server entry, as far as connecting to it is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    pub transport: Transport,
}

impl ServerConfig {
    pub fn kind(&self) -> TransportKind {
        match &self.transport {
            Transport::Stdio { .. } => TransportKind::Stdio,
            Transport::Remote { kind, .. } => *kind,
        }
    }

    /// What a person recognises the server by: the command line, or the URL. Never includes
    /// `env` or `headers`, which carry secrets.
    pub fn target(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => std::iter::once(command)
                .chain(args)
                .map(|word| shell_word(word))
                .collect::<Vec<_>>()
                .join(" "),
            Transport::Remote { url, .. } => url.clone(),
        }
    }
}

/// Quotes a word for display when it would otherwise read as several.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && !word
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\'')
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Reads and parses a JSON configuration file. `Ok(None)` when the file does not exist.
pub fn read_document(path: &Path) -> Result<Option<Value>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    parse_document(path, &text).map(Some)
}

/// Parses the text of a JSON configuration file, reporting a syntax error with its line and
/// column.
pub fn parse_document(path: &Path, text: &str) -> Result<Value, ConfigError> {
    serde_json::from_str(text).map_err(|err| {
        let full = err.to_string();
        let suffix = format!(" at line {} column {}", err.line(), err.column());
        ConfigError::Syntax {
            path: path.to_path_buf(),
            line: u32::try_from(err.line()).unwrap_or(u32::MAX),
            column: u32::try_from(err.column()).unwrap_or(u32::MAX),
            message: full.strip_suffix(&suffix).unwrap_or(&full).to_string(),
        }
    })
}

/// The entries of one `mcpServers` object, in file order, each parsed on its own.
pub type Entries = Vec<(String, Result<ServerConfig, ConfigError>)>;

/// The entries of the `mcpServers` object found by following `keys` from the document's root,
/// in file order, each parsed on its own. A missing object means no servers.
pub fn servers_at(path: &Path, document: &Value, keys: &[&str]) -> Result<Entries, ConfigError> {
    let shape = |message: String| ConfigError::Shape {
        path: path.to_path_buf(),
        message,
    };
    let mut node = document;
    let mut walked = String::new();
    for key in keys {
        let object = node
            .as_object()
            .ok_or_else(|| shape(format!("{} must be a JSON object", where_(&walked))))?;
        match object.get(*key) {
            Some(next) => node = next,
            None => return Ok(Vec::new()),
        }
        walked.push_str(&format!("[{}]", Value::String((*key).to_string())));
    }
    let servers = node
        .as_object()
        .ok_or_else(|| shape(format!("{} must be a JSON object", where_(&walked))))?;
    Ok(servers
        .iter()
        .map(|(name, entry)| (name.clone(), parse_entry(path, name, entry)))
        .collect())
}

fn where_(walked: &str) -> String {
    if walked.is_empty() {
        "the top level".to_string()
    } else {
        walked.to_string()
    }
}

/// Parses one server entry under Claude Code's rules.
pub fn parse_entry(path: &Path, name: &str, entry: &Value) -> Result<ServerConfig, ConfigError> {
    let bad = |message: String| ConfigError::Entry {
        path: path.to_path_buf(),
        name: name.to_string(),
        message,
    };
    let object = entry
        .as_object()
        .ok_or_else(|| bad("the entry must be a JSON object".into()))?;
    let ty = match object.get("type") {
        None | Some(Value::Null) => None,
        Some(Value::String(ty)) => Some(ty.as_str()),
        Some(_) => return Err(bad("`type` must be a string".into())),
    };
    let kind = match ty {
        Some("stdio") => TransportKind::Stdio,
        Some("http") | Some("streamable-http") => TransportKind::Http,
        Some("sse") => TransportKind::Sse,
        Some("ws") => TransportKind::Ws,
        Some(other) => {
            return Err(bad(format!(
                "unknown `type` \"{other}\": use stdio, http, sse or ws"
            )))
        }
        None if object.contains_key("command") => TransportKind::Stdio,
        None if object.contains_key("url") => {
            return Err(bad(
                "has a `url` but no `type`: add \"type\": \"http\" (or \"sse\", \"ws\")".into(),
            ))
        }
        None => {
            return Err(bad(
                "needs a `command` (stdio) or a `type` and a `url`".into()
            ))
        }
    };
    let transport = if kind == TransportKind::Stdio {
        let command = string_field(object, "command")
            .map_err(bad)?
            .ok_or_else(|| bad("a stdio server needs a `command`".into()))?;
        if command.trim().is_empty() {
            return Err(bad("`command` is empty".into()));
        }
        let args = match object.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| bad("`args` must be a list of strings".into()))?,
            Some(_) => return Err(bad("`args` must be a list of strings".into())),
        };
        Transport::Stdio {
            command,
            args,
            env: string_map(object, "env").map_err(bad)?,
        }
    } else {
        let url = string_field(object, "url")
            .map_err(bad)?
            .ok_or_else(|| bad(format!("a {} server needs a `url`", kind.as_str())))?;
        Transport::Remote {
            kind,
            url,
            headers: string_map(object, "headers").map_err(bad)?,
        }
    };
    Ok(ServerConfig { transport })
}

fn string_field(object: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

fn string_map(object: &Map<String, Value>, key: &str) -> Result<Vec<(String, String)>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(format!("`{key}.{k}` must be a string")),
            })
            .collect(),
        Some(_) => Err(format!("`{key}` must be an object of strings")),
    }
}
