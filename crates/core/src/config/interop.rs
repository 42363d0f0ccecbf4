//! Import from and export to other MCP clients' configuration files.
//!
//! Each client stores servers in its own shape; this module translates between those shapes
//! and Claude Code's entries. Import first makes a [`ImportPlan`] — what would be added, what is
//! skipped and why, what conflicts with an existing server, which `${input:…}` values the person
//! must supply — and writes only when asked, through the same locked read-modify-write as every
//! other change. Export writes the servers this project uses into the other client's file,
//! keeping everything else in it, and lists what the target cannot express instead of dropping
//! it silently. Files with comments (JSONC) are read, but never rewritten: that would lose the
//! comments, so export then prints the JSON to paste instead.
//!
//! Shapes, by client:
//! - Claude Desktop `claude_desktop_config.json`, Cursor `mcp.json`: `mcpServers` of
//!   `{command,args,env}` or `{url,headers}` (Cursor infers the transport: streamable HTTP).
//! - VS Code `.vscode/mcp.json`: `servers` of `{type,command,args,env}` / `{type,url,headers}`
//!   and `inputs`; `${input:id}` is a value the person supplies, `${env:X}` is `${X}`, and
//!   `${workspaceFolder}` is the project root.
//! - Windsurf `mcp_config.json`: `mcpServers`, remote ones with `serverUrl`.
//! - Codex `config.toml`: `[mcp_servers.<name>]` with `command,args,env` or `url,http_headers,
//!   bearer_token_env_var` (streamable HTTP only).
//! - Gemini CLI `settings.json`: `mcpServers`, `httpUrl` for streamable HTTP and `url` for SSE.
//! - Zed `settings.json`: `context_servers` of `{command,args,env}` (or the older
//!   `{command:{path,args,env}}`) and `{url,headers}`; extension-provided servers are skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::catalog::Catalog;
use super::document::{self, NewFileMode};
use super::entry::{
    claude_order, pairs, parse_entry_value, ServerConfig, Transport, TransportKind,
};
use super::names::validate_new_name;
use crate::error::ConfigError;
use crate::locations::Locations;
use crate::scope::Scope;

/// Another MCP client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    ClaudeDesktop,
    /// `~/.cursor/mcp.json`
    Cursor,
    /// `.cursor/mcp.json` in the project
    CursorProject,
    /// `.vscode/mcp.json` in the project
    Vscode,
    Windsurf,
    Codex,
    /// `~/.gemini/settings.json`
    Gemini,
    /// `.gemini/settings.json` in the project
    GeminiProject,
    Zed,
}

impl Client {
    pub const ALL: [Client; 9] = [
        Client::ClaudeDesktop,
        Client::Cursor,
        Client::CursorProject,
        Client::Vscode,
        Client::Windsurf,
        Client::Codex,
        Client::Gemini,
        Client::GeminiProject,
        Client::Zed,
    ];

    /// The word used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::CursorProject => "cursor-project",
            Client::Vscode => "vscode",
            Client::Windsurf => "windsurf",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
            Client::GeminiProject => "gemini-project",
            Client::Zed => "zed",
        }
    }

    pub fn parse(word: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.as_str() == word)
    }

    /// Where the client keeps its configuration on this OS.
    pub fn default_path(self, locations: &Locations) -> PathBuf {
        let home = &locations.home;
        let app_data = || {
            std::env::var_os("APPDATA")
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join("AppData").join("Roaming"))
        };
        match self {
            Client::ClaudeDesktop => {
                if cfg!(target_os = "macos") {
                    home.join("Library/Application Support/Claude/claude_desktop_config.json")
                } else if cfg!(windows) {
                    app_data().join("Claude").join("claude_desktop_config.json")
                } else {
                    home.join(".config/Claude/claude_desktop_config.json")
                }
            }
            Client::Cursor => home.join(".cursor/mcp.json"),
            Client::CursorProject => locations.project_root().join(".cursor/mcp.json"),
            Client::Vscode => locations.project_root().join(".vscode/mcp.json"),
            Client::Windsurf => home.join(".codeium/windsurf/mcp_config.json"),
            Client::Codex => home.join(".codex/config.toml"),
            Client::Gemini => home.join(".gemini/settings.json"),
            Client::GeminiProject => locations.project_root().join(".gemini/settings.json"),
            Client::Zed => {
                if cfg!(windows) {
                    app_data().join("Zed").join("settings.json")
                } else {
                    home.join(".config/zed/settings.json")
                }
            }
        }
    }

    fn container(self) -> &'static str {
        match self {
            Client::Vscode => "servers",
            Client::Zed => "context_servers",
            Client::Codex => "mcp_servers",
            _ => "mcpServers",
        }
    }
}

