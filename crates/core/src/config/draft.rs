//! A server entry as a person fills it in (the window's form), checked as they type and
//! turned into the exact file change that saving would make.
//!
//! The form sends every field as typed ([`ServerDraft`]); nothing is parsed in the UI. A check
//! ([`check`]) answers with the problems that block saving, the warnings a person should see
//! before saving (a value that looks like a secret, a `${VAR}` that is not set, a login key
//! that changes), and the diff of every file the save would write, computed from the latest
//! bytes on disk with the same closure the save then runs under Claude Code's lock
//! ([`save`]), so the preview and the write cannot disagree. The entry is written as
//! `claude mcp add` writes it (`ServerConfig::to_json`); editing keeps the keys Claude Code
//! does not know and the entry's place in its file.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::catalog::Catalog;
use super::document::{self, NewFileMode};
use super::entry::{OAuthConfig, ServerConfig, Transport, TransportKind};
use super::expand::{expand_config, MissingVariable};
use super::names::validate_new_name;
use crate::error::ConfigError;
use crate::locations::Locations;
use crate::scope::Scope;

/// One row of `env` or `headers`, in the order shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct KeyValue {
    pub key: String,
    /// Empty when `kept`.
    pub value: String,
    /// The value stays as it is in the file. A secret written in a file is never sent to the
    /// window: an edit form gets such rows kept, and the save takes the value from the file.
    pub kept: bool,
}

/// A server as the form holds it: every field as typed. Fields of the other transport are
/// ignored; empty optional fields are left out of the entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerDraft {
    pub name: String,
    pub scope: Scope,
    pub transport: TransportKind,
    pub command: String,
    /// One argument per row, in order; an empty row is an empty argument.
    pub args: Vec<String>,
    pub env: Vec<KeyValue>,
    pub url: String,
    pub headers: Vec<KeyValue>,
    pub headers_helper: String,
    pub client_id: String,
    /// As typed; must be a port number when not empty.
    pub callback_port: String,
    pub auth_server_metadata_url: String,
    /// Space-separated.
    pub scopes: String,
    /// How the server is authorized: `""` (a person logs in in the browser),
    /// `"client_credentials"`, `"workload"` (workload identity federation: the JWT bearer
    /// grant with the workload's token) or `"cross-app"` (enterprise-managed cross-app access).
    pub grant: String,
    /// For `"workload"`: the file the workload's token is read from, or the command that
    /// prints it (one of the two).
    pub assertion_file: String,
    pub assertion_command: String,
}

/// `grantType` of the JWT bearer grant (workload identity and cross-app access).
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// The entry a draft replaces when it edits one (its name and scope before the edit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct EntryRef {
    pub name: String,
    pub scope: Scope,
}

/// Something to tell the person about one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DraftNote {
    /// `name`, `command`, `url`, `env.3.value`, `headers.0.key`, `callbackPort`, …: the field
    /// it is about (rows by index), or `entry` for the whole entry.
    pub field: String,
    pub message: String,
    /// A value to put in the field instead (a `${VAR}` reference for a secret).
    pub suggestion: Option<String>,
}

/// One line of a file change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct DiffLine {
    /// `" "` unchanged, `"+"` added, `"-"` removed.
    pub sign: String,
    pub text: String,
}

/// What saving would do to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct FileChange {
    pub path: String,
    /// The changed lines with up to three unchanged lines around each change.
    pub lines: Vec<DiffLine>,
}

/// The answer to a check: save is possible when `problems` is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct DraftCheck {
    pub problems: Vec<DraftNote>,
    pub warnings: Vec<DraftNote>,
    pub changes: Vec<FileChange>,
}

/// What an [`Edit`] does to a file's parsed content.
type Change = Box<dyn Fn(&mut Value) -> Result<(), ConfigError>>;

/// A change to one file, run on its latest content.
struct Edit {
    path: PathBuf,
    mode: NewFileMode,
    apply: Change,
}

/// The form for an existing entry. Values that look like secrets come as kept rows, without
/// their value.
pub fn draft_of(locations: &Locations, entry: &EntryRef) -> Result<ServerDraft, ConfigError> {
    let catalog = Catalog::load(locations);
    let found = find(&catalog, entry).ok_or_else(|| ConfigError::ServerNotFound {
        name: entry.name.clone(),
        scope: Some(entry.scope),
    })?;
    let mut draft = draft_from_config(&entry.name, entry.scope, &found.config);
    for row in draft.env.iter_mut().chain(draft.headers.iter_mut()) {
        if looks_secret(&row.key, &row.value) {
            row.kept = true;
            row.value.clear();
        }
    }
    Ok(draft)
}

/// The form for a new entry made from a config (a registry install, a pasted snippet): every
/// value as given, none kept.
pub fn draft_from_config(name: &str, scope: Scope, config: &ServerConfig) -> ServerDraft {
    let rows = |pairs: &[(String, String)]| {
        pairs
            .iter()
            .map(|(key, value)| KeyValue {
                key: key.clone(),
                value: value.clone(),
                kept: false,
            })
            .collect()
    };
    let oauth = config.oauth.clone().unwrap_or_default();
    let mut draft = ServerDraft {
        name: name.to_string(),
        scope,
        transport: config.kind(),
        command: String::new(),
        args: Vec::new(),
        env: Vec::new(),
        url: String::new(),
        headers: Vec::new(),
        headers_helper: config.headers_helper.clone().unwrap_or_default(),
        client_id: oauth.client_id.unwrap_or_default(),
        callback_port: oauth
            .callback_port
            .map(|p| p.to_string())
            .unwrap_or_default(),
        auth_server_metadata_url: oauth.auth_server_metadata_url.unwrap_or_default(),
        scopes: oauth.scopes.map(|s| s.join(" ")).unwrap_or_default(),
        grant: match oauth.machine.grant_type.as_deref() {
            None => String::new(),
            Some(JWT_BEARER) if oauth.machine.is_workload() => "workload".into(),
            Some(JWT_BEARER) => "cross-app".into(),
            Some(other) => other.to_string(),
        },
        assertion_file: oauth.machine.assertion_file.clone().unwrap_or_default(),
        assertion_command: oauth.machine.assertion_command.clone().unwrap_or_default(),
    };
    match &config.transport {
        Transport::Stdio { command, args, env } => {
            draft.command = command.clone();
            draft.args = args.clone();
            draft.env = rows(env);
        }
        Transport::Remote { url, headers, .. } => {
            draft.url = url.clone();
            draft.headers = rows(headers);
        }
    }
    draft
}

