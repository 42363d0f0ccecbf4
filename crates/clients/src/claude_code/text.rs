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
    // One unit per character (every byte but a continuation byte), two for a character of
    // four bytes (its first byte is 0xF0 or above): a loop over bytes the compiler vectorises.
    text.bytes()
        .map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
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

/// [`full_name`] for the tools of one server, its part of the name made once.
pub struct FullNames {
    prefix: String,
}

impl FullNames {
    pub fn of(server: &str) -> FullNames {
        FullNames {
            prefix: format!(
                "mcp__{}__",
                mcp_manager_core::config::names::normalize(server)
            ),
        }
    }

    /// [`full_name`] of `tool`.
    pub fn of_tool(&self, tool: &str) -> String {
        self.prefix.clone() + &mcp_manager_core::config::names::normalize(tool)
    }
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

/// [`clean_listing`] of one value, copied only when cleaning changes something: a tool whose
/// strings and keys cleaning leaves as they are is read in place.
pub fn cleaned(value: &Value) -> std::borrow::Cow<'_, Value> {
    if needs_cleaning(value) {
        std::borrow::Cow::Owned(clean_listing(value))
    } else {
        std::borrow::Cow::Borrowed(value)
    }
}

/// Whether [`clean_listing`] would change `value`: some text is changed by [`clean`], or a
/// key is `__proto__`.
fn needs_cleaning(value: &Value) -> bool {
    match value {
        Value::String(text) => !unchanged(text),
        Value::Array(items) => items.iter().any(needs_cleaning),
        Value::Object(map) => map
            .iter()
            .any(|(key, item)| key == "__proto__" || !unchanged(key) || needs_cleaning(item)),
        _ => false,
    }
}

/// Whether [`clean`] leaves `text` as it is: ASCII, or already NFKC with no hidden character.
fn unchanged(text: &str) -> bool {
    text.is_ascii()
        || text.chars().all(plain)
        || (unicode_normalization::is_nfkc(text) && !text.chars().any(hidden))
}

/// Characters that neither NFKC nor the removal touches, wherever they stand: ASCII, the
/// composed Latin-1 letters (U+00C0–U+00FF: starters that nothing composes with), and the
/// dashes, quotes and bullet of English prose. A text of only these is left as it is,
/// without the normalisation tables.
fn plain(c: char) -> bool {
    c.is_ascii()
        || ('\u{C0}'..='\u{FF}').contains(&c)
        || matches!(
            c,
            '\u{2013}'
                | '\u{2014}'
                | '\u{2018}'
                | '\u{2019}'
                | '\u{201C}'
                | '\u{201D}'
                | '\u{2022}'
        )
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
    text.chars().filter(|c| !hidden(*c)).collect()
}

fn hidden(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::Format | GeneralCategory::PrivateUse | GeneralCategory::Unassigned
    )
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
    fn full_names_made_per_server_are_full_name() {
        for server in ["my server", "plugin:tools:git", "claude.ai  Drive", "s"] {
            for tool in ["a.b/c", "log", "claude.ai  x", "ok-1_2"] {
                assert_eq!(FullNames::of(server).of_tool(tool), full_name(server, tool));
            }
        }
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
    fn a_value_is_copied_only_when_cleaning_changes_it() {
        use serde_json::json;
        let plain = json!({"name": "a — é", "list": [1, "b\u{0007}"], "n": null});
        assert!(matches!(cleaned(&plain), std::borrow::Cow::Borrowed(_)));
        let proto = json!({"__proto__": 1, "b": 2});
        assert_eq!(cleaned(&proto).into_owned(), json!({"b": 2}));
        let hidden = json!({"d": ["x\u{200B}y"]});
        assert_eq!(cleaned(&hidden).into_owned(), json!({"d": ["xy"]}));
        let key = json!({"k\u{FB01}": true});
        assert_eq!(cleaned(&key).into_owned(), json!({"kfi": true}));
    }

    #[test]
    fn the_plain_characters_are_those_cleaning_leaves_alone() {
        let plain: String = ('\u{0}'..='\u{2100}').filter(|c| plain(*c)).collect();
        assert_eq!(clean(&plain), plain);
        // No two of them compose (only combining marks and jamo do, and they are not plain).
        for a in plain.chars() {
            for b in plain.chars() {
                let pair = format!("{a}{b}");
                assert!(unicode_normalization::is_nfkc(&pair), "{pair:?}");
            }
        }
        assert!(!plain.contains('\u{2026}') && !plain.contains('\u{A0}'));
        assert_eq!(js_length("a\u{E9}\u{2014}\u{1F600}"), 5);
    }

    #[test]
    fn hidden_characters_go_only_from_non_ascii_text() {
        assert_eq!(clean("a\u{0007}b"), "a\u{0007}b", "ASCII is kept whole");
        assert_eq!(clean("a\u{200B}b\u{202E}c\u{E000}"), "abc");
        assert_eq!(clean("\u{FB01}"), "fi", "NFKC");
    }
}
