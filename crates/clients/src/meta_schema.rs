//! A quick yes for the meta-schema checks the clients run on every input schema.
//!
//! Claude Code checks each schema against JSON Schema 2020-12 and VS Code against draft-07
//! before sending it; a project of thousands of tools makes that the costliest part of every
//! client's view, and a general validator walking the meta-schema looks up each of its ~50
//! keywords in every node. [`surely_valid`] walks the schema once instead and answers only
//! "valid" or "not sure": whatever it does not know for certain (a keyword whose value it
//! does not check exactly, a float where an integer is asked, a format the draft asserts)
//! is "not sure", and the caller then asks the full validator, which also gives the words of
//! a failure. So it can make a check faster but never change a verdict;
//! `tests/meta_schema.rs` holds it to that against the full validator on every schema of the
//! corpus and on each of them broken keyword by keyword.

use serde_json::{Map, Value};

/// The draft whose meta-schema is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Draft {
    /// 2020-12, formats not asserted (Claude Code's check).
    Draft202012,
    /// Draft-07 (VS Code's check).
    Draft7,
}

/// Deeper than this, the full validator decides.
const DEPTH: usize = 64;

const SIMPLE_TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// The first error of `schema` against `draft`'s meta-schema, `None` when it is valid: the
/// quick yes first, the full validator (which words the error) only when it is not sure.
pub fn first_error(schema: &Value, draft: Draft) -> Option<jsonschema::ValidationError<'_>> {
    if surely_valid(schema, draft) {
        return None;
    }
    let validator = match draft {
        Draft::Draft202012 => jsonschema::draft202012::meta::validator(),
        Draft::Draft7 => jsonschema::draft7::meta::validator(),
    };
    // `is_valid` is the quicker walk; only a failure needs `validate`'s words.
    if validator.is_valid(schema) {
        return None;
    }
    validator.validate(schema).err()
}

/// `true` when `schema` is certainly valid against `draft`'s meta-schema; `false` when it may
/// not be (ask the full validator).
pub fn surely_valid(schema: &Value, draft: Draft) -> bool {
    schema_ok(schema, draft, 0)
}

fn schema_ok(schema: &Value, draft: Draft, depth: usize) -> bool {
    match schema {
        Value::Bool(_) => true,
        Value::Object(map) => depth < DEPTH && object_ok(map, draft, depth + 1),
        _ => false,
    }
}

fn object_ok(map: &Map<String, Value>, draft: Draft, depth: usize) -> bool {
    let modern = draft == Draft::Draft202012;
    map.iter().all(|(key, value)| match key.as_str() {
        // Any value.
        "default" | "const" => true,
        "title" | "description" | "$comment" | "format" | "contentEncoding"
        | "contentMediaType" => value.is_string(),
        "readOnly" | "writeOnly" | "uniqueItems" => value.is_boolean(),
        "deprecated" if modern => value.is_boolean(),
        "examples" | "enum" => value.is_array(),
        "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => value.is_number(),
        "multipleOf" => value.as_f64().is_some_and(|n| n > 0.0),
        "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties" | "minProperties" => {
            value.is_u64()
        }
        "maxContains" | "minContains" if modern => value.is_u64(),
        "required" => string_array(value),
        "type" => types_ok(value),
        // Draft-07 asserts formats: a pattern must be a valid regular expression there.
        "pattern" => modern && value.is_string(),
        // URIs: 2020-12 does not check their format, draft-07 does; there only the plain
        // spellings are judged here (`https://…`, `#/definitions/…`).
        "$ref" | "$dynamicRef" | "$schema" if modern => value.is_string(),
        "$schema" => value.as_str().is_some_and(plain_absolute_uri),
        "$ref" => value.as_str().is_some_and(plain_fragment),
        "additionalProperties" | "propertyNames" | "contains" | "if" | "then" | "else" | "not" => {
            schema_ok(value, draft, depth)
        }
        "unevaluatedItems" | "unevaluatedProperties" | "contentSchema" if modern => {
            schema_ok(value, draft, depth)
        }
        "additionalItems" if !modern => schema_ok(value, draft, depth),
        "items" => schema_ok(value, draft, depth) || (!modern && schema_array(value, draft, depth)),
        "prefixItems" if modern => schema_array(value, draft, depth),
        "allOf" | "anyOf" | "oneOf" => schema_array(value, draft, depth),
        "properties" | "definitions" => schema_map(value, draft, depth),
        "$defs" | "dependentSchemas" if modern => schema_map(value, draft, depth),
        "dependentRequired" if modern => value
            .as_object()
            .is_some_and(|m| m.values().all(string_array)),
        "dependencies" => value.as_object().is_some_and(|m| {
            m.values()
                .all(|v| schema_ok(v, draft, depth) || string_array(v))
        }),
        // Pattern-checked, format-checked or rare: the full validator decides.
        "$id" | "$anchor" | "$dynamicAnchor" | "$vocabulary" | "$recursiveAnchor"
        | "$recursiveRef" | "patternProperties" => false,
        // Any other key is no keyword of this draft (each draft's keywords all have an arm
        // above, those of the other draft's only under a guard): the meta-schema allows it.
        _ => true,
    })
}

/// `http(s)://` and unreserved characters, `/` and one final `#`: an absolute URI whatever
/// the checker.
fn plain_absolute_uri(text: &str) -> bool {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"));
    let rest = rest.map(|r| r.strip_suffix('#').unwrap_or(r));
    rest.is_some_and(|r| {
        !r.is_empty()
            && r.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'~' | b'/'))
    })
}

/// `#` and a fragment of unreserved characters, sub-delimiters, `:`, `@` and `/`: a URI
/// reference whatever the checker.
fn plain_fragment(text: &str) -> bool {
    text.strip_prefix('#').is_some_and(|f| {
        f.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'.' | b'-'
                        | b'_'
                        | b'~'
                        | b'/'
                        | b'$'
                        | b'!'
                        | b'&'
                        | b'\''
                        | b'('
                        | b')'
                        | b'*'
                        | b'+'
                        | b','
                        | b';'
                        | b'='
                        | b':'
                        | b'@'
                )
        })
    })
}

fn types_ok(value: &Value) -> bool {
    match value {
        Value::String(name) => SIMPLE_TYPES.contains(&name.as_str()),
        Value::Array(names) => {
            !names.is_empty()
                && names
                    .iter()
                    .all(|n| n.as_str().is_some_and(|n| SIMPLE_TYPES.contains(&n)))
                && distinct(names)
        }
        _ => false,
    }
}

fn string_array(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|items| items.iter().all(Value::is_string) && distinct(items))
}

/// No two equal items (strings here: every caller checked that first).
fn distinct(items: &[Value]) -> bool {
    if items.len() <= 8 {
        return items
            .iter()
            .enumerate()
            .all(|(at, item)| !items[..at].contains(item));
    }
    let mut seen = ahash::AHashSet::with_capacity(items.len());
    items.iter().all(|item| seen.insert(item.as_str()))
}

fn schema_array(value: &Value, draft: Draft, depth: usize) -> bool {
    value
        .as_array()
        .is_some_and(|items| !items.is_empty() && items.iter().all(|s| schema_ok(s, draft, depth)))
}

fn schema_map(value: &Value, draft: Draft, depth: usize) -> bool {
    value
        .as_object()
        .is_some_and(|m| m.values().all(|s| schema_ok(s, draft, depth)))
}
