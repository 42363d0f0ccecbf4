//! The operations that both doors — the app's Tauri commands and `mcpctl` — call.
//!
//! Each one takes [`Locations`] and returns plain data that serializes to the shapes the UI
//! (through generated TypeScript bindings) and `mcpctl --json` document. Reading never fails
//! as a whole: a broken file is a [`ConfigProblem`] in the answer and the other scopes keep
//! working, as in Claude Code. Writing goes through [`crate::config::document::update`], so
//! every change is an atomic read-modify-write of the latest file under Claude Code's lock.

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::approval::{self, Approval, ApprovalSettings};
use crate::config::catalog::{Catalog, CatalogEntry, CatalogProblem};
use crate::config::document::{self, NewFileMode};
use crate::config::draft::{self, servers_location, KeyValue};
use crate::config::entry::{claude_order, parse_entry_value, ServerConfig, TransportKind};
use crate::config::expand::MissingVariable;
use crate::config::interop::{self, Client, ExportReport};
use crate::config::names::validate_new_name;
use crate::config::permissions::{self, Rule, RuleInForce, SettingsFile};
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
    /// Set when another entry of the same name is used instead (a more specific scope, a
    /// closer `.mcp.json`, or managed configuration).
    pub shadowed_by: Option<Scope>,
    /// Project servers only: whether the person approved it. Pending and rejected servers
    /// never start.
    pub approval: Option<Approval>,
    /// A pending project server approved by one of the project's own settings files, which
    /// counts only once the folder is trusted: that file. Show "Trust this folder".
    pub waiting_for_trust: Option<String>,
    /// An approved project server whose entry changed since the person approved it here:
    /// it does not start until they review it and approve it again.
    pub changed_since_approval: bool,
    /// False when disabled for this project (kept in the file, not started).
    pub enabled: bool,
    /// Managed entries cannot be changed here.
    pub read_only: bool,
    /// The folder brought it (its `.mcp.json`, a skills folder, an agent file): approving it
    /// waits for the folder's trust.
    pub from_project: bool,
    /// Whether it starts: used, enabled, allowed by policy and, for a server that came with the
    /// folder, approved in a trusted folder (Claude Code's session asks about the folder first).
    pub will_start: bool,
    /// Enterprise policy keeps it from starting: the rule and the file. Claude Code drops such
    /// a server without a word; show it dimmed with this.
    pub blocked: Option<crate::config::policy::PolicyBlock>,
    /// A plugin server: its plugin's id (`NAME@MARKETPLACE`).
    pub plugin: Option<String>,
    /// A plugin server Claude Code skips as a duplicate: Claude Code's words for it.
    pub skipped: Option<String>,
    /// Where it stands before any connection; [`crate::config::catalog::Standing::words`] are
    /// Claude Code's status words for it.
    pub standing: crate::config::catalog::Standing,
    /// SHA-256 of the fields that affect the connection; equal hashes need no restart.
    pub hash: String,
    /// `${VAR}`s that are not set and have no default; they stay literal.
    pub missing_variables: Vec<MissingVariable>,
}

impl ServerSummary {
    fn of(entry: &CatalogEntry) -> Self {
        let (_, missing_variables) = entry.expanded();
        ServerSummary {
            name: entry.name.clone(),
            scope: entry.scope,
            transport: entry.config.kind(),
            target: entry.config.target(),
            source: entry.path.display().to_string(),
            shadowed_by: entry.shadowed_by,
            approval: entry.approval,
            waiting_for_trust: entry
                .waiting_for_trust
                .as_ref()
                .map(|p| p.display().to_string()),
            changed_since_approval: entry.changed_since_approval,
            enabled: !entry.disabled,
            read_only: matches!(entry.scope, Scope::Managed | Scope::Plugin | Scope::Agent),
            from_project: entry.from_project(),
            will_start: entry.will_start(),
            blocked: entry.blocked.clone(),
            standing: entry.standing(),
            plugin: entry.plugin.clone(),
            skipped: entry.duplicate_words(),
            hash: entry.hash.clone(),
            missing_variables,
        }
    }
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
    fn of(problem: &CatalogProblem) -> Self {
        let err = &problem.error;
        let (line, column) = match err {
            ConfigError::Syntax { line, column, .. } => (Some(*line), Some(*column)),
            _ => (None, None),
        };
        let (path, server) = match err {
            ConfigError::Entry { path, name, .. } => {
                (path.display().to_string(), Some(name.clone()))
            }
            ConfigError::Syntax { path, .. }
            | ConfigError::Read { path, .. }
            | ConfigError::Shape { path, .. }
            | ConfigError::Write { path, .. } => (path.display().to_string(), None),
            _ => (String::new(), None),
        };
        ConfigProblem {
            code: err.code(),
            scope: problem.scope,
            path,
            server,
            line,
            column,
            message: err.to_string(),
        }
    }
}

