//! Gemini CLI's view of a project's tools.
//!
//! Read from google-gemini/gemini-cli @5411f11 (0.56.0-nightly.20260806):
//! - `packages/core/src/tools/mcp-tool.ts` `generateValidName`: `mcp_` + `<server>_<tool>`
//!   (no second `mcp_` when the joined name already starts with it), each UTF-16 unit outside
//!   `[a-zA-Z0-9_\-.:]` made `_`, and over 63 characters the first 30 + `...` + the last 30,
//!   logging "Truncating MCP tool name … This tool may require user approval.";
//! - `tools/tool-registry.ts` `registerTool`: a second tool of one name replaces the first
//!   ("Tool with name … is already registered. Overwriting.");
//! - `tools/mcp-client.ts` `discoverTools`: every `type: [X, "null"]` (two entries, X a
//!   string) anywhere in the schema becomes `type: X, nullable: true`;
//! - `tools/tools.ts` `addWaitForPreviousParameter`: a root `type: "object"` schema gains a
//!   `wait_for_previous` boolean, replacing one of the tool's own; the model's value is sent
//!   on to the server with the other arguments (`mcp-tool.ts` `execute`);
//! - `tools/tools.ts` `hasCycleInSchema` and `core/geminiChat.ts`: cyclic `$ref`s are named
//!   after an API error, "try disabling them with excludeTools";
//! - `docs/tools/mcp-server.md`: an `_` in a server's name breaks policy rules.
//!
//! The Gemini API's limit of 512 function declarations per request is not in this snapshot
//! (google-gemini/gemini-cli#19083, PR #26869): the request fails with HTTP 400.

use ahash::{AHashMap as HashMap, AHashSet as HashSet};

use serde_json::Value;

use crate::view::{js_len, js_replace_each, Client, ClientView, Effect, Listed};

pub const HOLDS_FOR: &str =
    "Gemini CLI 0.56.0-nightly.20260806 at google-gemini/gemini-cli 5411f11";
/// `MAX_FUNCTION_NAME_LENGTH - 1`.
pub const SAFE_LIMIT: usize = 63;
/// The Gemini API's limit on function declarations in one request.
pub const MAX_DECLARATIONS: usize = 512;

/// `generateValidName`.
pub fn valid_name(name: &str) -> String {
    let name = if name.starts_with("mcp_") {
        name.to_string()
    } else {
        format!("mcp_{name}")
    };
    let mut name = js_replace_each(&name, |c| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
    });
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    if js_len(&name) > SAFE_LIMIT {
        // ASCII only after the replacement, so bytes are UTF-16 units.
        name = format!("{}...{}", &name[..30], &name[name.len() - 30..]);
    }
    name
}

/// The name the model sees for `tool` of `server`.
pub fn tool_name(server: &str, tool: &str) -> String {
    valid_name(&format!("{server}_{tool}"))
}

