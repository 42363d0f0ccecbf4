//! Zed's view of a project's tools.
//!
//! Read from zed-industries/zed:
//! - `crates/agent/src/thread.rs` @000e783 `enabled_tools`: a context server's tool keeps its
//!   raw name (no server prefix), cut to 64 bytes (`MAX_TOOL_NAME_LENGTH`); a name met twice
//!   (another server's tool, or a built-in tool) is given the server id, cut to fit, and `_`
//!   in front, within 64; with less than 2 bytes of room the last one wins;
//!   `build_completion_request` leaves out a tool whose schema cannot be adapted (`log_err()?`);
//! - `crates/agent/src/tools/context_server_registry.rs` @0040008: a server's tools are kept by
//!   name (a later tool of one name replaces an earlier one);
//! - `crates/language_model/src/tool_schema.rs` @3b7c7e5 `adapt_schema_to_format`: the root's
//!   `$schema` and `title` are removed; for JSON Schema models a root object without
//!   `additionalProperties` gets `false` (and `properties: {}`); for Google-format models
//!   (`JsonSchemaSubset`) a key `$ref`, `if`, `then` or `else` anywhere fails the tool
//!   ("Schema cannot be made compatible because it contains …"), and string `format`, boolean
//!   `additionalProperties`, numeric `exclusiveMinimum`/`exclusiveMaximum` and boolean
//!   `optional` are removed, `oneOf` becomes `anyOf`;
//! - `crates/agent/src/tools.rs` @04cef76: the built-in tools an MCP tool's name can meet
//!   (their `NAME`s are the module names without `_tool`; inference from the file names).

use ahash::AHashMap as HashMap;

use serde_json::Value;

use crate::view::{Client, ClientView, Effect, Listed};

pub const HOLDS_FOR: &str =
    "Zed at zed-industries/zed 000e783 (thread.rs) / 3b7c7e5 (tool_schema.rs)";
/// `MAX_TOOL_NAME_LENGTH`, in bytes.
pub const MAX_NAME: usize = 64;
/// Zed's built-in agent tools (`tools.rs` @04cef76).
pub const BUILT_IN: [&str; 26] = [
    "apply_code_action",
    "control_debug_session",
    "copy_path",
    "create_directory",
    "delete_path",
    "diagnostics",
    "edit_file",
    "fetch",
    "find_path",
    "find_references",
    "get_code_actions",
    "get_debug_session_state",
    "go_to_definition",
    "grep",
    "list_debug_sessions",
    "list_directory",
    "move_path",
    "read_file",
    "rename",
    "skill",
    "spawn_agent",
    "terminal",
    "update_plan",
    "update_title",
    "web_search",
    "write_file",
];

