//! Tools left out for their `x-mcp-header` annotations, and why.
//!
//! A 2026-07-28 server may ask for a tool parameter to be mirrored into an `Mcp-Param-{name}`
//! HTTP header by annotating it with `x-mcp-header`. Over streamable HTTP a client must leave
//! out of `tools/list` every tool whose annotations break the rules (streamable HTTP, "Custom
//! Headers from Tool Parameters": a non-empty RFC 9110 token, unique without regard to case,
//! on a string, integer or boolean property reached from the root through `properties` alone).
//! rmcp sends the headers and drops such tools itself, saying so only in a log line; a person
//! looking for the tool would find it silently missing. So the HTTP client under each session
//! ([`crate::http_client::TimedPosts`]) reads every `tools/list` answer before rmcp does and
//! notes here which tools it will drop, with the reason in words ([`check`], the same rules);
//! the Tools tab and `mcpctl tools` list them apart. Over stdio nothing is dropped: the rule
//! is HTTP's, and other transports may ignore the annotations.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{Map, Value};

/// A tool the server listed that is not offered, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DroppedTool {
    pub name: String,
    /// "property `zone`: x-mcp-header `Bad Zone` is not a valid HTTP token".
    pub reason: String,
}

/// The tools of a session's last `tools/list` that were left out (shared with its HTTP
/// client, which fills it).
#[derive(Debug, Clone, Default)]
pub(crate) struct DroppedTools(Arc<Mutex<BTreeMap<String, String>>>);

impl DroppedTools {
    /// Notes one page of a `tools/list` answer as it came (`first`: the list starts anew).
    pub(crate) fn note_page(&self, first: bool, result: &Value) {
        let mut dropped = self.0.lock().expect("dropped tools lock");
        if first {
            dropped.clear();
        }
        for tool in result
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            let schema = tool.get("inputSchema").and_then(Value::as_object);
            if let Some(Err(reason)) = schema.map(check) {
                dropped.insert(name.to_string(), reason);
            }
        }
    }

    /// What the last list left out, by name.
    pub(crate) fn list(&self) -> Vec<DroppedTool> {
        self.0
            .lock()
            .expect("dropped tools lock")
            .iter()
            .map(|(name, reason)| DroppedTool {
                name: name.clone(),
                reason: reason.clone(),
            })
            .collect()
    }
}

/// Whether a tool's `inputSchema` annotations may be sent as headers; Err says why not.
pub fn check(schema: &Map<String, Value>) -> Result<(), String> {
    if schema.contains_key("x-mcp-header") {
        return Err("x-mcp-header must annotate a property, not the schema root".into());
    }
    if off_chain(schema, true) {
        return Err(
            "x-mcp-header must sit on a property reached from the root through `properties` \
             alone (not under items, $defs, oneOf, if/then or $ref)"
                .into(),
        );
    }
    let mut seen = HashSet::new();
    let mut annotated = Vec::new();
    on_chain(schema, &mut Vec::new(), &mut annotated);
    for (path, property) in annotated {
        let header = &property["x-mcp-header"];
        let Some(header) = header.as_str() else {
            return Err(format!("property `{path}`: x-mcp-header must be a string"));
        };
        if header.is_empty() {
            return Err(format!("property `{path}`: x-mcp-header must not be empty"));
        }
        if !header.chars().all(is_tchar) {
            return Err(format!(
                "property `{path}`: x-mcp-header `{header}` is not a valid HTTP token"
            ));
        }
        if !seen.insert(header.to_ascii_lowercase()) {
            return Err(format!(
                "property `{path}`: x-mcp-header `{header}` is used twice (case does not count)"
            ));
        }
        match property.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                return Err(format!(
                    "property `{path}`: x-mcp-header needs a string, integer or boolean \
                     property, not {}",
                    other.unwrap_or("one without a type")
                ))
            }
        }
    }
    Ok(())
}

/// The annotated properties reached through `properties` alone, with their dotted paths.
fn on_chain<'a>(
    schema: &'a Map<String, Value>,
    path: &mut Vec<&'a str>,
    out: &mut Vec<(String, &'a Map<String, Value>)>,
) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        let Some(property) = property.as_object() else {
            continue;
        };
        path.push(name);
        if property.contains_key("x-mcp-header") {
            out.push((path.join("."), property));
        }
        on_chain(property, path, out);
        path.pop();
    }
}

