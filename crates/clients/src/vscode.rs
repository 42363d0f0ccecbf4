//! VS Code / GitHub Copilot's view of a project's tools.
//!
//! Read from microsoft/vscode `src/vs/workbench/contrib/mcp/common/`:
//! - `mcpTypes.ts` @006c4ca: `McpToolName { Prefix: 'mcp_', MaxPrefixLen: 18, MaxLength: 64 }`;
//! - `mcpServer.ts` @0052d68: `McpPrefixGenerator.take` (the server's name lower-cased, runs
//!   outside `[a-z0-9_.-]` made `_`, at most 13 characters, `2_`, `3_`… for a second server of
//!   the same prefix), `_normalizeTool` (a tool name's characters outside `[a-z0-9_-]`, any
//!   case, each made `_`; a missing description becomes `<empty>`; a schema that fails the
//!   draft-07 meta-schema drops the tool: "MCP server `x` has tools with invalid parameters
//!   which will be omitted"), and `McpTool`'s id `(prefix + name).replaceAll('.', '_')
//!   .slice(0, 64)`: cut, no hash;
//! - `mcpLanguageModelToolContribution.ts` @027907c: app-only tools (`_meta.ui.visibility`
//!   without `"model"`) are not registered; the description is sent whole;
//! - `chat/browser/tools/languageModelToolsService.ts` @00e03ed: a second tool of one id
//!   throws `Tool "<id>" is already registered.`
//!
//! And from microsoft/vscode-copilot-chat: `HARD_TOOL_LIMIT = 128` ("Max CAPI tool count
//! limit", `src/platform/configuration/common/configurationService.ts` @8be2242) and
//! `toolGrouping.ts` @2031717: at 128 tools or more (`github.copilot.chat.virtualTools.threshold`,
//! 0 = off) tools are grouped into virtual tools the model must expand.
//!
//! Not modelled: VS Code names a server's prefix after the name the server announces
//! (`serverInfo.title` or `name`) once it has connected, and after the configuration key only
//! before; we have the key. The JSON language service's meta-schema check is approximated by
//! a draft-07 meta-validation.
//!
//! Copilot also reads `.mcp.json`: [`copilot_keys`] says which keys of an entry are Copilot's.

use ahash::AHashMap as HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::view::{js_replace_each, Client, ClientView, Effect, Listed};

/// The rules' source.
pub const HOLDS_FOR: &str =
    "VS Code at microsoft/vscode 006c4ca (mcpTypes.ts) / 0052d68 (mcpServer.ts); Copilot Chat at microsoft/vscode-copilot-chat 8be2242";
/// `McpToolName.Prefix`.
pub const PREFIX: &str = "mcp_";
/// `McpToolName.MaxPrefixLen`: the prefix with its trailing `_` (and collision number).
pub const MAX_PREFIX_LEN: usize = 18;
/// `McpToolName.MaxLength`.
pub const MAX_LENGTH: usize = 64;
/// Copilot's `HARD_TOOL_LIMIT`, also the default virtual-tools threshold.
pub const TOOLS_PER_REQUEST: usize = 128;

/// `McpPrefixGenerator.take` for servers taken in order: each server's prefix.
pub fn prefixes<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken: HashMap<String, usize> = HashMap::new();
    names
        .into_iter()
        .map(|name| {
            let safe = safe_name(name);
            let index = {
                let n = taken.entry(safe.clone()).or_insert(0);
                *n += 1;
                *n
            };
            let suffix = if index == 1 {
                "_".to_string()
            } else {
                format!("{index}_")
            };
            let room = MAX_PREFIX_LEN - PREFIX.len() - suffix.len();
            format!("{PREFIX}{}{suffix}", &safe[..safe.len().min(room)])
        })
        .collect()
}

/// `name.toLowerCase().replace(/[^a-z0-9_.-]+/g, '_').slice(0, 13)`.
fn safe_name(name: &str) -> String {
    let mut out = String::new();
    let mut in_run = false;
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '.' | '-') {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('_');
            in_run = true;
        }
    }
    out.truncate(MAX_PREFIX_LEN - PREFIX.len() - 1);
    out
}

