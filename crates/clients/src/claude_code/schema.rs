//! A tool's `inputSchema` as Claude Code 2.1.332 sends it, or why it skips the tool.
//!
//! The model API refuses a root `anyOf`/`oneOf`/`allOf`, property keys outside
//! `^[a-zA-Z0-9_.-]{1,64}$` and schemas that are not valid JSON Schema 2020-12, and one bad
//! tool fails the whole request. Claude Code therefore (`ywi`, `hWl`, `xn`, `ZHs`, and the
//! check beside `Ajv2020`):
//! 1. flattens a root combinator into one object: the properties of the root and of every
//!    branch merged (a branch's `$ref` to `#/$defs/…` or `#/definitions/…` resolved first;
//!    the first spelling of a property wins, and for `anyOf`/`oneOf` the differing spellings
//!    become one `anyOf`, strings first), `required` from the root and every `allOf` branch
//!    (and, for `anyOf`/`oneOf`, what every branch requires), `$defs`, `definitions`,
//!    `$schema`, `additionalProperties`, `description` and `title` kept, and
//!    `additionalProperties: true` added when absent; a sentence ("Input constraint: …") goes
//!    before the tool's description. When the merge of differing spellings gives a schema
//!    the API would refuse, it flattens again keeping the first spelling only;
//! 2. checks the schema it will send: the root property keys, then (with `null`-valued root
//!    keys left out, and only when `$schema` is absent or names 2020-12) the 2020-12
//!    meta-schema, formats not checked. A schema that fails is not sent: the tool is skipped.

use std::borrow::Cow;

use serde_json::{json, Map, Value};

const COMBINATORS: [&str; 3] = ["anyOf", "oneOf", "allOf"];
/// The keys of a root that a flattened schema keeps (`Tn`).
const KEPT: [&str; 6] = [
    "$defs",
    "definitions",
    "$schema",
    "additionalProperties",
    "description",
    "title",
];
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";
/// How deep Claude Code looks for array spellings the API refuses (`A`).
const DEPTH: usize = 64;

/// The regular expression property keys must match, as Claude Code writes it in its message.
pub const PROPERTY_KEY_RULE: &str = "/^[a-zA-Z0-9_.-]{1,64}$/";

fn property_key_ok(key: &str) -> bool {
    let length = super::text::js_length(key);
    (1..=64).contains(&length)
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// What Claude Code does with one tool's input schema.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict<'a> {
    /// Sent; `flattened` when a root combinator was rewritten.
    Send {
        /// Borrowed from the listing when sent as listed.
        schema: Cow<'a, Value>,
        flattened: Option<Flattened>,
    },
    /// Skipped, with Claude Code's reason (the words after `Skipping tool "x": `).
    Skip { reason: String },
}

/// A root combinator Claude Code rewrote.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Flattened {
    /// The combinators it found at the root, in Claude Code's order.
    pub combinators: Vec<String>,
    /// The sentence put before the tool's description.
    pub note: String,
}

/// The verdict on `schema` (an object: the listing's shape check let no other through).
pub fn verdict(schema: &Value) -> Verdict<'_> {
    let every_branch = schema
        .as_object()
        .is_some_and(|s| s.contains_key("anyOf") || s.contains_key("oneOf"));
    let first = judge(schema, every_branch);
    if !every_branch {
        return first;
    }
    let retry = match &first {
        Verdict::Skip { .. } => true,
        Verdict::Send {
            schema: sent,
            flattened: Some(_),
        } => refused_arrays(sent),
        Verdict::Send { .. } => false,
    };
    if retry {
        judge(schema, false)
    } else {
        first
    }
}

/// `verdict` no longer borrowing its schema.
pub fn owned(verdict: Verdict<'_>) -> Verdict<'static> {
    match verdict {
        Verdict::Send { schema, flattened } => Verdict::Send {
            schema: Cow::Owned(schema.into_owned()),
            flattened,
        },
        Verdict::Skip { reason } => Verdict::Skip { reason },
    }
}

fn judge(schema: &Value, every_branch: bool) -> Verdict<'_> {
    let (sent, flattened) = match flatten(schema, every_branch) {
        Flatten::Unchanged => (Cow::Borrowed(schema), None),
        Flatten::Drop(reason) => return Verdict::Skip { reason },
        Flatten::Normalized {
            schema,
            note,
            combinators,
        } => (Cow::Owned(schema), Some(Flattened { combinators, note })),
    };
    match api_check(&sent) {
        Ok(()) => Verdict::Send {
            schema: sent,
            flattened,
        },
        Err(detail) => Verdict::Skip {
            reason: format!("its input schema would be rejected by the Anthropic API ({detail})"),
        },
    }
}

