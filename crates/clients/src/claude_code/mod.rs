//! Claude Code 2.1.332's view of a server's tools: exactly the `tools` entries it sends the
//! model API, the tools it drops and why, and the tools it defers behind ToolSearch.
//!
//! Claude Code reads a `tools/list` result in this order, and so does [`view`]:
//! 1. the whole result's shape ([`listing`]): one bad tool loses the server every tool;
//! 2. every string cleaned ([`text::clean_listing`]);
//! 3. each tool's input schema flattened or refused ([`schema`]);
//! 4. tools of one raw name: the first kept (`xi(…, "name")`);
//! 5. per tool: its name `mcp__<server>__<tool>`, its description cut at 4,096 UTF-16 units
//!    upfront or 16,384 once loaded through ToolSearch (`CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH`
//!    overrides both) with `… [truncated]`, and whether it loads upfront (`Ql`);
//! 6. tools the model must not see: a full name over 128 characters (`Oct`), a
//!    `_meta.ui.visibility` without `"model"` (`qSl`);
//! 7. deferral, from `ENABLE_TOOL_SEARCH` (`Vie`) and `alwaysLoad`.
//!
//! The judge is Claude Code itself: `crates/clients/tests/judge.rs` runs `claude -p`
//! against a stand-in model API and compares the request with this view, JSON for JSON.
//! What is not modelled: host-only rules (tools posing as the host's ask tool, organisation
//! tool policies, Claude-in-Chrome and computer-use extras, claude.ai connectors), the
//! listing's 16 MB size limit, `auto` deferral's token count (the model API counts the
//! tools; [`auto_deferral`] decides once the count is known), and Ajv's exact wording of a
//! meta-schema failure (the verdict is the same; the words may differ).

pub mod listing;
pub mod results;
pub mod schema;
pub mod text;

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

/// The Claude Code release these rules were read from and judged against.
pub const VERSION: &str = "2.1.332";
/// Description cut for a tool sent upfront (`OHo`).
pub const UPFRONT_DESCRIPTION: usize = 4096;
/// Description cut for a tool loaded through ToolSearch (`IHo`).
pub const LOADED_DESCRIPTION: usize = 16384;
/// The pages of a `tools/list` result Claude Code reads (`Ll`); the rest is left unread.
pub const MAX_PAGES: usize = 20;
/// The longest tool name the model API accepts (`qje`).
pub const MAX_NAME: usize = 128;
/// A tool result's token limit unless `MAX_MCP_OUTPUT_TOKENS` says otherwise.
pub const OUTPUT_TOKENS: u64 = 25_000;
/// Results whose text is longer than this are saved to a file (unless the tool's
/// `_meta["anthropic/maxResultSizeChars"]` says otherwise): an MCP tool's 100,000 (`Ohr`)
/// capped by the general ceiling of 50,000 (`mw`, `l3`).
pub const PERSIST_CHARS: u64 = 50_000;
/// The most `_meta["anthropic/maxResultSizeChars"]` can set it to (`Rpe`).
pub const PERSIST_CHARS_CEILING: u64 = 500_000;

/// What `auto` deferral subtracts from the model API's count of the tools (`vee`): the
/// count of a request with no tool.
pub const AUTO_COUNT_OVERHEAD: u64 = 500;
/// The character threshold of `auto` deferral is this many times the token one (`PEs`).
pub const AUTO_CHARS_PER_TOKEN: f64 = 2.5;

/// How Claude Code measured the tools for `auto` deferral (`NEs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "by", content = "value")]
pub enum ToolsMeasure {
    /// The model API's `count_tokens` of every deferrable tool's definition (the session's
    /// deferrable built-in tools with the MCP tools that do not load always), sent with one
    /// user message "foo" (`IEs`, `dq`, `Ean`). A count of 0 is no count: Claude Code then
    /// measures characters, so give [`ToolsMeasure::Chars`].
    Count(u64),
    /// When the count fails or is 0: Σ name + description + JSON schema lengths (`LEs`).
    Chars(u64),
}