/// The draft with each kept row's value taken from the entry it edits.
fn with_kept_values(
    catalog: &Catalog,
    draft: &ServerDraft,
    original: Option<&EntryRef>,
) -> (ServerDraft, Vec<DraftNote>) {
    let mut draft = draft.clone();
    let mut problems = Vec::new();
    let before = original
        .and_then(|o| find(catalog, o))
        .map(|e| &e.config.transport);
    let (env, headers) = match before {
        Some(Transport::Stdio { env, .. }) => (env.as_slice(), &[][..]),
        Some(Transport::Remote { headers, .. }) => (&[][..], headers.as_slice()),
        None => (&[][..], &[][..]),
    };
    for (field, rows, pairs) in [
        ("env", &mut draft.env, env),
        ("headers", &mut draft.headers, headers),
    ] {
        for (i, row) in rows.iter_mut().enumerate() {
            if !row.kept {
                continue;
            }
            match pairs.iter().find(|(k, _)| *k == row.key) {
                Some((_, value)) => row.value = value.clone(),
                None => problems.push(note(
                    &format!("{field}.{i}.value"),
                    "the saved value of this row is no longer in the file: type a value",
                )),
            }
        }
    }
    (draft, problems)
}

/// Checks a draft and previews the change; reads files, writes nothing.
pub fn check(
    locations: &Locations,
    draft: &ServerDraft,
    original: Option<&EntryRef>,
) -> DraftCheck {
    let catalog = Catalog::load(locations);
    let (draft, mut problems) = with_kept_values(&catalog, draft, original);
    let draft = &draft;
    let (config, more) = to_config(draft);
    problems.extend(more);
    problems.extend(name_problems(&catalog, draft, original));
    if matches!(draft.scope, Scope::Managed | Scope::Plugin | Scope::Agent) {
        problems.push(note(
            "scope",
            &format!(
                "the {} scope is read-only: choose local, project or user",
                draft.scope
            ),
        ));
    }
    if let Some(managed) = &catalog.managed {
        problems.push(note(
            "entry",
            &format!(
                "{} is present: your administrator manages MCP servers here and nothing can be changed",
                managed.display()
            ),
        ));
    }
    if let Some(config) = &config {
        let trusted = super::trust::is_trusted(locations);
        let verb = if original.is_some() { "save" } else { "add" };
        if let Some(block) =
            super::policy::Policy::load(locations, trusted).check(&draft.name, config, false, false)
        {
            problems.push(note(
                "entry",
                &format!(
                    "{} ({})",
                    block.refusal(verb, &draft.name),
                    block.describe()
                ),
            ));
        }
    }
    let mut warnings = secret_warnings(draft);
    if let Some(config) = &config {
        let (_, missing) = expand_config(config, &crate::config::expand::process_env);
        warnings.extend(missing.iter().map(|m| unset_warning(draft, m)));
        if let Some(before) = original.and_then(|o| find(&catalog, o)) {
            if login_key_changes(&before.config, config) {
                warnings.push(note(
                    "url",
                    "changing the type, URL or headers changes this server's login key: you will need to log in again",
                ));
            }
        }
    }
    let changes = match (&config, problems.is_empty()) {
        (Some(config), true) => match preview(locations, &catalog, draft, config, original) {
            Ok(changes) => changes,
            Err(err) => {
                problems.push(note("entry", &err.to_string()));
                Vec::new()
            }
        },
        _ => Vec::new(),
    };
    DraftCheck {
        problems,
        warnings,
        changes,
    }
}

/// Writes the draft (adding it, or replacing `original`, moving it when the scope changed)
/// under Claude Code's lock, and approves a project server the person added or moved there.
/// Refuses, writing nothing, when the check finds a problem. Returns the files written.
pub fn save(
    locations: &Locations,
    draft: &ServerDraft,
    original: Option<&EntryRef>,
) -> Result<Vec<String>, ConfigError> {
    let checked = check(locations, draft, original);
    if let Some(problem) = checked.problems.first() {
        return Err(ConfigError::Invalid(format!(
            "\"{}\" was not saved: {} ({})",
            draft.name, problem.message, problem.field
        )));
    }
    let catalog = Catalog::load(locations);
    let (draft, _) = with_kept_values(&catalog, draft, original);
    let draft = &draft;
    let (config, _) = to_config(draft);
    let config = config.expect("a draft without problems has a config");
    let mut written = Vec::new();
    for edit in edits(locations, &catalog, draft, &config, original)? {
        locations.confine(&edit.path)?;
        document::update(&edit.path, edit.mode, |value| (edit.apply)(value))?;
        written.push(edit.path.display().to_string());
    }
    // The person wrote this project server themselves: that is their approval (recorded in
    // their own `.claude/settings.local.json`, as approving in Claude Code would).
    let was_approved_here =
        original.is_some_and(|o| o.scope == Scope::Project && o.name == draft.name);
    if draft.scope == Scope::Project && !was_approved_here {
        super::approval::record_choice(locations, &draft.name, true)?;
        written.push(locations.project_local_settings().display().to_string());
    }
    if draft.scope == Scope::Project {
        // What the person wrote here is what they approve: an edit of their own does not
        // count as a change since their approval.
        let saved = Catalog::load(locations)
            .named(&draft.name)
            .find(|e| e.scope == Scope::Project)
            .map(|e| e.hash.clone());
        super::approval::record_approved_hash(locations, &draft.name, saved.as_deref())?;
    }
    Ok(written)
}