enum Flatten {
    Unchanged,
    Drop(String),
    Normalized {
        schema: Value,
        note: String,
        combinators: Vec<String>,
    },
}

/// A branch with its `$ref` resolved against the root's `$defs`/`definitions` (`J`), and a
/// key that says when two branches are the same object (two references to one definition).
fn resolve<'a>(branch: &'a Value, root: &'a Map<String, Value>) -> (&'a Value, String) {
    let Some(Value::Object(object)) = Some(branch) else {
        return (branch, format!("value:{branch}"));
    };
    let Some(reference) = object.get("$ref").and_then(Value::as_str) else {
        return (branch, format!("at:{:p}", branch));
    };
    for holder in ["$defs", "definitions"] {
        let Some(name) = reference.strip_prefix(&format!("#/{holder}/")) else {
            continue;
        };
        if name.is_empty() || name.contains('/') {
            break;
        }
        if let Some(Value::Object(defs)) = root.get(holder) {
            if let Some(target @ Value::Object(_)) = defs.get(name) {
                return (target, format!("at:{:p}", target));
            }
        }
        break;
    }
    (branch, format!("at:{:p}", branch))
}

/// The branches of a combinator, resolved and without repeats (`j`).
fn branches<'a>(list: &'a [Value], root: &'a Map<String, Value>) -> Vec<&'a Value> {
    let mut seen = ahash::AHashSet::new();
    list.iter()
        .map(|b| resolve(b, root))
        .filter(|(_, key)| seen.insert(key.clone()))
        .map(|(b, _)| b)
        .collect()
}

fn flatten(schema: &Value, every_branch: bool) -> Flatten {
    let Value::Object(root) = schema else {
        return Flatten::Unchanged;
    };
    let found: Vec<&str> = COMBINATORS
        .into_iter()
        .filter(|c| root.contains_key(*c))
        .collect();
    if found.is_empty() {
        return Flatten::Unchanged;
    }
    let mut merged = Map::new();
    // Spellings of a property met in anyOf/oneOf branches, when every branch counts.
    let mut spellings: Vec<(String, Vec<Value>)> = Vec::new();
    let mut gather = |properties: Option<&Value>, track: bool, merged: &mut Map<String, Value>| {
        let Some(Value::Object(properties)) = properties else {
            return;
        };
        for (key, value) in properties {
            if !property_key_ok(key) || !value.is_object() {
                continue;
            }
            if !merged.contains_key(key) {
                merged.insert(key.clone(), value.clone());
                if track {
                    spellings.push((key.clone(), vec![value.clone()]));
                }
            } else if track {
                if let Some((_, list)) = spellings.iter_mut().find(|(k, _)| k == key) {
                    list.push(value.clone());
                }
            }
        }
    };
    gather(root.get("properties"), false, &mut merged);
    for combinator in &found {
        let Value::Array(list) = &root[*combinator] else {
            return Flatten::Drop(format!(
                "input schema has top-level {combinator} that is not an array"
            ));
        };
        for branch in branches(list, root) {
            if branch.is_object() {
                gather(
                    branch.get("properties"),
                    every_branch && *combinator != "allOf",
                    &mut merged,
                );
            }
        }
    }
    for (key, list) in spellings {
        let mut seen = ahash::AHashSet::new();
        let distinct: Vec<Value> = list
            .into_iter()
            .filter(|v| seen.insert(v.to_string()))
            .collect();
        if distinct.len() > 1 {
            let is_string = |v: &&Value| v.get("type") == Some(&json!("string"));
            let mut ordered: Vec<Value> = distinct.iter().filter(is_string).cloned().collect();
            ordered.extend(distinct.iter().filter(|v| !is_string(v)).cloned());
            merged.insert(key, json!({ "anyOf": ordered }));
        }
    }
    let mut required: Vec<String> = Vec::new();
    let require = |list: Option<&Value>, required: &mut Vec<String>| {
        for name in list.and_then(Value::as_array).into_iter().flatten() {
            if let Some(name) = name.as_str() {
                if merged.contains_key(name) && !required.iter().any(|r| r == name) {
                    required.push(name.to_string());
                }
            }
        }
    };
    require(root.get("required"), &mut required);
    if let Some(Value::Array(list)) = root.get("allOf") {
        for branch in branches(list, root) {
            if branch.is_object() {
                require(branch.get("required"), &mut required);
            }
        }
    }
    if every_branch {
        for combinator in ["anyOf", "oneOf"] {
            let empty = Vec::new();
            let list = root
                .get(combinator)
                .and_then(Value::as_array)
                .unwrap_or(&empty);
            let resolved = branches(list, root);
            // A name counts when each branch so far required it (`T`).
            let mut counts: Vec<(Value, usize)> = Vec::new();
            for (at, branch) in resolved.iter().enumerate() {
                let names = branch.get("required").and_then(Value::as_array);
                for name in names.into_iter().flatten() {
                    match counts.iter_mut().find(|(n, _)| n == name) {
                        Some((_, count)) if *count == at => *count = at + 1,
                        Some(_) => {}
                        None if at == 0 => counts.push((name.clone(), 1)),
                        None => {}
                    }
                }
            }
            let everywhere: Vec<Value> = counts
                .into_iter()
                .filter(|(_, count)| *count == resolved.len())
                .map(|(name, _)| name)
                .collect();
            require(Some(&Value::Array(everywhere)), &mut required);
        }
    }
    let either = found.contains(&"anyOf") || found.contains(&"oneOf");
    let mut flat = Map::new();
    flat.insert("type".into(), json!("object"));
    flat.insert("properties".into(), Value::Object(merged));
    flat.insert("required".into(), json!(required));
    for key in KEPT {
        if let Some(value) = root.get(key) {
            flat.insert(key.into(), value.clone());
        }
    }
    if !root.contains_key("additionalProperties") {
        flat.insert("additionalProperties".into(), json!(true));
    }
    Flatten::Normalized {
        schema: Value::Object(flat),
        note: note(&found, root, either),
        combinators: found.iter().map(|c| c.to_string()).collect(),
    }
}

