//! One line of Claude Code's records, read for names, times and outcomes only.
//!
//! Claude Code 2.1.332 writes a transcript line per message (`~/.claude/projects/<folder>/
//! <session>.jsonl`; a subagent's under `<session>/subagents/`). An MCP call is two lines:
//! - the assistant's, whose `message.content` holds `{"type":"tool_use","id","name"}` with a
//!   name `mcp__<server>__<tool>`;
//! - the user's, whose `message.content` holds `{"type":"tool_result","tool_use_id",
//!   "is_error"}`; its `permissionDecision.decision` is `reject` when the person (or a rule)
//!   refused the call, and a result wrapped in `<tool_use_error>` is one Claude Code never sent
//!   (no such tool, input it would not pass on).
//!
//! Each line has its own `timestamp`, `sessionId` and `cwd`. An assistant line that answers an
//! MCP tool's result names that server as it was configured (`attributionMcpServer`): the way
//! back from a normalised name to the real one.
//!
//! A connection log (`~/.cache/claude-cli-nodejs/<folder>/mcp-logs-<server>/<start>.jsonl`)
//! holds one server's connection in one Claude Code process: `{"debug"|"error": text,
//! "timestamp", "sessionId", "cwd"}` lines, among them `Successfully connected …`,
//! `Connection failed (CODE): …` and `Skipping tool "NAME": …`.
//!
//! Everything else in a line (the text, the inputs, the results) is passed over unread:
//! [`Filter`] skips lines that cannot matter without parsing them at all, and the shapes below
//! borrow what they keep and ignore the rest.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// The longest name or id kept from a record: longer ones are not Claude Code's.
pub const MAX_NAME: usize = 256;

/// The most calls (or results) one line may carry.
pub const MAX_PER_LINE: usize = 256;

/// The most skipped tools kept of one connection.
pub const MAX_SKIPPED: usize = 100;

/// A call's end as its result line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    /// The tool answered with an error (`is_error`).
    Error,
    /// Refused by the person or a permission rule: the server never saw it.
    Denied,
    /// Claude Code did not send it (no such tool, input it would not pass on).
    NotSent,
}

impl Outcome {
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
            Outcome::Denied => "denied",
            Outcome::NotSent => "not-sent",
        }
    }
}

/// An MCP tool call the model made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    pub id: String,
    pub name: String,
}

/// What one transcript line says about MCP calls.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SessionLine {
    pub at_ms: i64,
    pub session: String,
    pub cwd: String,
    pub sidechain: bool,
    /// MCP tools the model called in this message.
    pub uses: Vec<Use>,
    /// Results, by the id of the call they answer.
    pub results: Vec<(String, Outcome)>,
    /// `attributionMcpServer`: the server as configured, when the line names one.
    pub attributed: Option<String>,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default, borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(default, rename = "sessionId", borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(default, rename = "isSidechain")]
    is_sidechain: bool,
    #[serde(default, borrow)]
    message: Option<Message<'a>>,
    #[serde(default, rename = "permissionDecision", borrow)]
    permission: Option<Permission<'a>>,
    #[serde(default, rename = "attributionMcpServer", borrow)]
    attributed: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Permission<'a> {
    #[serde(default, borrow)]
    decision: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
}

/// Why a line was not read.
#[derive(Debug, PartialEq, Eq)]
pub struct Unreadable;