/// `truncate`: 64 bytes (Zed's `String::truncate`, which needs a character boundary; we take
/// the nearest one below).
pub fn cut(name: &str) -> &str {
    if name.len() <= MAX_NAME {
        return name;
    }
    let mut end = MAX_NAME;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// The name given to a tool whose name is met twice, or `None` when there is no room.
pub fn disambiguated(server: &str, name: &str) -> Option<String> {
    let available = MAX_NAME.saturating_sub(name.len());
    if available < 2 {
        return None;
    }
    let mut prefix = server.to_string();
    if prefix.len() > available - 1 {
        let mut end = available - 1;
        while !prefix.is_char_boundary(end) {
            end -= 1;
        }
        prefix.truncate(end);
    }
    Some(format!("{prefix}_{name}"))
}

/// What the Google-format adaptation makes of a schema, in one walk: the first key of
/// `$ref`, `if`, `then` or `else` met (in document order; it fails the tool), else what it
/// removes or changes, by keyword.
fn google_adaptation(value: &Value, losses: &mut Vec<&'static str>) -> Option<&'static str> {
    match value {
        Value::Object(map) => {
            // The first of these four, in this order, that the node has.
            const KEYS: [&str; 4] = ["if", "then", "else", "$ref"];
            let mut unsupported: Option<usize> = None;
            let (mut format, mut exclusive, mut one_of) = (false, false, false);
            for (key, value) in map {
                let at = match key.as_str() {
                    "if" => 0,
                    "then" => 1,
                    "else" => 2,
                    "$ref" => 3,
                    "format" => {
                        format |= value.is_string();
                        continue;
                    }
                    "exclusiveMinimum" | "exclusiveMaximum" => {
                        exclusive |= value.is_number();
                        continue;
                    }
                    "oneOf" => {
                        one_of |= value.is_array();
                        continue;
                    }
                    _ => continue,
                };
                unsupported = Some(unsupported.map_or(at, |u| u.min(at)));
            }
            if let Some(at) = unsupported {
                return Some(KEYS[at]);
            }
            for (noted, keyword) in [
                (format, "format"),
                (exclusive, "exclusiveMinimum/exclusiveMaximum"),
                (one_of, "oneOf (made anyOf)"),
            ] {
                if noted && !losses.contains(&keyword) {
                    losses.push(keyword);
                }
            }
            map.values().find_map(|v| google_adaptation(v, losses))
        }
        Value::Array(items) => items.iter().find_map(|v| google_adaptation(v, losses)),
        _ => None,
    }
}

pub(crate) fn view(servers: &[Listed<'_>]) -> ClientView {
    let mut out = ClientView::new(Client::Zed, HOLDS_FOR);
    // Per server: its tools by raw name, the last of a name kept.
    let mut rows: Vec<(usize, String, Option<String>)> = Vec::new();
    let mut kept: Vec<(usize, usize, String)> = Vec::new(); // (server, row, cut name)
    let mut count: HashMap<String, usize> = BUILT_IN.iter().map(|n| (n.to_string(), 1)).collect();
    for (s, listed) in servers.iter().enumerate() {
        let server = listed.server;
        let mut last: HashMap<&str, usize> = HashMap::new();
        let tools: Vec<_> = listed.tools().collect();
        for (i, (raw, _)) in tools.iter().enumerate() {
            last.insert(raw, i);
        }
        for (i, (raw, tool)) in tools.iter().enumerate() {
            let row = rows.len();
            rows.push((s, raw.to_string(), None));
            if last[raw] != i {
                out.finding(
                    server,
                    Some(raw),
                    Effect::Dropped,
                    "The server lists this name more than once; Zed keeps the last one.",
                    "List each tool once.",
                );
                continue;
            }
            let name = cut(raw);
            if name.len() < raw.len() {
                out.finding(
                    server,
                    Some(raw),
                    Effect::Cut,
                    format!(
                        "Zed cuts the tool's name from {} to {MAX_NAME} bytes: the model sees \
                         \"{name}\".",
                        raw.len()
                    ),
                    format!("Keep the tool's name within {MAX_NAME} characters."),
                );
            }
            schema_findings(&mut out, server, raw, tool.get("inputSchema"));
            *count.entry(name.to_string()).or_insert(0) += 1;
            kept.push((s, row, name.to_string()));
        }
    }
    let mut plain_winner: HashMap<String, usize> = HashMap::new();
    for (s, row, name) in &kept {
        let server = servers[*s].server;
        if count[name] > 1 {
            let others = if BUILT_IN.contains(&name.as_str()) {
                "Zed's built-in tool of that name".to_string()
            } else {
                "another server's tool of that name".to_string()
            };
            match disambiguated(server, name) {
                Some(full) => {
                    out.finding(
                        server,
                        Some(&rows[*row].1),
                        Effect::Renamed,
                        format!(
                            "The name \"{name}\" is also {others}; Zed puts the server's id in \
                             front: the model sees \"{full}\"."
                        ),
                        "Give the tool a name of its own (a verb and the server's subject).",
                    );
                    rows[*row].2 = Some(full);
                }
                None => {
                    plain_winner.insert(name.clone(), *row);
                    rows[*row].2 = Some(name.clone());
                }
            }
        } else {
            rows[*row].2 = Some(name.clone());
        }
    }
    // No room for the server's id: the last one inserted wins (Zed's server order is a hash
    // map's; we say which one we could not keep apart).
    for (s, row, name) in &kept {
        if plain_winner.get(name).is_some_and(|w| w != row) {
            rows[*row].2 = None;
            out.finding(
                servers[*s].server,
                Some(&rows[*row].1),
                Effect::Dropped,
                format!(
                    "\"{name}\" is met more than once and leaves no room for the server's id: \
                     Zed keeps only one tool of that name."
                ),
                format!("Keep the tool's name well within {MAX_NAME} characters."),
            );
        }
    }
    for (s, raw, name) in rows {
        out.tool(servers[s].server, &raw, name);
    }
    out
}

fn schema_findings(out: &mut ClientView, server: &str, raw: &str, schema: Option<&Value>) {
    let Some(schema) = schema else { return };
    let mut losses = Vec::new();
    if let Some(key) = google_adaptation(schema, &mut losses) {
        out.finding(
            server,
            Some(raw),
            Effect::Dropped,
            format!(
                "With a Google (Gemini) model, Zed leaves the tool out: \"Schema cannot be made \
                 compatible because it contains \\\"{key}\\\"\"."
            ),
            "Inline $ref definitions and avoid if/then/else (and properties named so).",
        );
    } else if !losses.is_empty() {
        out.finding(
            server,
            Some(raw),
            Effect::Cut,
            format!(
                "With a Google (Gemini) model, Zed removes from the schema: {}.",
                losses.join(", ")
            ),
            "Say the constraint in the property's description too.",
        );
    }
    let object = schema.get("type").and_then(Value::as_str) == Some("object");
    let open = !schema
        .as_object()
        .is_some_and(|m| m.contains_key("additionalProperties"));
    let no_properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(|p| p.is_empty());
    if object && open && no_properties {
        out.finding(
            server,
            Some(raw),
            Effect::Cut,
            "Zed adds additionalProperties: false to the root of a schema without it; this \
             schema lists no properties, so the model can send no argument at all.",
            "List the tool's parameters under properties, or set additionalProperties: true.",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // thread.rs @000e783 enabled_tools: truncate to MAX_TOOL_NAME_LENGTH (64); duplicates
    // (here with the built-in "read_file") prefixed with the server id and "_".
    #[test]
    fn names_are_raw_cut_at_64_and_prefixed_on_a_clash() {
        let long = "t".repeat(70);
        let listing = json!({"tools": [
            {"name": "read_file", "inputSchema": {"type": "object", "properties": {"p": {"type": "string"}}}},
            {"name": long, "inputSchema": {"type": "object", "properties": {"p": {"type": "string"}}}},
        ]});
        let view = view(&[Listed::plain("filesystem", &listing)]);
        assert_eq!(view.tools[0].name.as_deref(), Some("filesystem_read_file"));
        assert_eq!(view.tools[1].name.as_deref(), Some("t".repeat(64).as_str()));
        assert_eq!(disambiguated("server", &"x".repeat(63)), None);
        assert_eq!(
            disambiguated("long-server-name", &"x".repeat(55)).unwrap(),
            format!("long-ser_{}", "x".repeat(55))
        );
    }

    // tool_schema.rs @3b7c7e5 test_transform_fails_if_unsupported_keys_exist: a property
    // named "$ref", "if", "then" or "else" fails, as a real $ref does.
    #[test]
    fn ref_and_conditionals_fail_the_tool_for_google_models() {
        for key in ["$ref", "if", "then", "else"] {
            let schema = json!({"type": "object", "properties": {key: "..."}});
            assert_eq!(google_adaptation(&schema, &mut Vec::new()), Some(key));
        }
        let listing = json!({"tools": [{"name": "x", "inputSchema":
            {"type": "object", "properties": {"u": {"$ref": "#/definitions/User"}}}}]});
        let view = view(&[Listed::plain("s", &listing)]);
        assert_eq!(view.findings[0].effect, Effect::Dropped);
    }

    // tool_schema.rs @3b7c7e5 test_transform_removes_unsupported_keys / _one_of_to_any_of.
    #[test]
    fn google_models_lose_format_bounds_and_one_of() {
        let mut losses = Vec::new();
        let unsupported = google_adaptation(
            &json!({"type": "integer", "format": "uint32", "exclusiveMinimum": 0,
                    "oneOf": [{"type": "string"}]}),
            &mut losses,
        );
        assert_eq!(unsupported, None);
        assert_eq!(
            losses,
            [
                "format",
                "exclusiveMinimum/exclusiveMaximum",
                "oneOf (made anyOf)"
            ]
        );
    }

    // tool_schema.rs @3b7c7e5 preprocess_json_schema: additionalProperties false when absent.
    #[test]
    fn an_open_object_without_properties_takes_no_arguments() {
        let listing = json!({"tools": [{"name": "free", "inputSchema": {"type": "object"}}]});
        let view = view(&[Listed::plain("s", &listing)]);
        assert!(view
            .findings
            .iter()
            .any(|f| f.effect == Effect::Cut && f.words.contains("additionalProperties: false")));
    }
}
