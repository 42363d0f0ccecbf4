//! Enterprise policy over MCP servers, read as Claude Code reads it.
//!
//! An administrator decides which servers may run through managed settings:
//! `managed-settings.json` in the managed folder (`/etc/claude-code` on Linux), then every
//! `managed-settings.d/*.json` in alphabetical order (hidden and non-`.json` files ignored).
//! Those files, and the person's and the project's settings, may hold
//! `allowedMcpServers` / `deniedMcpServers`: lists of entries that each name exactly one of
//! `serverName`, `serverCommand` (the exact `[command, …args]`) or `serverUrl` (`*` matches
//! anything; the host is compared without case).
//!
//! - A deny list entry blocks wherever it is written, and deny always wins over allow; an entry
//!   found only in the project's own settings does not block a server the organization
//!   provides (`managedMcpServers`, `managed-mcp.json`).
//! - Allow lists from every file are joined, unless managed settings say
//!   `allowManagedMcpServersOnly: true`; then only the managed ones count. No allow list at all
//!   allows everything; `[]` allows nothing. A remote server must match a `serverUrl` when the
//!   lists hold any, a stdio one a `serverCommand` when they hold any, otherwise its name must
//!   be listed. Servers the organization provides need no allow entry.
//! - `managedMcpServers` (managed settings only) are servers the organization provides: `http`
//!   or `sse` only, with no `${VAR}`; they win over a same-named entry of any scope.
//! - `strictPluginOnlyCustomization` (`true`, or a list holding `"mcp"`) keeps only servers
//!   that come from marketplace plugins, besides the organization's own.
//!
//! Claude Code drops a blocked server without a word. We keep it in the list, never start it,
//! and say which rule of which file blocks it, so the person knows whom to ask.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::document;
use super::entry::{ServerConfig, Transport};
use crate::error::ConfigError;
use crate::locations::Locations;

/// One entry of an allow or deny list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerRule {
    Name(String),
    Command(Vec<String>),
    Url(String),
}

