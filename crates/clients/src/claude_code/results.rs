//! What Claude Code 2.1.332 does with a tool's result before its model sees it.
//!
//! A server answers `tools/call` with a `CallToolResult`; the model gets something else. Claude
//! Code passes the result through two layers, read from its program and judged against the
//! request it sends a stand-in model API (`crates/clients/tests/judge.rs`):
//!
//! 1. What the model is given (`f_`): the content blocks, or, when the result carries
//!    `structuredContent`, that object's JSON text in place of the text blocks (other blocks
//!    stay, before it).
//! 2. The MCP token limit (`Yu`, `ugr`): the limit is `MAX_MCP_OUTPUT_TOKENS`, else 25,000
//!    (`d()`). Claude Code estimates `n` = Σ round(text length / 4) + 1,600 per image (`WNn`,
//!    `Wl`). Up to half the limit the result is kept. A text estimate over four times the limit
//!    is too large. Between the two Claude Code asks the model API to count the result
//!    (`Ean`, `/v1/messages/count_tokens`) and compares that count with the limit (on an
//!    error, the estimate). A tool with `_meta["anthropic/maxResultSizeChars"]` and no image
//!    in its result skips this layer. A result too large is saved to a file (the model gets
//!    an "Error: result (…) exceeds maximum allowed tokens. Output has been saved to …"
//!    message, `Iol`); with `ENABLE_MCP_LARGE_OUTPUT_FILES=false`, or when it holds an image,
//!    it is cut at four characters per token of the limit with the "[OUTPUT TRUNCATED -
//!    exceeded N token limit]" note (`pki`, `Ent`).
//! 3. The general tool-result limit (`Pe`, `l3`): what comes out of 2 and holds no image, when
//!    its text is longer than the tool's character limit, is saved to a file and the model
//!    gets a `<persisted-output>` message with a 2KB preview. An MCP tool's limit is its
//!    100,000 (`Ohr`) capped at 50,000 (`mw`); `_meta["anthropic/maxResultSizeChars"]` sets
//!    it instead, up to 500,000 (`Rpe`). So a text result over 50,000 characters never
//!    reaches the model whole, whatever its tokens, and a cut result is saved when the cut
//!    text is still over the limit.
//!
//! What is not modelled: the server named `ide` (its results are never limited), Claude Code's
//! shrinking of an image to fit what is left of the limit (we say the image may be left out),
//! remote flags that change the limits, and the exact wording of the file message past its
//! first sentence (it names a path that only exists once Claude Code writes it).

use serde::Serialize;
use serde_json::{json, Value};

use super::{text, ResultLimits};

/// Claude Code's estimate of an image's tokens (`h`).
pub const IMAGE_TOKENS: u64 = 1600;
/// `Ent`: how Claude Code's truncation note begins.
pub const TRUNCATION_NOTE: &str = "[OUTPUT TRUNCATED - exceeded ";
/// The longest preview of a result saved by the general limit (`r$`).
pub const PREVIEW_CHARS: usize = 2000;

/// `ENABLE_MCP_LARGE_OUTPUT_FILES`, read as Claude Code reads it (`H.triBool()`): false only
/// for `0`, `false`, `no` or `off`.
pub fn large_output_files(value: Option<&str>) -> bool {
    !value.is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "no" | "off"
        )
    })
}

/// What happens to a result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Fate {
    /// The model gets the result whole.
    Kept,
    /// Over the token limit: saved to a file; the model gets its path and how to read it.
    SavedOverTokens,
    /// Within the token limit but longer than the tool's character limit: saved to a file;
    /// the model gets its path and a 2KB preview.
    SavedOverChars,
    /// Cut at four characters per token of the limit, with Claude Code's note.
    Truncated,
    /// Cut, and the cut text still longer than the tool's character limit: saved to a file.
    TruncatedThenSaved,
    /// Claude Code asks the model API to count the result; the count decides.
    DependsOnCount { within: Box<Fate>, over: Box<Fate> },
}

