//! Profiles: named sets of servers for a kind of work ("writing docs", "db work"), switched on
//! for a project in one step, and undone in one step.
//!
//! Why they write Claude Code's own key and nothing else: a profile is only useful if Claude
//! Code then runs exactly its servers. Applying one writes the project's
//! `projects["<root>"].disabledMcpServers` in `~/.claude.json`, the list Claude Code's own
//! `/mcp` toggle writes for every kind of server (user, local, project and plugin servers, the
//! latter by their `plugin:<plugin>:<server>` names); `claude mcp list` then shows the
//! profile's servers and only them as enabled. Approvals (`enabledMcpjsonServers`,
//! `disabledMcpjsonServers`) are left alone: turning a project server off for a while is not
//! rejecting it, and turning it back on must not approve what the person never approved.
//!
//! Undo: before an apply, the project's previous `disabledMcpServers` (or its absence) and the
//! file's SHA-256 are kept in the app's data folder (never the file itself, which holds
//! secrets). Undo puts the key back as it was; when nothing else changed the file meanwhile,
//! the result is the file as it was, byte for byte, and the answer says whether it is.
//!
//! Where profiles live: the app's data folder (private, `profiles.json`), or, when the person
//! chooses, the project (`.mcp-profiles.json`, shared, names only). A project's profiles are
//! project content: they are listed in any folder, and applied only once it is trusted.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::config::document::{self, NewFileMode};
use crate::error::ConfigError;
use crate::Locations;

/// The project's file of shared profiles.
pub const SHARED_FILE: &str = ".mcp-profiles.json";
/// The app's file of private profiles.
pub const PRIVATE_FILE: &str = "profiles.json";
const UNDO_FILE: &str = "profiles-undo.json";

/// One profile as stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    servers: Vec<String>,
    /// Tools denied while the profile is in use (`mcp__server__tool`, or a server's
    /// `mcp__server`): Claude Code's `permissions.deny` rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    denied_tools: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Shelf {
    #[serde(default)]
    profiles: BTreeMap<String, Stored>,
}

/// A profile as the window and `mcpctl` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub name: String,
    /// Kept in the project's `.mcp-profiles.json` (else in the app's data, private).
    pub shared: bool,
    pub servers: Vec<String>,
    /// Tools it denies (Claude Code's `permissions.deny` rules, `mcp__server__tool`).
    pub denied_tools: Vec<String>,
    /// Its servers this project does not configure: ignored when it is applied.
    pub missing: Vec<String>,
    /// Whether exactly its servers are the ones enabled now.
    pub active: bool,
}

/// The project's profiles and its servers as they are now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Profiles {
    pub profiles: Vec<Profile>,
    /// Every server of the project (by Claude Code's name), and whether it is enabled now.
    pub servers: Vec<ServerChoice>,
    /// Whether the last apply in this project can be undone: the profile's name.
    pub undo: Option<String>,
    /// Whether the folder is trusted: a shared profile is applied only then.
    pub trusted: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerChoice {
    pub name: String,
    pub enabled: bool,
}

/// What applying a profile changes, shown before it is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProfilePlan {
    pub profile: String,
    pub turn_on: Vec<String>,
    pub turn_off: Vec<String>,
    pub missing: Vec<String>,
    /// The file and key written.
    pub path: String,
    pub key: String,
    pub before: Vec<String>,
    pub after: Vec<String>,
    /// Deny rules it adds to `.claude/settings.local.json` (those not there yet).
    pub deny: Vec<String>,
    /// That file.
    pub deny_path: String,
}

/// What undo did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Undone {
    pub profile: String,
    pub path: String,
    /// The file is byte for byte what it was before the apply.
    pub identical: bool,
    /// When it is not: why, in words.
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UndoRecord {
    profile: String,
    had_project: bool,
    previous: Option<Value>,
    sha256_before: Option<String>,
    sha256_after: Option<String>,
    /// Deny rules the apply added to `.claude/settings.local.json`.
    #[serde(default)]
    deny_added: Vec<String>,
    /// Whether that file existed before, and its checksums.
    #[serde(default)]
    local_existed: bool,
    #[serde(default)]
    local_before: Option<String>,
    #[serde(default)]
    local_after: Option<String>,
    /// Its `permissions` before (rules only, never a secret), put back as they were.
    #[serde(default)]
    permissions_before: Option<Value>,
}

