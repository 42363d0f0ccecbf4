//! Pins: each tool's definition as it was when the person approved its server, kept in the
//! app's private data (`pins.json`, `0600`), and what differs from it now.
//!
//! A tool is pinned by the six things a model or a client reads of it (`name`, `description`,
//! `inputSchema`, `outputSchema`, `annotations`, `_meta`) and its `title`; a server by the
//! `instructions` it sends at initialize. Each is kept as its canonical JSON (RFC 8785) and
//! that text's SHA-256, so that the hash is checkable by anyone and the text can be shown
//! beside what is served now.
//!
//! A pin belongs to one entry: it records the entry's content hash, and an entry whose hash
//! changed (a new command, a new URL: for a project server, one the person approved again)
//! is a new server, pinned at its first connect. Project and local servers are pinned per
//! project, like their approvals; every other server (user, plugin, managed) once for all
//! projects, so that opening a new project never pins a definition that changed since.
//! Nothing re-pins silently: only a first connect, "Pin now" and "Accept the change" write.

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcp_manager_core::config::document::{self, NewFileMode};
use mcp_manager_core::config::permissions::SettingsFile;
use mcp_manager_core::{ConfigError, Locations, Scope};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::canonical::{canonical, sha256};
use crate::visible::visible;

/// The keys of a tool that are pinned.
pub const PINNED_KEYS: [&str; 7] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "_meta",
];

/// One definition as pinned: its canonical text and that text's SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    pub canonical: String,
    pub sha256: String,
}

impl Definition {
    pub fn of(value: &Value) -> Definition {
        let canonical = canonical(value);
        Definition {
            sha256: sha256(&canonical),
            canonical,
        }
    }

    /// The definition as indented JSON, keys sorted, invisible characters shown.
    pub fn shown(&self) -> String {
        let value: Value = serde_json::from_str(&self.canonical).unwrap_or(Value::Null);
        visible(&serde_json::to_string_pretty(&value).unwrap_or_default())
    }
}

/// What is pinned of one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerPin {
    pub pinned_at_ms: i64,
    /// The content hash of the entry it was pinned for.
    pub entry_hash: String,
    pub instructions: Option<Definition>,
    pub tools: BTreeMap<String, Definition>,
}

/// The pinned part of one tool, as listed by its server.
pub fn tool_definition(tool: &Value) -> Value {
    let mut out = Map::new();
    for key in PINNED_KEYS {
        if let Some(value) = tool.get(key).filter(|v| !v.is_null()) {
            out.insert(key.to_string(), value.clone());
        }
    }
    Value::Object(out)
}

/// The pin of a server that lists `tools` (as sent) and sends `instructions`.
pub fn pin_of(
    tools: &[Value],
    instructions: Option<&str>,
    entry_hash: &str,
    at_ms: i64,
) -> ServerPin {
    ServerPin {
        pinned_at_ms: at_ms,
        entry_hash: entry_hash.to_string(),
        instructions: instructions.map(|text| Definition::of(&Value::String(text.to_string()))),
        tools: tools
            .iter()
            .map(|tool| {
                let name = tool
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                (name, Definition::of(&tool_definition(tool)))
            })
            .collect(),
    }
}

/// Where a server's pin is kept: its project for project and local servers, `user` for every
/// other.
pub fn pin_key(scope: Scope, locations: &Locations) -> String {
    match scope {
        Scope::Project | Scope::Local => locations.project_key(),
        _ => "user".to_string(),
    }
}

/// How a tool differs from its pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum DriftKind {
    /// Served now, not approved: counts as changed.
    Added,
    /// Approved, no longer served.
    Removed,
    Changed,
}

/// One line of a diff: `-` approved only, `+` served only, ` ` both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct DriftLine {
    pub sign: String,
    pub text: String,
}

/// One tool (or the server's instructions) that differs from its pin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    /// `None`: the server's instructions.
    pub tool: Option<String>,
    pub how: DriftKind,
    pub approved_sha256: Option<String>,
    pub served_sha256: Option<String>,
    /// What was approved, indented, invisible characters shown.
    pub approved: Option<String>,
    /// What is served now, the same way.
    pub served: Option<String>,
    pub lines: Vec<DriftLine>,
}

fn diff_lines(approved: &str, served: &str) -> Vec<DriftLine> {
    similar::TextDiff::from_lines(approved, served)
        .iter_all_changes()
        .map(|change| DriftLine {
            sign: match change.tag() {
                similar::ChangeTag::Delete => "-",
                similar::ChangeTag::Insert => "+",
                similar::ChangeTag::Equal => " ",
            }
            .to_string(),
            text: change.value().trim_end_matches('\n').to_string(),
        })
        .collect()
}

fn drift(
    tool: Option<&str>,
    approved: Option<&Definition>,
    served: Option<&Definition>,
) -> Option<Drift> {
    let how = match (approved, served) {
        (Some(a), Some(s)) if a.sha256 == s.sha256 => return None,
        (Some(_), Some(_)) => DriftKind::Changed,
        (None, Some(_)) => DriftKind::Added,
        (Some(_), None) => DriftKind::Removed,
        (None, None) => return None,
    };
    let approved_text = approved.map(Definition::shown);
    let served_text = served.map(Definition::shown);
    Some(Drift {
        tool: tool.map(str::to_string),
        how,
        approved_sha256: approved.map(|d| d.sha256.clone()),
        served_sha256: served.map(|d| d.sha256.clone()),
        lines: diff_lines(
            approved_text.as_deref().unwrap_or(""),
            served_text.as_deref().unwrap_or(""),
        ),
        approved: approved_text,
        served: served_text,
    })
}