impl ServerRule {
    fn parse(value: &Value) -> Option<ServerRule> {
        let object = value.as_object()?;
        let name = object.get("serverName").and_then(Value::as_str);
        let command = object.get("serverCommand").and_then(Value::as_array);
        let url = object.get("serverUrl").and_then(Value::as_str);
        match (name, command, url) {
            (Some(name), None, None) if !name.trim().is_empty() => {
                Some(ServerRule::Name(name.to_string()))
            }
            (None, Some(words), None) if !words.is_empty() => words
                .iter()
                .map(|w| w.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .map(ServerRule::Command),
            (None, None, Some(url)) => Some(ServerRule::Url(url.to_string())),
            _ => None,
        }
    }

    /// The entry as it is written in the file.
    pub fn to_json(&self) -> String {
        match self {
            ServerRule::Name(name) => serde_json::json!({ "serverName": name }),
            ServerRule::Command(words) => serde_json::json!({ "serverCommand": words }),
            ServerRule::Url(url) => serde_json::json!({ "serverUrl": url }),
        }
        .to_string()
    }

    fn matches(&self, name: &str, config: &ServerConfig, deny: bool) -> bool {
        match (self, &config.transport) {
            (ServerRule::Name(listed), _) => listed == name,
            (ServerRule::Command(words), Transport::Stdio { command, args, .. }) => {
                words.len() == args.len() + 1
                    && words[0] == *command
                    && words[1..].iter().zip(args).all(|(a, b)| a == b)
            }
            (ServerRule::Url(pattern), Transport::Remote { url, .. }) => {
                url_matches(pattern, url, deny)
            }
            _ => false,
        }
    }
}

/// Whether `url` matches a `serverUrl` pattern: `*` matches any run of characters, and the
/// scheme and host are compared without case. A deny pattern with no query also blocks the URL
/// with any query, and with a trailing slash added or (when its path has no `*`) removed.
pub fn url_matches(pattern: &str, url: &str, deny: bool) -> bool {
    let (pattern, url) = (fold_origin(pattern), fold_origin(url));
    if glob(&pattern, &url) {
        return true;
    }
    if !deny || pattern.contains('?') {
        return false;
    }
    let bare = url.split(['?', '#']).next().unwrap_or(&url);
    let toggled = match bare.strip_suffix('/') {
        Some(without) if !pattern.contains('*') => without.to_string(),
        Some(_) => bare.to_string(),
        None => format!("{bare}/"),
    };
    glob(&pattern, bare) || glob(&pattern, &toggled)
}

/// The URL with its scheme and host (everything before the path) in lower case.
fn fold_origin(url: &str) -> String {
    let start = url.find("://").map_or(0, |i| i + 3);
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    format!("{}{}", url[..end].to_ascii_lowercase(), &url[end..])
}

/// `*`-only glob matching, linear in practice (the classic two-pointer walk with backtracking
/// to the last star).
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < t.len() {
        if i < p.len() && p[i] != '*' && p[i] == t[j] {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

#[derive(Debug, Clone)]
struct Listed {
    rule: ServerRule,
    file: PathBuf,
    /// From the project's own `.claude/settings*.json`.
    from_project: bool,
}

/// Why policy keeps a server from starting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PolicyBlock {
    /// `deniedMcpServers` matched; false: no `allowedMcpServers` entry matched (or
    /// `strictPluginOnlyCustomization`).
    pub denied: bool,
    /// The setting and, for a deny, the entry that matched: `deniedMcpServers
    /// {"serverName":"x"}`.
    pub rule: String,
    /// The file(s) that hold the rule.
    pub files: Vec<String>,
}

impl PolicyBlock {
    /// Claude Code's words when adding such a server: `Cannot add MCP server "x": server is
    /// explicitly blocked by enterprise policy` / `… not allowed by enterprise policy`.
    pub fn refusal(&self, verb: &str, name: &str) -> String {
        if self.denied {
            format!("Cannot {verb} MCP server \"{name}\": server is explicitly blocked by enterprise policy")
        } else {
            format!("Cannot {verb} MCP server \"{name}\": not allowed by enterprise policy")
        }
    }

    /// One line for lists: what blocks it and where.
    pub fn describe(&self) -> String {
        let how = if self.denied {
            "Blocked by enterprise policy"
        } else {
            "Not allowed by enterprise policy"
        };
        format!("{how}: {} in {}", self.rule, self.files.join(", "))
    }
}

/// Every policy that bears on MCP servers, merged from all settings files.
#[derive(Debug, Default)]
pub struct Policy {
    denied: Vec<Listed>,
    /// `None` when no file has an allow list.
    allowed: Option<Vec<Listed>>,
    allowed_files: Vec<PathBuf>,
    /// `managedMcpServers`, in file order: (file, name, entry).
    pub managed_servers: Vec<(PathBuf, String, Value)>,
    /// The managed file that sets `strictPluginOnlyCustomization` for MCP.
    strict_plugin_only: Option<PathBuf>,
    /// Managed settings files read, in order.
    pub managed_files: Vec<PathBuf>,
    pub problems: Vec<ConfigError>,
}

/// The managed settings files, in the order Claude Code merges them.
pub fn managed_settings_files(locations: &Locations) -> Vec<PathBuf> {
    let mut files = vec![locations.managed_dir.join("managed-settings.json")];
    let mut drop_ins: Vec<PathBuf> =
        std::fs::read_dir(locations.managed_dir.join("managed-settings.d"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| !n.starts_with('.') && n.ends_with(".json"))
                    && p.is_file()
            })
            .collect();
    drop_ins.sort();
    files.extend(drop_ins);
    files
}

impl Policy {
    /// Reads the managed settings files and the three settings files of person and project.
    /// The project's files count only for deny lists unless the folder is trusted.
    pub fn load(locations: &Locations, trusted: bool) -> Policy {
        let mut policy = Policy::default();
        let mut allow_managed_only = false;
        let mut managed_allowed: Option<Vec<Listed>> = None;
        let mut other_allowed: Option<Vec<Listed>> = None;
        let managed_files = managed_settings_files(locations);
        let sources = std::iter::once((locations.user_settings(), false, false))
            .chain(
                locations
                    .project_settings_files()
                    .into_iter()
                    .map(|p| (p, false, true)),
            )
            .chain(managed_files.iter().map(|p| (p.clone(), true, false)));
        for (path, managed, from_project) in sources {
            let value = match document::read(&path) {
                Ok(Some(doc)) => doc.value,
                Ok(None) => continue,
                Err(err) => {
                    if managed {
                        policy.problems.push(err);
                    }
                    continue;
                }
            };
            if managed {
                policy.managed_files.push(path.clone());
            }
            let list = |key: &str, problems: &mut Vec<ConfigError>| -> Option<Vec<Listed>> {
                let items = value.get(key)?;
                let Some(items) = items.as_array() else {
                    problems.push(ConfigError::Shape {
                        path: path.clone(),
                        message: format!("\"{key}\" must be a list"),
                    });
                    // Claude Code enforces an empty allow list when one is broken.
                    return Some(Vec::new());
                };
                let mut listed = Vec::new();
                for item in items {
                    match ServerRule::parse(item) {
                        Some(rule) => listed.push(Listed {
                            rule,
                            file: path.clone(),
                            from_project,
                        }),
                        None => problems.push(ConfigError::Shape {
                            path: path.clone(),
                            message: format!("an entry of \"{key}\" must have exactly one of \"serverName\", \"serverCommand\" or \"serverUrl\": {item}"),
                        }),
                    }
                }
                Some(listed)
            };
            if let Some(denied) = list("deniedMcpServers", &mut policy.problems) {
                policy.denied.extend(denied);
            }
            if let Some(allowed) = list("allowedMcpServers", &mut policy.problems) {
                if !from_project || trusted {
                    let into = if managed {
                        &mut managed_allowed
                    } else {
                        &mut other_allowed
                    };
                    into.get_or_insert_with(Vec::new).extend(allowed);
                    policy.allowed_files.push(path.clone());
                }
            }
            if !managed {
                continue;
            }
            allow_managed_only |=
                value.get("allowManagedMcpServersOnly") == Some(&Value::Bool(true));
            let strict = match value.get("strictPluginOnlyCustomization") {
                Some(Value::Bool(true)) => true,
                Some(Value::Array(items)) => items.iter().any(|i| i.as_str() == Some("mcp")),
                _ => false,
            };
            if strict {
                policy.strict_plugin_only = Some(path.clone());
            }
            if let Some(servers) = value.get("managedMcpServers") {
                policy.absorb_managed_servers(&path, servers);
            }
        }
        policy.allowed = if allow_managed_only {
            policy.allowed_files.retain(|f| managed_files.contains(f));
            managed_allowed
        } else {
            match (managed_allowed, other_allowed) {
                (None, None) => None,
                (a, b) => Some(a.into_iter().chain(b).flatten().collect()),
            }
        };
        policy
    }

