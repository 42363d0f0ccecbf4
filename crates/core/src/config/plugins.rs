//! Claude Code plugins and the MCP servers they declare, found as Claude Code finds them.
//!
//! Plugins live under `~/.claude/plugins` (`$CLAUDE_CONFIG_DIR/plugins`; the whole root is
//! `$CLAUDE_CODE_PLUGIN_CACHE_DIR` when set): `installed_plugins.json` lists each installed
//! plugin (`NAME@MARKETPLACE`) with its `installPath`, and `known_marketplaces.json` the
//! marketplaces. A marketplace that is a local folder is read in place: the plugin's root is
//! that folder's entry `source` for it. A plugin is on only when the merged settings (user <
//! project < local < managed) say `enabledPlugins["NAME@MARKETPLACE"]: true` and its
//! marketplace is known. Folders `~/.claude/skills/*/` and `<project>/.claude/skills/*/`
//! holding `.claude-plugin/plugin.json` are plugins too (`NAME@skills-dir`): the person's are
//! on, the project's servers need approval by their full name like `.mcp.json` servers, and a
//! project's folder named like one of the person's is not loaded (the person's wins).
//!
//! A plugin declares servers in `<root>/.mcp.json` (with or without the `mcpServers`
//! wrapper) and in `.claude-plugin/plugin.json`'s `mcpServers` (a path to a JSON file, an
//! inline map, or a list of these), the latter winning by name. `${CLAUDE_PLUGIN_ROOT}`,
//! `${CLAUDE_PLUGIN_DATA}`, `${CLAUDE_PROJECT_DIR}` and `${user_config.KEY}` (the plugin's
//! options in settings `pluginConfigs`) are put in at once; a sensitive option (kept by Claude
//! Code in `.credentials.json` `pluginSecrets`) stays `${user_config.KEY}` in what is shown and
//! is put in only when the server starts. A stdio server also gets `CLAUDE_PLUGIN_ROOT` and
//! `CLAUDE_PLUGIN_DATA` in its environment.
//!
//! A plugin's options and secrets belong to the plugin the person installed or put in their
//! own skills folder, under the id Claude Code keeps them by (`NAME@MARKETPLACE` from
//! `installed_plugins.json`, `NAME@skills-dir` for `~/.claude/skills`). A name is the
//! manifest's word, so anything in a repository could claim one: a project skills plugin
//! named `slack@official` would otherwise be handed the installed `slack@official`'s
//! `pluginSecrets` and send them wherever its entry says. So a skills plugin's name may not
//! hold `@`, `:`, whitespace, a path separator or an invisible character (Claude Code 2.1.332
//! refuses the same names with the same words), and a project's skills plugin gets no
//! options and no secrets at all: [`PluginOrigin`] is where a plugin was found, never what
//! it says it is.
//!
//! Servers are named `plugin:<plugin>:<server>` (the marketplace dropped), their tools
//! `mcp__plugin_<plugin>_<server>__<tool>`. One whose command line or URL equals a configured
//! server's is left out by Claude Code; we keep it, not started, and say why.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use super::{document, marketplace_names};
use crate::error::ConfigError;
use crate::locations::Locations;

/// A plugin, on or off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Plugin {
    /// `NAME@MARKETPLACE`, or `NAME@skills-dir` for a skills folder plugin (as Claude Code
    /// names it).
    pub id: String,
    pub name: String,
    pub marketplace: Option<String>,
    pub root: Option<String>,
    pub version: Option<String>,
    /// Whether Claude Code loads it.
    pub enabled: bool,
    /// Claude Code refuses to load it whatever the settings say: its install record's key is
    /// not a plugin id, or its marketplace's name is reserved for Anthropic or passes for
    /// Anthropic's ([`super::marketplace_names`]). `why` gives Claude Code's words.
    pub refused: bool,
    /// Why it is off, or where it is on from: Claude Code's words where it has them
    /// (`Marketplace fake-mkt not found`).
    pub why: String,
    /// The servers it declares, by full name.
    pub servers: Vec<String>,
    /// A skills folder plugin (`~/.claude/skills/…`, `<project>/.claude/skills/…`): it is not
    /// turned on or off through `enabledPlugins`.
    pub from_skills: bool,
}

