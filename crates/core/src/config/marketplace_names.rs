//! Who may call a plugin marketplace official: Claude Code 2.1.332's rules, read from its program
//! and checked against `claude plugin list --json` in the same home.
//!
//! A marketplace is whatever `known_marketplaces.json` records under a name, and a plugin's id is
//! `NAME@MARKETPLACE`. The name is what the person reads in every list, so a marketplace called
//! `claude-plugins-official` that is in fact someone's fork would pass for Anthropic's own.
//! Claude Code refuses, at load, and loads no plugin of such a marketplace (none of its
//! commands, skills, hooks or servers):
//!
//! - an install record whose key is not a valid plugin id (`[A-Za-z0-9][-A-Za-z0-9._]*` on each
//!   side of one `@`): it is set aside. This is what keeps every non-ASCII look-alike out
//!   (`ｃlaude-…`, a Cyrillic `а`, a zero-width space): such a name is not an id;
//! - a [reserved name](RESERVED) (any case) unless its source is a GitHub repository of the
//!   `anthropics` organisation (`"source": "github"` with `anthropics/…`, or `"source": "git"`
//!   with a `github.com/anthropics/…` URL);
//! - another spelling of a reserved name (`claude.plugins.official`): ignored;
//! - a name that presents itself as Anthropic's (`official-claude-tools`, `claude_official`,
//!   `claude-marketplace`, `anthropic-plugins2`): "it looks like one of Anthropic's own",
//!   whatever its source.
//!
//! [`refusal`] gives Claude Code's own words for each, and `None` for a name it loads. Claude
//! Code also exempts marketplaces its administrator seeds (`CLAUDE_CODE_PLUGIN_SEED_DIR`); we
//! do not read seeds, so none is exempt here.

use serde_json::Value;

/// The names Claude Code 2.1.332 keeps for Anthropic's marketplaces, lower case.
pub const RESERVED: &[&str] = &[
    "claude-code-marketplace",
    "claude-code-plugins",
    "claude-plugins-official",
    "anthropic-marketplace",
    "anthropic-plugins",
    "agent-skills",
    "anthropic-agent-skills",
    "life-sciences",
    "knowledge-work-plugins",
    "claude-for-legal",
    "claude-for-financial-services",
    "financial-services-plugins",
    "first-party-plugins",
    "claude-tag-plugins",
    "claude-community",
    "claude-plugins-community",
    "healthcare",
    PLUGIN_DIRECTORY,
    "claude-plugin-directory",
];

/// The Anthropic Directory's marketplace, whose catalog Claude Code fetches itself.
pub const PLUGIN_DIRECTORY: &str = "anthropic-plugin-directory";

/// The one GitHub organisation whose repositories may use a reserved name.
const ORGANISATION: &str = "anthropics";

/// Whether `id` is a plugin id Claude Code keeps an install record under.
pub fn valid_plugin_id(id: &str) -> bool {
    let Some((name, marketplace)) = id.split_once('@') else {
        return false;
    };
    let part = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
    };
    part(name) && part(marketplace)
}

/// Why Claude Code loads no plugin of marketplace `name`, recorded as `record` in
/// `known_marketplaces.json`, in its words; `None` when it loads them. `plugin` is the plugin's
/// name, which one message names.
pub fn refusal(name: &str, record: &Value, plugin: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if name == PLUGIN_DIRECTORY {
        return Some(format!(
            "Plugin \"{plugin}\" is not loaded: the Anthropic Directory's catalog is not on this machine yet."
        ));
    }
    if let Some(reserved) = other_spelling(name) {
        return Some(format!(
            "Marketplace {name} is added but ignored. known_marketplaces.json has an entry named \"{name}\", another spelling of the reserved marketplace name \"{reserved}\", so it is ignored. Remove it with: claude plugin marketplace remove {name}"
        ));
    }
    let source = record.get("source");
    let kind = source.and_then(|s| s.get("source")).and_then(Value::as_str);
    let text = |key: &str| source.and_then(|s| s.get(key)).and_then(Value::as_str);
    // A git address git is not given is refused first, whatever the name.
    if let Some(refused) = git_refusal(name, kind.unwrap_or(""), text("url")) {
        return Some(refused);
    }
    if RESERVED.contains(&lower.as_str()) {
        let why = match kind {
            _ if !source.is_some_and(Value::is_object) => format!(
                "The name ’{name}’ is reserved for official Anthropic marketplaces and its registered source is malformed."
            ),
            Some(kind @ ("github" | "git")) => {
                let official = if kind == "github" {
                    text("repo").is_some_and(|r| !r.contains(':') && in_organisation(r))
                } else {
                    text("url").is_some_and(|u| u.contains(':') && in_organisation(u))
                };
                if official {
                    return None;
                }
                format!(
                    "The name ’{name}’ is reserved for official Anthropic marketplaces. Only repositories from ’github.com/{ORGANISATION}/’ can use this name."
                )
            }
            _ => format!(
                "The name ’{name}’ is reserved for official Anthropic marketplaces and can only be used with GitHub sources from the ’{ORGANISATION}’ organization."
            ),
        };
        return Some(format!("Marketplace {name} failed to load: {why}"));
    }
    if looks_official(name) {
        return Some(format!(
            "Claude Code refuses the marketplace name \"{name}\": it looks like one of Anthropic's own"
        ));
    }
    None
}