/// Every server entry of every scope, and the problems met reading them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerList {
    /// The project folder, absolute.
    pub project_dir: String,
    /// `managed-mcp.json` when present: it has exclusive control and nothing can be changed.
    pub managed: Option<String>,
    /// Whether the project folder is trusted; until it is, the project's own settings
    /// approve nothing and none of its servers starts ([`crate::config::trust`]).
    pub trusted: bool,
    /// Managed first, then local, project (closest file first) and user; file order within.
    pub servers: Vec<ServerSummary>,
    pub problems: Vec<ConfigProblem>,
    /// Claude Code plugins, on and off, with their servers' names.
    pub plugins: Vec<crate::config::plugins::Plugin>,
}

/// Lists the servers of every scope. Never fails: unreadable files become problems.
pub fn list_servers(locations: &Locations) -> ServerList {
    let catalog = Catalog::load(locations);
    ServerList {
        project_dir: locations.project.display().to_string(),
        managed: catalog.managed.as_ref().map(|p| p.display().to_string()),
        trusted: crate::config::trust::is_trusted(locations),
        servers: catalog.entries.iter().map(ServerSummary::of).collect(),
        problems: catalog.problems.iter().map(ConfigProblem::of).collect(),
        plugins: catalog.plugins.clone(),
    }
}

/// One server in full: the entry used, its JSON as in the file, and the entries it shadows.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerDetail {
    pub summary: ServerSummary,
    /// The entry as written in its file, unknown keys included.
    pub config: Value,
    /// Other entries of the same name, not used.
    pub shadowed: Vec<ServerSummary>,
}

/// The entry used for `name`, with the ones it shadows.
pub fn get_server(locations: &Locations, name: &str) -> Result<ServerDetail, ConfigError> {
    let catalog = Catalog::load(locations);
    let mut named = catalog.named(name);
    let winner = named.next().ok_or_else(|| ConfigError::ServerNotFound {
        name: name.to_string(),
        scope: None,
    })?;
    Ok(ServerDetail {
        summary: ServerSummary::of(winner),
        config: winner.raw.clone(),
        shadowed: named.map(ServerSummary::of).collect(),
    })
}

/// Where a change was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Written {
    pub scope: Scope,
    pub path: String,
}

/// Scopes a person can write to.
fn writable(scope: Scope) -> Result<(), ConfigError> {
    match scope {
        Scope::Managed => Err(ConfigError::Invalid(
            "the managed scope is read-only: it belongs to the administrator".into(),
        )),
        Scope::Plugin => Err(ConfigError::Invalid(
            "plugin servers are read-only: they come with their plugin (turn the plugin on or off, or disable the server for this project)".into(),
        )),
        Scope::Agent => Err(ConfigError::Invalid(
            "a subagent's own servers are read-only here: they are defined in its agent file's frontmatter".into(),
        )),
        _ => Ok(()),
    }
}

fn refuse_when_managed(locations: &Locations, verb: &'static str) -> Result<(), ConfigError> {
    let managed = locations.managed_mcp_json();
    if managed.exists() {
        return Err(ConfigError::Managed {
            path: managed,
            verb,
        });
    }
    Ok(())
}