/// `auto` / `auto:N` decided: whether the tools are deferred.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoDeferral {
    pub defers: bool,
    /// The measure compared (tokens, less [`AUTO_COUNT_OVERHEAD`], or characters).
    pub measured: u64,
    pub threshold: u64,
    /// Claude Code's debug-log words.
    pub words: String,
}

/// Claude Code's `auto:percent` decision (`NEs`, `PXn`): the tools are deferred when their
/// count, less 500, reaches `percent`% of the model's context window (`Lm`: 1,000,000 for
/// `claude-opus-5-5`); with no count, when their characters reach 2.5 times that.
pub fn auto_deferral(percent: u8, measure: ToolsMeasure, context_window: u64) -> AutoDeferral {
    let threshold = (context_window as f64 * (f64::from(percent) / 100.0)).floor() as u64;
    let (measured, threshold, unit) = match measure {
        ToolsMeasure::Count(count) => (
            count.saturating_sub(AUTO_COUNT_OVERHEAD),
            threshold,
            "tokens",
        ),
        ToolsMeasure::Chars(chars) => (
            chars,
            (threshold as f64 * AUTO_CHARS_PER_TOKEN).floor() as u64,
            "chars",
        ),
    };
    let defers = measured >= threshold;
    let fallback = if unit == "chars" {
        " (char fallback)"
    } else {
        ""
    };
    AutoDeferral {
        defers,
        measured,
        threshold,
        words: format!(
            "Auto tool search {}: {measured} {unit} (threshold: {threshold}, {percent}% of \
             context){fallback}",
            if defers { "enabled" } else { "disabled" }
        ),
    }
}

/// `ENABLE_TOOL_SEARCH`, read as Claude Code reads it (`Vie`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "mode")]
pub enum ToolSearch {
    /// `false` (or `auto:100` and above): every tool upfront.
    Off,
    /// Unset, `true`, `auto:0`, or anything else: every tool deferred but those that load
    /// always.
    On,
    /// `auto` / `auto:N`: deferred once the tools' definitions pass N% (default 10) of the
    /// model's context window.
    Auto { percent: u8 },
}

impl ToolSearch {
    /// From the variable's value (`None`: unset).
    pub fn parse(value: Option<&str>) -> ToolSearch {
        let Some(value) = value.filter(|v| !v.is_empty()) else {
            return ToolSearch::On;
        };
        if let Some(n) = value.strip_prefix("auto:") {
            if let Some(n) = js_number(n) {
                let n = n.clamp(0.0, 100.0);
                if n == 0.0 {
                    return ToolSearch::On;
                }
                if n >= 100.0 {
                    return ToolSearch::Off;
                }
                return ToolSearch::Auto { percent: n as u8 };
            }
            return ToolSearch::Auto { percent: 10 };
        }
        if value == "auto" {
            return ToolSearch::Auto { percent: 10 };
        }
        match value.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => ToolSearch::On,
            "0" | "false" | "no" | "off" => ToolSearch::Off,
            _ => ToolSearch::On,
        }
    }
}

fn js_number(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() {
        return Some(0.0);
    }
    text.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// The environment Claude Code reads that changes what the model sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Knobs {
    pub tool_search: ToolSearch,
    /// `CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH`: replaces both description cuts.
    pub max_description_length: Option<usize>,
    /// `MAX_MCP_OUTPUT_TOKENS`.
    pub max_output_tokens: Option<u64>,
}

impl Knobs {
    /// Claude Code's defaults: tool search on, no overrides.
    pub fn defaults() -> Knobs {
        Knobs {
            tool_search: ToolSearch::On,
            max_description_length: None,
            max_output_tokens: None,
        }
    }

    /// From environment variables, read through `get`.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Knobs {
        // Digits only, at least 1, as Claude Code's `int({min: 1, digitsOnly: true})`.
        let positive = |name: &str| {
            get(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|n| *n >= 1)
        };
        Knobs {
            tool_search: ToolSearch::parse(get("ENABLE_TOOL_SEARCH").as_deref()),
            max_description_length: positive("CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH")
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            max_output_tokens: positive("MAX_MCP_OUTPUT_TOKENS"),
        }
    }
}

