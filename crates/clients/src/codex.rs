//! Codex CLI's view of a project's tools.
//!
//! Read from openai/codex:
//! - `codex-rs/codex-mcp/src/mcp_tool_names.rs` @52a0ab1 (`qualify_tools`): a tool's model
//!   name is its namespace `mcp__<server>__` and its name, each sanitized; a raw identity seen
//!   twice is skipped ("skipping duplicated tool"); namespaces or names that meet once
//!   sanitized get `_` and 12 hex characters of the SHA-1 of their raw identity; tools are then
//!   taken in the order of their raw identities, and a name over 64 bytes, or already used, is
//!   cut and given the hash suffix;
//! - `codex-rs/codex-mcp/src/mcp/mod.rs` @00b17c2 (`sanitize_responses_api_tool_name`):
//!   every character but ASCII letters, digits and `_` becomes `_`. The hyphen is no longer
//!   kept: `music-studio`/`get-strudel-guide` gives `mcp__music_studio__get_strudel_guide`
//!   (`mcp_connection_manager_tests.rs`);
//! - `codex-rs/core/src/mcp_tool_exposure.rs` @143cb13: with tool search available, 100 MCP
//!   tools or more (`DIRECT_MCP_TOOL_EXPOSURE_THRESHOLD`) are all deferred behind
//!   `tool_search`.
//!
//! The raw namespace of a configured server is `mcp__<server>__` unsanitized, as the tests'
//! `create_test_tool` builds it; apps connectors (`codex_apps`) are not modelled.

use ahash::{AHashMap as HashMap, AHashSet as HashSet};

use sha1::{Digest, Sha1};

use crate::view::{Client, ClientView, Effect, Listed};

pub const HOLDS_FOR: &str =
    "Codex CLI at openai/codex 52a0ab1 (mcp_tool_names.rs) / 00b17c2 (mcp/mod.rs) / 143cb13 (mcp_tool_exposure.rs)";
/// `MAX_TOOL_NAME_LENGTH`, in bytes.
pub const MAX_NAME: usize = 64;
/// `CALLABLE_NAME_HASH_LEN`.
const HASH_LEN: usize = 12;
/// `DIRECT_MCP_TOOL_EXPOSURE_THRESHOLD`.
pub const DEFER_AT: usize = 100;

/// `sanitize_responses_api_tool_name`.
pub fn sanitize(name: &str) -> String {
    let out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        "_".into()
    } else {
        out
    }
}