/// Refuses, with Claude Code's words, a server that enterprise policy blocks.
fn refuse_when_blocked(
    locations: &Locations,
    name: &str,
    config: &ServerConfig,
    verb: &str,
) -> Result<(), ConfigError> {
    let trusted = crate::config::trust::is_trusted(locations);
    match crate::config::policy::Policy::load(locations, trusted).check(name, config, false, false)
    {
        Some(block) => Err(ConfigError::Policy {
            message: block.refusal(verb, name),
            rule: block.describe(),
        }),
        None => Ok(()),
    }
}

/// Adds a server to a scope, written as `claude mcp add` writes it. Fails when the name
/// breaks the rules or already exists in that scope; nothing is written then.
pub fn add_server(
    locations: &Locations,
    name: &str,
    scope: Scope,
    config: &ServerConfig,
    extra: &Map<String, Value>,
) -> Result<Written, ConfigError> {
    insert_entry(locations, name, scope, config.to_json(extra))
}

pub(crate) fn insert_entry(
    locations: &Locations,
    name: &str,
    scope: Scope,
    entry: Value,
) -> Result<Written, ConfigError> {
    refuse_when_managed(locations, "add")?;
    if let Ok(config) = parse_entry_value(&entry) {
        refuse_when_blocked(locations, name, &config, "add")?;
    }
    validate_new_name(name)?;
    writable(scope)?;
    let (path, keys, mode) = servers_location(locations, scope);
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    locations.confine(&path)?;
    document::update(&path, mode, |value| {
        let servers = document::object_at(&path, value, &keys)?;
        if servers.contains_key(name) {
            return Err(ConfigError::ServerExists {
                name: name.to_string(),
                scope,
                path: path.clone(),
            });
        }
        servers.insert(name.to_string(), entry);
        Ok(())
    })?;
    Ok(Written {
        scope,
        path: path.display().to_string(),
    })
}

/// Validates an `add-json` entry without writing it: the config, and the entry as written.
pub fn parse_add_json(name: &str, json: &str) -> Result<(ServerConfig, Value), ConfigError> {
    let value: Value = serde_json::from_str(json).map_err(|err| {
        ConfigError::Invalid(format!("the JSON for \"{name}\" does not parse: {err}"))
    })?;
    let config = parse_entry_value(&value)
        .map_err(|message| ConfigError::Invalid(format!("\"{name}\": {message}")))?;
    let entry = claude_order(
        value.as_object().expect("a parsed entry is an object"),
        config.kind(),
    );
    Ok((config, Value::Object(entry)))
}

/// `claude mcp add-json`: the JSON is one entry; it is validated by the same rules as a file
/// entry and written with known keys in Claude Code's order and unknown keys kept after them.
pub fn add_json(
    locations: &Locations,
    name: &str,
    scope: Scope,
    json: &str,
) -> Result<(Written, ServerConfig), ConfigError> {
    let (config, entry) = parse_add_json(name, json)?;
    let written = insert_entry(locations, name, scope, entry)?;
    Ok((written, config))
}

/// Removes a server. Without a scope, the name must exist in exactly one writable scope.
pub fn remove_server(
    locations: &Locations,
    name: &str,
    scope: Option<Scope>,
) -> Result<Written, ConfigError> {
    refuse_when_managed(locations, "remove")?;
    let catalog = Catalog::load(locations);
    let candidates: Vec<&CatalogEntry> = catalog
        .named(name)
        .filter(|e| e.scope != Scope::Managed && scope.is_none_or(|s| s == e.scope))
        .collect();
    let entry = match candidates.as_slice() {
        [] => {
            return Err(ConfigError::ServerNotFound {
                name: name.to_string(),
                scope,
            })
        }
        [one] => *one,
        many => {
            let mut scopes: Vec<Scope> = many.iter().map(|e| e.scope).collect();
            scopes.dedup();
            if scopes.len() > 1 {
                return Err(ConfigError::AmbiguousScope {
                    name: name.to_string(),
                    scopes,
                });
            }
            many[0]
        }
    };
    // The entry's own file (a project entry may be in a closer .mcp.json than the one new
    // servers go to), with its scope's keys and mode.
    let (_, keys, mode) = servers_location(locations, entry.scope);
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let path = entry.path.clone();
    locations.confine(&path)?;
    document::update(&path, mode, |value| {
        let servers = document::object_at(&path, value, &keys)?;
        servers
            .shift_remove(name)
            .map(|_| ())
            .ok_or_else(|| ConfigError::ServerNotFound {
                name: name.to_string(),
                scope: Some(entry.scope),
            })
    })?;
    Ok(Written {
        scope: entry.scope,
        path: path.display().to_string(),
    })
}