/// A `${input:id}` the person must supply (VS Code).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct InputPrompt {
    pub id: String,
    pub description: Option<String>,
    /// Declared as a password: read it without echo.
    pub password: bool,
}

/// One server that import would add.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportItem {
    pub name: String,
    pub transport: TransportKind,
    pub target: String,
    /// The `${input:…}` ids it uses.
    pub inputs: Vec<String>,
    /// The Claude Code entry that would be written (before inputs are filled in).
    pub entry: Value,
    /// What deserves a look before it is written (the Approve dialog's warnings): an import
    /// starts what it writes, without asking again.
    pub warnings: Vec<String>,
}

/// A server import leaves alone, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub name: String,
    pub reason: String,
}

/// What an import would do. Nothing is written while making it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportPlan {
    pub source: String,
    pub scope: Scope,
    pub add: Vec<ImportItem>,
    pub skipped: Vec<Skipped>,
    /// A server of the same name but different content already exists in the scope.
    pub conflicts: Vec<Skipped>,
    pub inputs: Vec<InputPrompt>,
}

/// What export wrote, and what the target cannot express.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ExportReport {
    pub target: String,
    pub written: Vec<String>,
    /// `name: what` for each piece the target cannot hold; those servers are written without
    /// it, or not at all when their transport is missing there.
    pub not_expressible: Vec<String>,
    /// Set instead of writing when the target file has comments: the JSON to paste.
    pub printed: Option<String>,
}