/// A `git` source whose URL git cannot be given safely: Claude Code ignores the marketplace.
fn git_refusal(name: &str, kind: &str, url: Option<&str>) -> Option<String> {
    if kind != "git" {
        return None;
    }
    let why = match url {
        None => "its source names no URL".to_string(),
        Some(url) => git_url_problem(url)?,
    };
    Some(format!(
        "Marketplace {name} is added but ignored. Its git URL can't be used: {why}. Supported: https, http, ssh (also written git+ssh or ssh+git), user@host:path, or a local file:// address with no host."
    ))
}

/// What makes `url` unusable as a marketplace's git address, as Claude Code 2.1.332 judges it:
/// control characters or `%00`, a scheme git would not be given (`git://` is not encrypted), a
/// backslash before the host, a `file://` address with a host, text that is no URL.
fn git_url_problem(url: &str) -> Option<String> {
    if url.chars().any(|c| c.is_control()) {
        return Some("control characters are not allowed".into());
    }
    if url.contains("%00") {
        return Some("\"%00\" is not allowed".into());
    }
    if scp_like(url) {
        return url
            .contains("://")
            .then(|| "an address written as user@host:path can't contain \"://\"".into());
    }
    let Ok(parsed) = url::Url::parse(url) else {
        return Some("it could not be read as a URL".into());
    };
    let scheme = parsed.scheme();
    if !matches!(
        scheme,
        "https" | "http" | "ssh" | "file" | "git+ssh" | "ssh+git"
    ) {
        return Some(format!("the protocol \"{scheme}:\" is not supported"));
    }
    let after = &url[url.find("://").map(|i| i + 3).unwrap_or(0)..];
    if matches!(scheme, "https" | "http") && after.split('/').next().unwrap_or("").contains('\\') {
        return Some("a backslash before the first \"/\" can make git connect to a different server than this address names".into());
    }
    if scheme == "file" && parsed.host_str().is_some_and(|h| !h.is_empty()) {
        return Some("a file:// address may name no host".into());
    }
    None
}

/// `user@host:path`, as git reads an address with no scheme.
fn scp_like(url: &str) -> bool {
    let word = |s: &str| {
        !s.is_empty()
            && !s.starts_with('-')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    };
    let Some((user, rest)) = url.split_once('@') else {
        return false;
    };
    let Some((host, path)) = rest.split_once(':') else {
        return false;
    };
    let host_ok = word(host)
        || (host.starts_with('[')
            && host.ends_with(']')
            && host[1..host.len() - 1]
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.'));
    word(user) && host_ok && !path.starts_with("//")
}

/// The reserved name that `name` spells another way: another case of the Directory's name,
/// or (other case aside) `.` or another sign for `-`, a trailing `.`, a compatibility form of
/// a letter, an invisible character.
fn other_spelling(name: &str) -> Option<&'static str> {
    let lower = name.to_lowercase();
    let signs = |text: &str| -> String {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect()
    };
    let plain = signs(name);
    let folded: String = name.chars().map(fold).collect();
    let cleaned: String = folded.chars().filter(|c| !is_invisible(*c)).collect();
    let spellings = [
        plain,
        signs(&folded),
        signs(cleaned.to_lowercase().trim_end_matches(['.', ' '])),
    ];
    if spellings.iter().any(|s| s == PLUGIN_DIRECTORY) {
        return Some(PLUGIN_DIRECTORY);
    }
    RESERVED
        .iter()
        .copied()
        .filter(|r| *r != PLUGIN_DIRECTORY && lower != *r)
        .find(|r| spellings.iter().any(|s| s == r))
}

