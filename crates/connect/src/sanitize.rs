//! Cleaning what servers send before a person (or a model) reads it.
//!
//! Tool names, descriptions and schemas can hide text in Unicode control and format
//! characters (zero-width spaces, bidirectional overrides, tag characters), which is how
//! prompt-injection payloads hide in plain sight. Like Claude Code we strip them, keeping
//! newlines and tabs. Descriptions are otherwise kept whole: what a model is given of them
//! is each client's business (`mcp_manager_clients`).

use serde_json::Value;

/// Unicode general categories Cc (controls) and Cf (format), less `\n`, `\r` and `\t`.
fn is_hidden(c: char) -> bool {
    let u = c as u32;
    if c == '\n' || c == '\t' || c == '\r' {
        return false;
    }
    matches!(u,
        0x0000..=0x001F | 0x007F..=0x009F // Cc
        | 0x00AD | 0x0600..=0x0605 | 0x061C | 0x06DD | 0x070F | 0x0890..=0x0891 | 0x08E2
        | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F
        | 0xFEFF | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD | 0x13430..=0x1343F
        | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F // Cf
    )
}

/// `text` without control and format characters.
pub fn strip(text: &str) -> String {
    text.chars().filter(|c| !is_hidden(*c)).collect()
}

/// Serialized JSON with every control and format character written as a `\uXXXX` escape:
/// the same value to a JSON reader, nothing a terminal obeys (serde_json escapes only the
/// characters below U+0020, not C1 controls or bidirectional overrides).
pub fn escape_hidden_in_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if is_hidden(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Strips every string (keys too) in a JSON value.
pub fn strip_value(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(strip(s)),
        Value::Array(items) => Value::Array(items.iter().map(strip_value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (strip(k), strip_value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}