/// A server a plugin declares.
#[derive(Debug, Clone)]
pub struct PluginServer {
    /// `plugin:<plugin>:<server>`.
    pub name: String,
    /// The plugin's id.
    pub plugin: String,
    /// The file that declares it.
    pub file: PathBuf,
    /// The entry with the plugin's variables put in (sensitive options excepted).
    pub raw: Value,
    /// Sensitive options, `user_config.KEY` → value: put in only when the server starts.
    pub secrets: Vec<(String, crate::secrets::Secret)>,
    /// Where its plugin was found.
    pub origin: PluginOrigin,
    /// A `.mcpb`/`.dxt` bundle: listed, not run.
    pub bundle: bool,
}

/// Where a plugin was found, which decides what it is given: never what its manifest says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginOrigin {
    /// Installed from a marketplace (`installed_plugins.json`): its options and secrets are
    /// those kept under its `NAME@MARKETPLACE`; enterprise policy counts it as a plugin.
    Marketplace,
    /// A folder of the person's own `~/.claude/skills`: its options and secrets are those
    /// kept under `NAME@skills-dir`.
    PersonalSkills,
    /// A folder of the project's `.claude/skills`, written by whoever commits to the
    /// repository: it gets no options and no secrets, and its servers need approval like
    /// `.mcp.json` servers.
    ProjectSkills,
}

/// The marketplace name Claude Code gives skills folder plugins (`NAME@skills-dir`).
pub const SKILLS_DIR: &str = "skills-dir";

/// Why `name` cannot be a skills folder plugin's name, in Claude Code 2.1.332's words; `None`
/// when it can. `@` and `:` would let the name pass for another plugin's id
/// (`slack@official`) or server name (`plugin:a:b`).
pub fn invalid_plugin_name(name: &str) -> Option<String> {
    let refused = name.is_empty()
        || name == "."
        || name.contains("..")
        || name.chars().any(|c| {
            matches!(c, '@' | ':' | '/' | '\\')
                || c.is_whitespace()
                || c.is_control()
                || is_invisible(c)
        });
    refused.then(|| {
        format!(
            "name: \"{name}\" is not a valid plugin name (must be non-empty and must not contain \"@\", \":\", whitespace, path separators, or invisible/control characters)"
        )
    })
}

/// Characters that show as nothing or turn the text around: zero-width and bidirectional
/// formatting marks, the byte order mark, soft hyphen.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}')
}

impl PluginServer {
    /// Whether the project supplied it (a skills folder of the project): it needs approval.
    pub fn from_project(&self) -> bool {
        self.origin == PluginOrigin::ProjectSkills
    }

    /// How the plugin's list names it: a bundle says it is not run.
    fn listed(&self) -> String {
        if self.bundle {
            format!("{} (a .mcpb/.dxt bundle: listed, not run)", self.name)
        } else {
            self.name.clone()
        }
    }
}

/// Every plugin and plugin server of this person and project.
#[derive(Debug, Default)]
pub struct PluginSet {
    pub plugins: Vec<Plugin>,
    /// Servers of the plugins that are on.
    pub servers: Vec<PluginServer>,
    pub problems: Vec<ConfigError>,
}