/// One configured server, as far as Claude Code's view of its tools depends on it.
#[derive(Debug, Clone)]
pub struct Server<'a> {
    /// Its name in Claude Code: the config key, or `plugin:<plugin>:<server>` for a plugin's.
    pub name: &'a str,
    /// The entry's `alwaysLoad`: `true` loads every tool upfront, `false` defers every one.
    pub always_load: Option<bool>,
    /// Whether the entry is of the `dynamic` scope (an SDK host's), where a tool's
    /// `_meta["anthropic/alwaysLoad"]: false` opts out of the server's `alwaysLoad`.
    pub dynamic_scope: bool,
}

impl<'a> Server<'a> {
    /// A plain entry named `name`.
    pub fn named(name: &'a str) -> Server<'a> {
        Server {
            name,
            always_load: None,
            dynamic_scope: false,
        }
    }
}

/// A tool exactly as Claude Code sends it in the request's `tools`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SentTool<'a> {
    /// The tool's name as the server lists it (not part of what is sent).
    #[serde(skip)]
    pub tool: String,
    pub name: String,
    pub description: String,
    /// Borrowed from the listing when Claude Code sends it as listed.
    pub input_schema: Cow<'a, Value>,
}

/// Why Claude Code does not send a tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
#[non_exhaustive]
pub enum DropReason {
    /// The whole `tools/list` result failed Claude Code's shape check.
    InvalidListing { problem: listing::ShapeError },
    /// The full name is longer than the API accepts.
    NameTooLong { length: usize },
    /// The input schema would be refused by the API, or could not be flattened.
    Schema { detail: String },
    /// An earlier tool of the server has the same name.
    SameName,
    /// `_meta.ui.visibility` leaves the model out.
    HiddenFromModel,
    /// Listed after the pages Claude Code reads.
    PastPageLimit,
    /// Another tool of the server gets the same full name, and Claude Code sends it first.
    NameTaken,
}

impl DropReason {
    /// What would bring the tool back, for the server's author or the person.
    pub fn fix(&self, server: &str) -> String {
        match self {
            DropReason::InvalidListing { .. } => "The server must send a tools/list result Claude Code \
                accepts: every tool's inputSchema an object with type \"object\", and no null where \
                a list or an object is expected."
                .to_string(),
            DropReason::NameTooLong { .. } => format!(
                "Shorten the tool's name, or give the server a shorter name than \"{server}\" in your \
                 configuration: mcp__<server>__<tool> must fit in {} characters.",
                MAX_NAME
            ),
            DropReason::Schema { .. } => "Fix the tool's inputSchema so that it is valid JSON Schema \
                2020-12 with property names of letters, digits, _, . and - (at most 64), or declare \
                the draft it follows in $schema."
                .to_string(),
            DropReason::SameName | DropReason::NameTaken => "Rename one of the tools: their names must \
                still differ once every character other than letters, digits, _ and - becomes _. \
                Permission rules naming this tool apply to the one Claude Code keeps."
                .to_string(),
            DropReason::HiddenFromModel => "Meant so when only the tool's App calls it; add \"model\" \
                to _meta.ui.visibility for the model to see it."
                .to_string(),
            DropReason::PastPageLimit => format!(
                "List the tools in at most {} pages: Claude Code reads no further.",
                MAX_PAGES
            ),
        }
    }
}

/// A tool Claude Code does not send, with its reason in Claude Code's words where it has any.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DroppedTool {
    /// The tool's name as the server lists it.
    pub tool: String,
    /// The name the model would have seen.
    pub name: String,
    pub reason: DropReason,
    /// The reason said for a person.
    pub words: String,
}