/// `_normalizeTool`'s name: each UTF-16 unit outside `[a-zA-Z0-9_-]` becomes `_`.
pub fn tool_name(raw: &str) -> String {
    js_replace_each(raw, |c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `McpTool`'s id.
pub fn tool_id(prefix: &str, name: &str) -> String {
    let mut id = format!("{prefix}{name}").replace('.', "_");
    id.truncate(MAX_LENGTH);
    id
}

/// `_meta.ui.visibility` as VS Code reads it: a list without `"model"` keeps the tool from
/// the model; anything else leaves it visible.
fn app_only(tool: &Value) -> bool {
    let visibility = crate::view::field(tool, "_meta")
        .and_then(|meta| crate::view::field(meta, "ui"))
        .and_then(|ui| crate::view::field(ui, "visibility"));
    match visibility {
        Some(Value::Array(list)) => !list.iter().any(|v| v == "model"),
        _ => false,
    }
}

/// The draft-07 meta-schema's verdict on an input schema (with `properties: {}` added when
/// missing, as VS Code adds it first).
fn schema_problem(schema: &Value) -> Option<String> {
    let Value::Object(map) = schema else {
        return (!schema.is_null()).then(|| "the input schema is not an object".to_string());
    };
    let with_properties;
    let checked = if map.contains_key("properties") {
        schema
    } else {
        let mut map = map.clone();
        map.insert("properties".into(), Value::Object(Default::default()));
        with_properties = Value::Object(map);
        &with_properties
    };
    crate::meta_schema::first_error(checked, crate::meta_schema::Draft::Draft7).map(|e| {
        format!(
            "{} (at /{})",
            e,
            e.instance_path().to_string().trim_start_matches('/')
        )
    })
}

pub(crate) fn view(servers: &[Listed<'_>]) -> ClientView {
    let mut out = ClientView::new(Client::Vscode, HOLDS_FOR);
    let prefixes = prefixes(servers.iter().map(|l| l.server));
    // Every registered id: which server and tool holds it.
    let mut ids: HashMap<String, (usize, String)> = HashMap::new();
    // Per tool, in order: (server index, raw, id or None).
    let mut rows: Vec<(usize, String, Option<String>)> = Vec::new();
    for (index, (listed, prefix)) in servers.iter().zip(&prefixes).enumerate() {
        let server = listed.server;
        if !prefix.starts_with(&format!("{PREFIX}{}_", safe_name(server))) {
            out.finding(
                server,
                None,
                Effect::Renamed,
                format!(
                    "Another server of the project gives the same prefix, so VS Code names \
                     this server's tools {prefix}…"
                ),
                "Give the servers names that differ in their first 12 characters.",
            );
        }
        let mut mine: Vec<(String, String, usize)> = Vec::new();
        for (raw, tool) in listed.tools() {
            if app_only(tool) {
                rows.push((index, raw.to_string(), None));
                out.finding(
                    server,
                    Some(raw),
                    Effect::Dropped,
                    "App-only tool (_meta.ui.visibility without \"model\"): VS Code does not \
                     register it for the model.",
                    "Nothing, if the tool is meant for the app only; else add \"model\" to \
                     _meta.ui.visibility.",
                );
                continue;
            }
            if let Some(problem) = schema_problem(tool.get("inputSchema").unwrap_or(&Value::Null)) {
                rows.push((index, raw.to_string(), None));
                out.finding(
                    server,
                    Some(raw),
                    Effect::Dropped,
                    format!(
                        "MCP server `{server}` has tools with invalid parameters which will be \
                         omitted. Tool `{raw}` has invalid JSON parameters: {problem}"
                    ),
                    "Make the input schema valid JSON Schema (draft-07).",
                );
                continue;
            }
            let name = tool_name(raw);
            if name != raw {
                out.finding(
                    server,
                    Some(raw),
                    Effect::Renamed,
                    format!(
                        "Tool {} is invalid. Tools names may only contain [a-z0-9_-]: VS Code \
                         calls it \"{name}\".",
                        serde_json::Value::String(raw.to_string())
                    ),
                    "Name tools with letters, digits, _ and - only.",
                );
            }
            if tool
                .get("description")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                out.finding(
                    server,
                    Some(raw),
                    Effect::Warning,
                    format!(
                        "Tool {name} does not have a description. Tools must be accurately \
                         described to be called (VS Code sends \"<empty>\")."
                    ),
                    "Describe the tool.",
                );
            }
            let id = tool_id(prefix, &name);
            let full = prefix.len() + name.len();
            if full > MAX_LENGTH {
                out.finding(
                    server,
                    Some(raw),
                    Effect::Cut,
                    format!(
                        "VS Code cuts the tool's id from {full} to {MAX_LENGTH} characters, with \
                         no hash: the model sees \"{id}\"."
                    ),
                    format!(
                        "Shorten the server's name in the configuration (VS Code keeps 13 \
                         characters of it) or keep the tool's name within {} characters.",
                        MAX_LENGTH - prefix.len()
                    ),
                );
            }
            mine.push((raw.to_string(), id, rows.len()));
            rows.push((index, raw.to_string(), None));
        }
        // VS Code sorts a server's tools by name and, for two of one id, registers the later
        // one; the earlier one's registration then fails.
        let mut order: Vec<usize> = (0..mine.len()).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (&mine[a].0, &mine[b].0);
            a.to_lowercase().cmp(&b.to_lowercase()).then(b.cmp(a))
        });
        let mut winner: HashMap<&str, usize> = HashMap::new();
        for &i in &order {
            winner.insert(mine[i].1.as_str(), i);
        }
        for (i, (raw, id, row)) in mine.iter().enumerate() {
            let lost_to = if winner[id.as_str()] != i {
                Some(mine[winner[id.as_str()]].0.clone())
            } else {
                ids.get(id)
                    .map(|(s, t)| format!("{t}\" of server \"{}", servers[*s].server))
            };
            match lost_to {
                Some(other) => {
                    out.finding(
                        server,
                        Some(raw),
                        Effect::Dropped,
                        format!(
                            "Tool \"{id}\" is already registered. (\"{other}\" has the same id \
                             in VS Code, and VS Code keeps that one.)"
                        ),
                        "Make the tool names differ within their first characters, or \
                         shorten the server's name.",
                    );
                }
                None => {
                    ids.insert(id.clone(), (index, raw.clone()));
                    rows[*row].2 = Some(id.clone());
                }
            }
        }
    }
    let visible = rows.iter().filter(|r| r.2.is_some()).count();
    for (index, raw, id) in rows {
        out.tool(servers[index].server, &raw, id);
    }
    if visible >= TOOLS_PER_REQUEST {
        out.finding(
            "",
            None,
            Effect::Hidden,
            format!(
                "The project's servers give Copilot {visible} tools, more than the {TOOLS_PER_REQUEST} \
                 a request may carry: Copilot groups them into virtual tools \
                 (github.copilot.chat.virtualTools.threshold, default {TOOLS_PER_REQUEST}), and \
                 the model sees a group's tools only after it expands the group."
            ),
            "Turn off the tools the project does not need in Copilot's tools picker, or split \
             the servers across projects.",
        );
    } else if visible >= TOOLS_PER_REQUEST / 2 {
        out.finding(
            "",
            None,
            Effect::Warning,
            format!(
                "The project's servers give Copilot {visible} tools; with Copilot's own tools a \
                 request may reach {TOOLS_PER_REQUEST}, past which Copilot groups tools into \
                 virtual tools the model must expand."
            ),
            "Turn off the tools the project does not need in Copilot's tools picker.",
        );
    }
    out
}