fn invalid(message: String) -> ConfigError {
    ConfigError::Invalid(message)
}

/// `managed-mcp.json` has exclusive control (a link to it counts, even a dangling one).
fn refuse_when_managed(locations: &Locations) -> Result<(), ConfigError> {
    let managed = locations.managed_mcp_json();
    if std::fs::symlink_metadata(&managed).is_ok() {
        return Err(ConfigError::Managed {
            path: managed,
            verb: "change",
        });
    }
    Ok(())
}

/// Writes the project's file of profiles: only inside the project, links that lead out of it
/// refused at the moment of writing.
fn write_shared(locations: &Locations, shelf: &Shelf) -> Result<(), ConfigError> {
    let path = shared_path(locations);
    let root = locations.project_root();
    locations.confine(&path)?;
    let text = serde_json::to_string_pretty(shelf).expect("profiles serialize") + "\n";
    crate::files::write(
        &path,
        text.as_bytes(),
        &crate::files::Write::new(crate::files::Mode::SharedOrKept).within(&root),
    )
    .map_err(|err| ConfigError::Write {
        path: path.clone(),
        source: err.into_io(),
    })
}

fn private_path(locations: &Locations) -> std::path::PathBuf {
    locations.app_data_dir().join(PRIVATE_FILE)
}

fn shared_path(locations: &Locations) -> std::path::PathBuf {
    locations.project_root().join(SHARED_FILE)
}

/// Reads a file of profiles: the app's own, or the project's, which is project content (read
/// bounded, regular only, and only while it stays inside the project).
fn read_shelf(
    path: &std::path::Path,
    within: Option<&std::path::Path>,
) -> Result<Shelf, ConfigError> {
    let read = match within {
        Some(root) => crate::files::read_text_within(path, root, crate::files::READ_LIMIT),
        None => crate::files::read_text(path, crate::files::READ_LIMIT),
    };
    let text = match read {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(Shelf::default()),
        Err(err) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source: err.into_io(),
            })
        }
    };
    let value = document::parse(path, &text)?;
    // serde's words can quote the file's values: they are not repeated.
    serde_json::from_value(value).map_err(|_| ConfigError::Shape {
        path: path.to_path_buf(),
        message: "not a file of profiles: it must be {\"profiles\": {\"NAME\": {\"servers\": [\"server\", …]}}}".into(),
    })
}

/// Every server of the project Claude Code would consider, by its name, with whether it is
/// enabled (not in `disabledMcpServers`): entries of every scope that are used (not shadowed),
/// plugin servers by their `plugin:` names.
fn servers_now(locations: &Locations) -> (Vec<String>, Vec<String>) {
    let list = crate::api::list_servers(locations);
    let mut names: Vec<String> = list
        .servers
        .iter()
        // A subagent's own servers are not Claude Code's to turn on or off.
        .filter(|s| s.shadowed_by.is_none() && s.scope != crate::Scope::Agent)
        .map(|s| s.name.clone())
        .collect();
    names.dedup();
    let disabled = disabled_now(locations);
    (names, disabled)
}

fn disabled_now(locations: &Locations) -> Vec<String> {
    let Ok(Some(doc)) = document::read(&locations.claude_json()) else {
        return Vec::new();
    };
    document::strings(
        doc.value
            .get("projects")
            .and_then(|p| p.get(locations.project_key())),
        "disabledMcpServers",
    )
}

fn undo_records(locations: &Locations) -> BTreeMap<String, UndoRecord> {
    let path = locations.app_data_dir().join(UNDO_FILE);
    match crate::files::read(&path, crate::files::READ_LIMIT) {
        Ok(Some(bytes)) => serde_json::from_slice(&bytes).unwrap_or_default(),
        _ => BTreeMap::new(),
    }
}