/// Every difference between what was pinned and what is served: the instructions first, then
/// the tools by name.
pub fn compare(pinned: &ServerPin, served: &ServerPin) -> Vec<Drift> {
    let mut out: Vec<Drift> = Vec::new();
    out.extend(drift(
        None,
        pinned.instructions.as_ref(),
        served.instructions.as_ref(),
    ));
    let mut names: Vec<&String> = pinned.tools.keys().chain(served.tools.keys()).collect();
    names.sort();
    names.dedup();
    for name in names {
        out.extend(drift(
            Some(name),
            pinned.tools.get(name),
            served.tools.get(name),
        ));
    }
    out
}

/// A project's choice: where a changed tool is denied, for every server and per server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct QuarantineChoice {
    /// For every server of the project, unless it has its own choice.
    pub all: Option<SettingsFile>,
    /// A server's own choice; `None` turns it off for that server.
    #[serde(default)]
    pub servers: BTreeMap<String, Option<SettingsFile>>,
}

impl QuarantineChoice {
    /// Where a changed tool of `server` is denied, if it is.
    pub fn for_server(&self, server: &str) -> Option<SettingsFile> {
        match self.servers.get(server) {
            Some(own) => *own,
            None => self.all,
        }
    }
}

/// One deny rule we wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Denied {
    /// The project it was written for.
    pub project: String,
    pub file: SettingsFile,
    /// The file's path when it was written: a rule is removed only from that same file.
    pub path: String,
    pub entry: String,
    pub server: String,
    pub tool: String,
}

/// The pins file: every pin, the quarantine choices and the deny rules written for them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinsFile {
    /// By [`pin_key`], then server name.
    #[serde(default)]
    pub pins: BTreeMap<String, BTreeMap<String, ServerPin>>,
    /// By project key.
    #[serde(default)]
    pub quarantine: BTreeMap<String, QuarantineChoice>,
    /// Every deny rule written to keep a changed tool from Claude Code, to remove exactly it.
    #[serde(default)]
    pub denied: Vec<Denied>,
}

/// The pins of one machine's person, in the app's data folder.
#[derive(Debug, Clone)]
pub struct Pins {
    path: PathBuf,
}

impl Pins {
    pub fn of(locations: &Locations) -> Pins {
        Pins {
            path: locations.app_data_dir().join("pins.json"),
        }
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Everything kept; an empty file when there is none. A file that cannot be read or
    /// parsed is an error (and is never overwritten: every write reads it first).
    pub fn read(&self) -> Result<PinsFile, ConfigError> {
        let Some(doc) = document::read(&self.path)? else {
            return Ok(PinsFile::default());
        };
        serde_json::from_value(doc.value).map_err(|err| ConfigError::Shape {
            path: self.path.clone(),
            message: format!("not a pins file: {err}"),
        })
    }

    /// The pin of `server` under `key`.
    pub fn get(&self, key: &str, server: &str) -> Result<Option<ServerPin>, ConfigError> {
        Ok(self
            .read()?
            .pins
            .get(key)
            .and_then(|p| p.get(server))
            .cloned())
    }

    /// Changes the file under its lock: read, `change`, written whole with a new name and a
    /// rename, `0600`.
    pub fn update<T>(&self, change: impl FnOnce(&mut PinsFile) -> T) -> Result<T, ConfigError> {
        if let Some(dir) = self.path.parent() {
            let _ = mcp_manager_core::private::dir(dir);
        }
        let path = self.path.clone();
        document::update(&self.path, NewFileMode::Private, |value| {
            let mut file: PinsFile = if value.as_object().is_some_and(|o| o.is_empty()) {
                PinsFile::default()
            } else {
                serde_json::from_value(value.clone()).map_err(|err| ConfigError::Shape {
                    path: path.clone(),
                    message: format!("not a pins file: {err}"),
                })?
            };
            let out = change(&mut file);
            *value = serde_json::to_value(&file).map_err(|err| ConfigError::Shape {
                path: path.clone(),
                message: err.to_string(),
            })?;
            Ok(out)
        })
    }

    /// Pins `server` under `key` as `pin`, whatever was pinned before.
    pub fn set(&self, key: &str, server: &str, pin: ServerPin) -> Result<(), ConfigError> {
        self.update(|file| {
            file.pins
                .entry(key.to_string())
                .or_default()
                .insert(server.to_string(), pin);
        })
    }

    /// Accepts what `served` shows for `tool` (every tool and the instructions when `None`):
    /// the pin takes the served definition (a removed tool leaves the pin). Returns whether
    /// anything changed.
    pub fn accept(
        &self,
        key: &str,
        server: &str,
        served: &ServerPin,
        tool: Option<&str>,
    ) -> Result<bool, ConfigError> {
        self.update(|file| {
            let pins = file.pins.entry(key.to_string()).or_default();
            let Some(pin) = pins.get_mut(server) else {
                pins.insert(server.to_string(), served.clone());
                return true;
            };
            let before = pin.clone();
            match tool {
                None => {
                    *pin = ServerPin {
                        pinned_at_ms: served.pinned_at_ms,
                        ..served.clone()
                    }
                }
                Some(tool) => match served.tools.get(tool) {
                    Some(definition) => {
                        pin.tools.insert(tool.to_string(), definition.clone());
                    }
                    None => {
                        pin.tools.remove(tool);
                    }
                },
            }
            *pin != before
        })
    }
}