/// Claude Code's reading of one result, and what the model gets.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultFate {
    pub fate: Fate,
    /// Characters of text Claude Code measures (UTF-16 units, as it counts).
    pub chars: usize,
    /// Its token estimate: round(chars / 4) per text block, 1,600 per image.
    pub estimate: u64,
    pub images: usize,
    /// The token limit, and the character limit of the general layer.
    pub max_tokens: u64,
    pub persist_over_chars: u64,
    /// The count the decision used, when the model API was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// The `tool_result` content exactly as sent, when it can be known before Claude Code
    /// writes a file (`Kept`, `Truncated`, and the general layer's message but for its path,
    /// written `<file>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent: Option<Value>,
    /// The fate said for a person.
    pub words: String,
}

/// The content blocks the model is given, before any limit (`f_`, `ou`): `Text` for a whole
/// string (a result with `structuredContent`), else blocks.
#[derive(Debug, Clone, PartialEq)]
enum Given {
    Text(String),
    Blocks(Vec<Value>),
}

fn given(result: &Value) -> Given {
    if let Some(legacy) = result.get("toolResult") {
        return Given::Text(match legacy {
            Value::String(s) => s.clone(),
            other => js_json(other),
        });
    }
    let blocks: Vec<Value> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|c| c.iter().filter_map(block).collect())
        .unwrap_or_default();
    if let Some(structured) = result.get("structuredContent") {
        let json = js_json(structured);
        let others: Vec<Value> = blocks.into_iter().filter(|b| b["type"] != "text").collect();
        if others.is_empty() {
            return Given::Text(json);
        }
        let mut all = others;
        all.push(json!({"type": "text", "text": json}));
        return Given::Blocks(all);
    }
    Given::Blocks(blocks)
}

/// One MCP content block as an API block: text and images as such, an embedded text
/// resource as its text; other kinds pass as they are (not counted by Claude Code).
fn block(item: &Value) -> Option<Value> {
    match item.get("type").and_then(Value::as_str) {
        Some("text") => Some(json!({"type": "text", "text": item["text"].as_str().unwrap_or("")})),
        Some("image") => Some(json!({"type": "image", "source": {"type": "base64",
            "media_type": item["mimeType"], "data": item["data"]}})),
        Some("resource") => item["resource"]["text"]
            .as_str()
            .map(|t| json!({"type": "text", "text": t})),
        Some(_) => Some(item.clone()),
        None => None,
    }
}

/// `JSON.stringify`: serde's compact form, with whole floats written as JavaScript does.
fn js_json(value: &Value) -> String {
    fn plain(value: &Value) -> Value {
        match value {
            Value::Number(n) if !n.is_i64() && !n.is_u64() => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9e15 => json!(f as i64),
                _ => value.clone(),
            },
            Value::Array(items) => Value::Array(items.iter().map(plain).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), plain(v))).collect())
            }
            other => other.clone(),
        }
    }
    plain(value).to_string()
}

/// `Wl(text)`: `Math.round(length / 4)`.
fn tokens_of(text: &str) -> u64 {
    (text::js_length(text) as u64 + 2) / 4
}

fn is_image(block: &Value) -> bool {
    block["type"] == "image"
}

fn texts(blocks: &[Value]) -> impl Iterator<Item = &str> {
    blocks
        .iter()
        .filter(|b| b["type"] == "text")
        .map(|b| b["text"].as_str().unwrap_or(""))
}

/// The note Claude Code appends to a cut result (`A()`).
pub fn truncation_note(max_tokens: u64) -> String {
    format!(
        "\n\n{TRUNCATION_NOTE}{max_tokens} token limit]\n\nThe tool output was truncated. If this \
         MCP server provides pagination or filtering tools, use them to retrieve specific \
         portions of the data. If pagination is not available, inform the user that you are \
         working with truncated output and results may be incomplete."
    )
}

/// `[Image left out…]` (`T`).
fn images_left_out(count: usize) -> String {
    if count == 1 {
        "[Image left out: it did not fit in the tool output limit]".to_string()
    } else {
        format!("[{count} images left out: they did not fit in the tool output limit]")
    }
}

/// `ee`: the first `at` UTF-16 units, without a lone high surrogate at the end.
fn cut_units(text: &str, at: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let width = c.len_utf16();
        if used + width > at {
            break;
        }
        used += width;
        out.push(c);
    }
    out
}