fn suffix(raw_identity: &str) -> String {
    let hash = Sha1::digest(raw_identity.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("_{}", &hex[..HASH_LEN])
}

fn truncate_chars(value: &str, max: usize) -> String {
    value.chars().take(max).collect()
}

/// `fit_callable_parts_with_hash`.
fn fit_with_hash(namespace: &str, tool: &str, identity: &str) -> (String, String) {
    let suffix = suffix(identity);
    let max_tool = MAX_NAME.saturating_sub(namespace.len());
    if max_tool >= suffix.len() {
        return (
            namespace.to_string(),
            format!("{}{suffix}", truncate_chars(tool, max_tool - suffix.len())),
        );
    }
    (truncate_chars(namespace, MAX_NAME - suffix.len()), suffix)
}

/// `unique_callable_parts`.
fn unique_parts(
    namespace: &str,
    tool: &str,
    identity: &str,
    used: &mut HashSet<String>,
) -> (String, String) {
    let display = format!("{namespace}{tool}");
    if display.len() <= MAX_NAME && used.insert(display) {
        return (namespace.to_string(), tool.to_string());
    }
    let mut attempt = 0u32;
    loop {
        let input = if attempt == 0 {
            identity.to_string()
        } else {
            format!("{identity}\0{attempt}")
        };
        let (ns, name) = fit_with_hash(namespace, tool, &input);
        if used.insert(format!("{ns}{name}")) {
            return (ns, name);
        }
        attempt = attempt.saturating_add(1);
    }
}

struct Candidate {
    server: usize,
    namespace_identity: String,
    tool_identity: String,
    namespace: String,
    name: String,
}

/// Codex's model name for each `(server, tool)`, in the order given; `None` for a tool skipped
/// as a duplicate.
pub fn names(tools: &[(&str, &str)]) -> Vec<Option<String>> {
    let mut seen = HashSet::new();
    let mut candidates = Vec::new();
    for (i, (server, tool)) in tools.iter().enumerate() {
        let raw_namespace = format!("mcp__{server}__");
        let namespace_identity = format!("{server}\0{raw_namespace}\0");
        let tool_identity = format!("{namespace_identity}\0{tool}\0{tool}");
        if !seen.insert(tool_identity.clone()) {
            continue;
        }
        candidates.push(Candidate {
            server: i,
            namespace: sanitize(&raw_namespace),
            name: sanitize(tool),
            namespace_identity,
            tool_identity,
        });
    }
    let mut by_namespace: HashMap<&str, HashSet<&str>> = HashMap::new();
    for c in &candidates {
        by_namespace
            .entry(c.namespace.as_str())
            .or_default()
            .insert(c.namespace_identity.as_str());
    }
    let colliding: HashSet<String> = by_namespace
        .into_iter()
        .filter(|(_, ids)| ids.len() > 1)
        .map(|(ns, _)| ns.to_string())
        .collect();
    for c in &mut candidates {
        if colliding.contains(&c.namespace) {
            // `append_namespace_hash_suffix`: before the trailing `__`.
            let base = c
                .namespace
                .strip_suffix("__")
                .unwrap_or(&c.namespace)
                .to_string();
            c.namespace = format!("{base}{}__", suffix(&c.namespace_identity));
        }
    }
    let mut by_tool: HashMap<(&str, &str), HashSet<&str>> = HashMap::new();
    for c in &candidates {
        by_tool
            .entry((c.namespace.as_str(), c.name.as_str()))
            .or_default()
            .insert(c.tool_identity.as_str());
    }
    let colliding: HashSet<(String, String)> = by_tool
        .into_iter()
        .filter(|(_, ids)| ids.len() > 1)
        .map(|((ns, n), _)| (ns.to_string(), n.to_string()))
        .collect();
    for c in &mut candidates {
        if colliding.contains(&(c.namespace.clone(), c.name.clone())) {
            c.name = format!("{}{}", c.name, suffix(&c.tool_identity));
        }
    }
    candidates.sort_by(|a, b| a.tool_identity.cmp(&b.tool_identity));
    let mut used = HashSet::new();
    let mut out = vec![None; tools.len()];
    for c in candidates {
        let (ns, name) = unique_parts(&c.namespace, &c.name, &c.tool_identity, &mut used);
        out[c.server] = Some(format!("{ns}{name}"));
    }
    out
}

pub(crate) fn view(servers: &[Listed<'_>]) -> ClientView {
    let mut out = ClientView::new(Client::Codex, HOLDS_FOR);
    let mut flat: Vec<(&str, &str)> = Vec::new();
    for listed in servers {
        for (raw, _) in listed.tools() {
            flat.push((listed.server, raw));
        }
    }
    let names = names(&flat);
    let mut count = 0;
    for ((server, raw), name) in flat.iter().zip(names) {
        match &name {
            None => out.finding(
                server,
                Some(raw),
                Effect::Dropped,
                format!("skipping duplicated tool {raw}: the server lists it more than once."),
                "List each tool once.",
            ),
            Some(name) => {
                count += 1;
                let plain = format!("{}{}", sanitize(&format!("mcp__{server}__")), sanitize(raw));
                if *name != plain {
                    let (effect, why, fix) = if plain.len() > MAX_NAME {
                        (
                            Effect::Cut,
                            format!(
                                "\"{plain}\" has {} bytes, over Codex's {MAX_NAME}",
                                plain.len()
                            ),
                            format!(
                                "Shorten the server's name or the tool's name so that \
                                 mcp__<server>__<tool> stays within {MAX_NAME} bytes."
                            ),
                        )
                    } else {
                        (
                            Effect::Renamed,
                            format!(
                                "another tool or server of the project also becomes \"{plain}\" \
                                 once - and other characters are made _"
                            ),
                            "Give servers and tools names that differ in letters, digits or _."
                                .to_string(),
                        )
                    };
                    out.finding(
                        server,
                        Some(raw),
                        effect,
                        format!(
                            "Codex names it \"{name}\": {why}, so it gets a hash of its \
                             identity."
                        ),
                        fix,
                    );
                }
            }
        }
        out.tool(server, raw, name);
    }
    if count >= DEFER_AT {
        out.finding(
            "",
            None,
            Effect::Hidden,
            format!(
                "The project gives Codex {count} MCP tools, at least {DEFER_AT}: where the model \
                 supports tool search, Codex defers every one of them behind tool_search and the \
                 model loads them by searching."
            ),
            "Keep fewer than 100 tools enabled (enabled_tools / disabled_tools in Codex's \
             config), or split the servers across projects.",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // mcp_connection_manager_tests.rs (the version of mcp_tool_names.rs @52a0ab1):
    // test_qualify_tools_short_non_duplicated_names, _duplicated_names_skipped,
    // _sanitizes_invalid_characters, _keeps_hyphenated_mcp_tools_callable.
    #[test]
    fn names_are_sanitized_and_duplicates_skipped() {
        let names = names(&[
            ("server1", "tool1"),
            ("server1", "tool2"),
            ("server1", "tool1"),
            ("server.one", "tool.two-three"),
            ("music-studio", "get-strudel-guide"),
        ]);
        assert_eq!(
            names,
            [
                Some("mcp__server1__tool1".to_string()),
                Some("mcp__server1__tool2".to_string()),
                None,
                Some("mcp__server_one__tool_two_three".to_string()),
                Some("mcp__music_studio__get_strudel_guide".to_string()),
            ]
        );
    }

    // test_qualify_tools_long_names_same_server: both names are 64 bytes, keep the namespace
    // and hold only [A-Za-z0-9_]. The 12 hex characters are the SHA-1 of the raw identity
    // "my_server\0mcp__my_server__\0\0<tool>\0<tool>" (checked with Python's hashlib).
    #[test]
    fn long_names_are_cut_with_a_sha1_suffix() {
        let long =
            "extremely_lengthy_function_name_that_absolutely_surpasses_all_reasonable_limits";
        let names = names(&[("my_server", long)]);
        let name = names[0].as_deref().unwrap();
        assert_eq!(name.len(), 64);
        assert!(name.starts_with("mcp__my_server__extremely_lengthy_function_name_"));
        let identity = format!("my_server\0mcp__my_server__\0\0{long}\0{long}");
        assert!(name.ends_with(&suffix(&identity)));
        assert_eq!(suffix(&identity), "_de03a8de696f");
    }

    // test_qualify_tools_disambiguates_sanitized_namespace_collisions and
    // _tool_name_collisions: both tools stay, with distinct names.
    #[test]
    fn sanitized_collisions_get_distinct_hashed_names() {
        let n = names(&[("basic-server", "lookup"), ("basic_server", "query")]);
        assert_ne!(n[0], n[1]);
        assert!(n
            .iter()
            .flatten()
            .all(|n| n.starts_with("mcp__basic_server_") && n.len() <= 64));
        let n = names(&[("server", "tool-name"), ("server", "tool_name")]);
        assert_ne!(n[0], n[1]);
        assert!(n
            .iter()
            .flatten()
            .all(|n| n.starts_with("mcp__server__tool_name_")));
    }

    // mcp_tool_exposure.rs @143cb13: DIRECT_MCP_TOOL_EXPOSURE_THRESHOLD = 100, `>=`.
    #[test]
    fn a_hundred_tools_are_deferred() {
        let tools: Vec<_> = (0..100)
            .map(|i| serde_json::json!({"name": format!("t{i}")}))
            .collect();
        let listing = serde_json::json!({ "tools": tools });
        let listed = [Listed::plain("s", &listing)];
        assert!(view(&listed)
            .findings
            .iter()
            .any(|f| f.effect == Effect::Hidden));
        let listing = serde_json::json!({ "tools": tools[..99] });
        let listed = [Listed::plain("s", &listing)];
        assert!(view(&listed).findings.is_empty());
    }
}
