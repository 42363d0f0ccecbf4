//! What every AI client makes of a project's tools: one [`ClientView`] per client, in the same
//! shape for all, so the window, `mcpctl compat` and the tests read them alike.
//!
//! A client view is project-wide: name collisions, tool counts and deferral thresholds span
//! every server of the project, so [`view_of`] takes all of a project's `tools/list` results
//! at once. Each client's rules live in its own module and name the source (file and commit)
//! they were read from; none of them connects to anything.

use serde::Serialize;
use serde_json::Value;

use crate::claude_code::{self, Knobs};

/// An AI client whose view of a project's tools we compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    ClaudeCode,
    Vscode,
    Codex,
    Gemini,
    Zed,
    Cursor,
    Windsurf,
}

impl Client {
    /// Every client, Claude Code first.
    pub const ALL: [Client; 7] = [
        Client::ClaudeCode,
        Client::Vscode,
        Client::Codex,
        Client::Gemini,
        Client::Zed,
        Client::Cursor,
        Client::Windsurf,
    ];

    /// From the name `mcpctl compat --client` takes.
    pub fn parse(s: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.key() == s)
    }

    /// The name `--client` takes, and the JSON's.
    pub fn key(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Vscode => "vscode",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
            Client::Zed => "zed",
            Client::Cursor => "cursor",
            Client::Windsurf => "windsurf",
        }
    }

    /// The name a person knows the client by.
    pub fn label(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::Vscode => "VS Code / Copilot",
            Client::Codex => "Codex CLI",
            Client::Gemini => "Gemini CLI",
            Client::Zed => "Zed",
            Client::Cursor => "Cursor",
            Client::Windsurf => "Windsurf",
        }
    }
}

/// What a client does to a tool that a person should know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// The model never sees the tool.
    Dropped,
    /// Its name, description or schema is shortened or rewritten so something is lost.
    Cut,
    /// Its name differs from the server's in a way a person must know (a hash suffix, a
    /// prefix changed on a collision).
    Renamed,
    /// Behind deferral, virtual tools or a count limit.
    Hidden,
    /// The client warns, or the model API may refuse the request.
    Warning,
}

/// One thing a client does to a server's tool (or to a server, or to the whole project).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub client: Client,
    /// The server's name in the project; empty for a finding about the whole project.
    pub server: String,
    /// The tool as the server lists it; `None` for the server or the whole project.
    pub tool: Option<String>,
    pub effect: Effect,
    /// What happens, in the client's own words where it has some.
    pub words: String,
    /// What a server author (or the person) would change.
    pub fix: String,
}

/// A tool and the name a client gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientTool {
    pub server: String,
    pub tool: String,
    /// The name this client gives the model; `None` when the tool is dropped.
    pub name: Option<String>,
}

/// One client's view of a project's tools.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientView {
    pub client: Client,
    /// The client version or commit the rules were read from.
    pub holds_for: String,
    pub tools: Vec<ClientTool>,
    pub findings: Vec<Finding>,
}

impl ClientView {
    pub(crate) fn new(client: Client, holds_for: &str) -> ClientView {
        ClientView {
            client,
            holds_for: holds_for.to_string(),
            tools: Vec::new(),
            findings: Vec::new(),
        }
    }

    pub(crate) fn tool(&mut self, server: &str, tool: &str, name: Option<String>) {
        self.tools.push(ClientTool {
            server: server.to_string(),
            tool: tool.to_string(),
            name,
        });
    }

    pub(crate) fn finding(
        &mut self,
        server: &str,
        tool: Option<&str>,
        effect: Effect,
        words: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.findings.push(Finding {
            client: self.client,
            server: server.to_string(),
            tool: tool.map(str::to_string),
            effect,
            words: words.into(),
            fix: fix.into(),
        });
    }

    /// Whether this client loses some tool of the project.
    pub fn drops_any(&self) -> bool {
        self.findings.iter().any(|f| f.effect == Effect::Dropped)
    }
}

/// One server of the project and its `tools/list` result.
pub struct Listed<'a> {
    /// The server's name in the project's configuration.
    pub server: &'a str,
    /// A `tools/list` result, `{"tools": [...]}`.
    pub listing: &'a Value,
    /// The entry's `alwaysLoad` (Claude Code).
    pub always_load: Option<bool>,
}

impl<'a> Listed<'a> {
    /// A server without `alwaysLoad`.
    pub fn plain(server: &'a str, listing: &'a Value) -> Listed<'a> {
        Listed {
            server,
            listing,
            always_load: None,
        }
    }

    /// The listing's tools with their names (a tool without a string name reads as "").
    pub(crate) fn tools(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.listing
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|tool| {
                (
                    field(tool, "name").and_then(Value::as_str).unwrap_or(""),
                    tool,
                )
            })
    }
}