/// The sentence Claude Code puts before the description of a flattened tool (`xn`).
fn note(found: &[&str], root: &Map<String, Value>, either: bool) -> String {
    if !either {
        return "Input constraint: all listed parameters apply together (flattened from a JSON Schema allOf).".into();
    }
    let combinator = if found.contains(&"oneOf") {
        "oneOf"
    } else {
        "anyOf"
    };
    let mut groups: Vec<String> = Vec::new();
    if let Some(Value::Array(list)) = root.get(combinator) {
        for branch in branches(list, root) {
            if let Some(group) = group(branch) {
                if !groups.contains(&group) {
                    groups.push(group);
                }
            }
        }
    }
    let ask = if combinator == "oneOf" {
        "Provide parameters for exactly one of"
    } else {
        "Provide parameters for at least one of"
    };
    if groups.is_empty() {
        return format!("Input constraint: {ask} the documented parameter groups (flattened from a JSON Schema {combinator}).");
    }
    let groups: Vec<String> = groups.iter().map(|g| format!("({g})")).collect();
    format!("Input constraint: {ask}: {}.", groups.join(" or "))
}

/// A branch's parameters for the note (`Rn`): what it requires, else what it names.
fn group(branch: &Value) -> Option<String> {
    let Value::Object(branch) = branch else {
        return None;
    };
    if let Some(Value::Array(required)) = branch.get("required") {
        if !required.is_empty() && required.iter().all(Value::is_string) {
            let names: Vec<&str> = required.iter().filter_map(Value::as_str).collect();
            return Some(names.join(", "));
        }
    }
    match branch.get("properties") {
        Some(Value::Object(properties)) if !properties.is_empty() => {
            Some(properties.keys().cloned().collect::<Vec<_>>().join(", "))
        }
        _ => None,
    }
}

/// `ZHs`: the note, a blank line, then the description (the note alone without one).
pub fn with_note(note: &str, description: Option<&str>) -> String {
    match description {
        Some(text) if !text.is_empty() => format!("{note}\n\n{text}"),
        _ => note.to_string(),
    }
}