/// Writes Claude Code's permission rule for `tool` of `server` (its every tool when `None`)
/// into `file`, or removes it there when `rule` is `None`; then the rule in force, read from
/// every settings file.
pub fn set_tool_rule(
    locations: &Locations,
    server: &str,
    tool: Option<&str>,
    rule: Option<Rule>,
    file: SettingsFile,
) -> Result<RuleInForce, ConfigError> {
    permissions::set_rule(locations, server, tool, rule, file)?;
    Ok(permissions::rule_in_force(locations, server, tool))
}

/// The permission rule Claude Code applies to `tool` of `server` (to the server when `None`).
pub fn tool_rule(locations: &Locations, server: &str, tool: Option<&str>) -> RuleInForce {
    permissions::rule_in_force(locations, server, tool)
}

/// Enables or disables a server for this project without deleting it, where Claude Code keeps
/// that choice: `projects["<root>"].disabledMcpServers` in `~/.claude.json`.
pub fn set_enabled(
    locations: &Locations,
    name: &str,
    enabled: bool,
) -> Result<Written, ConfigError> {
    refuse_when_managed(locations, "change")?;
    let catalog = Catalog::load(locations);
    let entry = catalog
        .named(name)
        .next()
        .ok_or_else(|| ConfigError::ServerNotFound {
            name: name.to_string(),
            scope: None,
        })?;
    if entry.scope == Scope::Agent {
        return Err(ConfigError::Invalid(format!(
            "\"{name}\" is a subagent's own server: Claude Code runs it only while that subagent runs, and no setting turns it on or off; approve it here to try it, or remove it from {}",
            entry.path.display()
        )));
    }
    let path = locations.claude_json();
    let key = locations.project_key();
    document::update(&path, NewFileMode::Private, |value| {
        let project = document::object_at(&path, value, &["projects", &key])?;
        let list = project
            .entry("disabledMcpServers")
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            return Err(ConfigError::Shape {
                path: path.clone(),
                message: "`disabledMcpServers` must be a list".into(),
            });
        };
        let present = list.iter().any(|v| v.as_str() == Some(name));
        if enabled {
            list.retain(|v| v.as_str() != Some(name));
        } else if !present {
            list.push(Value::String(name.to_string()));
        }
        Ok(())
    })?;
    Ok(Written {
        scope: entry.scope,
        path: path.display().to_string(),
    })
}