/// A description Claude Code cuts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cut {
    /// The tool's name as the server lists it.
    #[serde(skip)]
    pub tool: String,
    pub name: String,
    /// Its length, in UTF-16 units as Claude Code counts.
    pub length: usize,
    /// Where it is cut when sent upfront, and when loaded through ToolSearch.
    pub upfront_at: usize,
    pub loaded_at: usize,
    /// Claude Code's debug-log line.
    pub words: String,
}

/// Tools whose names meet once rewritten: the model sees the first; allow rules for the
/// name no longer apply.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Collision {
    pub name: String,
    /// The server's names, in listing order.
    pub tools: Vec<String>,
    pub words: String,
}

/// Where a tool's results are cut or saved to a file ([`results::result_fate`] says what
/// happens to one result).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultLimits {
    pub name: String,
    /// Above this many tokens a result is saved to a file (text) or cut.
    pub max_tokens: u64,
    /// A result whose text is longer than this many characters is saved to a file.
    pub persist_over_chars: u64,
    /// The tool sets `_meta["anthropic/maxResultSizeChars"]`: its results without images skip
    /// the token limit.
    pub size_annotated: bool,
}

/// Claude Code's view of one server's tools.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct View<'a> {
    pub server: String,
    /// The tools exactly as sent (for a deferred tool: as sent once ToolSearch loads it).
    pub sent: Vec<SentTool<'a>>,
    pub dropped: Vec<DroppedTool>,
    /// The names deferred behind ToolSearch (sent only once it loads them).
    pub deferred: Vec<String>,
    /// `auto` deferral: the names above are deferred only once the definitions pass
    /// `percent`% of the context window ([`auto_deferral`] decides from their count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deferred_above_percent: Option<u8>,
    pub cuts: Vec<Cut>,
    /// Tools whose schema was flattened, with the sentence added to their description.
    pub flattened: Vec<(String, schema::Flattened)>,
    pub collisions: Vec<Collision>,
    pub results: Vec<ResultLimits>,
}

impl View<'_> {
    /// The view holding its own copy of every schema, free of the listing it was read from.
    pub fn into_owned(self) -> View<'static> {
        View {
            server: self.server,
            sent: self
                .sent
                .into_iter()
                .map(|tool| SentTool {
                    tool: tool.tool,
                    name: tool.name,
                    description: tool.description,
                    input_schema: Cow::Owned(tool.input_schema.into_owned()),
                })
                .collect(),
            dropped: self.dropped,
            deferred: self.deferred,
            deferred_above_percent: self.deferred_above_percent,
            cuts: self.cuts,
            flattened: self.flattened,
            collisions: self.collisions,
            results: self.results,
        }
    }

    /// Whether Claude Code loses some tool of this server.
    pub fn drops_any(&self) -> bool {
        !self.dropped.is_empty()
    }
}

/// Claude Code's view of `server`'s tools, from its `tools/list` result `listing` (one page,
/// or every page's tools in one `tools` array).
pub fn view<'a>(server: &Server, listing: &'a Value, knobs: &Knobs) -> View<'a> {
    view_pages(server, std::slice::from_ref(listing), knobs)
}

