//! A lint of what the model will read: every tool description, every text of an input or
//! output schema (titles, descriptions, enum values, defaults) and the server's
//! `instructions`, with the exact span of each finding and invisible text made visible.
//!
//! Findings are warnings (or notes), never a block: a person reads them and decides. The
//! rules, and why each exists, are listed in [`RULES`] (and in docs/approved-surface.md). They look for what
//! tool poisoning uses (OWASP MCP Top 10): text hidden from the person, text that instructs the
//! model rather than describing the tool, references to other servers' tools, and ways to send
//! data out; and for a tool whose Claude Code name another server's tool also has.

use std::collections::HashMap;
use std::sync::OnceLock;

use mcp_manager_core::config::names::{normalize, qualified_tool_name};
use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use crate::visible::{hidden_kind, visible, Hidden};

/// A lint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum LintRule {
    HiddenCharacters,
    AddressesTheModel,
    OtherServersTools,
    SendsData,
    Url,
    Shadowing,
    EncodedBlob,
}

/// How much a finding asks for attention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum LintLevel {
    /// Worth knowing; common in honest descriptions.
    Note,
    /// Rare in honest descriptions; read it.
    Warning,
}

/// One rule as docs/approved-surface.md and the window list it.
#[derive(Debug, Clone, Copy)]
pub struct RuleInfo {
    pub rule: LintRule,
    pub id: &'static str,
    pub level: LintLevel,
    pub title: &'static str,
    pub rationale: &'static str,
}

/// Every rule, with why it exists.
pub const RULES: [RuleInfo; 7] = [
    RuleInfo {
        rule: LintRule::HiddenCharacters,
        id: "hidden-characters",
        level: LintLevel::Warning,
        title: "Invisible or bidirectional characters",
        rationale: "Unicode tag characters (U+E0000–E007F) spell text no screen shows; zero-width characters and bidirectional controls hide or reorder what is shown. A model reads them all, so a description can say one thing to the person and another to the model.",
    },
    RuleInfo {
        rule: LintRule::AddressesTheModel,
        id: "addresses-the-model",
        level: LintLevel::Warning,
        title: "Instructions to the model",
        rationale: "A description says what a tool does. Text that tells the model to ignore earlier instructions, to keep something from the user, or to do something before any other tool is how a poisoned tool steers a session.",
    },
    RuleInfo {
        rule: LintRule::OtherServersTools,
        id: "other-servers-tools",
        level: LintLevel::Warning,
        title: "Refers to another server's tool",
        rationale: "A server has no business telling the model how to use another server's tools: that is how one server redirects calls meant for another (\"when sending mail, always BCC…\").",
    },
    RuleInfo {
        rule: LintRule::SendsData,
        id: "sends-data",
        level: LintLevel::Warning,
        title: "Asks for data to be sent, or names secret files",
        rationale: "Phrasing that sends content to an address, or names files that hold keys (~/.ssh, .env, credentials), is what exfiltration through a tool argument looks like.",
    },
    RuleInfo {
        rule: LintRule::Url,
        id: "url",
        level: LintLevel::Note,
        title: "A web address",
        rationale: "A URL in what the model reads can be a destination for data. Honest descriptions link to documentation often, so this is a note, shown so that a new address after an update is seen.",
    },
    RuleInfo {
        rule: LintRule::Shadowing,
        id: "shadowing",
        level: LintLevel::Warning,
        title: "Same Claude Code name as another server's tool",
        rationale: "Claude Code names a tool mcp__<server>__<tool>, with every character outside letters, digits, _ and - made _. Two servers whose names meet there give two tools one name, and the model cannot tell which it calls.",
    },
    RuleInfo {
        rule: LintRule::EncodedBlob,
        id: "encoded-blob",
        level: LintLevel::Warning,
        title: "An encoded blob",
        rationale: "A long run of base64-like text says nothing to a person and can carry instructions or data to the model.",
    },
];