/// The few compatibility forms Unicode's NFKC folds to ASCII letters and digits: the full-width
/// block. (A name holding any of them is no plugin id anyway; this names which reserved name it
/// imitates.)
fn fold(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200C}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{206A}'..='\u{206F}' | '\u{FEFF}')
}

/// Claude Code's look-alike test: "official" next to "anthropic" or "claude" (in either order,
/// with only signs between), or a name that opens with "anthropic" or "claude" followed by
/// "marketplace", "plugins" or "official"; and any character outside printable ASCII.
pub fn looks_official(name: &str) -> bool {
    if RESERVED.contains(&name.to_lowercase().as_str()) {
        return false;
    }
    if name.chars().any(|c| !(' '..='~').contains(&c)) {
        return true;
    }
    let s = name.to_ascii_lowercase();
    const BRANDS: &[&str] = &["anthropic", "claude"];
    let then = |rest: &str, words: &[&str]| {
        let rest = rest.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
        words.iter().any(|w| rest.starts_with(w))
    };
    let any_at = |word: &str, next: &[&str]| {
        s.match_indices(word)
            .any(|(i, w)| then(&s[i + w.len()..], next))
    };
    any_at("official", BRANDS)
        || BRANDS.iter().any(|b| any_at(b, &["official"]))
        || BRANDS.iter().any(|b| {
            s.strip_prefix(b)
                .is_some_and(|rest| then(rest, &["marketplace", "plugins", "official"]))
        })
}

/// Whether a GitHub source's `repo` or a git source's URL names a repository of the
/// `anthropics` organisation on GitHub, read as Claude Code reads it: a URL of a git scheme on
/// github.com (or ssh.github.com for ssh), or `user@host:path`, or `owner/repo`; the path
/// exactly `owner/repo` (a trailing `/` or `.git` aside).
fn in_organisation(address: &str) -> bool {
    repository(address).is_some_and(|r| r.starts_with(&format!("{ORGANISATION}/")))
}

/// `owner/repo`, lower case, of a GitHub address; `None` when it names none.
fn repository(address: &str) -> Option<String> {
    if address.contains("%00") || address.contains('\0') || address.contains('\\') {
        return None;
    }
    let path = if let Some(i) = address.find("://") {
        let parsed = url::Url::parse(address).ok()?;
        let ssh = matches!(parsed.scheme(), "ssh" | "git+ssh");
        let known = matches!(
            parsed.scheme(),
            "https" | "http" | "git" | "git+https" | "git+http" | "git+ssh" | "ssh"
        );
        let host = parsed.host_str().unwrap_or("");
        if !known || !(github(host) || (ssh && host.eq_ignore_ascii_case("ssh.github.com"))) {
            return None;
        }
        let rest = &address[i + 3..];
        let end = rest.find(['/', '?', '#'])?;
        if !rest[end..].starts_with('/') {
            return None;
        }
        rest[end + 1..]
            .split(['?', '#'])
            .next()
            .unwrap_or("")
            .to_string()
    } else if let Some(colon) = address.find(':') {
        let before = &address[..colon];
        let host = &before[before.find('@').map(|i| i + 1).unwrap_or(0)..];
        if before.contains('/') || !(github(host) || host.eq_ignore_ascii_case("ssh.github.com")) {
            return None;
        }
        address[colon + 1..].trim_start_matches('/').to_string()
    } else {
        address.to_string()
    };
    let path = path.strip_suffix('/').unwrap_or(&path);
    let path = if path.to_ascii_lowercase().ends_with(".git") {
        &path[..path.len() - 4]
    } else {
        path
    };
    let (owner, repo) = path.split_once('/')?;
    let owner_ok = !owner.is_empty()
        && owner.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !owner.starts_with('-')
        && !owner.ends_with('-');
    let repo_ok = !repo.is_empty()
        && repo
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && repo != "."
        && repo != "..";
    (owner_ok && repo_ok).then(|| path.to_ascii_lowercase())
}