/// Reads a client's file and plans the import into `scope`.
pub fn plan_import(
    locations: &Locations,
    client: Client,
    file: Option<&Path>,
    scope: Scope,
) -> Result<ImportPlan, ConfigError> {
    if scope == Scope::Managed {
        return Err(ConfigError::Invalid(
            "the managed scope is read-only".into(),
        ));
    }
    let path = file
        .map(Path::to_path_buf)
        .unwrap_or_else(|| client.default_path(locations));
    // A client file of the project (`.vscode/mcp.json`, `.cursor/mcp.json`, `.gemini/…`, or
    // any file in the folder) is the repository's word like its `.mcp.json`: imported into
    // another scope, its servers would start with no approval. Not before the folder is trusted.
    let root = locations.project_root();
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let absolute = if path.is_absolute() {
        path.clone()
    } else {
        std::env::current_dir().unwrap_or_default().join(&path)
    };
    if real(&absolute).starts_with(real(&root)) && !super::trust::is_trusted(locations) {
        return Err(ConfigError::Untrusted {
            folder: root,
            what: format!(
                "{} is a file of this folder, and importing it would start its servers in the {scope} scope without your approval.",
                path.display()
            ),
        });
    }
    let text = crate::files::read_text(&path, crate::files::READ_LIMIT)
        .and_then(|text| {
            text.ok_or_else(|| crate::files::FileError::Io {
                path: path.clone(),
                source: std::io::ErrorKind::NotFound.into(),
            })
        })
        .map_err(|err| ConfigError::Read {
            path: path.clone(),
            source: err.into_io(),
        })?;
    let (found, inputs) = read_foreign(client, &path, &text, locations)?;
    let catalog = Catalog::load(locations);
    let mut plan = ImportPlan {
        source: path.display().to_string(),
        scope,
        add: Vec::new(),
        skipped: Vec::new(),
        conflicts: Vec::new(),
        inputs,
    };
    for (name, converted) in found {
        let entry = match converted {
            Ok(entry) => entry,
            Err(reason) => {
                plan.skipped.push(Skipped { name, reason });
                continue;
            }
        };
        if let Err(err) = validate_new_name(&name) {
            plan.skipped.push(Skipped {
                name,
                reason: err.to_string(),
            });
            continue;
        }
        let config = match parse_entry_value(&entry) {
            Ok(config) => config,
            Err(reason) => {
                plan.skipped.push(Skipped { name, reason });
                continue;
            }
        };
        let existing = catalog
            .named(&name)
            .find(|e| e.scope == scope)
            .map(|e| (e.hash.clone(), e.path.clone()));
        if let Some((hash, existing_path)) = existing {
            if hash == config.content_hash() {
                plan.skipped.push(Skipped {
                    name,
                    reason: format!("already in the {scope} scope with the same settings"),
                });
            } else {
                plan.conflicts.push(Skipped {
                    name,
                    reason: format!(
                        "a different server of this name is already in the {scope} scope ({})",
                        existing_path.display()
                    ),
                });
            }
            continue;
        }
        let used = input_ids(&entry);
        let mut variables = Vec::new();
        super::review::variables_in(&entry.to_string(), &mut variables);
        let warnings = super::review::warnings(&config, &variables);
        plan.add.push(ImportItem {
            warnings,
            name,
            transport: config.kind(),
            target: config.target(),
            inputs: used,
            entry: Value::Object(claude_order(
                entry.as_object().expect("parsed entries are objects"),
                config.kind(),
            )),
        });
    }
    plan.inputs
        .retain(|prompt| plan.add.iter().any(|item| item.inputs.contains(&prompt.id)));
    Ok(plan)
}

/// The servers of a plan as they are to be written, each `${input:id}` filled from `inputs`;
/// refused when one has no value. Writing them is [`crate::api::apply_import`]'s.
pub fn filled_entries(
    plan: &ImportPlan,
    inputs: &BTreeMap<String, String>,
) -> Result<Vec<(String, Value)>, ConfigError> {
    let missing: Vec<&String> = plan
        .add
        .iter()
        .flat_map(|item| &item.inputs)
        .filter(|id| !inputs.contains_key(*id))
        .collect();
    if !missing.is_empty() {
        let mut ids: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
        ids.dedup();
        return Err(ConfigError::Invalid(format!(
            "values are needed for these inputs: {} (give them with --input ID=VALUE)",
            ids.join(", ")
        )));
    }
    Ok(plan
        .add
        .iter()
        .map(|item| (item.name.clone(), fill_inputs(&item.entry, inputs)))
        .collect())
}