impl LintRule {
    pub fn info(self) -> &'static RuleInfo {
        RULES
            .iter()
            .find(|r| r.rule == self)
            .expect("every rule is listed")
    }
}

/// One finding: where, which rule, and the text around it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LintFinding {
    pub rule: LintRule,
    pub level: LintLevel,
    pub server: String,
    /// `None`: the server's instructions.
    pub tool: Option<String>,
    /// Where in the tool: `description`, `inputSchema.properties.path.description`,
    /// `inputSchema.properties.mode.enum[2]`, or `instructions`.
    pub field: String,
    /// The span, in characters (Unicode scalar values) of that text.
    pub start: u32,
    pub end: u32,
    /// Up to 40 characters before the span, the span and up to 40 after, invisible characters
    /// shown.
    pub before: String,
    pub matched: String,
    pub after: String,
    pub message: String,
}

/// One server's listing, as sent.
#[derive(Debug, Clone, Copy)]
pub struct Listing<'a> {
    pub server: &'a str,
    pub tools: &'a [Value],
    pub instructions: Option<&'a str>,
}

fn patterns() -> &'static [(LintRule, Regex, &'static str)] {
    static PATTERNS: OnceLock<Vec<(LintRule, Regex, &'static str)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let r = |p: &str| Regex::new(p).expect("a valid pattern");
        vec![
            (LintRule::AddressesTheModel, r(r"(?i)\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|preceding|other|system)\s+(instructions?|prompts?|messages?|rules?|directions?|context)"), "tells the model to set aside its instructions"),
            (LintRule::AddressesTheModel, r(r"(?i)\b(do\s+not|don'?t|never)\s+(tell|inform|mention|reveal|disclose|notify|alert|show)\s+(this\s+|it\s+|anything\s+)?(to\s+)?the\s+user"), "tells the model to keep something from the user"),
            (LintRule::AddressesTheModel, r(r"(?i)\bwithout\s+(telling|informing|notifying|alerting|asking)\s+the\s+user"), "tells the model to act without the user knowing"),
            (LintRule::AddressesTheModel, r(r"(?i)\bbefore\s+(using|calling|running|invoking)\s+(any|every|all)\s+(other\s+)?tools?"), "asks to come before every other tool"),
            (LintRule::AddressesTheModel, r(r"(?i)</?\s*(important|system|instructions?|secret|hidden)\s*>"), "a tag addressed to the model"),
            (LintRule::AddressesTheModel, r(r"(?i)\b(you\s+are\s+now|new\s+instructions\s*:|override\s+(the|your)\s+(instructions|system\s+prompt)|your\s+system\s+prompt)"), "speaks to the model about its own instructions"),
            (LintRule::SendsData, r(r"(?i)\b(send|upload|post|forward|transmit|exfiltrate|leak|copy|email)\s+(\S+\s+){0,5}?(to|into)\s+(https?://|this\s+(url|endpoint|address|webhook)|the\s+following\s+(url|address|endpoint|webhook))"), "asks for data to be sent to an address"),
            (LintRule::SendsData, r(r"(?i)(~/\.ssh\S*|\bid_rsa\b|\bid_ed25519\b|(^|[\s/'`])\.env\b|/etc/(passwd|shadow)|\.aws/credentials|\.claude\.json|\bmcp\.json\b|\.netrc\b|credentials\.json)"), "names a file that holds secrets"),
            (LintRule::Url, r(r#"(?i)\bhttps?://[^\s<>()\[\]"'`]+"#), "a web address"),
            (LintRule::EncodedBlob, r(r"[A-Za-z0-9+/_-]{40,}={0,2}"), "a long encoded run"),
        ]
    })
}

fn qualified() -> &'static Regex {
    static Q: OnceLock<Regex> = OnceLock::new();
    Q.get_or_init(|| {
        Regex::new(r"\bmcp__([A-Za-z0-9_-]+?)__([A-Za-z0-9_-]+)").expect("a valid pattern")
    })
}