fn write_private(path: &std::path::Path, value: &impl Serialize) -> Result<(), ConfigError> {
    let text = serde_json::to_string_pretty(value).expect("profiles serialize") + "\n";
    if let Some(folder) = path.parent() {
        crate::private::dir(folder).map_err(|source| ConfigError::Write {
            path: path.to_path_buf(),
            source,
        })?;
    }
    crate::private::write(path, text.as_bytes()).map_err(|source| ConfigError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The project's profiles (private and shared) and its servers now.
pub fn list(locations: &Locations) -> Result<Profiles, ConfigError> {
    let (servers, disabled) = servers_now(locations);
    let enabled: Vec<&String> = servers.iter().filter(|s| !disabled.contains(s)).collect();
    let mut profiles = Vec::new();
    let root = locations.project_root();
    for (shared, path, within) in [
        (false, private_path(locations), None),
        (true, shared_path(locations), Some(root.as_path())),
    ] {
        for (name, stored) in read_shelf(&path, within)?.profiles {
            let missing: Vec<String> = stored
                .servers
                .iter()
                .filter(|s| !servers.contains(s))
                .cloned()
                .collect();
            let mut mine: Vec<&String> = stored
                .servers
                .iter()
                .filter(|s| servers.contains(s))
                .collect();
            mine.sort();
            let mut on = enabled.clone();
            on.sort();
            profiles.push(Profile {
                active: mine == on,
                name,
                shared,
                servers: stored.servers,
                denied_tools: stored.denied_tools,
                missing,
            });
        }
    }
    let undo = undo_records(locations)
        .remove(&locations.project_key())
        .map(|r| r.profile);
    Ok(Profiles {
        servers: servers
            .iter()
            .map(|name| ServerChoice {
                name: name.clone(),
                enabled: !disabled.contains(name),
            })
            .collect(),
        profiles,
        undo,
        trusted: crate::config::trust::is_trusted(locations),
    })
}

/// Saves profile `name` with `servers`, privately or in the project's shared file.
pub fn save(
    locations: &Locations,
    name: &str,
    servers: &[String],
    denied_tools: &[String],
    shared: bool,
) -> Result<Profile, ConfigError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
        return Err(invalid(
            "a profile's name is 1 to 64 characters, without control characters".into(),
        ));
    }
    let mut servers: Vec<String> = servers.to_vec();
    servers.sort();
    servers.dedup();
    let mut denied: Vec<String> = denied_tools.iter().map(|t| t.trim().to_string()).collect();
    denied.retain(|t| !t.is_empty());
    denied.sort();
    denied.dedup();
    if let Some(bad) = denied.iter().find(|t| {
        !t.starts_with("mcp__")
            || !t
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
    }) {
        return Err(invalid(format!(
            "\"{bad}\" is not a tool as Claude Code names it: write mcp__server__tool (or mcp__server for all its tools)"
        )));
    }
    let stored = Stored {
        servers: servers.clone(),
        denied_tools: denied,
    };
    if shared {
        let mut shelf = read_shelf(&shared_path(locations), Some(&locations.project_root()))?;
        shelf.profiles.insert(name.to_string(), stored);
        write_shared(locations, &shelf)?;
    } else {
        let path = private_path(locations);
        let mut shelf = read_shelf(&path, None)?;
        shelf.profiles.insert(name.to_string(), stored);
        write_private(&path, &shelf)?;
    }
    list(locations)?
        .profiles
        .into_iter()
        .find(|p| p.name == name && p.shared == shared)
        .ok_or_else(|| invalid(format!("the profile \"{name}\" was not kept")))
}

/// Deletes profile `name` (the private one first when both exist).
pub fn delete(locations: &Locations, name: &str) -> Result<(), ConfigError> {
    let path = private_path(locations);
    let mut shelf = read_shelf(&path, None)?;
    if shelf.profiles.remove(name).is_some() {
        return write_private(&path, &shelf);
    }
    let mut shelf = read_shelf(&shared_path(locations), Some(&locations.project_root()))?;
    if shelf.profiles.remove(name).is_some() {
        return write_shared(locations, &shelf);
    }
    Err(invalid(format!("no profile is named \"{name}\"")))
}

fn find(locations: &Locations, name: &str) -> Result<Profile, ConfigError> {
    let all = list(locations)?;
    all.profiles
        .into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| {
            invalid(format!(
                "no profile is named \"{name}\": `mcpctl profile list` shows them"
            ))
        })
}