/// `pki`: the result cut at `max_tokens × 4` characters, with the note. A string is cut by
/// code points (`Oa`); blocks are kept while they fit, the text that passes is cut, images
/// that do not fit are left out (Claude Code first tries to shrink one into what is left).
fn truncate(given: &Given, max_tokens: u64) -> Value {
    let room = (max_tokens * 4) as usize;
    match given {
        Given::Text(s) => {
            let cut = if text::js_length(s) <= room {
                s.clone()
            } else {
                s.chars().take(room).collect()
            };
            Value::String(cut + &truncation_note(max_tokens))
        }
        Given::Blocks(blocks) => {
            let mut kept: Vec<Value> = Vec::new();
            let mut used = 0usize;
            let mut left_out = Vec::new();
            let mut left_out_at = None;
            let mut stop = None;
            for (i, b) in blocks.iter().enumerate() {
                if b["type"] == "text" {
                    let t = b["text"].as_str().unwrap_or("");
                    let room_left = room.saturating_sub(used);
                    if room_left == 0 {
                        stop = Some(i);
                        break;
                    }
                    let length = text::js_length(t);
                    if length <= room_left {
                        kept.push(b.clone());
                        used += length;
                    } else {
                        let cut = cut_units(t, room_left);
                        if !cut.is_empty() {
                            kept.push(json!({"type": "text", "text": cut}));
                        }
                        stop = Some(i + 1);
                        break;
                    }
                } else if is_image(b) {
                    let cost = (IMAGE_TOKENS * 4) as usize;
                    if used + cost <= room {
                        kept.push(b.clone());
                        used += cost;
                    } else {
                        if left_out_at.is_none() {
                            left_out_at = Some(kept.len());
                            used += images_left_out(1).len();
                        }
                        left_out.push(i);
                    }
                } else {
                    kept.push(b.clone());
                }
            }
            if let Some(from) = stop {
                left_out.extend((from..blocks.len()).filter(|&i| is_image(&blocks[i])));
            }
            if !left_out.is_empty() {
                let at = left_out_at.unwrap_or(kept.len());
                kept.insert(
                    at,
                    json!({"type": "text", "text": images_left_out(left_out.len())}),
                );
            }
            kept.push(json!({"type": "text", "text": truncation_note(max_tokens)}));
            Value::Array(kept)
        }
    }
}

