//! Enterprise policy over MCP servers, read as Claude Code reads it.
//!
//! An administrator decides which servers may run through managed settings:
//! `managed-settings.json` in the managed folder (`/etc/claude-code` on Linux), then every
//! `managed-settings.d/*.json` in alphabetical order (hidden and non-`.json` files ignored).
//! Those files, and the person's and the project's settings, may hold
//! `allowedMcpServers` / `deniedMcpServers`: lists of entries that each name exactly one of
//! `serverName`, `serverCommand` (the exact `[command, …args]`) or `serverUrl`.
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
//! A `serverUrl` is compared as a URL, never as text, because a server's address can be
//! spelled many ways that reach the same place: `http://x@127.1:80/`, `0x7f000001`,
//! `%69nternal.example.com.`, `INTERNAL.example.com:443`, `https:\\host\mcp`. A text match
//! misses all of them (a deny list then lets the server through), and a text `*` spans `/`
//! (`http://*.example.com/*` would allow `http://127.0.0.1/.example.com/`). Claude Code
//! 2.1.332 compares them this way, and our tests run it as the judge:
//! - Both the pattern (each `*` held by a placeholder) and the address are parsed as WHATWG
//!   URLs (`url::Url`): IPv4 numbers in any form become dotted decimal, IPv6 literals their
//!   short form, hosts are percent-decoded, IDNA-mapped and lower-cased, dot segments and the
//!   default port go, backslashes count as slashes. The user name and password are ignored.
//!   The path stays as WHATWG writes it (`%6d` is not `m`), and an IPv4-mapped IPv6 address is
//!   not its IPv4 address: Claude Code treats them so, and so do we.
//! - The schemes must be equal (`*://` is any scheme); the hosts, each without one final dot,
//!   must match, where `*` stands for any run of host characters (`*.example.com` is also
//!   `a.b.example.com`, `api-*` part of a label; it stays inside the host, never reaching
//!   the user name, port or path); the ports must be equal, unless the pattern's port is `*`
//!   or its host has a `*` and no port; then the path and query, where `*` spans anything,
//!   `/` included. A pattern with no path, query or final `/` (`https://host`) matches every
//!   path on its host.
//! - A deny entry also blocks the address without query and fragment, with its final slashes
//!   removed, and with the pattern's final slashes put back when the pattern's path has no `*`.
//! - A pattern that does not parse is compared as text with the parsed address, one
//!   `/`-separated segment at a time, so there too `*` never spans a `/`.
//! - An address that does not parse cannot be shown to differ from a denied one: when any
//!   `serverUrl` deny entry applies, the server is blocked, and its status says the address
//!   is no valid URL. (Claude Code lists it and fails to connect; it runs in neither.)
//!
//! Claude Code drops a blocked server without a word. We keep it in the list, never start it,
//! and say which rule of which file blocks it, so the person knows whom to ask.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use url::Url;

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

/// Stands in for each `*` of a pattern while the pattern is parsed as a URL (lower-case
/// letters and digits, so that no part of a URL changes it), as Claude Code does.
const WILDCARD: &str = "zzwildcard5c0e9a17f3b2d846zz";
/// Put in front of a `xn--…` label that holds a wildcard, so that the parser does not try (and
/// fail) to read it as punycode; taken out again after parsing.
const PUNYCODE_GUARD: &str = "zzpunycode8f21d0b4a6e3c957zz";

/// Said after the rule that blocks a server whose address does not parse.
const UNREADABLE_ADDRESS: &str = " (the server's address is not a valid URL, so it cannot be \
     told apart from a blocked one; correct the address)";

/// Whether `url` matches a `serverUrl` pattern, compared as Claude Code 2.1.332 compares them
/// (see the module doc). A deny pattern also blocks the URL without its query and fragment,
/// with its trailing slashes removed, and (when the pattern's path has no `*` and the pattern
/// no query) with the pattern's trailing slashes in their place.
pub fn url_matches(pattern: &str, url: &str, deny: bool) -> bool {
    if address_matches(pattern, url) {
        return true;
    }
    if !deny {
        return false;
    }
    let Ok(mut bare) = Url::parse(url) else {
        return false;
    };
    bare.set_query(None);
    bare.set_fragment(None);
    let pattern_slashes = UrlPattern::parse(pattern)
        .filter(|p| {
            p.url.query().unwrap_or("").is_empty()
                && p.url.fragment().unwrap_or("").is_empty()
                && !p.url.path().contains(WILDCARD)
        })
        .map(|p| {
            let path = p.url.path();
            path.len() - path.trim_end_matches('/').len()
        })
        .unwrap_or(0);
    let href = bare.as_str();
    let stripped = href.trim_end_matches('/');
    let slashed = format!("{stripped}{}", "/".repeat(pattern_slashes));
    [href, stripped, &slashed]
        .iter()
        .any(|candidate| address_matches(pattern, candidate))
}