/// The entry the draft describes, or the problems that keep it from being one.
fn to_config(draft: &ServerDraft) -> (Option<ServerConfig>, Vec<DraftNote>) {
    let mut problems = Vec::new();
    let rows = |rows: &[KeyValue], field: &str, problems: &mut Vec<DraftNote>| {
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            let key = row.key.trim();
            if key.is_empty() {
                if !row.value.is_empty() {
                    problems.push(note(&format!("{field}.{i}.key"), "give this value a name"));
                }
                continue;
            }
            if seen.contains(&key.to_ascii_lowercase()) {
                problems.push(note(
                    &format!("{field}.{i}.key"),
                    &format!("\"{key}\" is set twice"),
                ));
                continue;
            }
            seen.push(key.to_ascii_lowercase());
            out.push((key.to_string(), row.value.clone()));
        }
        out
    };
    let mut config = match draft.transport {
        TransportKind::Stdio => {
            if draft.command.trim().is_empty() {
                problems.push(note("command", "enter the command that starts the server"));
            }
            let env = rows(&draft.env, "env", &mut problems);
            ServerConfig::stdio(draft.command.trim(), draft.args.clone(), env)
        }
        kind => {
            if let Some(problem) = url_problem(kind, draft.url.trim()) {
                problems.push(note("url", &problem));
            }
            let headers = rows(&draft.headers, "headers", &mut problems);
            ServerConfig::remote(kind, draft.url.trim(), headers)
        }
    };
    if draft.transport != TransportKind::Stdio {
        let text = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        config.headers_helper = text(&draft.headers_helper);
        let callback_port = match draft.callback_port.trim() {
            "" => None,
            port => match port.parse::<u16>() {
                Ok(port) if port > 0 => Some(port),
                _ => {
                    problems.push(note(
                        "callbackPort",
                        "a port is a whole number from 1 to 65535",
                    ));
                    None
                }
            },
        };
        if let Some(url) = text(&draft.auth_server_metadata_url) {
            if !url.starts_with("https://") && !url.contains("${") {
                problems.push(note(
                    "authServerMetadataUrl",
                    "the authorization server's metadata URL must start with https://",
                ));
            }
        }
        let mut oauth = OAuthConfig {
            client_id: text(&draft.client_id),
            callback_port,
            auth_server_metadata_url: text(&draft.auth_server_metadata_url),
            scopes: text(&draft.scopes).map(|s| s.split_whitespace().map(str::to_string).collect()),
            ..OAuthConfig::default()
        };
        let machine = &mut oauth.machine;
        match draft.grant.as_str() {
            "" => {}
            "workload" => {
                machine.grant_type = Some(JWT_BEARER.into());
                machine.assertion_file = text(&draft.assertion_file);
                machine.assertion_command = text(&draft.assertion_command);
                match (&machine.assertion_file, &machine.assertion_command) {
                    (None, None) => problems.push(note(
                        "assertionFile",
                        "workload identity needs where the workload's token comes from: a file, or a command that prints it",
                    )),
                    (Some(_), Some(_)) => problems.push(note(
                        "assertionFile",
                        "one source of the token: a file or a command, not both",
                    )),
                    _ => {}
                }
            }
            "cross-app" => machine.grant_type = Some(JWT_BEARER.into()),
            other => machine.grant_type = Some(other.to_string()),
        }
        if oauth != OAuthConfig::default() {
            config.oauth = Some(oauth);
        }
    }
    (problems.is_empty().then_some(config), problems)
}