/// `pn`: a size as Claude Code writes it (`48.9KB`).
pub fn size_words(bytes: usize) -> String {
    let kb = bytes as f64 / 1024.0;
    let one = |n: f64| {
        let s = format!("{n:.1}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    if kb < 1.0 {
        format!("{bytes} bytes")
    } else if kb < 1024.0 {
        format!("{}KB", one(kb))
    } else if kb / 1024.0 < 1024.0 {
        format!("{}MB", one(kb / 1024.0))
    } else {
        format!("{}GB", one(kb / 1024.0 / 1024.0))
    }
}

/// The general layer's message for content it saves (`BEe`), the file's path written
/// `<file>`: the saved text is the string, or the blocks' JSON with two-space indents.
fn persisted_message(content: &Value) -> String {
    let saved = match content {
        Value::String(s) => s.clone(),
        other => pretty_js_json(other),
    };
    let units: Vec<u16> = saved.encode_utf16().collect();
    let (preview, more) = if units.len() <= PREVIEW_CHARS {
        (saved.clone(), false)
    } else {
        let head = String::from_utf16_lossy(&units[..PREVIEW_CHARS]);
        let at = head
            .rfind('\n')
            .map(|b| text::js_length(&head[..b]))
            .filter(|&i| i as f64 > PREVIEW_CHARS as f64 * 0.5)
            .unwrap_or(PREVIEW_CHARS);
        (cut_units(&saved, at), true)
    };
    format!(
        "<persisted-output>\nOutput too large ({}). Full output saved to: <file>\n\nPreview (first \
         {}):\n{preview}{}</persisted-output>",
        size_words(units.len()),
        size_words(PREVIEW_CHARS),
        if more { "\n...\n" } else { "\n" }
    )
}

/// `JSON.stringify(value, null, 2)`.
fn pretty_js_json(value: &Value) -> String {
    let compact: Value = serde_json::from_str(&js_json(value)).unwrap_or(Value::Null);
    serde_json::to_string_pretty(&compact).unwrap_or_default()
}

/// The general layer's length of content (`mEo`): a string's, or the sum of its texts'.
fn text_length(content: &Value) -> usize {
    match content {
        Value::String(s) => text::js_length(s),
        Value::Array(blocks) => texts(blocks).map(text::js_length).sum(),
        _ => 0,
    }
}

fn as_content(given: &Given) -> Value {
    match given {
        Given::Text(s) => Value::String(s.clone()),
        Given::Blocks(b) => Value::Array(b.clone()),
    }
}

/// What Claude Code does with `result` (a `CallToolResult`) of the tool `limits` describes.
/// `large_output_files` is `ENABLE_MCP_LARGE_OUTPUT_FILES` (false only when set to a false
/// value); `count` is the model API's count of the result, when known.
pub fn result_fate(
    result: &Value,
    limits: &ResultLimits,
    large_output_files: bool,
    count: Option<u64>,
) -> ResultFate {
    let given = given(result);
    let max = limits.max_tokens;
    let (chars, estimate, text_estimate, images) = match &given {
        Given::Text(s) => (text::js_length(s), tokens_of(s), tokens_of(s), 0),
        Given::Blocks(blocks) => {
            let chars = texts(blocks).map(text::js_length).sum();
            let text_estimate: u64 = texts(blocks).map(tokens_of).sum();
            let images = blocks.iter().filter(|b| is_image(b)).count();
            (
                chars,
                text_estimate + IMAGE_TOKENS * images as u64,
                text_estimate,
                images,
            )
        }
    };
    let mut fate = ResultFate {
        fate: Fate::Kept,
        chars,
        estimate,
        images,
        max_tokens: max,
        persist_over_chars: limits.persist_over_chars,
        count: None,
        sent: None,
        words: String::new(),
    };
    let empty = match &given {
        Given::Text(s) => s.trim().is_empty(),
        Given::Blocks(b) => b
            .iter()
            .all(|b| b["type"] == "text" && b["text"].as_str().unwrap_or("").trim().is_empty()),
    };
    if empty {
        fate.sent = Some(Value::String(format!(
            "({} completed with no output)",
            limits.name
        )));
        fate.words = "Claude Code would tell the model the tool completed with no output.".into();
        return fate;
    }
    let skips_tokens = limits.size_annotated && images == 0;
    // `ugr`: None when the count decides and is not known.
    let too_large = if skips_tokens || estimate as f64 <= max as f64 * 0.5 {
        Some(false)
    } else if text_estimate > max * 4 {
        Some(true)
    } else if let Some(c) = count {
        fate.count = Some(c);
        Some(c > max)
    } else {
        None
    };
    let within = general(
        &as_content(&given),
        limits,
        Fate::Kept,
        Fate::SavedOverChars,
    );
    let over = if !large_output_files || images > 0 {
        general(
            &truncate(&given, max),
            limits,
            Fate::Truncated,
            Fate::TruncatedThenSaved,
        )
    } else {
        (Fate::SavedOverTokens, None)
    };
    let (kind, sent) = match too_large {
        Some(false) => within,
        Some(true) => over,
        None => (
            Fate::DependsOnCount {
                within: Box::new(within.0),
                over: Box::new(over.0),
            },
            None,
        ),
    };
    fate.words = words(&fate, &kind, &given, text_estimate);
    fate.fate = kind;
    fate.sent = sent;
    fate
}

/// The general layer on `content`: kept as `kept`, or saved (`saved`) when it holds no image
/// and its text is longer than the tool's character limit.
fn general(
    content: &Value,
    limits: &ResultLimits,
    kept: Fate,
    saved: Fate,
) -> (Fate, Option<Value>) {
    let has_image = content.as_array().is_some_and(|b| {
        b.iter()
            .any(|b| b["type"] == "image" || b["type"] == "document")
    });
    if !has_image && text_length(content) as u64 > limits.persist_over_chars {
        (saved, Some(Value::String(persisted_message(content))))
    } else {
        (kept, Some(content.clone()))
    }
}

fn words(fate: &ResultFate, kind: &Fate, given: &Given, text_estimate: u64) -> String {
    let n = |v: u64| thousands(v);
    let about = format!(
        "{} characters, about {} tokens by Claude Code's estimate{}",
        n(fate.chars as u64),
        n(fate.estimate),
        if fate.images > 0 {
            format!(" ({} for images)", n(fate.estimate - text_estimate))
        } else {
            String::new()
        }
    );
    let limit = format!("its limit of {} tokens", n(fate.max_tokens));
    let chars_limit = format!("{} characters", n(fate.persist_over_chars));
    let _ = given;
    match kind {
        Fate::Kept => format!("Claude Code would give the model this result whole: {about}."),
        Fate::SavedOverTokens => format!(
            "Claude Code would have saved this result to a file: {about}{}, over {limit}. The \
             model gets the file's path and how to read it, not the result.",
            fate.count
                .map(|c| format!(", {} by the model API's count", n(c)))
                .unwrap_or_default()
        ),
        Fate::SavedOverChars => format!(
            "Claude Code would have saved this result to a file: {about}, within {limit} but \
             longer than the tool's {chars_limit}. The model gets the file's path and a 2KB preview."
        ),
        Fate::Truncated => format!(
            "Claude Code would have cut this result to {} characters: {about}, over {limit}. \
             The model gets the first part and a note that the output was truncated.",
            n(fate.max_tokens * 4)
        ),
        Fate::TruncatedThenSaved => format!(
            "Claude Code would have cut this result to {} characters ({about}, over {limit}), \
             then saved the cut text to a file, as it is still longer than the tool's \
             {chars_limit}. The model gets the file's path and a 2KB preview.",
            n(fate.max_tokens * 4)
        ),
        Fate::DependsOnCount { within, over }
            if short(within) == "saved to a file." && short(over) == "saved to a file." =>
        {
            format!(
                "Claude Code would have saved this result to a file: {about}. Whether the model \
                 API counts it within {limit} or over, it is longer than the tool's \
                 {chars_limit}. The model gets the file's path and a preview."
            )
        }
        Fate::DependsOnCount { within, over } => format!(
            "{about}: between half of {limit} and four times it, Claude Code asks the model API \
             to count the result. Within {} tokens: {} Over: {} By our estimate it is {}.",
            n(fate.max_tokens),
            short(within),
            short(over),
            if fate.estimate > fate.max_tokens { "over" } else { "within" }
        ),
    }
}

fn short(fate: &Fate) -> &'static str {
    match fate {
        Fate::Kept => "kept whole.",
        Fate::SavedOverTokens | Fate::SavedOverChars => "saved to a file.",
        Fate::Truncated => "cut, with a note.",
        Fate::TruncatedThenSaved => "cut, then saved to a file.",
        Fate::DependsOnCount { .. } => "decided by the count.",
    }
}

/// `toLocaleString()` in English: 31,250.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_tokens: u64, persist_over_chars: u64, size_annotated: bool) -> ResultLimits {
        ResultLimits {
            name: "mcp__edge__big".into(),
            max_tokens,
            persist_over_chars,
            size_annotated,
        }
    }

    #[test]
    fn estimates_round_as_javascript_does() {
        assert_eq!(tokens_of("ab"), 1, "Math.round(0.5) is 1");
        assert_eq!(tokens_of("a"), 0);
        assert_eq!(tokens_of("abcdef"), 2, "Math.round(1.5) is 2");
        assert_eq!(thousands(31250), "31,250");
        assert_eq!(size_words(50045), "48.9KB");
    }

    #[test]
    fn a_large_text_is_said_to_be_saved_to_a_file() {
        let result = json!({"content": [{"type": "text", "text": "x".repeat(125_000 * 4)}]});
        let fate = result_fate(&result, &limits(25_000, 50_000, false), true, None);
        assert_eq!(fate.fate, Fate::SavedOverTokens);
        assert!(fate.words.starts_with(
            "Claude Code would have saved this result to a file: 500,000 characters, about \
             125,000 tokens"
        ));
    }
}