/// Approves or rejects a project server in `.claude/settings.local.json`. Returns the approval
/// that results; approving fails while another settings file still rejects it (rejection wins).
pub fn set_approval(
    locations: &Locations,
    name: &str,
    approve: bool,
) -> Result<Approval, ConfigError> {
    refuse_when_managed(locations, "approve")?;
    let catalog = Catalog::load(locations);
    if let Some(entry) = catalog.named(name).find(|e| e.scope == Scope::Agent) {
        // Claude Code asks nothing for a subagent's own server; the approval is ours, kept in
        // the app's data and bound to the entry's content.
        if approve && !entry.trusted_folder {
            return Err(ConfigError::Untrusted {
                folder: locations.project_root(),
                what: format!(
                    "\"{name}\" comes from one of its agent files and starts only once it is."
                ),
            });
        }
        approval::record_agent_approval(
            locations,
            name,
            Some(&entry.hash).filter(|_| approve).map(String::as_str),
        )?;
        return Ok(if approve {
            Approval::Approved
        } else {
            Approval::Pending
        });
    }
    if !catalog.named(name).any(CatalogEntry::from_project) {
        return Err(ConfigError::ServerNotFound {
            name: name.to_string(),
            scope: Some(Scope::Project),
        });
    }
    if approve && !crate::config::trust::is_trusted(locations) {
        return Err(ConfigError::Untrusted {
            folder: locations.project_root(),
            what: format!(
                "an approval of \"{name}\" in .claude/settings.local.json would not count until it is."
            ),
        });
    }
    if let Some(block) = catalog
        .named(name)
        .find(|e| e.from_project())
        .and_then(|e| e.blocked.as_ref())
        .filter(|_| approve)
    {
        return Err(ConfigError::Policy {
            message: block.refusal("approve", name),
            rule: block.describe(),
        });
    }
    approval::record_choice(locations, name, approve)?;
    let hash = catalog
        .named(name)
        .find(|e| e.from_project())
        .map(|e| e.hash.clone());
    approval::record_approved_hash(locations, name, hash.as_deref().filter(|_| approve))?;
    let settings = ApprovalSettings::load(locations);
    let status = settings.status(name);
    if approve && status == Approval::Rejected {
        let files: Vec<String> = settings
            .rejected_in(name)
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        return Err(ConfigError::Invalid(format!(
            "\"{name}\" is still rejected by {}: a rejection wins over an approval; remove it there",
            files.join(", ")
        )));
    }
    Ok(status)
}

/// Turns a Claude Code plugin on or off in a settings file; its servers follow.
pub fn set_plugin_enabled(
    locations: &Locations,
    id: &str,
    enabled: bool,
    file: crate::config::permissions::SettingsFile,
) -> Result<Written, ConfigError> {
    let path = crate::config::plugins::set_enabled(locations, id, enabled, file)?;
    Ok(Written {
        scope: Scope::Plugin,
        path: path.display().to_string(),
    })
}

/// Approves every project server, now and later (`enableAllProjectMcpServers` in
/// `.claude/settings.local.json`), as Claude Code's "Use this and all future MCP servers in
/// this project"; the folder must be trusted first. Returns the servers approved now.
pub fn approve_all_project_servers(locations: &Locations) -> Result<Vec<String>, ConfigError> {
    refuse_when_managed(locations, "approve")?;
    if !crate::config::trust::is_trusted(locations) {
        return Err(ConfigError::Untrusted {
            folder: locations.project_root(),
            what: "enableAllProjectMcpServers in .claude/settings.local.json would not count until it is.".into(),
        });
    }
    approval::approve_all(locations)?;
    let catalog = Catalog::load(locations);
    let mut approved = Vec::new();
    // Every entry the project supplies, skills folder plugins' too: each approval is bound to
    // the entry as it is now, so a later change asks again.
    for entry in catalog.entries.iter().filter(|e| e.from_project()) {
        if entry.approval == Some(Approval::Approved) {
            approval::record_approved_hash(locations, &entry.name, Some(&entry.hash))?;
            approved.push(entry.name.clone());
        }
    }
    Ok(approved)
}

/// What stays decided after the project choices were reset: by other settings files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ResetChoices {
    /// Project servers another settings file still approves: they start without asking.
    pub still_approved: Vec<String>,
    /// Project servers another settings file still rejects.
    pub still_rejected: Vec<String>,
}