    fn absorb_managed_servers(&mut self, path: &Path, servers: &Value) {
        let Some(servers) = servers.as_object() else {
            self.problems.push(ConfigError::Shape {
                path: path.to_path_buf(),
                message: "\"managedMcpServers\" must be an object of servers by name".into(),
            });
            return;
        };
        for (name, entry) in servers {
            let kind = entry.get("type").and_then(Value::as_str);
            let why = if !matches!(kind, Some("http" | "sse")) {
                Some("only \"http\" and \"sse\" servers are accepted")
            } else if entry.to_string().contains("${") {
                Some("it may not hold ${VAR} references")
            } else {
                None
            };
            match why {
                Some(why) => self.problems.push(ConfigError::Shape {
                    path: path.to_path_buf(),
                    message: format!("managedMcpServers \"{name}\" is not used: {why}"),
                }),
                None => {
                    self.managed_servers.retain(|(_, n, _)| n != name);
                    self.managed_servers
                        .push((path.to_path_buf(), name.clone(), entry.clone()));
                }
            }
        }
    }

    /// Whether any policy bears on servers at all.
    pub fn is_empty(&self) -> bool {
        self.denied.is_empty() && self.allowed.is_none() && self.strict_plugin_only.is_none()
    }

    /// Why policy keeps this server from starting, if it does. `provided_by_org`: it comes
    /// from `managed-mcp.json` or `managedMcpServers`; `from_plugin`: a marketplace plugin
    /// declares it.
    pub fn check(
        &self,
        name: &str,
        config: &ServerConfig,
        provided_by_org: bool,
        from_plugin: bool,
    ) -> Option<PolicyBlock> {
        let expanded = super::expand::expand_config(config, &super::expand::process_env).0;
        let denied: Vec<&Listed> = self
            .denied
            .iter()
            .filter(|l| !(provided_by_org && l.from_project))
            .filter(|l| l.rule.matches(name, config, true) || l.rule.matches(name, &expanded, true))
            .collect();
        if let Some(first) = denied.first() {
            return Some(PolicyBlock {
                denied: true,
                rule: format!("deniedMcpServers {}", first.rule.to_json()),
                files: vec![first.file.display().to_string()],
            });
        }
        if provided_by_org {
            return None;
        }
        if let Some(file) = &self.strict_plugin_only {
            if !from_plugin {
                return Some(PolicyBlock {
                    denied: false,
                    rule: "strictPluginOnlyCustomization (only plugin servers may run)".into(),
                    files: vec![file.display().to_string()],
                });
            }
        }
        let allowed = self.allowed.as_ref()?;
        let remote = matches!(expanded.transport, Transport::Remote { .. });
        let has = |f: fn(&ServerRule) -> bool| allowed.iter().any(|l| f(&l.rule));
        let kind_rules: fn(&ServerRule) -> bool = if remote {
            |r| matches!(r, ServerRule::Url(_))
        } else {
            |r| matches!(r, ServerRule::Command(_))
        };
        let candidates: Vec<&Listed> = if has(kind_rules) {
            allowed.iter().filter(|l| kind_rules(&l.rule)).collect()
        } else {
            allowed
                .iter()
                .filter(|l| matches!(l.rule, ServerRule::Name(_)))
                .collect()
        };
        if candidates
            .iter()
            .any(|l| l.rule.matches(name, &expanded, false))
        {
            return None;
        }
        let what = if !has(kind_rules) {
            "its name"
        } else if remote {
            "its URL"
        } else {
            "its command"
        };
        Some(PolicyBlock {
            denied: false,
            rule: format!("allowedMcpServers (no entry matches {what})"),
            files: self
                .allowed_files
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_patterns_match_as_claude_code_documents() {
        assert!(url_matches(
            "https://*.example.com/*",
            "https://API.Example.com/mcp",
            false
        ));
        assert!(!url_matches(
            "https://*.example.com/*",
            "https://example.org/mcp",
            false
        ));
        assert!(url_matches(
            "http://127.0.0.1:9/*",
            "http://127.0.0.1:9/mcp",
            false
        ));
        assert!(!url_matches(
            "http://127.0.0.1:9/*",
            "http://127.0.0.1:8/mcp",
            false
        ));
        // A deny pattern without a query also blocks the URL with one, and the slash toggled.
        assert!(url_matches(
            "https://x.dev/mcp",
            "https://x.dev/mcp?k=1",
            true
        ));
        assert!(!url_matches(
            "https://x.dev/mcp",
            "https://x.dev/mcp?k=1",
            false
        ));
        assert!(url_matches("https://x.dev/mcp", "https://x.dev/mcp/", true));
        assert!(url_matches("https://x.dev/mcp/", "https://x.dev/mcp", true));
        assert!(glob("a*b*c", "aXXbYYc"));
        assert!(!glob("a*b*c", "aXXbYY"));
    }

    #[test]
    fn a_rule_names_exactly_one_thing() {
        assert_eq!(
            ServerRule::parse(&serde_json::json!({"serverName": "x"})),
            Some(ServerRule::Name("x".into()))
        );
        assert_eq!(
            ServerRule::parse(&serde_json::json!({"serverName": "x", "serverUrl": "y"})),
            None
        );
        assert_eq!(
            ServerRule::parse(&serde_json::json!({"serverCommand": []})),
            None
        );
    }
}