/// Claude Code's view of `server`'s tools from the pages of its `tools/list` result, in
/// order: it reads at most [`MAX_PAGES`] pages and checks the shape of each.
pub fn view_pages<'a>(server: &Server, pages: &'a [Value], knobs: &Knobs) -> View<'a> {
    let mut view = View {
        server: server.name.to_string(),
        sent: Vec::new(),
        dropped: Vec::new(),
        deferred: Vec::new(),
        deferred_above_percent: match knobs.tool_search {
            ToolSearch::Auto { percent } => Some(percent),
            _ => None,
        },
        cuts: Vec::new(),
        flattened: Vec::new(),
        collisions: Vec::new(),
        results: Vec::new(),
    };
    let read = &pages[..pages.len().min(MAX_PAGES)];
    fn tools_of(page: &Value) -> &[Value] {
        page.get("tools")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
    let listed: Vec<&Value> = read.iter().flat_map(tools_of).collect();
    let shape = read.iter().try_for_each(listing::check);
    if let Err(problem) = shape {
        let words = format!(
            "Claude Code refuses this server's whole tool list (\"Failed to fetch tools: Invalid \
             result for tools/list\"): {}. No tool of this server reaches the model until the \
             server fixes it.",
            problem.words()
        );
        for tool in &listed {
            let raw = tool.get("name").and_then(Value::as_str).unwrap_or("");
            view.dropped.push(DroppedTool {
                tool: raw.to_string(),
                name: text::full_name(server.name, raw),
                reason: DropReason::InvalidListing {
                    problem: problem.clone(),
                },
                words: words.clone(),
            });
        }
        if view.dropped.is_empty() {
            view.dropped.push(DroppedTool {
                tool: String::new(),
                name: String::new(),
                reason: DropReason::InvalidListing { problem },
                words,
            });
        }
        return view;
    }
    for tool in pages[read.len()..].iter().flat_map(tools_of) {
        let raw = tool.get("name").and_then(Value::as_str).unwrap_or("");
        view.dropped.push(DroppedTool {
            tool: raw.to_string(),
            name: text::full_name(server.name, raw),
            reason: DropReason::PastPageLimit,
            words: format!(
                "tools/list still returning nextCursor after {MAX_PAGES} pages; stopping: Claude \
                 Code reads the first {MAX_PAGES} pages of a listing and never sees this tool"
            ),
        });
    }
    // Every string cleaned; a tool of plain ASCII text is read in place.
    let tools: Vec<Cow<'a, Value>> = listed.iter().map(|t| text::cleaned(t)).collect();

    // Each tool's full name, the server's part made once.
    let names = text::FullNames::of(server.name);
    let full: Vec<String> = tools
        .iter()
        .map(|tool| names.of_tool(tool["name"].as_str().unwrap_or("")))
        .collect();

    // Collisions are counted over the tools of distinct raw names, before schemas drop any.
    let mut by_name: Vec<(&str, Vec<String>)> = Vec::new();
    let mut at_name: ahash::AHashMap<&str, usize> = ahash::AHashMap::new();
    let mut raw_seen = ahash::AHashSet::new();
    for (tool, name) in tools.iter().zip(&full) {
        let raw = tool["name"].as_str().unwrap_or("");
        if !raw_seen.insert(raw) {
            continue;
        }
        match at_name.get(name.as_str()) {
            Some(&at) => by_name[at].1.push(raw.to_string()),
            None => {
                at_name.insert(name, by_name.len());
                by_name.push((name, vec![raw.to_string()]));
            }
        }
    }
    for (name, list) in by_name.into_iter().filter(|(_, l)| l.len() > 1) {
        let name = name.to_string();
        let words = format!(
            "{} all become \"{name}\" in Claude Code. Allow rules do not apply to \"{name}\": \
             another tool of this server gets the same name in Claude Code. To use allow rules, \
             the server must rename one of them.",
            list.iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
        view.collisions.push(Collision {
            name,
            tools: list,
            words,
        });
    }

    let mut kept_raw = ahash::AHashSet::new();
    let mut sent_names = ahash::AHashSet::new();
    for (tool, name) in tools.iter().zip(full) {
        let raw = tool["name"].as_str().unwrap_or("").to_string();
        let drop = |reason, words| DroppedTool {
            tool: raw.clone(),
            name: name.clone(),
            reason,
            words,
        };
        // Judged where it lies: a tool sent as listed keeps borrowing its schema.
        let judged = match tool {
            Cow::Borrowed(listed) => {
                let listed: &'a Value = listed;
                schema::verdict(&listed["inputSchema"])
            }
            Cow::Owned(cleaned) => schema::owned(schema::verdict(&cleaned["inputSchema"])),
        };
        let (input_schema, description) = match judged {
            schema::Verdict::Skip { reason } => {
                let words = format!(
                    "Skipping tool \"{raw}\": {reason}. Other tools from this server remain available."
                );
                view.dropped
                    .push(drop(DropReason::Schema { detail: reason }, words));
                continue;
            }
            schema::Verdict::Send {
                schema,
                flattened: Some(flattened),
            } => {
                let description = schema::with_note(&flattened.note, tool["description"].as_str());
                view.flattened.push((name.clone(), flattened));
                (schema, description)
            }
            schema::Verdict::Send { schema, .. } => (
                schema,
                tool["description"].as_str().unwrap_or("").to_string(),
            ),
        };
        if !kept_raw.insert(raw.clone()) {
            let words = format!(
                "The server lists \"{raw}\" more than once; Claude Code keeps the first and \
                 drops this one."
            );
            view.dropped.push(drop(DropReason::SameName, words));
            continue;
        }
        let length = text::js_length(&name);
        if length > MAX_NAME {
            let words = format!(
                "Tool \"{name}\" is not sent to Claude: its name has {length} characters and \
                 the API accepts at most {MAX_NAME}"
            );
            view.dropped
                .push(drop(DropReason::NameTooLong { length }, words));
            continue;
        }
        let meta = tool.get("_meta");
        if hidden_from_model(meta) {
            let words = format!(
                "MCP server \"{}\": tool \"{raw}\" is kept from the model (its \
                 _meta.ui.visibility omits \"model\" or cannot be read)",
                server.name
            );
            view.dropped.push(drop(DropReason::HiddenFromModel, words));
            continue;
        }
        let upfront_at = knobs.max_description_length.unwrap_or(UPFRONT_DESCRIPTION);
        let loaded_at = knobs.max_description_length.unwrap_or(LOADED_DESCRIPTION);
        let total = text::js_length(&description);
        if total > upfront_at || total > loaded_at {
            view.cuts.push(Cut {
                tool: raw.clone(),
                name: name.clone(),
                length: total,
                upfront_at,
                loaded_at,
                words: format!(
                    "Tool \"{raw}\" description truncated from {total} to {upfront_at} chars"
                ),
            });
        }
        if sent_names.contains(&name) {
            let words = format!(
                "\"{raw}\" becomes \"{name}\", the name of a tool Claude Code already sends for \
                 this server; it is not sent"
            );
            view.dropped.push(drop(DropReason::NameTaken, words));
            continue;
        }
        let always_load = loads_always(server, meta);
        let deferred = knobs.tool_search != ToolSearch::Off && !always_load;
        let cut_at = if deferred { loaded_at } else { upfront_at };
        let description = text::cut(&description, cut_at).unwrap_or(description);
        if deferred {
            view.deferred.push(name.clone());
        }
        view.results.push(ResultLimits {
            name: name.clone(),
            max_tokens: knobs.max_output_tokens.unwrap_or(OUTPUT_TOKENS),
            persist_over_chars: persist_over(meta),
            size_annotated: size_annotation(meta).is_some(),
        });
        sent_names.insert(name.clone());
        view.sent.push(SentTool {
            tool: raw,
            name,
            description,
            input_schema,
        });
    }
    view
}

/// `Ql`'s `alwaysLoad`: the entry's `alwaysLoad: false` defers every tool; its `true` loads
/// every tool (in the dynamic scope, not one whose `_meta` says `false`); else the tool's
/// `_meta["anthropic/alwaysLoad"]: true`.
fn loads_always(server: &Server, meta: Option<&Value>) -> bool {
    let own = meta.and_then(|m| m.get("anthropic/alwaysLoad"));
    if server.always_load == Some(false) {
        return false;
    }
    let server_says = server.always_load == Some(true)
        && !(server.dynamic_scope && own == Some(&Value::Bool(false)));
    server_says || own == Some(&Value::Bool(true))
}

/// `_meta.ui.visibility` that leaves the model out (`ce`): a `ui` that is not an object, or a
/// visibility that is not a list holding `"model"`.
fn hidden_from_model(meta: Option<&Value>) -> bool {
    let Some(ui) = meta.and_then(|m| m.get("ui")) else {
        return false;
    };
    match ui {
        Value::Null => false,
        Value::Object(ui) => match ui.get("visibility") {
            None | Some(Value::Null) => false,
            Some(Value::Array(list)) => !list.iter().any(|v| v == "model"),
            Some(_) => true,
        },
        _ => true,
    }
}

/// `_meta["anthropic/maxResultSizeChars"]` when a finite positive number (`ju`).
fn size_annotation(meta: Option<&Value>) -> Option<f64> {
    meta.and_then(|m| m.get("anthropic/maxResultSizeChars"))
        .and_then(Value::as_f64)
        .filter(|n| n.is_finite() && *n > 0.0)
}

/// The text length over which a result is saved to a file: the annotation capped at `Rpe`,
/// else [`PERSIST_CHARS`] (`maxResultSizeChars: Ct ? Math.min(Ee, Rpe) : Ohr…`, then `l3`).
fn persist_over(meta: Option<&Value>) -> u64 {
    match size_annotation(meta) {
        Some(n) => (n as u64).min(PERSIST_CHARS_CEILING),
        None => PERSIST_CHARS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_search_reads_as_claude_code_reads_it() {
        assert_eq!(ToolSearch::parse(None), ToolSearch::On);
        assert_eq!(ToolSearch::parse(Some("false")), ToolSearch::Off);
        assert_eq!(ToolSearch::parse(Some("auto:0")), ToolSearch::On);
        assert_eq!(ToolSearch::parse(Some("auto:100")), ToolSearch::Off);
        assert_eq!(
            ToolSearch::parse(Some("auto:25")),
            ToolSearch::Auto { percent: 25 }
        );
    }

    #[test]
    fn auto_defers_from_the_count_less_500_at_n_percent_of_the_window() {
        // Claude Code's own log lines, with claude-opus-5-5's window of 1,000,000.
        let under = auto_deferral(5, ToolsMeasure::Count(50_499), 1_000_000);
        assert_eq!(
            under.words,
            "Auto tool search disabled: 49999 tokens (threshold: 50000, 5% of context)"
        );
        assert!(auto_deferral(5, ToolsMeasure::Count(50_500), 1_000_000).defers);
        assert_eq!(
            auto_deferral(10, ToolsMeasure::Count(1), 1_000_000).words,
            "Auto tool search disabled: 0 tokens (threshold: 100000, 10% of context)"
        );
        let chars = auto_deferral(10, ToolsMeasure::Chars(250_000), 1_000_000);
        assert!(chars.defers && chars.threshold == 250_000);
    }

    #[test]
    fn a_long_name_is_dropped_in_claude_codes_words() {
        let tool = "t".repeat(130);
        let listing = json!({"tools": [{"name": tool, "inputSchema": {"type": "object"}}]});
        let view = view(&Server::named("s"), &listing, &Knobs::defaults());
        assert!(view.sent.is_empty());
        assert_eq!(
            view.dropped[0].reason,
            DropReason::NameTooLong { length: 138 }
        );
        assert!(view.dropped[0]
            .words
            .ends_with("its name has 138 characters and the API accepts at most 128"));
    }

    #[test]
    fn always_load_keeps_a_tool_upfront_with_the_upfront_cut() {
        let long = "d".repeat(5000);
        let listing = json!({"tools": [
            {"name": "a", "description": long, "inputSchema": {"type": "object"}},
            {"name": "b", "description": long, "inputSchema": {"type": "object"},
             "_meta": {"anthropic/alwaysLoad": true}},
        ]});
        let view = view(&Server::named("s"), &listing, &Knobs::defaults());
        assert_eq!(view.deferred, ["mcp__s__a"]);
        assert_eq!(
            text::js_length(&view.sent[0].description),
            5000,
            "deferred: cut at 16,384"
        );
        assert_eq!(
            view.sent[1].description,
            format!("{}{}", "d".repeat(4096), text::TRUNCATION_MARKER)
        );
    }
}
