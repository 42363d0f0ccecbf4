//! The JSON Canonicalization Scheme (RFC 8785): one text for one JSON value, whatever the
//! order of its keys, its whitespace or its number spelling, so that a hash of it says whether
//! a tool's definition is the one approved.
//!
//! Keys are sorted by their UTF-16 code units; strings are escaped as ECMAScript's
//! `JSON.stringify` does (only `"`, `\` and the C0 controls, which is why invisible characters
//! survive into the hash: they are what we must not miss); numbers are IEEE doubles written
//! as ECMAScript's `Number.prototype.toString` (so `1.0`, `1` and `1e0` are one number, and an
//! integer past 2^53 is rounded, as in every JavaScript client).

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The canonical text of `value`.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// The SHA-256 of the canonical text, in lowercase hex.
pub fn sha256(canonical: &str) -> String {
    let digest = Sha256::digest(canonical.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => number(n, out),
        Value::String(s) => string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<(&String, Vec<u16>)> = map
                .keys()
                .map(|k| (k, k.encode_utf16().collect()))
                .collect();
            keys.sort_by(|a, b| a.1.cmp(&b.1));
            out.push('{');
            for (i, (key, _)) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(key, out);
                out.push(':');
                write(&map[key.as_str()], out);
            }
            out.push('}');
        }
    }
}

fn number(n: &serde_json::Number, out: &mut String) {
    let f = n.as_f64().unwrap_or(0.0);
    if f == 0.0 {
        // -0 is written 0.
        out.push('0');
        return;
    }
    let mut buffer = ryu_js::Buffer::new();
    out.push_str(buffer.format_finite(f));
}

fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_rfcs_own_example_gives_its_own_text() {
        // RFC 8785 section 3.2.2, the numbers and literals of its example.
        let value: Value = serde_json::from_str(
            r#"{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],
                "string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
                "literals":[null,true,false]}"#,
        )
        .unwrap();
        assert_eq!(
            canonical(&value),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
    }

    #[test]
    fn keys_sort_by_utf16_code_units_not_by_scalar_values() {
        // U+1F600 is D83D DE00 in UTF-16, before U+FB33 (FB33); by scalar value it is after.
        let value = json!({"\u{fb33}": 1, "\u{1f600}": 2, "a": 3});
        assert_eq!(
            canonical(&value),
            "{\"a\":3,\"\u{1f600}\":2,\"\u{fb33}\":1}"
        );
    }

    #[test]
    fn one_value_has_one_text_and_one_hash() {
        let a: Value = serde_json::from_str(r#"{"b": 1.0, "a": [1e0, -0]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":[1,0],"b":1}"#).unwrap();
        assert_eq!(canonical(&a), canonical(&b));
        assert_eq!(sha256(&canonical(&a)), sha256(&canonical(&b)));
        assert_ne!(canonical(&a), canonical(&json!({"a": [1, 0], "b": 2})));
    }

    #[test]
    fn invisible_characters_are_kept_not_escaped() {
        let hidden = "read\u{e0069}\u{e0067}\u{200b}";
        assert_eq!(canonical(&json!(hidden)), format!("\"{hidden}\""));
        assert_ne!(canonical(&json!(hidden)), canonical(&json!("read")));
    }
}