/// What applying `name` would change; nothing is written.
pub fn plan(locations: &Locations, name: &str) -> Result<ProfilePlan, ConfigError> {
    let profile = find(locations, name)?;
    let (servers, before) = servers_now(locations);
    // Entries naming servers this project does not have stay as they are; every server of
    // the project is in the list exactly when it is not in the profile.
    let mut after: Vec<String> = before
        .iter()
        .filter(|s| !servers.contains(s))
        .cloned()
        .collect();
    after.extend(
        servers
            .iter()
            .filter(|s| !profile.servers.contains(s))
            .cloned(),
    );
    let turn_on = servers
        .iter()
        .filter(|s| before.contains(s) && !after.contains(s))
        .cloned()
        .collect();
    let turn_off = servers
        .iter()
        .filter(|s| !before.contains(s) && after.contains(s))
        .cloned()
        .collect();
    let local = crate::config::permissions::SettingsFile::Local.path(locations);
    let present = document::read(&local)
        .ok()
        .flatten()
        .map(|d| document::strings(d.value.get("permissions"), "deny"))
        .unwrap_or_default();
    let deny = profile
        .denied_tools
        .iter()
        .filter(|t| !present.contains(t))
        .cloned()
        .collect();
    Ok(ProfilePlan {
        deny,
        deny_path: local.display().to_string(),
        profile: profile.name,
        turn_on,
        turn_off,
        missing: profile.missing,
        path: locations.claude_json().display().to_string(),
        key: format!(
            "projects[\"{}\"].disabledMcpServers",
            locations.project_key()
        ),
        before,
        after,
    })
}

fn sha256_of(path: &std::path::Path) -> Option<String> {
    let bytes = crate::files::read(path, crate::files::READ_LIMIT).ok()??;
    Some(format!("{:x}", Sha256::digest(&bytes)))
}

/// Applies profile `name`: exactly its servers enabled for the project. Returns the plan
/// carried out; the state before is kept for [`undo`].
pub fn apply(locations: &Locations, name: &str) -> Result<ProfilePlan, ConfigError> {
    let profile = find(locations, name)?;
    if profile.shared && !crate::config::trust::is_trusted(locations) {
        return Err(ConfigError::Untrusted {
            folder: locations.project_root(),
            what: format!(
                "the profile \"{name}\" comes from its {SHARED_FILE} and is applied only once the folder is trusted."
            ),
        });
    }
    refuse_when_managed(locations)?;
    let plan = plan(locations, name)?;
    let path = locations.claude_json();
    let key = locations.project_key();
    let sha256_before = sha256_of(&path);
    let (had_project, previous) = document::update(&path, NewFileMode::Private, |value| {
        let had_project = value.get("projects").and_then(|p| p.get(&key)).is_some();
        let project = document::object_at(&path, value, &["projects", &key])?;
        let previous = project.get("disabledMcpServers").cloned();
        project.insert(
            "disabledMcpServers".into(),
            Value::Array(plan.after.iter().cloned().map(Value::String).collect()),
        );
        Ok((had_project, previous))
    })?;
    let sha256_after = sha256_of(&path);
    let local = crate::config::permissions::SettingsFile::Local.path(locations);
    let local_existed = std::fs::symlink_metadata(&local).is_ok();
    let local_before = sha256_of(&local);
    let permissions_before = document::read(&local)
        .ok()
        .flatten()
        .and_then(|d| d.value.get("permissions").cloned());
    for rule in &plan.deny {
        crate::config::permissions::add_entry(
            locations,
            crate::config::permissions::SettingsFile::Local,
            crate::config::permissions::Rule::Deny,
            rule,
        )?;
    }
    let mut records = undo_records(locations);
    records.insert(
        key,
        UndoRecord {
            profile: plan.profile.clone(),
            had_project,
            previous,
            sha256_before,
            sha256_after,
            deny_added: plan.deny.clone(),
            local_existed,
            local_before,
            local_after: sha256_of(&local),
            permissions_before,
        },
    );
    write_private(&locations.app_data_dir().join(UNDO_FILE), &records)?;
    Ok(plan)
}