/// Why a URL cannot be used for this transport, if it cannot.
fn url_problem(kind: TransportKind, url: &str) -> Option<String> {
    if url.is_empty() {
        return Some("enter the server's URL".into());
    }
    if url.contains("${") {
        return None;
    }
    let schemes: &[&str] = match kind {
        TransportKind::Ws => &["ws://", "wss://"],
        _ => &["http://", "https://"],
    };
    let Some(rest) = schemes.iter().find_map(|s| url.strip_prefix(s)) else {
        return Some(format!("the URL must start with {}", schemes.join(" or ")));
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() || host.starts_with(':') || url.chars().any(char::is_whitespace) {
        return Some("the URL has no host, or contains spaces".into());
    }
    None
}

fn name_problems(
    catalog: &Catalog,
    draft: &ServerDraft,
    original: Option<&EntryRef>,
) -> Vec<DraftNote> {
    let unchanged = original.is_some_and(|o| o.name == draft.name);
    if !unchanged {
        if let Err(err) = validate_new_name(&draft.name) {
            return vec![note("name", &err.to_string())];
        }
    }
    let same_entry =
        |scope: Scope| original.is_some_and(|o| o.name == draft.name && o.scope == scope);
    let clash = catalog
        .named(&draft.name)
        .any(|e| e.scope == draft.scope && !same_entry(e.scope));
    if clash {
        return vec![note(
            "name",
            &format!(
                "the {} scope already has a server named \"{}\"",
                draft.scope, draft.name
            ),
        )];
    }
    Vec::new()
}

fn find<'a>(catalog: &'a Catalog, entry: &'a EntryRef) -> Option<&'a super::catalog::CatalogEntry> {
    catalog.named(&entry.name).find(|e| e.scope == entry.scope)
}

/// Whether Claude Code's token key (type, URL, headers) differs between two remote entries.
fn login_key_changes(before: &ServerConfig, after: &ServerConfig) -> bool {
    match (&before.transport, &after.transport) {
        (
            Transport::Remote { kind, url, headers },
            Transport::Remote {
                kind: kind2,
                url: url2,
                headers: headers2,
            },
        ) => {
            let sorted = |h: &[(String, String)]| {
                let mut h = h.to_vec();
                h.sort();
                h
            };
            kind != kind2 || url != url2 || sorted(headers) != sorted(headers2)
        }
        _ => false,
    }
}

/// The files a save writes, each with the change to make there.
fn edits(
    locations: &Locations,
    catalog: &Catalog,
    draft: &ServerDraft,
    config: &ServerConfig,
    original: Option<&EntryRef>,
) -> Result<Vec<Edit>, ConfigError> {
    let before = original.and_then(|o| find(catalog, o));
    if let (Some(original), None) = (original, before) {
        return Err(ConfigError::ServerNotFound {
            name: original.name.clone(),
            scope: Some(original.scope),
        });
    }
    // Keys Claude Code does not know travel with the entry.
    let extra: Map<String, Value> = before
        .and_then(|e| e.raw.as_object().cloned())
        .unwrap_or_default();
    // The form has no field for `timeout` or `alwaysLoad`: an edit keeps the entry's.
    let mut config = config.clone();
    if let Some(before) = before {
        config.timeout = config.timeout.or(before.config.timeout);
        config.always_load = config.always_load.or(before.config.always_load);
        // Nor for the login's finer settings: an edit keeps what the form does not show.
        if let Some(was) = before.config.oauth.as_ref() {
            let mut oauth = config.oauth.take().unwrap_or_default();
            oauth.client_metadata_url = oauth
                .client_metadata_url
                .take()
                .or(was.client_metadata_url.clone());
            oauth.dpop = oauth.dpop.or(was.dpop);
            let (now, was) = (&mut oauth.machine, &was.machine);
            if now.grant_type.is_some() && now.grant_type == was.grant_type {
                now.token_endpoint_auth_method = was.token_endpoint_auth_method.clone();
                now.signing_algorithm = was.signing_algorithm.clone();
                now.idp_issuer = was.idp_issuer.clone();
                now.idp_token_endpoint = was.idp_token_endpoint.clone();
                now.idp_client_id = was.idp_client_id.clone();
            }
            if oauth != OAuthConfig::default() {
                config.oauth = Some(oauth);
            }
        }
    }
    let entry = config.to_json(&extra);
    let name = draft.name.clone();
    let (path, keys, mode) = servers_location(locations, draft.scope);
    match (original, before) {
        (Some(original), Some(before)) if before.scope == draft.scope && before.path == path => {
            let old = original.name.clone();
            let shown = path.clone();
            let apply = move |value: &mut Value| {
                let servers = document::object_at(&shown, value, &key_refs(&keys))?;
                replace_in_place(servers, &old, &name, entry.clone());
                Ok(())
            };
            Ok(vec![Edit {
                path: path.clone(),
                mode,
                apply: Box::new(apply),
            }])
        }
        _ => {
            let mut out = vec![insert_edit(path, keys, mode, name, entry)];
            if let (Some(original), Some(before)) = (original, before) {
                out.push(remove_edit(locations, before, &original.name));
            }
            Ok(out)
        }
    }
}

fn key_refs(keys: &[String]) -> Vec<&str> {
    keys.iter().map(String::as_str).collect()
}

fn insert_edit(
    path: PathBuf,
    keys: Vec<String>,
    mode: NewFileMode,
    name: String,
    entry: Value,
) -> Edit {
    let shown = path.clone();
    Edit {
        path,
        mode,
        apply: Box::new(move |value| {
            let servers = document::object_at(&shown, value, &key_refs(&keys))?;
            if servers.contains_key(&name) {
                return Err(ConfigError::Invalid(format!(
                    "{} already has a server named \"{name}\"",
                    shown.display()
                )));
            }
            servers.insert(name.clone(), entry.clone());
            Ok(())
        }),
    }
}

fn remove_edit(locations: &Locations, before: &super::catalog::CatalogEntry, name: &str) -> Edit {
    let (_, keys, mode) = servers_location(locations, before.scope);
    let path = before.path.clone();
    let shown = path.clone();
    let name = name.to_string();
    Edit {
        path,
        mode,
        apply: Box::new(move |value| {
            let servers = document::object_at(&shown, value, &key_refs(&keys))?;
            servers.shift_remove(&name);
            Ok(())
        }),
    }
}

/// Puts `entry` under `new` where `old` was, keeping every other key's place.
fn replace_in_place(servers: &mut Map<String, Value>, old: &str, new: &str, entry: Value) {
    let taken = std::mem::take(servers);
    let mut placed = false;
    for (key, value) in taken {
        if key == old {
            servers.insert(new.to_string(), entry.clone());
            placed = true;
        } else if key != new {
            servers.insert(key, value);
        }
    }
    if !placed {
        servers.insert(new.to_string(), entry);
    }
}

/// The file, the keys of its `mcpServers` object, and how a new file is created, per scope.
pub(crate) fn servers_location(
    locations: &Locations,
    scope: Scope,
) -> (PathBuf, Vec<String>, NewFileMode) {
    match scope {
        Scope::Project => (
            locations.project_mcp_json(),
            vec!["mcpServers".into()],
            NewFileMode::Shared,
        ),
        Scope::User => (
            locations.claude_json(),
            vec!["mcpServers".into()],
            NewFileMode::Private,
        ),
        // Managed, plugin and agent entries are never written (refused before); local's place.
        Scope::Local | Scope::Managed | Scope::Plugin | Scope::Agent => (
            locations.claude_json(),
            vec![
                "projects".into(),
                locations.project_key(),
                "mcpServers".into(),
            ],
            NewFileMode::Private,
        ),
    }
}

/// Runs the edits on the files' current content and diffs the result; writes nothing. Two
/// edits of one file (a move between local and user) are applied one after the other.
fn preview(
    locations: &Locations,
    catalog: &Catalog,
    draft: &ServerDraft,
    config: &ServerConfig,
    original: Option<&EntryRef>,
) -> Result<Vec<FileChange>, ConfigError> {
    let mut files: Vec<(PathBuf, String, Value, document::Layout)> = Vec::new();
    for edit in edits(locations, catalog, draft, config, original)? {
        let at = match files.iter().position(|(p, ..)| *p == edit.path) {
            Some(at) => at,
            None => {
                let (text, value, layout) = match document::read(&edit.path)? {
                    Some(doc) => (
                        document::render(&doc.value, &doc.layout),
                        doc.value,
                        doc.layout,
                    ),
                    None => (
                        String::new(),
                        Value::Object(Map::new()),
                        document::Layout::default(),
                    ),
                };
                let text = crate::files::read_text(&edit.path, crate::files::READ_LIMIT)
                    .ok()
                    .flatten()
                    .unwrap_or(text);
                files.push((edit.path.clone(), text, value, layout));
                files.len() - 1
            }
        };
        (edit.apply)(&mut files[at].2)?;
    }
    Ok(files
        .into_iter()
        .map(|(path, before, value, layout)| FileChange {
            path: path.display().to_string(),
            lines: diff(&before, &document::render(&value, &layout)),
        })
        .collect())
}

/// Changed lines with three lines of context, as `diff -U3` would show them.
pub fn diff(before: &str, after: &str) -> Vec<DiffLine> {
    let text = similar::TextDiff::from_lines(before, after);
    let mut out = Vec::new();
    for (i, group) in text.grouped_ops(3).iter().enumerate() {
        if i > 0 {
            out.push(DiffLine {
                sign: " ".into(),
                text: "…".into(),
            });
        }
        for op in group {
            for change in text.iter_changes(op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Equal => " ",
                    similar::ChangeTag::Delete => "-",
                    similar::ChangeTag::Insert => "+",
                };
                out.push(DiffLine {
                    sign: sign.into(),
                    text: redact_line(change.value().trim_end_matches(['\n', '\r'])),
                });
            }
        }
    }
    out
}

/// `value` with every string that looks like a secret (by its key or its shape) replaced by a
/// mask, at any depth: what the window may be shown of an entry it does not edit.
pub fn masked(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| {
                    let v = match v {
                        Value::String(text) if looks_secret(key, text) => {
                            Value::String("••••••••".into())
                        }
                        other => masked(other),
                    };
                    (key.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(masked).collect()),
        other => other.clone(),
    }
}