/// `claude mcp reset-project-choices` ([`approval::reset_choices`]), and which servers other
/// settings files still decide, as Claude Code says after it.
pub fn reset_project_choices(locations: &Locations) -> Result<ResetChoices, ConfigError> {
    approval::reset_choices(locations)?;
    let catalog = Catalog::load(locations);
    let mut report = ResetChoices {
        still_approved: Vec::new(),
        still_rejected: Vec::new(),
    };
    for entry in catalog
        .entries
        .iter()
        // A project entry that gives its name to the user's while it is not approved is
        // still the project's to decide.
        .filter(|e| e.from_project() && (e.shadowed_by.is_none() || !e.takes_part()))
    {
        match entry.approval {
            Some(Approval::Approved) => report.still_approved.push(entry.name.clone()),
            Some(Approval::Rejected) => report.still_rejected.push(entry.name.clone()),
            _ => {}
        }
    }
    Ok(report)
}

/// Records that the person trusts this project folder, in `~/.claude.json` where Claude Code
/// keeps it; the project's own approvals count from then on.
pub fn trust_folder(
    locations: &Locations,
) -> Result<crate::config::folder::FolderTrust, ConfigError> {
    crate::config::trust::trust(locations)?;
    Ok(crate::config::folder::folder_trust(locations))
}

/// Whether a path is one of the files this project's configuration is read from.
pub fn is_config_file(locations: &Locations, path: &Path) -> bool {
    path == locations.claude_json()
        || path == locations.managed_mcp_json()
        || path == locations.user_settings()
        || locations.project_settings_files().iter().any(|p| p == path)
        || locations.project_mcp_jsons().iter().any(|p| p == path)
        || crate::config::policy::managed_settings_files(locations)
            .iter()
            .any(|p| p == path)
        || path.parent() == Some(locations.managed_dir.join("managed-settings.d").as_path())
        || ["installed_plugins.json", "known_marketplaces.json"]
            .iter()
            .any(|f| path == crate::config::plugins::plugins_root(locations).join(f))
}

/// A project Claude Code has been used in (a key of `projects` in `~/.claude.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RecentProject {
    pub path: String,
    /// How many servers its local scope has.
    pub local_servers: u32,
    /// Whether it is the project open now.
    pub current: bool,
}

/// The projects of `~/.claude.json` whose folder still exists, in the file's order, the open
/// one included. An unreadable file gives none (the list of servers reports the problem).
pub fn recent_projects(locations: &Locations) -> Vec<RecentProject> {
    let Ok(Some(document)) = document::read(&locations.claude_json()) else {
        return Vec::new();
    };
    let Some(projects) = document.value.get("projects").and_then(Value::as_object) else {
        return Vec::new();
    };
    let current = locations.project_key();
    projects
        .iter()
        .filter(|(path, _)| Path::new(path).is_dir())
        .map(|(path, project)| RecentProject {
            path: path.clone(),
            local_servers: project
                .get("mcpServers")
                .and_then(Value::as_object)
                .map_or(0, |s| u32::try_from(s.len()).unwrap_or(u32::MAX)),
            current: *path == current,
        })
        .collect()
}

/// One server an import would add, as the window shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportPreviewItem {
    pub name: String,
    pub transport: TransportKind,
    pub target: String,
    /// The `${input:…}` ids it uses.
    pub inputs: Vec<String>,
    /// The entry that would be written, pretty-printed, secret-looking values masked.
    pub entry: String,
}

/// What an import would do, as the window shows it; nothing is written while making it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportPreview {
    pub source: String,
    pub scope: Scope,
    pub add: Vec<ImportPreviewItem>,
    pub skipped: Vec<interop::Skipped>,
    pub conflicts: Vec<interop::Skipped>,
    pub inputs: Vec<interop::InputPrompt>,
}

/// [`interop::plan_import`] from a client's usual file, as the window may show it.
pub fn import_preview(
    locations: &Locations,
    client: Client,
    scope: Scope,
) -> Result<ImportPreview, ConfigError> {
    let plan = interop::plan_import(locations, client, None, scope)?;
    Ok(ImportPreview {
        source: plan.source,
        scope: plan.scope,
        add: plan
            .add
            .into_iter()
            .map(|item| ImportPreviewItem {
                entry: serde_json::to_string_pretty(&draft::masked(&item.entry))
                    .unwrap_or_default(),
                name: item.name,
                transport: item.transport,
                target: item.target,
                inputs: item.inputs,
            })
            .collect(),
        skipped: plan.skipped,
        conflicts: plan.conflicts,
        inputs: plan.inputs,
    })
}