/// Writes the servers this project uses (not shadowed) into a client's file.
pub fn export(
    locations: &Locations,
    client: Client,
    file: Option<&Path>,
) -> Result<ExportReport, ConfigError> {
    let path = file
        .map(Path::to_path_buf)
        .unwrap_or_else(|| client.default_path(locations));
    // A project's client file (`.vscode/mcp.json`, `.cursor/mcp.json`) is never written
    // through a committed link out of the project: the person's own client configuration
    // would get the servers.
    locations.confine(&path)?;
    let catalog = Catalog::load(locations);
    let mut report = ExportReport {
        target: path.display().to_string(),
        written: Vec::new(),
        not_expressible: Vec::new(),
        printed: None,
    };
    let mut converted: Vec<(String, Value)> = Vec::new();
    for entry in catalog.entries.iter().filter(|e| e.shadowed_by.is_none()) {
        // The other client starts what it is given without asking: a project server nobody
        // approved (or one disabled here) must not reach it by this door.
        if !entry.will_start() {
            report.not_expressible.push(format!(
                "{}: not exported, because it may not start here ({})",
                entry.name,
                match entry.approval {
                    Some(super::approval::Approval::Pending) => "nobody has approved it",
                    Some(super::approval::Approval::Rejected) => "it was rejected",
                    Some(super::approval::Approval::Approved) if entry.awaits_trust() => {
                        "it came with this folder, which is not trusted yet"
                    }
                    _ => "it is disabled for this project",
                }
            ));
            continue;
        }
        match to_foreign(client, &entry.config) {
            Ok((value, lost)) => {
                report.not_expressible.extend(
                    lost.into_iter()
                        .map(|what| format!("{}: {what}", entry.name)),
                );
                converted.push((entry.name.clone(), value));
            }
            Err(why) => report
                .not_expressible
                .push(format!("{}: {why} (not exported)", entry.name)),
        }
    }

    if client == Client::Codex {
        write_codex(&path, &converted)?;
        report.written = converted.into_iter().map(|(n, _)| n).collect();
        return Ok(report);
    }

    let existing = crate::files::read_text(&path, crate::files::READ_LIMIT)
        .ok()
        .flatten();
    if let Some(text) = &existing {
        if strip_jsonc(text) != *text {
            let mut object = Map::new();
            for (name, value) in &converted {
                object.insert(name.clone(), value.clone());
            }
            let snippet = Value::Object(
                [(client.container().to_string(), Value::Object(object))]
                    .into_iter()
                    .collect(),
            );
            report.printed = Some(document::render(&snippet, &Default::default()));
            return Ok(report);
        }
    }
    let container = client.container();
    // Another client's file of servers holds commands and environments: only its owner's.
    document::update(&path, NewFileMode::Private, |value| {
        let servers = document::object_at(&path, value, &[container])?;
        for (name, entry) in &converted {
            servers.insert(name.clone(), entry.clone());
        }
        Ok(())
    })?;
    report.written = converted.into_iter().map(|(n, _)| n).collect();
    Ok(report)
}

type Found = Vec<(String, Result<Value, String>)>;