/// Every line of `text` with secret values masked (see [`masked`]).
pub fn masked_text(text: &str) -> String {
    text.lines().map(redact_line).collect::<Vec<_>>().join("\n")
}

/// A line of a file with every `"key": "value"` pair whose value looks like a secret masked:
/// a diff shown in the window must not carry the secrets of this or any other entry, whether
/// the file is pretty-printed or on one line.
fn redact_line(line: &str) -> String {
    // Each JSON string literal of the line: its byte span (quotes included) and its text.
    let bytes = line.as_bytes();
    let mut strings: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'"' {
            let start = i;
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            strings.push((start, (i + 1).min(bytes.len())));
        }
        i += 1;
    }
    let mut out = String::with_capacity(line.len());
    let mut copied = 0;
    for pair in strings.windows(2) {
        let ((k0, k1), (v0, v1)) = (pair[0], pair[1]);
        if line[k1..v0].trim() != ":" || v1 < v0 + 2 {
            continue;
        }
        let key = &line[k0 + 1..k1.saturating_sub(1).max(k0 + 1)];
        let value = &line[v0 + 1..v1 - 1];
        if looks_secret(key, value) {
            out.push_str(&line[copied..v0 + 1]);
            out.push_str("••••••••");
            copied = v1 - 1;
        }
    }
    out.push_str(&line[copied..]);
    out
}

fn note(field: &str, message: &str) -> DraftNote {
    DraftNote {
        field: field.into(),
        message: message.into(),
        suggestion: None,
    }
}

/// Words that, anywhere in a key's name, say its value is a credential.
const SECRET_WORDS: [&str; 11] = [
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "APIKEY",
    "API_KEY",
    "CREDENTIAL",
    "PRIVATE",
    "AUTH",
    "COOKIE",
    "BEARER",
];

/// Words that say so when they are a whole part of the name (`DB_PASS`, `--key`, `accessKey`,
/// `X-Session`), not inside another word (`MONKEY`, `COMPASS`).
const SECRET_PARTS: [&str; 7] = ["KEY", "PASS", "PWD", "SESSION", "SIG", "SIGNATURE", "JWT"];

/// Whether a key's name says its value is a credential (`GITHUB_TOKEN`, `--api-key`,
/// `DB_PASS`, `apiKey`, `api%5Fkey`).
fn secret_named(key: &str) -> bool {
    let key = percent_decoded(key.trim_start_matches('-'));
    let joined = key.to_ascii_uppercase().replace('-', "_");
    if SECRET_WORDS.iter().any(|w| joined.contains(w)) {
        return true;
    }
    // Parts: split at anything not a letter or digit, and where camelCase turns upper.
    let mut parts = Vec::new();
    let mut part = String::new();
    let mut last_lower = false;
    for c in key.chars() {
        if !c.is_ascii_alphanumeric() {
            parts.push(std::mem::take(&mut part));
            last_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && last_lower {
            parts.push(std::mem::take(&mut part));
        }
        last_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        part.push(c.to_ascii_uppercase());
    }
    parts.push(part);
    parts.iter().any(|p| SECRET_PARTS.contains(&p.as_str()))
}

/// `%XX` escapes decoded (others left as they are).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() && text.is_char_boundary(i + 3) {
            if let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` without its `${…}` references: what is written out.
fn without_references(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        match rest[at..].find('}') {
            Some(end) => rest = &rest[at + end + 1..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The prefixes of tokens services issue (`ghp_`, `sk-`, `AKIA`…).
const TOKEN_PREFIXES: [&str; 13] = [
    "ghp_",
    "gho_",
    "ghs_",
    "ghu_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "sk-",
    "xoxb-",
    "xoxp-",
    "xapp-",
    "AKIA",
    "npm_",
];

/// Whether a value starts the way issued tokens do.
fn known_token_prefix(value: &str) -> bool {
    TOKEN_PREFIXES.iter().any(|p| value.starts_with(p))
}

/// Whether a run of letters, digits, `_` and `-` has the shape of a generated token: 20
/// characters or more, letters and digits, and mixed case or 32 characters or more.
fn token_shaped(word: &str) -> bool {
    word.len() >= 20
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_alphabetic())
        && ((word.chars().any(|c| c.is_ascii_uppercase())
            && word.chars().any(|c| c.is_ascii_lowercase()))
            || word.len() >= 32)
}

/// Whether a value is a credential written out (not already a `${VAR}` reference).
pub(crate) fn looks_secret(key: &str, value: &str) -> bool {
    let value = without_references(value.trim());
    let value = value.trim();
    if value.is_empty() {
        return false;
    }
    let scheme = ["Bearer ", "bearer ", "Basic ", "basic ", "Token ", "token "]
        .iter()
        .find_map(|p| value.strip_prefix(p));
    if scheme.is_some_and(|rest| !rest.trim().is_empty()) {
        return true;
    }
    let bare = scheme.unwrap_or(value);
    // A path or a plain URL is where a secret is kept, not the secret (GOOGLE_APPLICATION_
    // CREDENTIALS=/home/u/sa.json); what a URL itself carries is judged below.
    let names_a_place = path_like(bare) || (bare.contains("://") && !bare.contains(' '));
    (secret_named(key) && bare.len() >= 8 && !names_a_place)
        || known_token_prefix(bare)
        || text_holds_secret(value)
}

/// Whether text is a file system path: it starts with `/`, `~/`, `./`, `../` or a drive.
fn path_like(text: &str) -> bool {
    let b = text.as_bytes();
    text.starts_with('/')
        || text.starts_with("~/")
        || text.starts_with("./")
        || text.starts_with("../")
        || (b.len() > 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}

/// Whether a piece of a URL (a path segment, a query value) is a key rather than a word:
/// 16 characters or more of letters and digits only, with at least four of each.
fn key_shaped(piece: &str) -> bool {
    piece.len() >= 16
        && piece.chars().all(|c| c.is_ascii_alphanumeric())
        && piece.chars().filter(char::is_ascii_digit).count() >= 4
        && piece.chars().filter(char::is_ascii_alphabetic).count() >= 4
}

/// Whether free text (an argument, a command line, a URL, any value) carries a credential
/// written out: a token that starts as issued ones do, a `NAME=value` or `"name": "value"` or
/// `Name: value` pair whose name says secret, a URL with a password or a token as its user, or
/// a word shaped like a generated token (a digest after `sha256:`, `@` or `#` aside).
pub(crate) fn text_holds_secret(text: &str) -> bool {
    let text = percent_decoded(&without_references(text));
    // The folders of a path are names a person chose, however they look.
    let is_path = path_like(text.trim());
    // Base64 (`+`, `/`, `=` inside): 32 characters or more, both cases and digits.
    if !is_path {
        let base64 =
            |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '_' | '-');
        for run in text.split(|c: char| !base64(c)) {
            if run.len() >= 32
                && !run.starts_with('/')
                && !run.contains("//")
                && run.chars().any(|c| c.is_ascii_uppercase())
                && run.chars().any(|c| c.is_ascii_lowercase())
                && run.chars().any(|c| c.is_ascii_digit())
                && run.contains(['/', '+', '='])
            {
                return true;
            }
        }
    }
    let bytes = text.as_bytes();
    let word_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    // Words: maximal runs of letters, digits, `_` and `-`.
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if word_char(bytes[i]) {
            let start = i;
            while i < bytes.len() && word_char(bytes[i]) {
                i += 1;
            }
            words.push((start, i));
        } else {
            i += 1;
        }
    }
    for (n, &(start, end)) in words.iter().enumerate() {
        let word = &text[start..end];
        if known_token_prefix(word) && word.len() >= 12 {
            return true;
        }
        let before = &text[..start];
        let digest = ["sha1:", "sha256:", "sha384:", "sha512:", "@", "#"]
            .iter()
            .any(|p| before.ends_with(p));
        if token_shaped(word) && !digest && !is_path {
            return true;
        }
        // A pair: this word, a separator (`=`, `:`, with quotes and spaces), then a value.
        let between_end = words.get(n + 1).map_or(text.len(), |w| w.0);
        let between = &text[end..between_end];
        let separated = between
            .trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace())
            .trim_start_matches(['=', ':'])
            .trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace())
            .is_empty()
            && between.contains(['=', ':'])
            && !between.contains("//");
        if separated && secret_named(word) {
            if let Some(&(v0, _)) = words.get(n + 1) {
                let rest = &text[v0..];
                let value: String = rest
                    .chars()
                    .take_while(|c| {
                        !c.is_whitespace() && !matches!(c, '"' | '\'' | ',' | '&' | ';' | '}')
                    })
                    .collect();
                let value = if ["Bearer", "bearer", "Basic", "Token"].contains(&value.as_str()) {
                    rest[value.len()..]
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_string()
                } else {
                    value
                };
                if value.len() >= 4 {
                    return true;
                }
            }
        }
    }
    // A URL: a user before an HTTP host (a person's name has no place there), a password, a
    // user that is a token; a path segment or a query value shaped like a key.
    let mut rest = text.as_str();
    while let Some(at) = rest.find("://") {
        let scheme = rest[..at]
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '+'))
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let after = &rest[at + 3..];
        let url_end = after
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            .unwrap_or(after.len());
        let url = &after[..url_end];
        let authority = url.split(['/', '?', '#']).next().unwrap_or("");
        if let Some((user, _host)) = authority.rsplit_once('@') {
            let web = matches!(scheme.as_str(), "http" | "https" | "ws" | "wss");
            match user.split_once(':') {
                Some((_, password)) if !password.is_empty() => return true,
                _ if web && !user.is_empty() => return true,
                _ if known_token_prefix(user) || user.len() >= 16 => return true,
                _ => {}
            }
        }
        let tail = &url[authority.len()..];
        let (path, query) = tail.split_once(['?', '#']).unwrap_or((tail, ""));
        if path.split('/').any(key_shaped) {
            return true;
        }
        if query
            .split(['&', ';', '#'])
            .filter_map(|pair| pair.split_once('='))
            .any(|(_, value)| key_shaped(value))
        {
            return true;
        }
        rest = after;
    }
    false
}