/// Claude Code's one comparison of a server's address with a pattern: both parsed as URLs
/// (WHATWG), then scheme, host, port and path with query each compared.
fn address_matches(pattern: &str, url: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    let Ok(url) = Url::parse(url) else {
        return false;
    };
    match UrlPattern::parse(pattern) {
        Some(parsed) => parsed.matches(&url),
        // A pattern that is no URL is compared as text with the parsed address, one `/`
        // segment at a time: there a `*` never spans a `/`.
        None => {
            let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
            let address = format!(
                "{}://{}{port}{}{}",
                url.scheme(),
                url.host_str().unwrap_or(""),
                url.path(),
                search(&url)
            );
            let (want, have): (Vec<&str>, Vec<&str>) =
                (pattern.split('/').collect(), address.split('/').collect());
            want.len() == have.len() && want.iter().zip(&have).all(|(w, h)| glob(w, h))
        }
    }
}

/// A `serverUrl` pattern parsed as a URL, with its wildcards held by [`WILDCARD`].
struct UrlPattern {
    /// The pattern as parsed, before a wildcard port was put aside.
    filled: String,
    url: Url,
    /// The port was written `*`.
    any_port: bool,
}

impl UrlPattern {
    /// `None` when the pattern does not parse as a URL even with a `*` port taken as any port.
    fn parse(pattern: &str) -> Option<UrlPattern> {
        let filled = guard_punycode(&pattern.replace('*', WILDCARD));
        let (url, any_port) = match Url::parse(&filled) {
            Ok(url) => (url, false),
            Err(_) => {
                let port = format!(":{WILDCARD}");
                let at = filled.match_indices(&port).map(|(i, _)| i).find(|i| {
                    filled[i + port.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| matches!(c, '/' | '?' | '#'))
                })?;
                let fixed = format!("{}:0{}", &filled[..at], &filled[at + port.len()..]);
                (Url::parse(&fixed).ok()?, true)
            }
        };
        let special = matches!(
            url.scheme(),
            "http" | "https" | "ws" | "wss" | "ftp" | "file"
        );
        let unguarded_punycode = url
            .host_str()
            .unwrap_or("")
            .split('.')
            .any(|label| label.starts_with("xn--") && label.contains(WILDCARD));
        if special && unguarded_punycode {
            return None;
        }
        Some(UrlPattern {
            filled,
            url,
            any_port,
        })
    }

    fn matches(&self, url: &Url) -> bool {
        let scheme = self.url.scheme();
        if scheme != WILDCARD && scheme != url.scheme() {
            return false;
        }
        let written_host = self.url.host_str().unwrap_or("");
        let host = without_one_dot(url.host_str().unwrap_or("")).to_lowercase();
        let wanted = without_one_dot(&written_host.replace(PUNYCODE_GUARD, ""))
            .to_lowercase()
            .replace(WILDCARD, "*");
        if !glob(&wanted, &host) {
            return false;
        }
        // A host with a wildcard and no port matches any port.
        let any_port =
            self.any_port || (self.url.port().is_none() && written_host.contains(WILDCARD));
        if !any_port && self.url.port() != url.port() {
            return false;
        }
        // `https://host` (no path, no query, no final slash) matches every path of the host.
        if matches!(self.url.path(), "/" | "")
            && search(&self.url).is_empty()
            && !self.filled.ends_with('/')
        {
            return true;
        }
        let wanted = format!("{}{}", self.url.path(), search(&self.url))
            .replace(PUNYCODE_GUARD, "")
            .replace(WILDCARD, "*");
        glob(&wanted, &format!("{}{}", url.path(), search(url)))
    }
}

/// The query as WHATWG's `search`: empty, or `?` and the query.
fn search(url: &Url) -> String {
    match url.query() {
        Some(query) if !query.is_empty() => format!("?{query}"),
        _ => String::new(),
    }
}

fn without_one_dot(host: &str) -> &str {
    host.strip_suffix('.').unwrap_or(host)
}