/// Whether an annotation stands anywhere but on the `properties` chain from the root.
fn off_chain(schema: &Map<String, Value>, chained: bool) -> bool {
    schema.iter().any(|(key, value)| match key.as_str() {
        "x-mcp-header" => !chained,
        "properties" => each_schema(value, |s| off_chain(s, chained)),
        "$defs" | "definitions" | "dependencies" | "dependentSchemas" | "patternProperties" => {
            each_schema(value, |s| off_chain(s, false))
        }
        // Instance data and property names, not schemas.
        "default" | "const" | "enum" | "examples" | "dependentRequired" => false,
        _ => nested(value),
    })
}

fn each_schema(map: &Value, test: impl Fn(&Map<String, Value>) -> bool) -> bool {
    map.as_object()
        .is_some_and(|map| map.values().filter_map(Value::as_object).any(test))
}

/// Any schema inside `value` (items, oneOf, not, if, …) with an annotation at all.
fn nested(value: &Value) -> bool {
    match value {
        Value::Object(schema) => off_chain(schema, false),
        Value::Array(items) => items.iter().any(nested),
        _ => false,
    }
}

/// RFC 9110 §5.6.2 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verdict(schema: Value) -> Result<(), String> {
        check(schema.as_object().unwrap())
    }

    #[test]
    fn each_rule_of_the_annotation_is_checked() {
        let cases = [
            (
                "a string property",
                json!({"properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}),
                None,
            ),
            (
                "nested through properties",
                json!({"properties": {"a": {"type": "object", "properties": {"b": {"type": "integer", "x-mcp-header": "B"}}}}}),
                None,
            ),
            (
                "the root",
                json!({"x-mcp-header": "Root"}),
                Some("not the schema root"),
            ),
            (
                "empty",
                json!({"properties": {"r": {"type": "string", "x-mcp-header": ""}}}),
                Some("must not be empty"),
            ),
            (
                "not a token",
                json!({"properties": {"r": {"type": "string", "x-mcp-header": "Bad Zone"}}}),
                Some("`Bad Zone` is not a valid HTTP token"),
            ),
            (
                "a line break",
                json!({"properties": {"r": {"type": "string", "x-mcp-header": "A\r\nB"}}}),
                Some("not a valid HTTP token"),
            ),
            (
                "not a string",
                json!({"properties": {"r": {"type": "string", "x-mcp-header": 7}}}),
                Some("must be a string"),
            ),
            (
                "twice",
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "Tenant"}, "b": {"type": "string", "x-mcp-header": "tenant"}}}),
                Some("used twice"),
            ),
            (
                "a number",
                json!({"properties": {"n": {"type": "number", "x-mcp-header": "N"}}}),
                Some("not number"),
            ),
            (
                "under items",
                json!({"properties": {"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}}),
                Some("through `properties` alone"),
            ),
            (
                "under oneOf",
                json!({"oneOf": [{"properties": {"r": {"type": "string", "x-mcp-header": "R"}}}]}),
                Some("through `properties` alone"),
            ),
            (
                "under $defs",
                json!({"$defs": {"x": {"type": "string", "x-mcp-header": "X"}}}),
                Some("through `properties` alone"),
            ),
            (
                "a property named so",
                json!({"properties": {"x-mcp-header": {"type": "string"}}}),
                None,
            ),
            (
                "in a default",
                json!({"properties": {"r": {"type": "object", "default": {"x-mcp-header": "no"}}}}),
                None,
            ),
        ];
        for (rule, schema, expected) in cases {
            match (verdict(schema), expected) {
                (Ok(()), None) => {}
                (Err(reason), Some(part)) => assert!(reason.contains(part), "{rule}: {reason}"),
                (got, want) => panic!("{rule}: got {got:?}, expected {want:?}"),
            }
        }
    }

    #[test]
    fn a_first_page_starts_the_list_anew_and_later_pages_add_to_it() {
        let dropped = DroppedTools::default();
        let bad = |name: &str| json!({"name": name, "inputSchema": {"x-mcp-header": "R"}});
        dropped.note_page(
            true,
            &json!({"tools": [bad("a"), {"name": "ok", "inputSchema": {}}]}),
        );
        dropped.note_page(false, &json!({"tools": [bad("b")]}));
        let names: Vec<String> = dropped.list().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["a", "b"]);
        dropped.note_page(true, &json!({"tools": []}));
        assert!(dropped.list().is_empty());
    }
}