/// Reads one transcript line. `Ok(None)`: a line with nothing about MCP calls.
pub fn session_line(line: &[u8]) -> Result<Option<SessionLine>, Unreadable> {
    let parsed: Line = serde_json::from_slice(line).map_err(|_| Unreadable)?;
    let Some(at_ms) = parsed.timestamp.as_deref().and_then(parse_time) else {
        return Ok(None);
    };
    let too_long = |v: &Option<Cow<str>>| v.as_ref().is_some_and(|v| v.len() > 4096);
    if too_long(&parsed.session_id) || too_long(&parsed.cwd) {
        return Err(Unreadable);
    }
    let mut out = SessionLine {
        at_ms,
        session: parsed.session_id.unwrap_or_default().into_owned(),
        cwd: parsed.cwd.unwrap_or_default().into_owned(),
        sidechain: parsed.is_sidechain,
        attributed: parsed
            .attributed
            .filter(|a| a.len() <= MAX_NAME)
            .map(Cow::into_owned),
        ..SessionLine::default()
    };
    let denied = parsed
        .permission
        .and_then(|p| p.decision)
        .is_some_and(|d| d == "reject");
    let content = parsed.message.and_then(|m| m.content);
    if let Some(content) = content.filter(|c| c.get().starts_with('[')) {
        let blocks: Vec<Block> = serde_json::from_str(content.get()).map_err(|_| Unreadable)?;
        for block in blocks {
            match block.kind.as_ref() {
                "tool_use" => {
                    if let (Some(id), Some(name)) = (block.id, block.name) {
                        // Claude Code's names fit in 64 characters (the API's limit); a record
                        // that says otherwise is not a call it made.
                        if name.starts_with("mcp__")
                            && name.len() <= MAX_NAME
                            && id.len() <= MAX_NAME
                        {
                            out.uses.push(Use {
                                id: id.into_owned(),
                                name: name.into_owned(),
                            });
                        }
                    }
                }
                "tool_result" => {
                    let Some(id) = block.tool_use_id else {
                        continue;
                    };
                    let outcome = if denied {
                        Outcome::Denied
                    } else if block.is_error == Some(true) {
                        let text = block.content.map(RawValue::get).unwrap_or("");
                        if text.starts_with("\"<tool_use_error>") {
                            Outcome::NotSent
                        } else {
                            Outcome::Error
                        }
                    } else {
                        Outcome::Ok
                    };
                    out.results.push((id.into_owned(), outcome));
                }
                _ => {}
            }
        }
    }
    // Claude Code's parallel calls are a handful to a message; a line with hundreds is not
    // one of its records, and is not kept.
    if out.uses.len() > MAX_PER_LINE || out.results.len() > MAX_PER_LINE {
        return Err(Unreadable);
    }
    if out.uses.is_empty() && out.results.is_empty() && out.attributed.is_none() {
        return Ok(None);
    }
    Ok(Some(out))
}

/// What decides, without parsing, that a transcript line may matter.
pub struct Filter {
    mcp: memchr::memmem::Finder<'static>,
    result: memchr::memmem::Finder<'static>,
}

impl Default for Filter {
    fn default() -> Filter {
        Filter {
            // A call's name, or a server named beside an answer (`attributionMcpServer`).
            mcp: memchr::memmem::Finder::new(b"mcp__"),
            result: memchr::memmem::Finder::new(b"\"tool_result\""),
        }
    }
}

impl Filter {
    /// Whether `line` may name an MCP call, or answer a call `pending` says is waiting for
    /// its result. The ids a result line answers are found where Claude Code writes them
    /// (`"tool_use_id":"…"`) and looked up, so the cost is the line's length whatever the
    /// number of calls waiting.
    pub fn may_matter(&self, line: &[u8], pending: impl Fn(&str) -> bool) -> bool {
        if self.mcp.find(line).is_some() || memchr::memmem::find(line, b"attributionMcp").is_some()
        {
            return true;
        }
        if self.result.find(line).is_none() {
            return false;
        }
        const KEY: &[u8] = b"\"tool_use_id\":\"";
        memchr::memmem::find_iter(line, KEY).any(|at| {
            let rest = &line[at + KEY.len()..];
            let end = memchr::memchr(b'"', rest).unwrap_or(rest.len());
            std::str::from_utf8(&rest[..end]).is_ok_and(&pending)
        })
    }
}

/// One server's connection in one Claude Code process, from its log.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Connection {
    pub at_ms: Option<i64>,
    pub session: Option<String>,
    pub cwd: Option<String>,
    pub connected: bool,
    /// The code of the last `Connection failed (CODE): …`.
    pub failed: Option<String>,
    pub skipped_tools: Vec<String>,
}

#[derive(Deserialize)]
struct LogLine<'a> {
    #[serde(default, borrow)]
    debug: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    error: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(default, rename = "sessionId", borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    cwd: Option<Cow<'a, str>>,
}

