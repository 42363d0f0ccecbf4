//! Text as Claude Code handles it: lengths and cuts in UTF-16 code units (its strings are
//! JavaScript's), the `mcp__<server>__<tool>` names, and the clean-up of every string of a
//! tool listing.
//!
//! Where each rule sits in Claude Code 2.1.332 (minified names, for finding them again):
//! `Hn`/`wr`/`ur` (names), `yi` and `ee` (the description cut), `YL`/`_Qt`/`Uy`/`Be` (the
//! listing's clean-up).

use serde_json::{Map, Value};
use unicode_general_category::{get_general_category, GeneralCategory};
use unicode_normalization::UnicodeNormalization;

/// What Claude Code appends to a description it cut.
pub const TRUNCATION_MARKER: &str = "\u{2026} [truncated]";

/// The length of `text` as JavaScript counts it (UTF-16 code units).
pub fn js_length(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// The first `units` UTF-16 code units of `text`, never half a surrogate pair (Claude Code's
/// `ee`: a cut that would split a pair drops its first half).
pub fn js_prefix(text: &str, units: usize) -> &str {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        let next = used + c.len_utf16();
        if next > units {
            return &text[..at];
        }
        used = next;
    }
    text
}

/// `text` cut to `max` UTF-16 code units with Claude Code's marker, or `None` when it fits.
pub fn cut(text: &str, max: usize) -> Option<String> {
    (js_length(text) > max).then(|| format!("{}{TRUNCATION_MARKER}", js_prefix(text, max)))
}

/// The name the model sees: `mcp__<server>__<tool>`, each part with every character outside
/// `[A-Za-z0-9_-]` made `_` (`Hn`/`ur`; core's rule, shared with permission rules). A
/// plugin's server, named `plugin:<plugin>:<server>` in Claude Code, becomes
/// `mcp__plugin_<plugin>_<server>__<tool>`.
pub fn full_name(server: &str, tool: &str) -> String {
    mcp_manager_core::config::names::qualified_tool_name(server, tool)
}

/// Every string of a listing, keys too, cleaned as Claude Code cleans a `tools/list` result
/// before it reads it (`YL`): ASCII text is kept as it is (control characters included);
/// other text is NFKC-normalised and loses format (Cf), private-use (Co) and unassigned (Cn)
/// characters, until it no longer changes.
pub fn clean_listing(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(clean(text)),
        Value::Array(items) => Value::Array(items.iter().map(clean_listing).collect()),
        Value::Object(map) => {
            let mut cleaned = Map::new();
            for (key, item) in map {
                let key = clean(key);
                if key != "__proto__" {
                    cleaned.insert(key, clean_listing(item));
                }
            }
            Value::Object(cleaned)
        }
        other => other.clone(),
    }
}

/// One string, cleaned (`_Qt`): at most ten rounds of NFKC then removal.
pub fn clean(text: &str) -> String {
    if text.is_ascii() {
        return text.to_string();
    }
    let mut current = text.to_string();
    for _ in 0..10 {
        let normalised: String = current.nfkc().collect();
        let next = strip_hidden(&normalised);
        if next == current {
            break;
        }
        current = next;
    }
    current
}

/// `Be`: format, private-use and unassigned characters removed (zero-width spaces,
/// bidirectional controls and the byte-order mark are format characters).
fn strip_hidden(text: &str) -> String {
    text.chars()
        .filter(|c| {
            !matches!(
                get_general_category(*c),
                GeneralCategory::Format | GeneralCategory::PrivateUse | GeneralCategory::Unassigned
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_replace_what_the_api_refuses_and_plugins_get_their_prefix() {
        assert_eq!(full_name("my server", "a.b/c"), "mcp__my_server__a_b_c");
        assert_eq!(
            full_name("plugin:tools:git", "log"),
            "mcp__plugin_tools_git__log"
        );
        assert_eq!(
            full_name("claude.ai  Drive", "x"),
            "mcp__claude_ai_Drive__x"
        );
    }

    #[test]
    fn cuts_count_utf16_units_and_never_split_a_pair() {
        assert_eq!(js_length("a😀"), 3);
        assert_eq!(cut("abc", 3), None);
        assert_eq!(cut("abcd", 3).as_deref(), Some("abc\u{2026} [truncated]"));
        assert_eq!(
            cut("a😀b", 2).as_deref(),
            Some("a\u{2026} [truncated]"),
            "a cut inside a surrogate pair drops the pair's first half"
        );
    }

    #[test]
    fn hidden_characters_go_only_from_non_ascii_text() {
        assert_eq!(clean("a\u{0007}b"), "a\u{0007}b", "ASCII is kept whole");
        assert_eq!(clean("a\u{200B}b\u{202E}c\u{E000}"), "abc");
        assert_eq!(clean("\u{FB01}"), "fi", "NFKC");
    }
}