/// Puts back the project's `disabledMcpServers` as it was before the last apply.
pub fn undo(locations: &Locations) -> Result<Undone, ConfigError> {
    refuse_when_managed(locations)?;
    let key = locations.project_key();
    let mut records = undo_records(locations);
    let record = records
        .remove(&key)
        .ok_or_else(|| invalid("no profile was applied in this project: nothing to undo".into()))?;
    let path = locations.claude_json();
    let untouched = sha256_of(&path) == record.sha256_after;
    document::update(&path, NewFileMode::Private, |value| {
        if !record.had_project {
            if let Some(projects) = value.get_mut("projects").and_then(Value::as_object_mut) {
                let only_ours = projects
                    .get(&key)
                    .and_then(Value::as_object)
                    .is_some_and(|p| p.len() == 1 && p.contains_key("disabledMcpServers"));
                if only_ours {
                    projects.remove(&key);
                    return Ok(());
                }
            }
        }
        let project = document::object_at(&path, value, &["projects", &key])?;
        match &record.previous {
            Some(previous) => {
                project.insert("disabledMcpServers".into(), previous.clone());
            }
            None => {
                project.remove("disabledMcpServers");
            }
        }
        Ok(())
    })?;
    // The deny rules it added go; a file it made for them goes with them when nothing else
    // was written to it since.
    let local = crate::config::permissions::SettingsFile::Local.path(locations);
    if !record.deny_added.is_empty() {
        let untouched = sha256_of(&local) == record.local_after;
        if !record.local_existed && untouched {
            let _ = std::fs::remove_file(&local);
        } else if !untouched {
            // Written since (another rule, an approval): only the rules it added go.
            for rule in &record.deny_added {
                crate::config::permissions::remove_entry(
                    locations,
                    crate::config::permissions::SettingsFile::Local,
                    crate::config::permissions::Rule::Deny,
                    rule,
                )?;
            }
        } else {
            locations.confine(&local)?;
            document::update(&local, NewFileMode::Shared, |value| {
                let Some(map) = value.as_object_mut() else {
                    return Ok(());
                };
                match &record.permissions_before {
                    Some(before) => {
                        map.insert("permissions".into(), before.clone());
                    }
                    None => {
                        map.remove("permissions");
                    }
                }
                Ok(())
            })?;
        }
    }
    write_private(&locations.app_data_dir().join(UNDO_FILE), &records)?;
    let identical = sha256_of(&path) == record.sha256_before
        && (record.deny_added.is_empty() || sha256_of(&local) == record.local_before);
    let note = (!identical).then(|| {
        if untouched {
            "the list of disabled servers is back as it was, but the file is not byte for byte what it was: it was written in another layout before".to_string()
        } else {
            "the list of disabled servers is back as it was; the file also changed in other ways since the profile was applied (Claude Code writes it too), and those changes were kept".to_string()
        }
    });
    Ok(Undone {
        profile: record.profile,
        path: path.display().to_string(),
        identical,
        note,
    })
}

/// A profile written for `claude --mcp-config FILE --strict-mcp-config`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Launch {
    pub path: String,
    /// The command line to copy.
    pub command: String,
    /// The environment variables the file refers to (`${NAME}`) in place of values that
    /// may be secret: they must be set where Claude Code runs.
    pub variables: Vec<String>,
    /// Servers of the profile the file cannot hold, and why.
    pub left_out: Vec<String>,
}

/// Whether `text` is exactly one `${NAME}` reference (no default, nothing around it).
fn only_reference(text: &str) -> bool {
    text.strip_prefix("${")
        .and_then(|rest| rest.strip_suffix('}'))
        .is_some_and(|name| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        })
}

/// `value` as a `${NAME}` reference unless it is exactly one already: any text around a
/// reference, or a default (`${X:-…}`), may hold a secret.
fn reference(value: &Value, name: &str, variables: &mut Vec<String>) -> Value {
    if value.as_str().is_some_and(only_reference) {
        return value.clone();
    }
    if !variables.iter().any(|v| v == name) {
        variables.push(name.to_string());
    }
    Value::String(format!("${{{name}}}"))
}