impl Connection {
    /// Reads one line of the log into what is known so far.
    pub fn read(&mut self, line: &[u8]) -> Result<(), Unreadable> {
        let parsed: LogLine = serde_json::from_slice(line).map_err(|_| Unreadable)?;
        if self.at_ms.is_none() {
            self.at_ms = parsed.timestamp.as_deref().and_then(parse_time);
        }
        if self.session.is_none() {
            self.session = parsed
                .session_id
                .filter(|v| v.len() <= 4096)
                .map(Cow::into_owned);
        }
        if self.cwd.is_none() {
            self.cwd = parsed.cwd.filter(|v| v.len() <= 4096).map(Cow::into_owned);
        }
        let text = parsed.debug.or(parsed.error).unwrap_or_default();
        if text.starts_with("Successfully connected") {
            self.connected = true;
            self.failed = None;
        } else if let Some(rest) = text.strip_prefix("Connection failed (") {
            if let Some((code, _)) = rest.split_once(')') {
                if !self.connected {
                    self.failed = Some(code.chars().take(40).collect());
                }
            }
        } else if let Some(rest) = text.strip_prefix("Skipping tool \"") {
            if let Some((name, _)) = rest.split_once('"') {
                let name: String = name.chars().take(128).collect();
                if self.skipped_tools.len() < MAX_SKIPPED && !self.skipped_tools.contains(&name) {
                    self.skipped_tools.push(name);
                }
            }
        }
        Ok(())
    }
}