/// Plans the import from a client's usual file again and writes it, with the `${input:…}`
/// values given. Returns the names added.
pub fn import_servers(
    locations: &Locations,
    client: Client,
    scope: Scope,
    inputs: &[KeyValue],
) -> Result<Vec<String>, ConfigError> {
    let plan = interop::plan_import(locations, client, None, scope)?;
    let values: std::collections::BTreeMap<String, String> = inputs
        .iter()
        .map(|row| (row.key.clone(), row.value.clone()))
        .collect();
    apply_import(locations, &plan, &values)
}

/// Writes the servers of an import plan. Every `${input:id}` they use must have a value in
/// `inputs`. Returns the names added.
pub fn apply_import(
    locations: &Locations,
    plan: &interop::ImportPlan,
    inputs: &std::collections::BTreeMap<String, String>,
) -> Result<Vec<String>, ConfigError> {
    let mut added = Vec::new();
    for (name, entry) in interop::filled_entries(plan, inputs)? {
        insert_entry(locations, &name, plan.scope, entry)?;
        added.push(name);
    }
    Ok(added)
}

/// [`interop::export`] to a client's usual file; text to paste by hand (a file with
/// comments) has its secret-looking values masked.
pub fn export_masked(locations: &Locations, client: Client) -> Result<ExportReport, ConfigError> {
    let mut report = interop::export(locations, client, None)?;
    report.printed = report.printed.as_deref().map(draft::masked_text);
    Ok(report)
}

/// Copies a server entry, as written (unknown keys included), to another scope under the
/// same name. A copy into the project scope is approved: the person made it.
pub fn copy_server(
    locations: &Locations,
    name: &str,
    from: Scope,
    to: Scope,
) -> Result<Written, ConfigError> {
    let catalog = Catalog::load(locations);
    let entry = catalog
        .named(name)
        .find(|e| e.scope == from)
        .ok_or_else(|| ConfigError::ServerNotFound {
            name: name.to_string(),
            scope: Some(from),
        })?;
    // A copy in another scope starts without approval: a project server nobody approved
    // must not get out of its scope by this door.
    if entry.from_project() && entry.approval != Some(Approval::Approved) {
        return Err(ConfigError::NotAllowed {
            name: name.to_string(),
            why: "it is a project server nobody has approved; approve it first".into(),
        });
    }
    // Nor one approved in the person's settings before the folder is trusted: in another
    // scope it would start in every folder, trust or not.
    if entry.awaits_trust() {
        return Err(ConfigError::NotAllowed {
            name: name.to_string(),
            why: "it came with this folder, which is not trusted; trust the folder first (mcpctl trust)".into(),
        });
    }
    let written = insert_entry(locations, name, to, entry.raw.clone())?;
    if to == Scope::Project {
        approval::record_choice(locations, name, true)?;
    }
    Ok(written)
}

/// Keeps an OAuth client secret for a remote server in the OS keychain, under the account
/// Claude Code uses (`name|` and the hash of type, URL and headers). Never written to a file.
pub fn store_client_secret(
    locations: &Locations,
    name: &str,
    secret: crate::secrets::Secret,
) -> Result<(), crate::ApiError> {
    let catalog = Catalog::load(locations);
    let entry = catalog.require(name)?;
    if entry.config.kind() == TransportKind::Stdio {
        return Err(ConfigError::Invalid(format!(
            "\"{name}\" is a local (stdio) server: a client secret is for remote servers"
        ))
        .into());
    }
    let (store, _) = crate::secrets::configured_store();
    let account = crate::secrets::client_secret_account(name, &entry.config);
    store.set(&account, &secret).map_err(|err| crate::ApiError {
        code: ErrorCode::Keychain,
        message: format!("the client secret was not stored: {err}"),
    })
}