/// Whether command-line argument `arg` (coming after `previous`) is a credential written out:
/// the value of `--token=…` (or `--auth:…`), the argument after `--api-key` (whatever it starts
/// with), or text that carries one ([`text_holds_secret`]). Gives how many leading bytes are
/// not secret (`--token=`), so that only the value is replaced. A package name or a path is
/// not a secret: arguments are judged by their flag and by what they hold, not by their length.
pub(crate) fn secret_in_arg(previous: &str, arg: &str) -> Option<usize> {
    let written = without_references(arg);
    if written.trim().is_empty() {
        return None;
    }
    if arg.starts_with('-') {
        if let Some(at) = arg.find(['=', ':']) {
            let (key, value) = (&arg[..at], &arg[at + 1..]);
            if secret_named(key) && without_references(value).trim().len() >= 4 {
                return Some(at + 1);
            }
        }
    }
    let flag_names_secret =
        previous.starts_with('-') && !previous.contains(['=', ':']) && secret_named(previous);
    if flag_names_secret && written.trim().len() >= 4 {
        return Some(0);
    }
    text_holds_secret(arg).then_some(0)
}

/// Every field of a server entry that holds a credential written out, named as the editor
/// names fields (`env.GITHUB_TOKEN`, `headers.Authorization`, `args[3]`, `url`): what must be
/// a `${VAR}` before the entry goes into a file shared with the project.
pub fn written_secrets(raw: &Value) -> Vec<String> {
    fn walk(path: &str, value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    let field = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    match v {
                        Value::String(text) => {
                            // A header named for a credential holds one, however short.
                            let written = without_references(text);
                            let written = written.trim();
                            let written = ["Bearer", "bearer", "Basic", "basic", "Token", "token"]
                                .iter()
                                .find_map(|w| written.strip_prefix(w))
                                .unwrap_or(written);
                            let named_header = path == "headers"
                                && secret_named(key)
                                && !written.trim().is_empty();
                            if named_header || looks_secret(key, text) {
                                out.push(field);
                            }
                        }
                        Value::Array(items) if path.is_empty() && key == "args" => {
                            let mut previous = "";
                            for (i, item) in items.iter().enumerate() {
                                match item.as_str() {
                                    Some(text) => {
                                        if secret_in_arg(previous, text).is_some() {
                                            out.push(format!("args[{i}]"));
                                        }
                                        previous = text;
                                    }
                                    None => walk(&format!("args[{i}]"), item, out),
                                }
                            }
                        }
                        other => walk(&field, other, out),
                    }
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let field = format!("{path}[{i}]");
                    match item {
                        Value::String(text) if text_holds_secret(text) => out.push(field),
                        other => walk(&field, other, out),
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", raw, &mut out);
    out
}

/// A `${VAR}` name for a secret: the key in capitals, with the server's name for headers.
fn variable_for(server: &str, key: &str, header: bool) -> String {
    let clean = |s: &str| {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect::<String>()
    };
    if header {
        let key = if key.eq_ignore_ascii_case("authorization") {
            "TOKEN"
        } else {
            key
        };
        format!("{}_{}", clean(server), clean(key))
    } else {
        clean(key)
    }
}

fn secret_warnings(draft: &ServerDraft) -> Vec<DraftNote> {
    let shared = if draft.scope == Scope::Project {
        " .mcp.json is shared with everyone who has the project;"
    } else {
        ""
    };
    let mut out = Vec::new();
    let (rows, field, header) = match draft.transport {
        TransportKind::Stdio => (&draft.env, "env", false),
        _ => (&draft.headers, "headers", true),
    };
    for (i, row) in rows.iter().enumerate() {
        if row.kept || !looks_secret(&row.key, &row.value) {
            continue;
        }
        let variable = variable_for(&draft.name, row.key.trim(), header);
        let value = row.value.trim();
        let suggestion = match value.split_once(' ') {
            Some((scheme, _)) if header && ["Bearer", "bearer", "Basic"].contains(&scheme) => {
                format!("{scheme} ${{{variable}}}")
            }
            _ => format!("${{{variable}}}"),
        };
        out.push(DraftNote {
            field: format!("{field}.{i}.value"),
            message: format!(
                "this looks like a secret; the file would hold it in plain text.{shared} use {suggestion} and set {variable} in your environment instead"
            ),
            suggestion: Some(suggestion),
        });
    }
    out
}

/// A `${VAR}` that is not set: where it is in the form, and that it stays literal.
fn unset_warning(draft: &ServerDraft, missing: &MissingVariable) -> DraftNote {
    let field = row_field(draft, &missing.field);
    note(
        &field,
        &format!(
            "${{{}}} is not set in this environment and has no default: it would stay as written",
            missing.variable
        ),
    )
}

/// `env.TOKEN` → `env.2.value` (the row it is in); `args[1]` → `args.1`; others unchanged.
fn row_field(draft: &ServerDraft, field: &str) -> String {
    if let Some(index) = field
        .strip_prefix("args[")
        .and_then(|r| r.strip_suffix(']'))
    {
        return format!("args.{index}");
    }
    for (prefix, rows) in [("env.", &draft.env), ("headers.", &draft.headers)] {
        if let Some(key) = field.strip_prefix(prefix) {
            if let Some(i) = rows.iter().position(|r| r.key.trim() == key) {
                return format!("{prefix}{i}.value");
            }
        }
    }
    field.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_recognised_by_name_by_shape_and_not_when_already_a_reference() {
        assert!(
            looks_secret("GITHUB_TOKEN", "abc123def456"),
            "a key named TOKEN"
        );
        assert!(looks_secret(
            "Authorization",
            "Bearer ghp_16C7e42F292c6912E7710c838347Ae178B4a"
        ));
        assert!(
            looks_secret("X-Whatever", "sk-live-abcdefghijklmnop"),
            "a known prefix"
        );
        assert!(
            !looks_secret("GITHUB_TOKEN", "${GITHUB_TOKEN}"),
            "already a reference"
        );
        assert!(!looks_secret("LOG_LEVEL", "debug"), "a plain setting");
        assert!(!looks_secret("ROOT", "/home/ada/projects/2026"), "a path");
    }

    #[test]
    fn credentials_are_found_in_arguments_and_urls_not_in_package_names() {
        let entry = serde_json::json!({
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github@2025.4.8", "--token", "abcdefgh12345678",
                     "--api-key=s3cr3tvalue", "--verbose", "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                     "https://u:p@db.example/x", "/home/ada/projects/2026-notes"],
            "env": {"LOG_LEVEL": "debug", "GITHUB_TOKEN": "abc123def456"},
            "nested": {"options": [{"password": "hunter2hunter2"}]}
        });
        assert_eq!(
            written_secrets(&entry),
            [
                "args[3]",
                "args[4]",
                "args[6]",
                "args[7]",
                "env.GITHUB_TOKEN",
                "nested.options[0].password"
            ]
        );
        assert_eq!(
            secret_in_arg("", "--api-key=s3cr3tvalue"),
            Some("--api-key=".len())
        );
        assert_eq!(secret_in_arg("--token", "${GH}"), None, "a reference");
        assert_eq!(secret_in_arg("-y", "@scope/package-name@1.2.3"), None);
        let url = |u: &str| written_secrets(&serde_json::json!({"type": "http", "url": u}));
        assert_eq!(url("https://mcp.example/mcp?api_key=abcdef123456"), ["url"]);
        assert_eq!(
            url("https://ghp_16C7e42F292c6912E77@mcp.example/mcp"),
            ["url"]
        );
        assert!(url("https://mcp.example/mcp?ref=docs&page=2").is_empty());
        assert!(url("${BASE}/mcp?token=${TOKEN}").is_empty());
        // What a reviewer slipped past a first version, each written out in a shared file.
        let tok = "Zq8vR2mK9xLp4TnW7yHc3bJd";
        let ghp = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
        for args in [
            vec!["-t".to_string(), tok.to_string()],
            vec![
                "run".into(),
                "-e".into(),
                format!("GITHUB_PERSONAL_ACCESS_TOKEN={ghp}"),
                "ghcr.io/github/github-mcp-server".into(),
            ],
            vec![
                "mcp-remote".into(),
                "https://x/mcp".into(),
                "--header".into(),
                "Authorization: Bearer abc123".into(),
            ],
            vec![
                "--header".into(),
                "Authorization".into(),
                format!("Bearer {tok}"),
            ],
            vec![format!("--env=API_KEY={tok}")],
            vec!["--key".into(), "hunter2hunter2".into()],
            vec!["--pass".into(), "hunter2hunter2".into()],
            vec![format!("--auth:{tok}")],
            vec!["--token".into(), format!("-{tok}")],
            vec![format!("--token={tok}${{}}")],
            vec![
                "sh".into(),
                "-c".into(),
                format!("API_TOKEN={tok} exec server"),
            ],
            vec!["--config".into(), format!("{{\"apiKey\":\"{tok}\"}}")],
        ] {
            let found = written_secrets(&serde_json::json!({"command": "x", "args": args}));
            assert!(!found.is_empty(), "not found in {args:?}");
        }
        for (key, value) in [
            ("DATABASE_URL", "postgres://admin:s3cretpw@db.internal/prod"),
            ("DB_PASS", "correcthorsebatterystaple"),
            ("Authorization", "Bearer abc123"),
            ("Cookie", "session=abcdefghijklmnopqrstuvwxyz"),
        ] {
            assert!(looks_secret(key, value), "{key}: {value}");
        }
        assert!(!url("https://x.example/mcp?api%5Fkey=hunter2hunter").is_empty());
        assert!(!url("https://x.example/mcp?key=hunter2hunter").is_empty());
        assert!(!url(&format!("https://x.example/mcp/{tok}")).is_empty());
        assert!(!written_secrets(&serde_json::json!({"headersHelper": format!("echo '{{\"Authorization\":\"Bearer {tok}\"}}'")})).is_empty());
        // Nor are ordinary settings taken for secrets.
        for arg in ["--transport", "stdio", "ghcr.io/github/github-mcp-server@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "--port=8080", "--log-level:debug", "@upstash/context7-mcp@1.0.14", "--author", "ada"] {
            assert_eq!(secret_in_arg("", arg), None, "{arg}");
        }
        // A second reviewer's: base64 with `/` and `+`, a key in an SSE URL's path or query,
        // a short value of a header named for a key, a user before an HTTP host.
        for entry in [
            serde_json::json!({"command": "aws-mcp", "args": ["--region", "us-east-1", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]}),
            serde_json::json!({"command": "aws-mcp", "args": ["--access", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]}),
            serde_json::json!({"type": "sse", "url": "https://mcp.example.com/s/k3j9x2m4p7q8r1t5w6y0z2a4/sse"}),
            serde_json::json!({"type": "sse", "url": "https://mcp.example.com/sse?access=k3j9x2m4p7q8r1t5"}),
            serde_json::json!({"type": "http", "url": "https://x.example/mcp", "headers": {"X-API-KEY": "a1b2c3d"}}),
            serde_json::json!({"type": "http", "url": "https://apikey123@mcp.example.com/mcp"}),
        ] {
            assert!(!written_secrets(&entry).is_empty(), "not found in {entry}");
        }
        // And what ordinary servers carry moves: none of these is a credential.
        for entry in [
            serde_json::json!({"command": "x", "env": {
                "DEFAULT_MODEL": "claude-3-5-sonnet-20241022",
                "NODE_OPTIONS": "--max-old-space-size=4096",
                "DB_HOST": "db-prod-01.internal.example.com",
                "CONFLUENCE_USERNAME": "alice.smith2024@company.com",
                "GOOGLE_APPLICATION_CREDENTIALS": "/home/u/.config/gcloud/sa.json"}}),
            serde_json::json!({"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/alice/Code/MyProject-2024-Backend"]}),
            serde_json::json!({"command": "uvx", "args": ["--from", "git+ssh://git@github.com/org/tool@0123456789abcdef0123456789abcdef01234567", "tool"]}),
            serde_json::json!({"type": "sse", "url": "https://mcp.linear.app/sse"}),
            serde_json::json!({"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GITHUB_PAT}"}}),
        ] {
            assert_eq!(written_secrets(&entry), Vec::<String>::new(), "{entry}");
        }
        assert!(!looks_secret("AUTH_MODE", "oauth"));
        assert!(!looks_secret(
            "POSTGRES_URL",
            "postgres://db.internal:5432/prod"
        ));
    }

    #[test]
    fn suggested_variables_are_named_after_the_key_or_the_server() {
        assert_eq!(variable_for("github", "api-key", false), "API_KEY");
        assert_eq!(
            variable_for("git-hub", "Authorization", true),
            "GIT_HUB_TOKEN"
        );
    }

    #[test]
    fn urls_are_checked_per_transport() {
        assert_eq!(
            url_problem(TransportKind::Http, "https://example.com/mcp"),
            None
        );
        assert_eq!(
            url_problem(TransportKind::Http, "${BASE}/mcp"),
            None,
            "a reference is checked when used"
        );
        assert!(url_problem(TransportKind::Http, "example.com").is_some());
        assert!(
            url_problem(TransportKind::Ws, "https://example.com").is_some(),
            "ws needs ws:// or wss://"
        );
        assert!(
            url_problem(TransportKind::Sse, "http:///sse").is_some(),
            "no host"
        );
    }

    #[test]
    fn a_diff_shows_changed_lines_with_context() {
        let lines = diff("a\nb\nc\n", "a\nB\nc\n");
        let shown: Vec<String> = lines
            .iter()
            .map(|l| format!("{}{}", l.sign, l.text))
            .collect();
        assert_eq!(shown, [" a", "-b", "+B", " c"]);
    }

    #[test]
    fn a_diff_never_carries_a_secret() {
        let before = "{\n  \"env\": {\n    \"GITHUB_TOKEN\": \"ghp_abcdefghij1234567890\",\n    \"LEVEL\": \"debug\"\n  }\n}\n";
        let after = before.replace("debug", "info");
        let shown: Vec<String> = diff(before, &after).into_iter().map(|l| l.text).collect();
        assert!(
            shown.iter().any(|l| l.contains("GITHUB_TOKEN")),
            "the line is shown: {shown:?}"
        );
        assert!(
            !shown.iter().any(|l| l.contains("ghp_")),
            "its value is not: {shown:?}"
        );
        assert!(
            shown.iter().any(|l| l.contains("\"info\"")),
            "plain values are: {shown:?}"
        );
    }

    #[test]
    fn masking_hides_secret_values_at_any_depth_and_keeps_the_rest() {
        let entry = serde_json::json!({
            "command": "gh",
            "env": { "GITHUB_TOKEN": "ghp_abcdefghijklmnop1234", "LEVEL": "debug" },
            "headers": { "Authorization": "Bearer abcdefghijklmnopqrstuvwxyz123" }
        });
        let shown = masked(&entry).to_string();
        assert!(
            !shown.contains("ghp_") && !shown.contains("abcdefghijklmnopqrstuvwxyz123"),
            "{shown}"
        );
        assert!(
            shown.contains("\"debug\"") && shown.contains("\"gh\""),
            "{shown}"
        );
    }

    #[test]
    fn replacing_keeps_the_entry_in_its_place() {
        let mut servers: Map<String, Value> =
            serde_json::from_str(r#"{"a":1,"b":2,"c":3}"#).expect("json");
        replace_in_place(&mut servers, "b", "renamed", Value::from(9));
        assert_eq!(
            serde_json::to_string(&servers).expect("json"),
            r#"{"a":1,"renamed":9,"c":3}"#
        );
    }
}