/// A key of a `.mcp.json` entry that GitHub Copilot reads and Claude Code does not use.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CopilotKey {
    pub key: String,
    /// What Copilot does with it, for a person.
    pub meaning: String,
}

/// The keys of a `.mcp.json` server entry that are GitHub Copilot's: `tools` (the allow-list
/// of tools Copilot exposes), `type: "local"` (Copilot's name for a stdio server) and
/// `timeout` (milliseconds per call). They survive our writes untouched; the window shows
/// them as "Copilot: …".
pub fn copilot_keys(entry: &Value) -> Vec<CopilotKey> {
    let mut keys = Vec::new();
    if let Some(tools) = entry.get("tools") {
        let meaning = match tools.as_array() {
            Some(list) if list.iter().any(|t| t == "*") => {
                "tools allow-list: every tool (\"*\")".to_string()
            }
            Some(list) => format!(
                "tools allow-list: {}",
                list.iter()
                    .map(|t| t.as_str().map_or_else(|| t.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!("tools allow-list (not a list: {tools})"),
        };
        keys.push(CopilotKey {
            key: "tools".into(),
            meaning,
        });
    }
    if entry.get("type").and_then(Value::as_str) == Some("local") {
        keys.push(CopilotKey {
            key: "type".into(),
            meaning: "type \"local\": Copilot's name for a server it starts (stdio)".into(),
        });
    }
    if let Some(timeout) = entry.get("timeout") {
        keys.push(CopilotKey {
            key: "timeout".into(),
            meaning: format!("timeout: {timeout} ms per tool call"),
        });
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // mcpServer.ts @0052d68, McpPrefixGenerator.take: at most MaxPrefixLen (18) characters with
    // the `_`; a second server of one safe name gets `2_` and one character less. The
    // registry-style key of the comment there, `io.github.upstash/context7`, gives
    // `mcp_io.github.ups_` (its `.`s become `_` in the id).
    #[test]
    fn prefixes_are_clipped_and_numbered_as_vscode_numbers_them() {
        let p = prefixes(["io.github.upstash/context7", "github", "GitHub", "a b"]);
        assert_eq!(
            p,
            [
                "mcp_io.github.ups_",
                "mcp_github_",
                "mcp_github2_",
                "mcp_a_b_"
            ]
        );
        assert!(p.iter().all(|p| p.len() <= MAX_PREFIX_LEN));
        assert_eq!(tool_id(&p[0], "resolve"), "mcp_io_github_ups_resolve");
    }

    // mcpServer.ts @0052d68, _normalizeTool: toolInvalidCharRe = /[^a-z0-9_-]/gi.
    #[test]
    fn tool_names_keep_letters_digits_underscore_and_hyphen() {
        assert_eq!(tool_name("get-file.contents v2"), "get-file_contents_v2");
        assert_eq!(tool_name("Read😀"), "Read__");
    }

    // mcpTypes.ts @006c4ca McpToolName.MaxLength = 64; McpTool: .slice(0, MaxLength), no hash.
    #[test]
    fn ids_are_cut_at_64_and_two_cut_ids_collide() {
        let long = "x".repeat(70);
        let listing = json!({"tools": [
            {"name": format!("{long}a"), "description": "d", "inputSchema": {"type": "object"}},
            {"name": format!("{long}b"), "description": "d", "inputSchema": {"type": "object"}},
        ]});
        let view = view(&[Listed::plain("srv", &listing)]);
        let names: Vec<_> = view.tools.iter().map(|t| t.name.clone()).collect();
        assert_eq!(names.iter().filter(|n| n.is_some()).count(), 1);
        let kept = names.iter().flatten().next().unwrap();
        assert_eq!(kept.len(), 64);
        assert!(kept.starts_with("mcp_srv_xxx"));
        assert!(view
            .findings
            .iter()
            .any(|f| f.effect == Effect::Dropped && f.words.starts_with("Tool \"mcp_srv_")));
        assert_eq!(
            view.findings
                .iter()
                .filter(|f| f.effect == Effect::Cut)
                .count(),
            2
        );
    }

    // mcpServer.ts @0052d68: "MCP server `{0}` has tools with invalid parameters which will be
    // omitted." A draft-07 `required: true` (draft-03 style) fails the meta-schema.
    #[test]
    fn a_schema_failing_draft_07_is_omitted() {
        let listing = json!({"tools": [
            {"name": "ok", "description": "d", "inputSchema": {"type": "object"}},
            {"name": "bad", "description": "d",
             "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "required": true}}}},
        ]});
        let view = view(&[Listed::plain("s", &listing)]);
        assert_eq!(view.tools[0].name.as_deref(), Some("mcp_s_ok"));
        assert_eq!(view.tools[1].name, None);
        assert!(view.findings[0].words.starts_with(
            "MCP server `s` has tools with invalid parameters which will be omitted."
        ));
    }

    // mcpLanguageModelToolContribution.ts @027907c: "Skip app-only tools".
    #[test]
    fn app_only_tools_are_not_registered() {
        let listing = json!({"tools": [
            {"name": "widget", "description": "d", "inputSchema": {"type": "object"},
             "_meta": {"ui": {"visibility": ["app"]}}},
        ]});
        let view = view(&[Listed::plain("s", &listing)]);
        assert_eq!(view.tools[0].name, None);
    }

    // vscode-copilot-chat configurationService.ts @8be2242: HARD_TOOL_LIMIT = 128, the default
    // virtual-tools threshold (toolGrouping.ts: `value ?? HARD_TOOL_LIMIT`).
    #[test]
    fn a_project_of_128_tools_is_grouped_into_virtual_tools() {
        let tools: Vec<_> = (0..128)
            .map(|i| json!({"name": format!("t{i}"), "description": "d", "inputSchema": {"type": "object"}}))
            .collect();
        let listing = json!({ "tools": tools });
        let view = view(&[Listed::plain("s", &listing)]);
        let project = view.findings.iter().find(|f| f.server.is_empty()).unwrap();
        assert_eq!(project.effect, Effect::Hidden);
        let listing = json!({ "tools": tools[..127] });
        let view = super::view(&[Listed::plain("s", &listing)]);
        let project = view.findings.iter().find(|f| f.server.is_empty()).unwrap();
        assert_eq!(project.effect, Effect::Warning);
    }

    #[test]
    fn copilot_keys_are_named() {
        let entry = json!({"type": "local", "command": "x", "tools": ["a", "b"], "timeout": 30000});
        let keys: Vec<_> = copilot_keys(&entry).into_iter().map(|k| k.key).collect();
        assert_eq!(keys, ["tools", "type", "timeout"]);
        assert!(copilot_keys(&json!({"type": "stdio", "command": "x"})).is_empty());
        assert_eq!(
            copilot_keys(&json!({"tools": ["*"]}))[0].meaning,
            "tools allow-list: every tool (\"*\")"
        );
    }
}