/// The plugins root: `$CLAUDE_CODE_PLUGIN_CACHE_DIR`, else `<claude dir>/plugins`.
pub fn plugins_root(locations: &Locations) -> PathBuf {
    std::env::var_os("CLAUDE_CODE_PLUGIN_CACHE_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| locations.claude_dir().join("plugins"))
}

/// `plugins/data/<id>` with every character outside `[a-zA-Z0-9_-]` made `-`.
pub fn data_dir(locations: &Locations, id: &str) -> PathBuf {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    plugins_root(locations).join("data").join(safe)
}

/// The settings files `enabledPlugins` and `pluginConfigs` are merged from, lowest first.
/// The project's own files count only in a trusted folder: before that, a repository could
/// turn on a plugin the person installed and left off, or put its own values into a plugin's
/// command line, and so run code by being opened.
fn settings_files(locations: &Locations) -> Vec<PathBuf> {
    let mut files = vec![locations.user_settings()];
    if super::trust::is_trusted(locations) {
        files.extend(locations.project_settings_files());
    }
    files.extend(super::policy::managed_settings_files(locations));
    files
}

impl PluginSet {
    /// Reads every plugin. Never fails: what cannot be read becomes a problem.
    pub fn load(locations: &Locations) -> PluginSet {
        let mut set = PluginSet::default();
        let root = plugins_root(locations);
        let read = |set: &mut PluginSet, path: &Path| -> Option<Value> {
            match document::read(path) {
                Ok(doc) => doc.map(|d| d.value),
                Err(err) => {
                    set.problems.push(err);
                    None
                }
            }
        };
        let installed = read(&mut set, &root.join("installed_plugins.json"));
        let marketplaces = read(&mut set, &root.join("known_marketplaces.json"));
        let mut enabled: Map<String, Value> = Map::new();
        let mut options: Map<String, Value> = Map::new();
        for file in settings_files(locations) {
            if let Ok(Some(doc)) = document::read(&file) {
                if let Some(map) = doc.value.get("enabledPlugins").and_then(Value::as_object) {
                    for (id, on) in map {
                        enabled.insert(
                            id.clone(),
                            Value::Array(vec![on.clone(), file.display().to_string().into()]),
                        );
                    }
                }
                if let Some(map) = doc.value.get("pluginConfigs").and_then(Value::as_object) {
                    for (id, config) in map {
                        options.insert(id.clone(), config.clone());
                    }
                }
            }
        }
        let secrets_doc = document::read(&locations.claude_dir().join(".credentials.json"))
            .ok()
            .flatten()
            .map(|d| d.value);
        let project_root = locations.project_root();

        let installs = installed
            .as_ref()
            .and_then(|v| v.get("plugins"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for (id, records) in &installs {
            let (name, marketplace) = match id.split_once('@') {
                Some((n, m)) => (n.to_string(), Some(m.to_string())),
                None => (id.clone(), None),
            };
            // The install that applies here: the person's, or this project's.
            let record = records.as_array().into_iter().flatten().find(|r| {
                match r.get("scope").and_then(Value::as_str) {
                    Some("project" | "local") => r
                        .get("projectPath")
                        .and_then(Value::as_str)
                        .is_some_and(|p| Path::new(p) == project_root),
                    _ => true,
                }
            });
            let Some(record) = record else { continue };
            let known = marketplace
                .as_ref()
                .and_then(|m| marketplaces.as_ref()?.get(m).cloned());
            let plugin_root = known
                .as_ref()
                .and_then(|m| in_place_root(m, &name))
                .or_else(|| {
                    record
                        .get("installPath")
                        .and_then(Value::as_str)
                        .map(PathBuf::from)
                });
            let setting = enabled.get(id).and_then(Value::as_array);
            let on = setting.and_then(|s| s.first()) == Some(&Value::Bool(true));
            let refusal = if !marketplace_names::valid_plugin_id(id) {
                Some(format!(
                    "Claude Code sets this install record aside and loads none of it: \"{id}\" is not a valid plugin id (a name and a marketplace of ASCII letters, digits, '.', '_' and '-', each beginning with a letter or digit)"
                ))
            } else {
                known
                    .as_ref()
                    .zip(marketplace.as_deref())
                    .and_then(|(record, m)| marketplace_names::refusal(m, record, &name))
            };
            let (is_on, why) = match (&known, on) {
                _ if refusal.is_some() => (false, refusal.clone().unwrap_or_default()),
                (None, _) => (
                    false,
                    format!(
                        "Marketplace {} not found",
                        marketplace.as_deref().unwrap_or("(none)")
                    ),
                ),
                (Some(_), false) => (
                    false,
                    match setting {
                        Some(s) => format!(
                            "turned off in {} (enabledPlugins)",
                            s.get(1).and_then(Value::as_str).unwrap_or("settings")
                        ),
                        None => "not turned on in any settings file (enabledPlugins)".into(),
                    },
                ),
                (Some(_), true) => (
                    true,
                    format!(
                        "turned on in {} (enabledPlugins)",
                        setting
                            .and_then(|s| s.get(1))
                            .and_then(Value::as_str)
                            .unwrap_or("settings")
                    ),
                ),
            };
            let context = Context {
                locations,
                id: id.clone(),
                name: name.clone(),
                root: plugin_root.clone(),
                options: options.get(id).cloned(),
                secrets: secrets_doc
                    .as_ref()
                    .and_then(|d| d.get("pluginSecrets")?.get(id).cloned()),
                origin: PluginOrigin::Marketplace,
            };
            let servers = plugin_root
                .as_ref()
                .map(|r| context.servers(r, &mut set.problems))
                .unwrap_or_default();
            set.plugins.push(Plugin {
                id: id.clone(),
                name: name.clone(),
                marketplace,
                root: plugin_root.as_ref().map(|p| p.display().to_string()),
                version: record
                    .get("version")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                enabled: is_on,
                refused: refusal.is_some(),
                why,
                servers: servers.iter().map(PluginServer::listed).collect(),
                from_skills: false,
            });
            if is_on {
                set.servers.extend(servers);
            }
        }

        let mut personal: Vec<(String, PathBuf)> = Vec::new();
        for (folder, origin) in [
            (
                locations.claude_dir().join("skills"),
                PluginOrigin::PersonalSkills,
            ),
            (
                project_root.join(".claude").join("skills"),
                PluginOrigin::ProjectSkills,
            ),
        ] {
            let mut dirs: Vec<PathBuf> = std::fs::read_dir(&folder)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.join(".claude-plugin/plugin.json").is_file())
                .collect();
            dirs.sort();
            for dir in dirs {
                let manifest_path = dir.join(".claude-plugin/plugin.json");
                let manifest = read(&mut set, &manifest_path);
                let folder_name = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let name = manifest
                    .as_ref()
                    .and_then(|m| m.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| folder_name.clone());
                let mut plugin = Plugin {
                    id: format!("{name}@{SKILLS_DIR}"),
                    name: name.clone(),
                    marketplace: None,
                    root: Some(dir.display().to_string()),
                    version: None,
                    enabled: true,
                    refused: false,
                    why: match origin {
                        PluginOrigin::ProjectSkills => {
                            "a skills folder plugin of this project: its servers need approval"
                                .into()
                        }
                        _ => "a skills folder plugin of yours (~/.claude/skills)".into(),
                    },
                    servers: Vec::new(),
                    from_skills: true,
                };
                let shadowing = personal
                    .iter()
                    .find(|(n, _)| origin == PluginOrigin::ProjectSkills && *n == name);
                if let Some(why) = invalid_plugin_name(&name) {
                    // Named by its folder, as Claude Code lists it: the name is not usable.
                    plugin.id = format!("{folder_name}@{SKILLS_DIR}");
                    plugin.enabled = false;
                    plugin.refused = true;
                    plugin.why = format!(
                        "Manifest validation failed: {why} (in {})",
                        manifest_path.display()
                    );
                    set.problems.push(ConfigError::Shape {
                        path: manifest_path.clone(),
                        message: format!("{why}: the plugin is not loaded"),
                    });
                    set.plugins.push(plugin);
                    continue;
                }
                if let Some((_, theirs)) = shadowing {
                    plugin.enabled = false;
                    plugin.why = format!(
                        "Not loaded — your {} (same plugin name \"{name}\") shadowed the project's {}. To use the project's copy here, rename or move yours.",
                        theirs.display(),
                        dir.display()
                    );
                    set.plugins.push(plugin);
                    continue;
                }
                // Options and secrets are the person's, for what they put in their own
                // folder; a project's plugin gets none, whatever it is called.
                let (options, secrets) = match origin {
                    PluginOrigin::ProjectSkills => (None, None),
                    _ => (
                        options.get(&plugin.id).cloned(),
                        secrets_doc
                            .as_ref()
                            .and_then(|d| d.get("pluginSecrets")?.get(&plugin.id).cloned()),
                    ),
                };
                let context = Context {
                    locations,
                    id: plugin.id.clone(),
                    name: name.clone(),
                    root: Some(dir.clone()),
                    options,
                    secrets,
                    origin,
                };
                let servers = context.servers(&dir, &mut set.problems);
                plugin.servers = servers.iter().map(PluginServer::listed).collect();
                set.plugins.push(plugin);
                set.servers.extend(servers);
                if origin == PluginOrigin::PersonalSkills {
                    personal.push((name, dir));
                }
            }
        }
        set
    }
}

/// The root of plugin `name` of a marketplace that is a local folder, read in place: the
/// folder's `.claude-plugin/marketplace.json` entry `source`, relative to the folder.
fn in_place_root(marketplace: &Value, name: &str) -> Option<PathBuf> {
    let source = marketplace.get("source")?;
    if source.get("source").and_then(Value::as_str) != Some("directory") {
        return None;
    }
    let location = PathBuf::from(marketplace.get("installLocation")?.as_str()?);
    let catalog = document::read(&location.join(".claude-plugin/marketplace.json"))
        .ok()
        .flatten()?;
    let entry = catalog
        .value
        .get("plugins")?
        .as_array()?
        .iter()
        .find(|p| p.get("name").and_then(Value::as_str) == Some(name))?;
    let relative = entry.get("source")?.as_str()?;
    // `./plugins/x` → `<folder>/plugins/x`, as Claude Code shows it.
    Some(
        location
            .join(relative)
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect(),
    )
}

struct Context<'a> {
    locations: &'a Locations,
    id: String,
    name: String,
    root: Option<PathBuf>,
    options: Option<Value>,
    secrets: Option<Value>,
    origin: PluginOrigin,
}

impl Context<'_> {
    /// The servers the plugin at `root` declares: `.mcp.json`, then `plugin.json`'s over it.
    fn servers(&self, root: &Path, problems: &mut Vec<ConfigError>) -> Vec<PluginServer> {
        let mut declared: Vec<(String, Value, PathBuf, bool)> = Vec::new();
        let mut add = |map: &Map<String, Value>, file: &Path, bundle: bool| {
            for (server, entry) in map {
                declared.retain(|(s, ..)| s != server);
                declared.push((server.clone(), entry.clone(), file.to_path_buf(), bundle));
            }
        };
        let mcp_json = root.join(".mcp.json");
        if let Some(map) = read_servers(&mcp_json, problems) {
            add(&map, &mcp_json, false);
        }
        let manifest_path = root.join(".claude-plugin/plugin.json");
        let manifest = match document::read(&manifest_path) {
            Ok(doc) => doc.map(|d| d.value),
            Err(err) => {
                problems.push(err);
                None
            }
        };
        let declared_there = manifest.as_ref().and_then(|m| m.get("mcpServers")).cloned();
        let items: Vec<Value> = match declared_there {
            Some(Value::Array(items)) => items,
            Some(other) => vec![other],
            None => Vec::new(),
        };
        for item in items {
            match item {
                Value::String(path) if path.ends_with(".mcpb") || path.ends_with(".dxt") => {
                    let stem = Path::new(&path)
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let mut map = Map::new();
                    map.insert(stem, serde_json::json!({ "bundle": path }));
                    add(&map, &manifest_path, true);
                }
                Value::String(path) => {
                    let file = root.join(path.trim_start_matches("./"));
                    if let Some(map) = read_servers(&file, problems) {
                        add(&map, &file, false);
                    }
                }
                Value::Object(map) => add(&map, &manifest_path, false),
                _ => problems.push(ConfigError::Shape {
                    path: manifest_path.clone(),
                    message:
                        "\"mcpServers\" must be a path, an object of servers, or a list of these"
                            .into(),
                }),
            }
        }
        let mut servers = Vec::new();
        for (server, entry, file, bundle) in declared {
            let kind = entry.get("type").and_then(Value::as_str);
            if matches!(kind, Some("sdk" | "sse-ide" | "ws-ide")) {
                problems.push(ConfigError::Entry {
                    path: file.clone(),
                    name: format!("plugin:{}:{server}", self.name),
                    message: format!(
                        "type \"{}\" servers cannot come from a plugin",
                        kind.unwrap_or_default()
                    ),
                });
                continue;
            }
            let mut secrets = Vec::new();
            let raw = if bundle {
                entry
            } else {
                self.substitute(&entry, &mut secrets)
            };
            servers.push(PluginServer {
                name: format!("plugin:{}:{server}", self.name),
                plugin: self.id.clone(),
                file,
                raw,
                secrets,
                origin: self.origin,
                bundle,
            });
        }
        servers
    }

    /// The entry with the plugin's variables put in; a stdio entry also gets
    /// `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA` in its `env`.
    fn substitute(
        &self,
        entry: &Value,
        secrets: &mut Vec<(String, crate::secrets::Secret)>,
    ) -> Value {
        let root = self
            .root
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let data = data_dir(self.locations, &self.id).display().to_string();
        let project = self.locations.project_root().display().to_string();
        let option = |key: &str| -> Option<Value> {
            self.options.as_ref()?.get("options")?.get(key).cloned()
        };
        let text_of = |value: Value| match value {
            Value::String(s) => s,
            other => other.to_string(),
        };
        let mut value_of = |name: &str| -> Option<String> {
            match name {
                "CLAUDE_PLUGIN_ROOT" => Some(root.clone()),
                "CLAUDE_PLUGIN_DATA" => Some(data.clone()),
                "CLAUDE_PROJECT_DIR" => Some(project.clone()),
                _ => {
                    let key = name.strip_prefix("user_config.")?;
                    if let Some(value) = option(key) {
                        return Some(text_of(value));
                    }
                    // A sensitive option: kept as written, put in when the server starts.
                    if let Some(secret) = self.secrets.as_ref().and_then(|s| s.get(key)) {
                        if !secrets.iter().any(|(n, _)| n == name) {
                            secrets.push((
                                name.to_string(),
                                crate::secrets::Secret::new(text_of(secret.clone())),
                            ));
                        }
                    }
                    None
                }
            }
        };
        let mut value = map_strings(entry, &mut |s| fill(s, &mut value_of));
        let is_stdio = value.get("command").is_some()
            && value
                .get("type")
                .and_then(Value::as_str)
                .is_none_or(|t| t == "stdio");
        if is_stdio {
            if let Some(object) = value.as_object_mut() {
                let env = object
                    .entry("env")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(env) = env.as_object_mut() {
                    env.entry("CLAUDE_PLUGIN_ROOT")
                        .or_insert(root.clone().into());
                    env.entry("CLAUDE_PLUGIN_DATA")
                        .or_insert(data.clone().into());
                }
            }
        }
        value
    }
}