fn variable_name(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| {
            p.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_uppercase()
                    } else {
                        '_'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// Writes profile `name` as a file of `mcpServers` (to `out`, else the app's data folder):
/// each server's entry as configured, with every `env` and `headers` value, every argument
/// that is a credential and a URL that carries one replaced by a `${NAME}` reference, so that
/// no secret is copied. Only servers that may start are written: a project
/// server not approved, one the folder's trust still holds back, one policy blocks, a
/// subagent's own or a plugin's is left out, with why.
pub fn launch(
    locations: &Locations,
    name: &str,
    out: Option<&std::path::Path>,
) -> Result<Launch, ConfigError> {
    let profile = find(locations, name)?;
    if profile.shared && !crate::config::trust::is_trusted(locations) {
        return Err(ConfigError::Untrusted {
            folder: locations.project_root(),
            what: format!(
                "the profile \"{name}\" comes from its {SHARED_FILE} and is written for Claude Code only once the folder is trusted."
            ),
        });
    }
    let catalog = crate::config::catalog::Catalog::load(locations);
    let mut servers = serde_json::Map::new();
    let (mut variables, mut left_out) = (Vec::new(), Vec::new());
    for server in &profile.servers {
        let Some(entry) = catalog.named(server).find(|e| e.shadowed_by.is_none()) else {
            left_out.push(format!("{server}: this project does not configure it"));
            continue;
        };
        if entry.plugin.is_some() {
            left_out.push(format!(
                "{server}: a plugin's server, which its plugin brings (--mcp-config cannot name it)"
            ));
            continue;
        }
        if entry.scope == crate::Scope::Agent {
            left_out.push(format!(
                "{server}: a subagent's own server, which its subagent brings"
            ));
            continue;
        }
        // Everything that keeps it from starting, but being turned off for this project.
        let may_start = !entry.awaits_trust()
            && entry.blocked.is_none()
            && !entry.changed_since_approval
            && matches!(
                entry.approval,
                None | Some(crate::config::approval::Approval::Approved)
            );
        if !may_start {
            let words = entry.standing().words().unwrap_or("it does not start");
            left_out.push(format!("{server}: {words}"));
            continue;
        }
        let mut raw = entry.raw.clone();
        if let Some(env) = raw.get_mut("env").and_then(Value::as_object_mut) {
            for (key, value) in env.iter_mut() {
                *value = reference(value, &variable_name(&[key]), &mut variables);
            }
        }
        if let Some(headers) = raw.get_mut("headers").and_then(Value::as_object_mut) {
            for (key, value) in headers.iter_mut() {
                *value = reference(value, &variable_name(&["MCP", server, key]), &mut variables);
            }
        }
        if let Some(url) = raw.get_mut("url") {
            if url
                .as_str()
                .is_some_and(crate::config::draft::text_holds_secret)
            {
                *url = reference(url, &variable_name(&["MCP", server, "URL"]), &mut variables);
            }
        }
        if let Some(args) = raw.get_mut("args").and_then(Value::as_array_mut) {
            let mut previous = String::new();
            for (i, arg) in args.iter_mut().enumerate() {
                let Some(text) = arg.as_str().map(str::to_string) else {
                    continue;
                };
                if let Some(kept) = crate::config::draft::secret_in_arg(&previous, &text) {
                    let variable = variable_name(&["MCP", server, &format!("ARG{i}")]);
                    if !variables.contains(&variable) {
                        variables.push(variable.clone());
                    }
                    *arg = Value::String(format!("{}${{{variable}}}", &text[..kept]));
                }
                previous = text;
            }
        }
        servers.insert(server.clone(), raw);
    }
    let document = serde_json::json!({ "mcpServers": servers });
    let text = serde_json::to_string_pretty(&document).expect("serializes") + "\n";
    let path = match out {
        // The person's own file: written 0600, and its folder left as it is.
        Some(path) => {
            crate::files::write(
                path,
                text.as_bytes(),
                &crate::files::Write::new(crate::files::Mode::Private).create_folder(false),
            )
            .map_err(|err| ConfigError::Write {
                path: path.to_path_buf(),
                source: err.into_io(),
            })?;
            path.to_path_buf()
        }
        None => {
            let path = locations.app_data_dir().join("profiles").join(format!(
                "{}.mcp.json",
                variable_name(&[&profile.name]).to_ascii_lowercase()
            ));
            write_private(&path, &document)?;
            path
        }
    };
    let quoted = format!("'{}'", path.display().to_string().replace('\'', r"'\''"));
    Ok(Launch {
        command: format!("claude --mcp-config {quoted} --strict-mcp-config"),
        path: path.display().to_string(),
        variables,
        left_out,
    })
}