fn github(host: &str) -> bool {
    matches!(
        host.to_ascii_lowercase().as_str(),
        "github.com" | "www.github.com"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plugin_ids_are_plain_ascii_names_on_each_side_of_one_at() {
        for (id, valid) in [
            ("p@good", true),
            ("p@claude_official", true),
            ("p@my.claude.directories", true),
            ("p@-claude-plugins", false),
            ("p@a b", false),
            ("p@a\tb", false),
            ("p@tilde~ok", false),
            ("p@café-tools", false),
            ("p@\u{ff43}laude-plugins-official", false),
            ("p@a@b", false),
            ("p", false),
        ] {
            assert_eq!(valid_plugin_id(id), valid, "{id:?}");
        }
    }

    #[test]
    fn a_reserved_name_is_anthropics_alone() {
        let github = |repo: &str| json!({"source": {"source": "github", "repo": repo}});
        let git = |url: &str| json!({"source": {"source": "git", "url": url}});
        for (name, record, loads) in [
            ("agent-skills", github("anthropics/skills"), true),
            ("CLAUDE-PLUGINS-OFFICIAL", github("anthropics/x"), true),
            (
                "claude-code-plugins",
                github("Anthropics/claude-code"),
                true,
            ),
            (
                "claude-plugins-official",
                github("someone/claude-plugins-official"),
                false,
            ),
            (
                "claude-tag-plugins",
                github("anthropics/x/../../evil/y"),
                false,
            ),
            (
                "life-sciences",
                github("https://github.com/anthropics/life-sciences"),
                false,
            ),
            ("agent-skills", github("anthropics"), false),
            ("anthropic-plugins", github(" anthropics/x "), false),
            (
                "knowledge-work-plugins",
                git("https://github.com/anthropics/k.git"),
                true,
            ),
            (
                "agent-skills",
                git("git@github.com:anthropics/skills.git"),
                true,
            ),
            (
                "life-sciences",
                git("ssh://git@github.com/anthropics/l.git"),
                true,
            ),
            (
                "first-party-plugins",
                git("https://gitlab.com/anthropics/x.git"),
                false,
            ),
            (
                "claude-for-legal",
                git("https://github.com/anthropics-evil/x.git"),
                false,
            ),
            (
                "anthropic-marketplace",
                json!({"source": {"source": "url", "url": "https://github.com/anthropics/x/m.json"}}),
                false,
            ),
            (
                "Life-Sciences",
                json!({"source": {"source": "directory", "path": "/tmp"}}),
                false,
            ),
            ("healthcare", json!({"source": "oops"}), false),
        ] {
            assert_eq!(
                refusal(name, &record, "p").is_none(),
                loads,
                "{name} {record}"
            );
        }
        assert_eq!(
            refusal("claude-plugins-official", &github("someone/x"), "p").unwrap(),
            "Marketplace claude-plugins-official failed to load: The name ’claude-plugins-official’ is reserved for official Anthropic marketplaces. Only repositories from ’github.com/anthropics/’ can use this name."
        );
    }

    #[test]
    fn names_that_present_themselves_as_anthropics_are_refused_and_others_are_not() {
        for (name, refused) in [
            ("official-claude-tools", true),
            ("claude_official", true),
            ("claude--official", true),
            ("claudeofficial", true),
            ("the-official-anthropic-hub", true),
            ("CLAUDE-MARKETPLACE", true),
            ("claudeplugins", true),
            ("anthropic-plugins2", true),
            ("claude-plugins-officia1", true),
            ("claude-code-tools", false),
            ("Anthropic_Directory", false),
            ("tools-for-claude", false),
            ("x-claude-marketplaces", false),
            ("my.claude.directories", false),
            ("plugins-claude", false),
            ("claude1plugins", false),
            ("anthropicplugin", false),
            ("my-claude-plugins", false),
            ("agent-skills-2", false),
            ("agent_skills", false),
        ] {
            assert_eq!(looks_official(name), refused, "{name}");
        }
        assert!(refusal("claude.plugins.official", &json!({}), "p")
            .unwrap()
            .contains(
                "another spelling of the reserved marketplace name \"claude-plugins-official\""
            ));
    }
}