/// Claude Code's timestamps (`2026-12-05T21:10:37.415Z`) as milliseconds since the epoch.
pub fn parse_time(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[10] != b'T' || !text.ends_with('Z') {
        return None;
    }
    let number = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    let millis = match bytes.get(19) {
        Some(b'.') => {
            let digits = &text[20..text.len() - 1];
            let first3: String = digits.chars().chain("000".chars()).take(3).collect();
            first3.parse::<i64>().ok()?
        }
        Some(b'Z') => 0,
        _ => return None,
    };
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || !(0..=23).contains(&hour)
        || !(0..=59).contains(&minute)
        || !(0..=60).contains(&second)
        || millis < 0
    {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_read_to_the_millisecond() {
        assert_eq!(parse_time("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            parse_time("2026-12-05T21:10:37.415Z"),
            Some(1_796_505_037_415)
        );
        assert_eq!(parse_time("2026-12-05T21:10:37Z"), Some(1_796_505_037_000));
        assert_eq!(parse_time("2026-12-05 21:10:37Z"), None);
        assert_eq!(parse_time("yesterday"), None);
        assert_eq!(parse_time("2026-12-05T-1:10:37Z"), None);
        assert_eq!(parse_time("2026-12-05T21:10:99Z"), None);
    }

    // Lines as Claude Code 2.1.332 wrote them in a `claude -p` session (cut to what matters).
    const USE: &str = r#"{"parentUuid":"a","isSidechain":false,"message":{"id":"msg_x","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"mcp__alpha__boom","input":{"q":"mcp__beta__x"}}]},"attributionMcpServer":"beta.x","attributionMcpTool":"time-now","type":"assistant","timestamp":"2026-12-05T21:10:37.488Z","cwd":"/tmp/p","sessionId":"s1"}"#;
    const ERROR: &str = r#"{"isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"it broke","is_error":true,"tool_use_id":"toolu_1"}]},"timestamp":"2026-12-05T21:10:37.497Z","toolUseResult":"Error: it broke","permissionDecision":{"decision":"accept","source":"config"},"cwd":"/tmp/p","sessionId":"s1"}"#;
    const DENIED: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"Claude requested permissions to use mcp__alpha__echo, but you haven't granted it yet.","is_error":true,"tool_use_id":"toolu_2"}]},"timestamp":"2026-12-05T21:11:52.198Z","permissionDecision":{"decision":"reject","source":"config","reasonCode":"unknown"},"cwd":"/tmp/p","sessionId":"s2"}"#;
    const NOT_SENT: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"<tool_use_error>Error: No such tool available: mcp__beta_x__time-now</tool_use_error>","is_error":true,"tool_use_id":"toolu_3"}]},"timestamp":"2026-12-05T21:11:52.244Z","cwd":"/tmp/p","sessionId":"s2"}"#;
    const OK: &str = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_4","type":"tool_result","content":[{"type":"text","text":"{}"}]}]},"timestamp":"2026-12-05T21:10:37.440Z","cwd":"/tmp/p","sessionId":"s1"}"#;

    #[test]
    fn a_call_its_server_and_each_kind_of_result_are_read() {
        let line = session_line(USE.as_bytes()).unwrap().unwrap();
        assert_eq!(
            line.uses,
            [Use {
                id: "toolu_1".into(),
                name: "mcp__alpha__boom".into()
            }]
        );
        assert_eq!(line.attributed.as_deref(), Some("beta.x"));
        assert_eq!((line.session.as_str(), line.cwd.as_str()), ("s1", "/tmp/p"));
        let outcome = |text: &str| session_line(text.as_bytes()).unwrap().unwrap().results;
        assert_eq!(outcome(ERROR), [("toolu_1".to_string(), Outcome::Error)]);
        assert_eq!(outcome(DENIED), [("toolu_2".to_string(), Outcome::Denied)]);
        assert_eq!(
            outcome(NOT_SENT),
            [("toolu_3".to_string(), Outcome::NotSent)]
        );
        assert_eq!(outcome(OK), [("toolu_4".to_string(), Outcome::Ok)]);
    }

    #[test]
    fn lines_without_mcp_calls_are_passed_over_and_broken_ones_reported() {
        let text = r#"{"type":"user","message":{"role":"user","content":"hi"},"timestamp":"2026-12-05T21:10:37.440Z"}"#;
        assert_eq!(session_line(text.as_bytes()), Ok(None));
        let bash = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]},"timestamp":"2026-12-05T21:10:37.440Z"}"#;
        assert_eq!(session_line(bash.as_bytes()), Ok(None));
        assert_eq!(session_line(b"{\"type\":"), Err(Unreadable));
        let filter = Filter::default();
        assert!(!filter.may_matter(text.as_bytes(), |_| true));
        assert!(!filter.may_matter(OK.as_bytes(), |id| id == "toolu_9"));
        assert!(filter.may_matter(OK.as_bytes(), |id| id == "toolu_4"));
        assert!(filter.may_matter(USE.as_bytes(), |_| false));
    }

    #[test]
    fn a_connection_log_gives_its_outcome_code_and_skipped_tools() {
        let mut failed = Connection::default();
        for line in [
            r#"{"debug":"Starting connection with timeout of 2000ms","timestamp":"2026-12-05T21:11:18.600Z","sessionId":"s","cwd":"/tmp/p"}"#,
            r#"{"error":"Connection failed (CONNECT_TIMEOUT): MCP server \"hang\" connection timed out after 2000ms","timestamp":"2026-12-05T21:11:20.605Z","sessionId":"s","cwd":"/tmp/p"}"#,
        ] {
            failed.read(line.as_bytes()).unwrap();
        }
        assert_eq!(failed.failed.as_deref(), Some("CONNECT_TIMEOUT"));
        assert!(!failed.connected);
        assert_eq!(failed.at_ms, parse_time("2026-12-05T21:11:18.600Z"));
        let mut ok = Connection::default();
        for line in [
            r#"{"debug":"Successfully connected (transport: stdio) in 49ms","timestamp":"2026-12-05T21:11:52.082Z","sessionId":"s","cwd":"/tmp/p"}"#,
            r#"{"error":"Skipping tool \"broken\": its input schema would be rejected by the Anthropic API (x). Other tools from this server remain available.","timestamp":"2026-12-05T21:11:52.093Z","sessionId":"s","cwd":"/tmp/p"}"#,
        ] {
            ok.read(line.as_bytes()).unwrap();
        }
        assert!(ok.connected && ok.failed.is_none());
        assert_eq!(ok.skipped_tools, ["broken"]);
    }
}