fn read_foreign(
    client: Client,
    path: &Path,
    text: &str,
    locations: &Locations,
) -> Result<(Found, Vec<InputPrompt>), ConfigError> {
    if client == Client::Codex {
        return Ok((read_codex(path, text)?, Vec::new()));
    }
    let value = document::parse(path, &strip_jsonc(text))?;
    let servers = value
        .get(client.container())
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let root = locations.project_root().display().to_string();
    let found = servers
        .into_iter()
        .map(|(name, entry)| {
            let converted = entry
                .as_object()
                .ok_or_else(|| "the entry is not a JSON object".to_string())
                .and_then(|o| from_foreign(client, o, &root));
            (name, converted)
        })
        .collect();
    let inputs = if client == Client::Vscode {
        value
            .get("inputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|i| {
                Some(InputPrompt {
                    id: i.get("id")?.as_str()?.to_string(),
                    description: i
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    password: i.get("password").and_then(Value::as_bool).unwrap_or(false),
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok((found, inputs))
}

/// One foreign JSON entry as a Claude Code entry.
fn from_foreign(client: Client, o: &Map<String, Value>, root: &str) -> Result<Value, String> {
    let mut out = Map::new();
    let copy = |out: &mut Map<String, Value>, from: &str, to: &str| {
        if let Some(v) = o.get(from) {
            out.insert(to.to_string(), v.clone());
        }
    };
    match client {
        Client::Zed => {
            if o.get("source").and_then(Value::as_str) == Some("extension") {
                return Err("provided by a Zed extension, which only Zed can run".into());
            }
            match o.get("command") {
                Some(Value::Object(cmd)) => {
                    out.insert("type".into(), "stdio".into());
                    if let Some(p) = cmd.get("path") {
                        out.insert("command".into(), p.clone());
                    }
                    for k in ["args", "env"] {
                        if let Some(v) = cmd.get(k) {
                            out.insert(k.into(), v.clone());
                        }
                    }
                }
                Some(_) => {
                    out.insert("type".into(), "stdio".into());
                    copy(&mut out, "command", "command");
                    copy(&mut out, "args", "args");
                    copy(&mut out, "env", "env");
                }
                None if o.contains_key("url") => {
                    out.insert("type".into(), "http".into());
                    copy(&mut out, "url", "url");
                    copy(&mut out, "headers", "headers");
                }
                None => return Err("has neither a command nor a url".into()),
            }
        }
        _ if o.contains_key("command") => {
            out.insert("type".into(), "stdio".into());
            copy(&mut out, "command", "command");
            copy(&mut out, "args", "args");
            copy(&mut out, "env", "env");
            if let Some(cwd) = o.get("cwd") {
                return Err(format!(
                    "runs in its own folder (cwd {cwd}), which Claude Code's entries cannot say"
                ));
            }
            if o.contains_key("envFile") {
                return Err("reads an envFile, which Claude Code's entries cannot say".into());
            }
        }
        _ => {
            let (url_key, kind) = match client {
                Client::Windsurf if o.contains_key("serverUrl") => ("serverUrl", "http"),
                Client::Gemini | Client::GeminiProject if o.contains_key("httpUrl") => {
                    ("httpUrl", "http")
                }
                Client::Gemini | Client::GeminiProject => ("url", "sse"),
                Client::Vscode => (
                    "url",
                    match o.get("type").and_then(Value::as_str) {
                        Some("sse") => "sse",
                        _ => "http",
                    },
                ),
                _ => (
                    "url",
                    match o.get("type").and_then(Value::as_str) {
                        Some("sse") => "sse",
                        Some("ws") => "ws",
                        _ => "http",
                    },
                ),
            };
            if !o.contains_key(url_key) {
                return Err("has neither a command nor a URL".into());
            }
            out.insert("type".into(), kind.into());
            copy(&mut out, url_key, "url");
            copy(&mut out, "headers", "headers");
        }
    }
    if let Some(timeout) = o.get("timeout") {
        out.insert("timeout".into(), timeout.clone());
    }
    let mut entry = Value::Object(out);
    if client == Client::Vscode {
        rewrite_strings(&mut entry, &|s| vscode_variables(s, root));
    }
    Ok(entry)
}

/// VS Code variables in Claude Code's terms.
fn vscode_variables(text: &str, root: &str) -> String {
    let mut out = text.replace("${workspaceFolder}", root);
    while let Some(start) = out.find("${env:") {
        let Some(end) = out[start..].find('}') else {
            break;
        };
        let name = out[start + 6..start + end].to_string();
        out.replace_range(start..start + end + 1, &format!("${{{name}}}"));
    }
    out
}

fn rewrite_strings(value: &mut Value, f: &dyn Fn(&str) -> String) {
    match value {
        Value::String(s) => *s = f(s),
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_strings(v, f)),
        Value::Object(map) => map.values_mut().for_each(|v| rewrite_strings(v, f)),
        _ => {}
    }
}

fn input_ids(entry: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    let mut visit = |s: &str| {
        let mut rest = s;
        while let Some(start) = rest.find("${input:") {
            let after = &rest[start + 8..];
            let Some(end) = after.find('}') else { break };
            let id = after[..end].to_string();
            if !ids.contains(&id) {
                ids.push(id);
            }
            rest = &after[end..];
        }
    };
    fn walk(value: &Value, visit: &mut dyn FnMut(&str)) {
        match value {
            Value::String(s) => visit(s),
            Value::Array(items) => items.iter().for_each(|v| walk(v, visit)),
            Value::Object(map) => map.values().for_each(|v| walk(v, visit)),
            _ => {}
        }
    }
    walk(entry, &mut visit);
    ids
}

fn fill_inputs(entry: &Value, inputs: &BTreeMap<String, String>) -> Value {
    let mut entry = entry.clone();
    rewrite_strings(&mut entry, &|s| {
        let mut out = s.to_string();
        for (id, value) in inputs {
            out = out.replace(&format!("${{input:{id}}}"), value);
        }
        out
    });
    entry
}

/// One of our servers in a client's shape, with what it had to leave out.
fn to_foreign(client: Client, config: &ServerConfig) -> Result<(Value, Vec<String>), String> {
    let mut lost = Vec::new();
    if config.headers_helper.is_some() {
        lost.push("headersHelper".to_string());
    }
    if config.oauth.is_some() {
        lost.push("oauth settings".to_string());
    }
    let mut out = Map::new();
    match &config.transport {
        Transport::Stdio { command, args, env } => {
            if client == Client::Vscode {
                out.insert("type".into(), "stdio".into());
            }
            out.insert("command".into(), command.clone().into());
            out.insert("args".into(), args.clone().into());
            if !env.is_empty() {
                out.insert("env".into(), pairs(env));
            }
        }
        Transport::Remote { kind, url, headers } => {
            let url_key = match (client, kind) {
                (Client::ClaudeDesktop, _) => {
                    return Err("Claude Desktop's file holds local (stdio) servers only".into())
                }
                (_, TransportKind::Ws) => {
                    return Err(format!("{} has no WebSocket transport", client.as_str()))
                }
                (Client::Codex, TransportKind::Sse) => {
                    return Err("Codex speaks streamable HTTP only, not SSE".into())
                }
                (Client::Windsurf, _) => "serverUrl",
                (Client::Gemini | Client::GeminiProject, TransportKind::Http) => "httpUrl",
                (Client::Codex, _) => "url",
                (Client::Vscode, _) => {
                    out.insert("type".into(), kind.as_str().into());
                    "url"
                }
                (Client::Cursor | Client::CursorProject, TransportKind::Sse) => {
                    out.insert("type".into(), "sse".into());
                    "url"
                }
                _ => "url",
            };
            out.insert(url_key.into(), url.clone().into());
            if !headers.is_empty() {
                let key = if client == Client::Codex {
                    "http_headers"
                } else {
                    "headers"
                };
                out.insert(key.into(), pairs(headers));
            }
        }
    }
    if let Some(timeout) = config.timeout {
        match client {
            Client::Gemini | Client::GeminiProject => {
                out.insert("timeout".into(), timeout.into());
            }
            _ => lost.push("timeout".to_string()),
        }
    }
    Ok((Value::Object(out), lost))
}

/// Removes `//` and `/* */` comments and trailing commas, leaving strings alone. Text without
/// any comes back unchanged.
pub fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                while let Some(&n) = chars.peek() {
                    if n == '\n' {
                        break;
                    }
                    chars.next();
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = '\0';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            (',', _) => {
                // A comma followed (past blanks and comments) by a closing bracket goes.
                let rest: String = chars.clone().collect();
                let next = strip_leading_blank_and_comments(&rest);
                if !(next.starts_with('}') || next.starts_with(']')) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn strip_leading_blank_and_comments(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        if let Some(rest) = text.strip_prefix("//") {
            text = rest.split_once('\n').map(|(_, r)| r).unwrap_or("");
        } else if let Some(rest) = text.strip_prefix("/*") {
            text = rest.split_once("*/").map(|(_, r)| r).unwrap_or("");
        } else {
            return text;
        }
    }
}

fn read_codex(path: &Path, text: &str) -> Result<Found, ConfigError> {
    let doc: toml_edit::DocumentMut = text.parse().map_err(|err: toml_edit::TomlError| {
        let (line, column) = err
            .span()
            .map(|span| line_column(text, span.start))
            .unwrap_or((0, 0));
        ConfigError::Syntax {
            path: path.to_path_buf(),
            line,
            column,
            message: err.message().to_string(),
        }
    })?;
    let Some(servers) = doc.get("mcp_servers").and_then(|i| i.as_table_like()) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for (name, item) in servers.iter() {
        let converted = (|| -> Result<Value, String> {
            let table = item.as_table_like().ok_or("not a table")?;
            let get_str = |k: &str| table.get(k).and_then(|v| v.as_str()).map(str::to_string);
            let get_map = |k: &str| -> Map<String, Value> {
                table
                    .get(k)
                    .and_then(|v| v.as_table_like())
                    .map(|t| {
                        t.iter()
                            .filter_map(|(k, v)| {
                                Some((k.to_string(), Value::String(v.as_str()?.to_string())))
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let mut out = Map::new();
            if let Some(command) = get_str("command") {
                out.insert("type".into(), "stdio".into());
                out.insert("command".into(), command.into());
                let args: Vec<Value> = table
                    .get("args")
                    .and_then(|v| v.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str())
                            .map(|s| Value::String(s.into()))
                            .collect()
                    })
                    .unwrap_or_default();
                out.insert("args".into(), Value::Array(args));
                let env = get_map("env");
                if !env.is_empty() {
                    out.insert("env".into(), Value::Object(env));
                }
                if table.get("cwd").is_some() {
                    return Err(
                        "runs in its own folder (cwd), which Claude Code's entries cannot say"
                            .into(),
                    );
                }
            } else if let Some(url) = get_str("url") {
                out.insert("type".into(), "http".into());
                out.insert("url".into(), url.into());
                let mut headers = get_map("http_headers");
                if let Some(var) = get_str("bearer_token_env_var") {
                    headers.insert("Authorization".into(), format!("Bearer ${{{var}}}").into());
                }
                if !headers.is_empty() {
                    out.insert("headers".into(), Value::Object(headers));
                }
            } else {
                return Err("has neither a command nor a url".into());
            }
            Ok(Value::Object(out))
        })();
        found.push((name.to_string(), converted));
    }
    Ok(found)
}

fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count() + 1)
        .unwrap_or(1);
    (line as u32, column as u32)
}

fn write_codex(path: &Path, servers: &[(String, Value)]) -> Result<(), ConfigError> {
    let text = crate::files::read_text(path, crate::files::READ_LIMIT)
        .ok()
        .flatten()
        .unwrap_or_default();
    let mut doc: toml_edit::DocumentMut =
        text.parse()
            .map_err(|err: toml_edit::TomlError| ConfigError::Shape {
                path: path.to_path_buf(),
                message: format!("is not valid TOML: {}", err.message()),
            })?;
    if !doc.contains_key("mcp_servers") {
        let mut table = toml_edit::Table::new();
        table.set_implicit(true);
        doc.insert("mcp_servers", toml_edit::Item::Table(table));
    }
    let servers_table = doc["mcp_servers"]
        .as_table_mut()
        .ok_or_else(|| ConfigError::Shape {
            path: path.to_path_buf(),
            message: "`mcp_servers` must be a table".into(),
        })?;
    for (name, entry) in servers {
        let mut table = toml_edit::Table::new();
        for (key, value) in entry.as_object().into_iter().flatten() {
            let item = match value {
                Value::String(s) => toml_edit::value(s.clone()),
                Value::Number(n) => toml_edit::value(n.as_i64().unwrap_or_default()),
                Value::Array(items) => {
                    let mut array = toml_edit::Array::new();
                    for i in items.iter().filter_map(Value::as_str) {
                        array.push(i);
                    }
                    toml_edit::value(array)
                }
                Value::Object(map) => {
                    let mut inline = toml_edit::InlineTable::new();
                    for (k, v) in map {
                        if let Some(s) = v.as_str() {
                            inline.insert(k, s.into());
                        }
                    }
                    toml_edit::value(inline)
                }
                _ => continue,
            };
            table.insert(key, item);
        }
        servers_table.insert(name, toml_edit::Item::Table(table));
    }
    document::write_atomic(path, &doc.to_string(), NewFileMode::Private).map_err(|source| {
        ConfigError::Write {
            path: path.to_path_buf(),
            source,
        }
    })
}