/// Whether a flattened schema holds an array spelling the API refuses (`g`): a `type` or
/// `required` of two or more values not all strings, or such a value under `dependencies` or
/// `dependentRequired`, or nesting deeper than 64.
fn refused_arrays(schema: &Value) -> bool {
    fn bad(value: &Value) -> bool {
        value
            .as_array()
            .is_some_and(|items| items.len() >= 2 && !items.iter().all(Value::is_string))
    }
    let mut stack = vec![(schema, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > DEPTH {
            return true;
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => {
                for (key, item) in map {
                    let refused = match key.as_str() {
                        "required" | "type" => bad(item),
                        "dependencies" | "dependentRequired" => {
                            item.as_object().is_some_and(|m| m.values().any(bad))
                        }
                        _ => false,
                    };
                    if refused {
                        return true;
                    }
                    stack.push((item, depth + 1));
                }
            }
            _ => {}
        }
    }
    false
}

/// The model API's checks as Claude Code runs them before sending (`y`); the detail of the
/// first failure.
pub fn api_check(schema: &Value) -> Result<(), String> {
    if let Some(Value::Object(properties)) = schema.get("properties") {
        if let Some(key) = properties.keys().find(|k| !property_key_ok(k)) {
            let shown = serde_json::to_string(super::text::js_prefix(key, 80)).unwrap_or_default();
            return Err(format!(
                "property key {shown} does not match {PROPERTY_KEY_RULE}"
            ));
        }
    }
    let Value::Object(root) = schema else {
        return meta_check(schema);
    };
    if let Some(version) = root.get("$schema").filter(|v| !v.is_null()) {
        let names_2020_12 = version
            .as_str()
            .is_some_and(|v| v == DRAFT_2020_12 || v == format!("{DRAFT_2020_12}#"));
        if !names_2020_12 {
            return Ok(());
        }
    }
    // Null root keys are removed before the check (copied only when there are some).
    if root.values().any(Value::is_null) {
        let checked: Map<String, Value> = root
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        return meta_check(&Value::Object(checked));
    }
    meta_check(schema)
}

fn meta_check(schema: &Value) -> Result<(), String> {
    match crate::meta_schema::first_error(schema, crate::meta_schema::Draft::Draft202012) {
        None => Ok(()),
        Some(error) => Err(format!(
            "schema{} {}",
            error.instance_path(),
            ajv_words(&error.to_string())
        )),
    }
}

/// The validator's message in Ajv's manner where the two say the same ("must be …"); the
/// path is the same in both.
fn ajv_words(message: &str) -> String {
    if let Some(rest) = message.split(" is not of type ").nth(1) {
        return format!("must be {}", rest.trim_matches('"').replace("\", \"", ","));
    }
    if message.contains("is not one of") || message.contains("is not valid under any of") {
        return "must be equal to one of the allowed values".into();
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(schema: Value) -> (Value, Option<String>) {
        match verdict(&schema) {
            Verdict::Send { schema, flattened } => (schema.into_owned(), flattened.map(|f| f.note)),
            Verdict::Skip { reason } => panic!("skipped: {reason}"),
        }
    }

    #[test]
    fn a_root_one_of_is_flattened_with_its_refs_resolved_and_a_note() {
        let (schema, note) = sent(json!({
            "type": "object",
            "$defs": {"byId": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
            "oneOf": [
                {"$ref": "#/$defs/byId"},
                {"type": "object", "properties": {"name": {"type": "string"}, "id": {"type": "string"}}, "required": ["name", "id"]}
            ]
        }));
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {"id": {"type": "string"}, "name": {"type": "string"}},
                "required": ["id"],
                "$defs": {"byId": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
                "additionalProperties": true
            }),
            "only what every branch requires stays required"
        );
        assert_eq!(
            note.as_deref(),
            Some("Input constraint: Provide parameters for exactly one of: (id) or (name, id).")
        );
    }

    #[test]
    fn all_of_keeps_every_branch_requirement() {
        let (schema, note) = sent(json!({
            "allOf": [
                {"properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "number"}}, "required": ["b"]}
            ]
        }));
        assert_eq!(schema["required"], json!(["a", "b"]));
        assert_eq!(note.as_deref(), Some("Input constraint: all listed parameters apply together (flattened from a JSON Schema allOf)."));
    }

    #[test]
    fn refused_property_keys_and_invalid_schemas_skip_the_tool() {
        let Verdict::Skip { reason } =
            verdict(&json!({"type": "object", "properties": {"a b": {}}}))
        else {
            panic!("a key with a space must be refused");
        };
        assert_eq!(reason, "its input schema would be rejected by the Anthropic API (property key \"a b\" does not match /^[a-zA-Z0-9_.-]{1,64}$/)");
        assert!(matches!(
            verdict(&json!({"type": "object", "properties": {"a": {"type": "text"}}})),
            Verdict::Skip { .. }
        ));
    }

    #[test]
    fn another_schema_version_skips_the_meta_check_and_nulls_are_ignored() {
        let old = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                         "properties": {"a": {"type": "text"}}});
        assert!(matches!(verdict(&old), Verdict::Send { .. }));
        let nulls = json!({"type": "object", "description": null});
        assert!(matches!(verdict(&nulls), Verdict::Send { .. }));
    }
}