fn backticked() -> &'static Regex {
    static B: OnceLock<Regex> = OnceLock::new();
    B.get_or_init(|| Regex::new(r"`([A-Za-z0-9_.-]{4,})`").expect("a valid pattern"))
}

/// Every finding in `listings`, server by server, tool by tool, in the order of the text.
pub fn lint(listings: &[Listing<'_>]) -> Vec<LintFinding> {
    // Each tool name, with the servers that list it, for references across servers.
    let mut owners: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut full_names: HashMap<String, Vec<(&str, &str)>> = HashMap::new();
    for listing in listings {
        for tool in listing.tools {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
            owners.entry(name).or_default().push(listing.server);
            full_names
                .entry(qualified_tool_name(listing.server, name))
                .or_default()
                .push((listing.server, name));
        }
    }
    let mut out = Vec::new();
    for listing in listings {
        let mut texts: Vec<(Option<&str>, String, &str)> = Vec::new();
        if let Some(instructions) = listing.instructions {
            texts.push((None, "instructions".into(), instructions));
        }
        for tool in listing.tools {
            let name = tool.get("name").and_then(Value::as_str);
            texts.push((name, "name".into(), name.unwrap_or("")));
            for key in ["title", "description"] {
                if let Some(text) = tool.get(key).and_then(Value::as_str) {
                    texts.push((name, key.into(), text));
                }
            }
            for key in ["inputSchema", "outputSchema"] {
                if let Some(schema) = tool.get(key) {
                    schema_texts(schema, key.to_string(), name, &mut texts);
                }
            }
            if let Some(name) = name {
                let full = qualified_tool_name(listing.server, name);
                let others: Vec<&str> = full_names
                    .get(&full)
                    .into_iter()
                    .flatten()
                    .filter(|(server, _)| *server != listing.server)
                    .map(|(server, _)| *server)
                    .collect();
                if !others.is_empty() {
                    let chars = name.chars().count() as u32;
                    out.push(LintFinding {
                        rule: LintRule::Shadowing,
                        level: LintRule::Shadowing.info().level,
                        server: listing.server.to_string(),
                        tool: Some(name.to_string()),
                        field: "name".into(),
                        start: 0,
                        end: chars,
                        before: String::new(),
                        matched: visible(name),
                        after: String::new(),
                        message: format!(
                            "Claude Code names it {full}, as it names a tool of {}",
                            others.join(", ")
                        ),
                    });
                }
            }
        }
        for (tool, field, text) in texts {
            let own = normalize(listing.server);
            let mut push = |rule: LintRule, range: std::ops::Range<usize>, message: String| {
                out.push(finding(
                    listing.server,
                    tool,
                    &field,
                    text,
                    range,
                    rule,
                    message,
                ));
            };
            for (start, end, kind) in hidden_runs(text) {
                let what = match kind {
                    Hidden::Tag => "hidden tag characters that spell text",
                    Hidden::ZeroWidth => "zero-width characters",
                    Hidden::Bidi => "bidirectional controls that reorder what is shown",
                };
                push(LintRule::HiddenCharacters, start..end, what.to_string());
            }
            if field == "name" {
                continue;
            }
            for (rule, pattern, message) in patterns() {
                for m in pattern.find_iter(text) {
                    if *rule == LintRule::EncodedBlob && !blob_like(m.as_str()) {
                        continue;
                    }
                    if *rule == LintRule::EncodedBlob && inside_url(text, m.start()) {
                        continue;
                    }
                    push(*rule, m.range(), message.to_string());
                }
            }
            for c in qualified().captures_iter(text) {
                let prefix = c.get(1).map_or("", |m| m.as_str());
                if prefix != own {
                    let m = c.get(0).expect("the whole match");
                    push(
                        LintRule::OtherServersTools,
                        m.range(),
                        format!("names a tool of the server Claude Code calls {prefix}"),
                    );
                }
            }
            for c in backticked().captures_iter(text) {
                let named = c.get(1).map_or("", |m| m.as_str());
                // A generic word (`delete`, `search`) names nothing in particular.
                if !named.contains(['_', '-']) {
                    continue;
                }
                let Some(servers) = owners.get(named) else {
                    continue;
                };
                if servers.contains(&listing.server) {
                    continue;
                }
                let m = c.get(0).expect("the whole match");
                push(
                    LintRule::OtherServersTools,
                    m.range(),
                    format!("names {named}, a tool of {}", servers.join(", ")),
                );
            }
        }
    }
    out
}

/// Whether a long run looks encoded rather than like a word, a path or a hex digest: it mixes
/// upper case, lower case and digits.
fn blob_like(run: &str) -> bool {
    run.chars().any(|c| c.is_ascii_uppercase())
        && run.chars().any(|c| c.is_ascii_lowercase())
        && run.chars().filter(|c| c.is_ascii_digit()).count() >= 2
        && !run.contains("__")
}

fn inside_url(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind(char::is_whitespace).map_or(0, |i| i + 1);
    text[line_start..at].contains("://")
}

fn schema_texts<'a>(
    schema: &'a Value,
    path: String,
    tool: Option<&'a str>,
    out: &mut Vec<(Option<&'a str>, String, &'a str)>,
) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                let here = format!("{path}.{key}");
                match (key.as_str(), value) {
                    ("title" | "description" | "default", Value::String(text)) => {
                        out.push((tool, here, text))
                    }
                    ("enum", Value::Array(items)) => {
                        for (i, item) in items.iter().enumerate() {
                            if let Value::String(text) = item {
                                out.push((tool, format!("{here}[{i}]"), text));
                            }
                        }
                    }
                    (
                        "properties" | "patternProperties" | "$defs" | "definitions",
                        Value::Object(props),
                    ) => {
                        for (name, sub) in props {
                            if hidden_runs(name).next().is_some() {
                                out.push((tool, format!("{here} (a property's name)"), name));
                            }
                            schema_texts(sub, format!("{here}.{name}"), tool, out);
                        }
                    }
                    (_, Value::Object(_) | Value::Array(_)) => schema_texts(value, here, tool, out),
                    _ => {}
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                schema_texts(item, format!("{path}[{i}]"), tool, out);
            }
        }
        _ => {}
    }
}