/// `text` with each `${NAME}` that `value_of` knows put in; the others stay as written (for
/// the ordinary `${VAR}` expansion when the server starts).
fn fill(text: &str, value_of: &mut dyn FnMut(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        match value_of(&after[..end]) {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + 2 + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// `value` with `f` applied to every string in it (keys left alone).
fn map_strings(value: &Value, f: &mut dyn FnMut(&str) -> String) -> Value {
    match value {
        Value::String(s) => Value::String(f(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| map_strings(v, f)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), map_strings(v, f)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A file of servers, with or without the `mcpServers` wrapper.
fn read_servers(path: &Path, problems: &mut Vec<ConfigError>) -> Option<Map<String, Value>> {
    let doc = match document::read(path) {
        Ok(doc) => doc?,
        Err(err) => {
            problems.push(err);
            return None;
        }
    };
    let servers = doc.value.get("mcpServers").unwrap_or(&doc.value);
    servers.as_object().cloned()
}

/// Turns plugin `id` on or off in `file` (`enabledPlugins["NAME@MARKETPLACE"]`), as Claude
/// Code's `/plugin` does: one key of that settings file changes, under Claude Code's lock.
pub fn set_enabled(
    locations: &Locations,
    id: &str,
    enabled: bool,
    file: super::permissions::SettingsFile,
) -> Result<PathBuf, ConfigError> {
    let known = PluginSet::load(locations)
        .plugins
        .into_iter()
        .find(|p| p.id == id);
    match known {
        None => {
            return Err(ConfigError::Invalid(format!(
                "no installed plugin is called \"{id}\" (installed_plugins.json under {})",
                plugins_root(locations).display()
            )))
        }
        Some(plugin) if plugin.from_skills => {
            return Err(ConfigError::Invalid(format!(
                "\"{id}\" is a skills folder plugin ({}): it is on while its folder is there",
                plugin.root.unwrap_or_default()
            )))
        }
        Some(plugin) if plugin.refused && enabled => {
            return Err(ConfigError::Invalid(format!(
                "\"{id}\" stays off whatever the settings say. {}",
                plugin.why
            )))
        }
        Some(_) => {}
    }
    if file != super::permissions::SettingsFile::User && !super::trust::is_trusted(locations) {
        return Err(ConfigError::Untrusted {
            folder: locations.project_root(),
            what: format!(
                "the project's settings turn plugins on or off only once it is, so \"{id}\" would not change; choose your own settings (user) instead, or trust the folder."
            ),
        });
    }
    let path = file.path(locations);
    locations.confine(&path)?;
    let layout = document::Layout {
        indent: "  ".into(),
        final_newline: true,
    };
    document::update_in(
        &path,
        document::NewFileMode::Shared,
        Some(layout),
        |value| {
            let plugins = document::object_at(&path, value, &["enabledPlugins"])?;
            plugins.insert(id.to_string(), Value::Bool(enabled));
            Ok(())
        },
    )?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_names_are_put_in_and_the_rest_stays_as_written() {
        let mut known = |name: &str| (name == "CLAUDE_PLUGIN_ROOT").then(|| "/p".to_string());
        assert_eq!(
            fill(
                "${CLAUDE_PLUGIN_ROOT}/x ${HOME} ${user_config.k} ${",
                &mut known
            ),
            "/p/x ${HOME} ${user_config.k} ${"
        );
    }

    #[test]
    fn plugin_names_are_refused_as_claude_code_refuses_them() {
        for (name, refused) in [
            ("slack", false),
            ("my-plugin_2.x", false),
            ("", true),
            ("slack@official", true),
            ("plugin:a", true),
            ("two words", true),
            ("tab\tname", true),
            ("a/b", true),
            ("a\\b", true),
            ("..", true),
            (".", true),
            ("zero\u{200B}width", true),
            ("bidi\u{202E}gnp", true),
        ] {
            assert_eq!(invalid_plugin_name(name).is_some(), refused, "{name:?}");
        }
        assert_eq!(
            invalid_plugin_name("slack@official").unwrap(),
            r#"name: "slack@official" is not a valid plugin name (must be non-empty and must not contain "@", ":", whitespace, path separators, or invisible/control characters)"#
        );
    }

    #[test]
    fn the_data_folder_is_named_after_the_plugin_id_made_safe() {
        let dir = tempfile::tempdir().unwrap();
        let locations = Locations::new(dir.path().to_path_buf(), None, dir.path()).unwrap();
        assert!(
            data_dir(&locations, "fake plug@fake-mkt").ends_with("plugins/data/fake-plug-fake-mkt")
        );
    }
}