/// Claude Code's exact per-server view ([`claude_code::view`]) told as findings: drops with
/// Claude Code's words, description cuts, collisions naming the tool Claude Code keeps, and
/// deferral as one note for the project (deferral is the default, not a fault of one tool).
pub(crate) fn claude_code_view(servers: &[Listed<'_>], knobs: &Knobs) -> ClientView {
    let mut out = ClientView::new(
        Client::ClaudeCode,
        &format!("Claude Code {}", claude_code::VERSION),
    );
    let (mut deferred, mut sent) = (0usize, 0usize);
    for listed in servers {
        let server = claude_code::Server {
            name: listed.server,
            always_load: listed.always_load,
            dynamic_scope: false,
        };
        let view = claude_code::view(&server, listed.listing, knobs);
        for tool in &view.sent {
            out.tool(listed.server, &tool.tool, Some(tool.name.clone()));
        }
        for dropped in &view.dropped {
            if !dropped.tool.is_empty() {
                out.tool(listed.server, &dropped.tool, None);
            }
            let fix = match dropped.reason {
                claude_code::DropReason::InvalidListing { .. } => {
                    "Fix the named field so every tool of the list passes the MCP schema \
                     (an object root with type \"object\", required as a list)."
                }
                claude_code::DropReason::NameTooLong { .. } => {
                    "Shorten the server's name in the configuration or the tool's name: \
                     mcp__<server>__<tool> must stay within 128 characters."
                }
                claude_code::DropReason::Schema { .. } => {
                    "Correct the input schema (property keys of letters, digits, _ . -; a \
                     valid JSON Schema 2020-12)."
                }
                claude_code::DropReason::SameName | claude_code::DropReason::NameTaken => {
                    "Give each tool of the server a distinct name."
                }
                claude_code::DropReason::HiddenFromModel => {
                    "Nothing, if the tool is meant for the app only; else add \"model\" to \
                     _meta.ui.visibility."
                }
                claude_code::DropReason::PastPageLimit => {
                    "List the tools in fewer pages (Claude Code reads 20)."
                }
            };
            let tool = (!dropped.tool.is_empty()).then_some(dropped.tool.as_str());
            out.finding(
                listed.server,
                tool,
                Effect::Dropped,
                dropped.words.clone(),
                fix,
            );
        }
        for cut in &view.cuts {
            let raw = cut.tool.as_str();
            out.finding(
                listed.server,
                Some(raw),
                Effect::Cut,
                format!(
                    "{} (cut at {} characters upfront, {} once loaded through tool search).",
                    cut.words, cut.upfront_at, cut.loaded_at
                ),
                format!(
                    "Put what the model must know in the first {} characters of the description.",
                    cut.upfront_at.min(cut.loaded_at)
                ),
            );
        }
        for collision in &view.collisions {
            let kept = &collision.tools[0];
            out.finding(
                listed.server,
                Some(kept),
                Effect::Warning,
                format!("{} Claude Code keeps \"{kept}\".", collision.words),
                "Rename the tools so they differ in letters, digits, _ or -.",
            );
        }
        deferred += view.deferred.len();
        sent += view.sent.len();
    }
    if deferred > 0 {
        let when = match knobs.tool_search {
            claude_code::ToolSearch::Auto { percent } => {
                format!(" once the tools' definitions pass {percent}% of the context window")
            }
            _ => String::new(),
        };
        out.finding(
            "",
            None,
            Effect::Hidden,
            format!(
                "Claude Code defers {deferred} of the project's {sent} tools behind tool \
                 search{when}: the model sees their names only until it searches for them."
            ),
            "Set alwaysLoad on a server (or _meta[\"anthropic/alwaysLoad\"] on a tool) for \
             the few tools needed every turn; add _meta[\"anthropic/searchHint\"] keywords.",
        );
    }
    out
}

/// JavaScript's `String.length` of `text`: UTF-16 code units.
/// `value[key]` when `value` is an object. A small object (a tool, the usual schema node) is
/// scanned rather than hashed: serde_json's map hashes every key looked up with SipHash,
/// and the views look up a few keys in every node of thousands of schemas.
pub fn field<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => entry(map, key),
        _ => None,
    }
}

/// [`field`] of a map.
pub fn entry<'a>(map: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() <= 8 {
        // Compared byte by byte: keys are short, and a call to memcmp costs more than them.
        let same =
            |k: &str| k.len() == key.len() && k.bytes().zip(key.bytes()).all(|(a, b)| a == b);
        map.iter().find(|(k, _)| same(k)).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

pub(crate) fn js_len(text: &str) -> usize {
    text.encode_utf16().count()
}

/// `text` with every UTF-16 unit outside `keep` replaced by `_`, as JavaScript's
/// `replace(/[^…]/g, "_")` does without the `u` flag (a character outside the BMP gives two).
pub(crate) fn js_replace_each(text: &str, keep: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if keep(c) {
            out.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                out.push('_');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names_read_both_ways() {
        for client in Client::ALL {
            assert_eq!(Client::parse(client.key()), Some(client));
            assert_eq!(
                serde_json::to_value(client).unwrap(),
                Value::String(client.key().into())
            );
        }
        assert_eq!(Client::parse("copilot"), None);
        assert_eq!(Client::Vscode.label(), "VS Code / Copilot");
    }

    #[test]
    fn javascript_replaces_each_utf16_unit() {
        assert_eq!(
            js_replace_each("a😀b", |c| c.is_ascii_alphanumeric()),
            "a__b"
        );
        assert_eq!(js_len("a😀b"), 4);
    }
}