/// The JSON pointers of `type: [X, "null"]` that Gemini CLI rewrites to `nullable`. The
/// path is kept as segments and written out only for a node found. Whether some node has a
/// `$ref` (without one, no cycle) is noted in the same walk.
fn nullable_rewrites<'a>(
    value: &'a Value,
    path: &mut Vec<Segment<'a>>,
    out: &mut Vec<String>,
    refers: &mut bool,
) {
    match value {
        Value::Object(map) => {
            let mut kind = None;
            for (key, child) in map {
                match key.as_str() {
                    "type" => kind = Some(child),
                    "$ref" => *refers = true,
                    _ => {}
                }
            }
            if let Some(Value::Array(types)) = kind {
                if types.len() == 2 {
                    if let Some(n) = types.iter().position(|t| t == "null") {
                        if types[1 - n].is_string() {
                            out.push(if path.is_empty() {
                                "/".into()
                            } else {
                                path.iter().map(|segment| format!("/{segment}")).collect()
                            });
                        }
                    }
                }
            }
            for (key, child) in map {
                if child.is_object() || child.is_array() {
                    path.push(Segment::Key(key));
                    nullable_rewrites(child, path, out, refers);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                if child.is_object() || child.is_array() {
                    path.push(Segment::Index(i));
                    nullable_rewrites(child, path, out, refers);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

/// One step of a JSON pointer.
enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

impl std::fmt::Display for Segment<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Segment::Key(key) => f.write_str(key),
            Segment::Index(i) => write!(f, "{i}"),
        }
    }
}

/// `hasCycleInSchema`.
pub fn has_cycle(schema: &Value) -> bool {
    fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
        let path = reference.strip_prefix("#/")?;
        let mut current = root;
        for segment in path.split('/') {
            current = match current {
                Value::Object(map) => map.get(segment)?,
                Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(current)
    }
    fn traverse(
        root: &Value,
        node: &Value,
        visited: &mut HashSet<String>,
        path: &mut HashSet<String>,
    ) -> bool {
        match node {
            Value::Array(items) => items.iter().any(|i| traverse(root, i, visited, path)),
            Value::Object(map) => {
                if let Some(Value::String(reference)) = crate::view::entry(map, "$ref") {
                    if reference == "#" || reference == "#/" || path.contains(reference) {
                        return true;
                    }
                    if visited.contains(reference) {
                        return false;
                    }
                    if let Some(resolved) = resolve(root, reference) {
                        visited.insert(reference.clone());
                        path.insert(reference.clone());
                        let cycle = traverse(root, resolved, visited, path);
                        path.remove(reference);
                        return cycle;
                    }
                }
                map.values().any(|v| traverse(root, v, visited, path))
            }
            _ => false,
        }
    }
    traverse(schema, schema, &mut HashSet::new(), &mut HashSet::new())
}

pub(crate) fn view(servers: &[Listed<'_>]) -> ClientView {
    let mut out = ClientView::new(Client::Gemini, HOLDS_FOR);
    // The registry keeps the last tool registered under a name.
    let mut last: HashMap<String, (usize, usize)> = HashMap::new();
    let mut rows: Vec<(usize, String, String)> = Vec::new();
    for (s, listed) in servers.iter().enumerate() {
        let server = listed.server;
        if server.contains('_') {
            out.finding(
                server,
                None,
                Effect::Warning,
                "Do not use underscores (_) in your MCP server names: the policy parser splits \
                 mcp_server_tool on the first underscore after mcp_, so wildcard rules and \
                 security policies for this server can fail silently.",
                format!(
                    "Name the server with - instead of _ (\"{}\").",
                    server.replace('_', "-")
                ),
            );
        }
        for (raw, tool) in listed.tools() {
            let name = tool_name(server, raw);
            let plain = valid_name_uncut(server, raw);
            if plain != name {
                out.finding(
                    server,
                    Some(raw),
                    Effect::Cut,
                    format!(
                        "Truncating MCP tool name \"{plain}\" to fit within the 64 character \
                         limit. This tool may require user approval. The model sees \"{name}\"."
                    ),
                    format!(
                        "Keep the server's and the tool's names within {} characters together.",
                        SAFE_LIMIT - 5
                    ),
                );
            }
            schema_findings(&mut out, server, raw, tool.get("inputSchema"));
            last.insert(name.clone(), (s, rows.len()));
            rows.push((s, raw.to_string(), name));
        }
    }
    let mut visible = 0;
    for (i, (s, raw, name)) in rows.iter().enumerate() {
        let (ws, wi) = last[name];
        let server = servers[*s].server;
        if wi == i {
            visible += 1;
            out.tool(server, raw, Some(name.clone()));
        } else {
            out.tool(server, raw, None);
            out.finding(
                server,
                Some(raw),
                Effect::Dropped,
                format!(
                    "Tool with name \"{name}\" is already registered. Overwriting. (\"{}\" of \
                     server \"{}\" takes the name, and the model never sees this one.)",
                    rows[wi].1, servers[ws].server
                ),
                "Give the tools names that differ once Gemini CLI rewrites and cuts them.",
            );
        }
    }
    if visible > MAX_DECLARATIONS {
        out.finding(
            "",
            None,
            Effect::Warning,
            format!(
                "The project gives Gemini CLI {visible} tools; the Gemini API refuses a request \
                 with more than {MAX_DECLARATIONS} function declarations (HTTP 400)."
            ),
            "Turn tools off with excludeTools / includeTools, or split the servers across \
             projects.",
        );
    }
    out
}

/// The name before the cut: what the log line quotes.
fn valid_name_uncut(server: &str, tool: &str) -> String {
    let name = format!("{server}_{tool}");
    let name = if name.starts_with("mcp_") {
        name
    } else {
        format!("mcp_{name}")
    };
    js_replace_each(&name, |c| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
    })
}

fn schema_findings(out: &mut ClientView, server: &str, raw: &str, schema: Option<&Value>) {
    let Some(schema) = schema else { return };
    let mut nullable = Vec::new();
    let mut refers = false;
    nullable_rewrites(schema, &mut Vec::new(), &mut nullable, &mut refers);
    if !nullable.is_empty() {
        out.finding(
            server,
            Some(raw),
            Effect::Cut,
            format!(
                "Gemini CLI rewrites type: [X, \"null\"] to type: X, nullable: true at {}; sent \
                 as parametersJsonSchema, where nullable is no JSON Schema keyword, the model is \
                 no longer told that null is allowed.",
                nullable.join(", ")
            ),
            "Make the property optional (leave it out of required) instead of allowing null.",
        );
    }
    let root_object = schema.get("type").and_then(Value::as_str) == Some("object")
        || nullable.iter().any(|p| p == "/")
            && schema["type"]
                .as_array()
                .is_some_and(|t| t.contains(&Value::from("object")));
    if root_object {
        if schema.pointer("/properties/wait_for_previous").is_some() {
            out.finding(
                server,
                Some(raw),
                Effect::Cut,
                "Gemini CLI adds its own wait_for_previous boolean to every tool (\"Set to true \
                 to wait for all previously requested tools in this turn to complete before \
                 starting\"), replacing this tool's own wait_for_previous property.",
                "Rename the tool's wait_for_previous property.",
            );
        } else if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
            out.finding(
                server,
                Some(raw),
                Effect::Warning,
                "Gemini CLI adds a wait_for_previous boolean to the tool's parameters and sends \
                 the model's value on to the server with the other arguments; this schema \
                 refuses properties it does not list (additionalProperties: false), so such a \
                 call may fail.",
                "Accept (and ignore) a wait_for_previous argument, or allow additional \
                 properties.",
            );
        }
    }
    if refers && has_cycle(schema) {
        out.finding(
            server,
            Some(raw),
            Effect::Warning,
            "The schema has cyclic $ref references; the Gemini API may refuse the request \
             (\"This error was probably caused by cyclic schema references in one of the \
             following tools, try disabling them with excludeTools\").",
            "Inline the recursive definition to a fixed depth.",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // mcp-tool.test.ts @5411f11, describe('generateValidName').
    #[test]
    fn names_follow_generate_valid_name() {
        assert_eq!(valid_name("myFunction"), "mcp_myFunction");
        assert_eq!(
            valid_name("invalid-name with spaces"),
            "mcp_invalid-name_with_spaces"
        );
        assert_eq!(
            valid_name(&"x".repeat(80)),
            "mcp_xxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        );
        assert_eq!(valid_name("!@#$%^&*()"), "mcp___________");
        for (length, expected) in [(63, 63), (64, 63), (80, 63)] {
            assert_eq!(valid_name(&"a".repeat(length)).len(), expected);
        }
        assert_eq!(valid_name("namespace:tool"), "mcp_namespace:tool");
        let long = format!("{}__{}", "a".repeat(40), "b".repeat(40));
        let cut = valid_name(&long);
        assert_eq!(cut, format!("mcp_{}...{}", "a".repeat(26), "b".repeat(30)));
    }

    // tool-registry.ts @5411f11 registerTool: "already registered. Overwriting."
    #[test]
    fn the_last_tool_of_a_name_wins() {
        let a = json!({"tools": [{"name": "x.y", "inputSchema": {"type": "object"}}]});
        let b = json!({"tools": [{"name": "y", "inputSchema": {"type": "object"}}]});
        let view = view(&[Listed::plain("s_x", &b), Listed::plain("s", &a)]);
        // "s_x" + "_y" and "s" + "_x.y" differ ("mcp_s_x_y" vs "mcp_s_x.y"): no collision.
        assert!(view.tools.iter().all(|t| t.name.is_some()));
        let c = json!({"tools": [{"name": "x y"}, {"name": "x_y"}]});
        let view = super::view(&[Listed::plain("s", &c)]);
        assert_eq!(view.tools[0].name, None);
        assert_eq!(view.tools[1].name.as_deref(), Some("mcp_s_x_y"));
    }

    // mcp-client.test.ts @5411f11 "should transform nullable array schemas": tags
    // type ["array","null"] becomes array + nullable, and wait_for_previous is added.
    #[test]
    fn nullable_unions_and_wait_for_previous_are_reported() {
        let listing = json!({"tools": [{"name": "nullableTool", "inputSchema": {
            "type": "object",
            "properties": {"tags": {"type": ["array", "null"], "items": {"type": "string"}},
                           "wait_for_previous": {"type": "string"}},
        }}]});
        let view = view(&[Listed::plain("test-server", &listing)]);
        let words: Vec<_> = view.findings.iter().map(|f| f.words.as_str()).collect();
        assert!(words[0].contains("/properties/tags"), "{words:?}");
        assert!(words[1].contains("replacing this tool's own wait_for_previous"));
    }

    // tools.test.ts @5411f11 describe('hasCycleInSchema').
    #[test]
    fn cycles_are_found_as_gemini_cli_finds_them() {
        assert!(has_cycle(
            &json!({"properties": {"data": {"$ref": "#/properties/data"}}})
        ));
        assert!(has_cycle(&json!({"type": "object", "properties": {
            "a": {"type": "object", "properties": {"child": {"$ref": "#/properties/b"}}},
            "b": {"type": "object", "properties": {"child": {"$ref": "#/properties/a"}}}}})));
        assert!(!has_cycle(&json!({"properties": {
            "a": {"$ref": "#/definitions/stringDef"}, "b": {"$ref": "#/definitions/stringDef"}},
            "definitions": {"stringDef": {"type": "string"}}})));
    }

    // docs/tools/mcp-server.md @5411f11: "Do not use underscores (_) in your MCP server names".
    #[test]
    fn an_underscore_in_a_server_name_is_warned() {
        let listing = json!({"tools": []});
        let view = view(&[Listed::plain("my_server", &listing)]);
        assert_eq!(view.findings[0].effect, Effect::Warning);
        assert!(view.findings[0].fix.contains("my-server"));
    }
}