/// Puts [`PUNYCODE_GUARD`] before every run of letters, digits and `-` that starts with
/// `xn--` and holds a wildcard.
fn guard_punycode(filled: &str) -> String {
    let mut out = String::with_capacity(filled.len());
    let mut rest = filled;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphanumeric() || c == '-') {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        let run = &rest[..end];
        if run.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("xn--")) && run.contains(WILDCARD) {
            out.push_str(PUNYCODE_GUARD);
        }
        out.push_str(run);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
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
        let applicable = || {
            self.denied
                .iter()
                .filter(move |l| !(provided_by_org && l.from_project))
        };
        let matched = applicable()
            .find(|l| l.rule.matches(name, config, true) || l.rule.matches(name, &expanded, true))
            .map(|l| (l, ""));
        // An address that is no URL cannot be shown to differ from a denied one: it counts as
        // denied by the first `serverUrl` entry (it could not be reached anyway).
        let unreadable = match &expanded.transport {
            Transport::Remote { url, .. } => Url::parse(url).is_err(),
            _ => false,
        };
        let matched = matched.or_else(|| {
            let first_url_rule = applicable().find(|l| matches!(l.rule, ServerRule::Url(_)));
            first_url_rule
                .filter(|_| unreadable)
                .map(|l| (l, UNREADABLE_ADDRESS))
        });
        if let Some((first, why)) = matched {
            return Some(PolicyBlock {
                denied: true,
                rule: format!("deniedMcpServers {}{why}", first.rule.to_json()),
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
    use crate::config::entry::TransportKind;

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

    /// Each spelling of a denied address that Claude Code 2.1.332 blocks (the judge test in
    /// `crates/mcpctl/tests/claude_compat.rs` runs it on the same table).
    #[test]
    fn a_deny_pattern_blocks_every_spelling_of_the_address() {
        for url in [
            "http://127.0.0.1:8765/mcp",
            "http://x@127.0.0.1:8765/mcp",
            "http://x:y@127.0.0.1:8765/mcp",
            "http://127.1:8765/mcp",
            "http://0x7f000001:8765/mcp",
            "http://0177.0.0.1:8765/mcp",
            "http://2130706433:8765/mcp",
            "http://127.0.0.1.:8765/mcp",
            "http://%31%32%37.0.0.1:8765/mcp",
            "HTTP://127.0.0.1:8765/mcp",
            "  http://127.0.0.1:8765/mcp\t",
            "http:\\\\127.0.0.1:8765\\mcp",
        ] {
            assert!(
                url_matches("http://127.0.0.1:8765/*", url, true),
                "{url} is denied"
            );
        }
        for url in [
            "https://internal.example.com:443/mcp",
            "https://internal.example.com./mcp",
            "https://%69nternal.example.com/mcp",
            "https://INTERNAL.Example.COM/mcp",
            "https://ＩＮＴＥＲＮＡＬ.example.com/mcp",
            "https://a:b@internal.example.com/mcp",
            "https://internal.example.com/x/../mcp",
            "https://internal.example.com/./mcp",
            "https://internal.example.com/mcp?x=1#f",
            "https://internal.example.com/mcp/",
            "https://internal.example.com/mcp//",
        ] {
            assert!(
                url_matches("https://internal.example.com/mcp", url, true),
                "{url} is denied"
            );
        }
        // IPv6 literals are compared in their canonical spelling.
        for url in [
            "http://[::ffff:7f00:1]:8766/mcp",
            "http://[0:0:0:0:0:ffff:7f00:1]:8766/mcp",
            "http://[::FFFF:127.0.0.1]:8766/mcp",
        ] {
            assert!(
                url_matches("http://[::ffff:127.0.0.1]:8766/*", url, true),
                "{url}"
            );
        }
        // What Claude Code lets through, and so do we: other hosts and ports, the path as
        // WHATWG writes it (`%6d` is not `m`), an IPv4-mapped IPv6 address for an IPv4 one.
        for url in [
            "http://127.0.0.2:8765/mcp",
            "http://127.0.0.1:8766/mcp",
            "http://[::ffff:127.0.0.1]:8765/mcp",
            "https://127.0.0.1:8765/mcp",
        ] {
            assert!(!url_matches("http://127.0.0.1:8765/*", url, true), "{url}");
        }
        for url in [
            "https://internal.example.com/%6dcp",
            "https://internal.example.com:444/mcp",
            "https://internal.example.com/mcp/x",
            "http://internal.example.com/mcp",
            "not a url",
        ] {
            assert!(
                !url_matches("https://internal.example.com/mcp", url, true),
                "{url}"
            );
        }
    }

    #[test]
    fn an_allow_pattern_admits_only_its_hosts_and_a_host_star_never_spans_a_slash() {
        let allows = |pattern: &str, url: &str| url_matches(pattern, url, false);
        for url in [
            "http://127.0.0.1:8765/.example.com/mcp",
            "http://a.example.com@127.0.0.1/mcp",
            "http://127.0.0.1/mcp?.example.com/",
            "http://127.0.0.1/#.example.com/",
            "http://example.com/mcp",
            "http://evilexample.com/mcp",
            "https://a.example.com/mcp",
            "not a url",
        ] {
            assert!(
                !allows("http://*.example.com/*", url),
                "{url} is not allowed"
            );
        }
        for url in [
            "http://a.example.com/mcp",
            "http://a.b.example.com/x/y",
            "http://a.example.com:8080/mcp",
            "HTTP://A.EXAMPLE.COM./mcp",
            "http://user@a.example.com/mcp",
        ] {
            assert!(allows("http://*.example.com/*", url), "{url} is allowed");
        }
        // A `*` may stand for part of a label; a host with no `*` keeps its port.
        assert!(allows(
            "https://api-*.corp.test/mcp",
            "https://api-x.corp.test/mcp"
        ));
        assert!(!allows(
            "https://api-*.corp.test/mcp",
            "https://api-x.corp.test/mcp?q=1"
        ));
        assert!(!allows(
            "https://api.corp.test/mcp",
            "https://api.corp.test:444/mcp"
        ));
        assert!(allows(
            "https://api.corp.test/mcp",
            "https://api.corp.test:443/mcp"
        ));
        // A `*` port is any port; `*://` any scheme.
        assert!(allows(
            "http://127.0.0.1:*/ok/*",
            "http://127.0.0.1:9999/ok/mcp"
        ));
        assert!(!allows(
            "http://127.0.0.1:*/ok/*",
            "http://127.0.0.1:9999/no/mcp"
        ));
        assert!(allows("*://any.test/x", "https://any.test/x"));
        assert!(!allows("*://any.test/x", "https://any.test:8443/x"));
        // An origin with no path is every path of the origin; with `/`, the root only.
        assert!(allows(
            "https://origin.test",
            "https://origin.test/deep/path?q"
        ));
        assert!(allows("https://slash.test/", "https://slash.test"));
        assert!(!allows("https://slash.test/", "https://slash.test/x"));
        assert!(allows("*", "not a url"));
    }

    #[test]
    fn a_pattern_that_is_no_url_is_compared_one_path_segment_at_a_time() {
        // An unclosed `[` makes the pattern no URL: its text is compared with the parsed
        // address, and a `*` stays inside its `/` segment.
        assert!(address_matches("http://[*/x/*", "http://[::1]/x/y"));
        assert!(!address_matches("http://[*/*", "http://[::1]/x/y"));
        assert!(address_matches("http://[*]/x/*", "http://[::1]/x/y"));
        assert!(!address_matches("http://[*]/x/*", "http://[::1]:8/x/y"));
        assert!(!address_matches("http://[*/x/*", "not a url"));
        // A port that is neither a number nor a lone `*` makes no URL either.
        assert!(!address_matches("http://host:*x/*", "http://host:1/a"));
    }

    #[test]
    fn an_address_that_is_no_url_is_blocked_by_a_url_deny_and_says_why() {
        let policy = Policy {
            denied: vec![
                Listed {
                    rule: ServerRule::Name("other".into()),
                    file: PathBuf::from("/etc/claude-code/managed-settings.json"),
                    from_project: false,
                },
                Listed {
                    rule: ServerRule::Url("https://blocked.example/*".into()),
                    file: PathBuf::from("/etc/claude-code/managed-settings.d/10.json"),
                    from_project: false,
                },
            ],
            ..Policy::default()
        };
        let remote = |url: &str| ServerConfig::remote(TransportKind::Http, url, Vec::new());
        let block = policy
            .check("x", &remote("http://127.0.0.1:99999/mcp"), false, false)
            .expect("blocked");
        assert!(block.denied);
        assert_eq!(block.files, ["/etc/claude-code/managed-settings.d/10.json"]);
        assert!(
            block.describe().contains(r#"deniedMcpServers {"serverUrl":"https://blocked.example/*"} (the server's address is not a valid URL"#),
            "{}",
            block.describe()
        );
        assert_eq!(
            policy.check("x", &remote("https://fine.example/mcp"), false, false),
            None
        );
        let no_url_rule = Policy {
            denied: vec![policy.denied[0].clone()],
            ..Policy::default()
        };
        assert_eq!(
            no_url_rule.check("x", &remote("http://[::1/mcp"), false, false),
            None,
            "only a serverUrl entry can be in doubt"
        );
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