/// Runs of invisible characters of one kind: byte ranges.
fn hidden_runs(text: &str) -> impl Iterator<Item = (usize, usize, Hidden)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        while let Some((at, c)) = chars.next() {
            let Some(kind) = hidden_kind(c) else { continue };
            let mut end = at + c.len_utf8();
            while let Some(&(next_at, next)) = chars.peek() {
                if hidden_kind(next) != Some(kind) {
                    break;
                }
                end = next_at + next.len_utf8();
                chars.next();
            }
            return Some((at, end, kind));
        }
        None
    })
}

fn finding(
    server: &str,
    tool: Option<&str>,
    field: &str,
    text: &str,
    range: std::ops::Range<usize>,
    rule: LintRule,
    message: String,
) -> LintFinding {
    let chars_before = text[..range.start].chars().count();
    let chars_in = text[range.clone()].chars().count();
    let before: String = {
        let head: Vec<char> = text[..range.start].chars().collect();
        head[head.len().saturating_sub(40)..].iter().collect()
    };
    let after: String = text[range.end..].chars().take(40).collect();
    LintFinding {
        rule,
        level: rule.info().level,
        server: server.to_string(),
        tool: tool.map(str::to_string),
        field: field.to_string(),
        start: chars_before as u32,
        end: (chars_before + chars_in) as u32,
        before: visible(&before),
        matched: visible(&text[range]),
        after: visible(&after),
        message,
    }
}
