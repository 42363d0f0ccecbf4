//! Arguments without the values the tool marks secret, for the history.

use serde_json::{Map, Value};

/// What a secret field's value becomes.
pub const NOT_STORED: &str = "[not stored]";

/// `arguments` with the value of every field whose schema (in the tool's `input_schema`) is
/// `writeOnly: true` or `format: "password"` replaced by [`NOT_STORED`], through nested
/// objects, arrays, local `$ref`s and the options of `anyOf`/`oneOf`/`allOf`; and, whatever
/// the schema says, the value of every field whose name says it is a secret (`api_key`,
/// `token`, `password`, `authorization`…, [`mcp_manager_core::secrets::name_says_secret`]):
/// most servers declare an API key as a plain string.
pub fn scrub(arguments: &Value, input_schema: &Value) -> Value {
    let mut out = arguments.clone();
    walk(&mut out, input_schema, input_schema, 0);
    by_name(&mut out, 0);
    out
}

fn by_name(value: &mut Value, depth: usize) {
    if depth > 32 {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                let scalar = matches!(item, Value::String(_) | Value::Number(_));
                if scalar && mcp_manager_core::secrets::name_says_secret(key) {
                    *item = Value::String(NOT_STORED.into());
                } else {
                    by_name(item, depth + 1);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| by_name(item, depth + 1)),
        _ => {}
    }
}

/// A call's arguments and result for the history: the arguments [`scrub`]bed, and every
/// secret value they held also taken out of the result's strings (a tool that echoes its
/// input must not carry a password into the file that way).
pub fn scrub_call(
    arguments: &Value,
    input_schema: &Value,
    result: Option<&Value>,
) -> (Value, Option<Value>) {
    let scrubbed = scrub(arguments, input_schema);
    let mut secrets = Vec::new();
    removed(arguments, &scrubbed, &mut secrets);
    let result = result.map(|result| {
        let mut result = result.clone();
        if !secrets.is_empty() {
            redact(&mut result, &secrets);
        }
        result
    });
    (scrubbed, result)
}

/// The values `scrubbed` replaced in `original` (their text, for strings; JSON otherwise).
fn removed(original: &Value, scrubbed: &Value, out: &mut Vec<String>) {
    match (original, scrubbed) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                if let Some(other) = b.get(key) {
                    removed(value, other, out);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (value, other) in a.iter().zip(b) {
                removed(value, other, out);
            }
        }
        (value, Value::String(marker)) if marker == NOT_STORED && value != scrubbed => {
            let text = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            // A one-character "secret" would blank the result: too short to be one.
            if text.chars().count() >= 4 {
                out.push(text);
            }
        }
        _ => {}
    }
}

fn redact(value: &mut Value, secrets: &[String]) {
    match value {
        Value::String(text) => {
            for secret in secrets {
                if text.contains(secret.as_str()) {
                    *text = text.replace(secret.as_str(), NOT_STORED);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| redact(item, secrets)),
        Value::Object(map) => map.values_mut().for_each(|item| redact(item, secrets)),
        _ => {}
    }
}

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..16 {
        match current.get("$ref").and_then(Value::as_str) {
            Some(reference) if reference.starts_with('#') => match root.pointer(&reference[1..]) {
                Some(target) => current = target,
                None => return current,
            },
            _ => return current,
        }
    }
    current
}

fn secret(schema: &Value) -> bool {
    schema.get("writeOnly") == Some(&Value::Bool(true))
        || schema.get("format").and_then(Value::as_str) == Some("password")
}

fn walk(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth > 32 {
        return;
    }
    let schema = resolve(root, schema);
    if secret(schema) {
        *value = Value::String(NOT_STORED.into());
        return;
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            for option in options {
                if secret(resolve(root, option)) {
                    *value = Value::String(NOT_STORED.into());
                    return;
                }
                walk(value, option, root, depth + 1);
            }
        }
    }
    match value {
        Value::Object(map) => walk_object(map, schema, root, depth),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    walk(item, item_schema, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn walk_object(map: &mut Map<String, Value>, schema: &Value, root: &Value, depth: usize) {
    let properties = schema.get("properties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties").filter(|a| a.is_object());
    for (key, item) in map.iter_mut() {
        if let Some(item_schema) = properties.and_then(|p| p.get(key)).or(additional) {
            walk(item, item_schema, root, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_named_as_secrets_are_not_stored_whatever_the_schema() {
        let schema = json!({"type": "object", "properties": {"api_key": {"type": "string"}}});
        let arguments = json!({
            "api_key": "sk-live-123",
            "query": "weather",
            "author": "ada",
            "nested": {"accessToken": "abc", "keys": ["a"]},
            "headers": [{"Authorization": "Bearer xyz"}]
        });
        let (scrubbed, result) = scrub_call(
            &arguments,
            &schema,
            Some(&json!({"content": [{"type": "text", "text": "used sk-live-123 for weather"}]})),
        );
        assert_eq!(
            scrubbed,
            json!({
                "api_key": NOT_STORED,
                "query": "weather",
                "author": "ada",
                "nested": {"accessToken": NOT_STORED, "keys": ["a"]},
                "headers": [{"Authorization": NOT_STORED}]
            })
        );
        assert!(
            !result.unwrap().to_string().contains("sk-live-123"),
            "nor is its echo in the result"
        );
    }

    #[test]
    fn a_result_that_echoes_a_secret_loses_it_too() {
        let schema = json!({"type": "object", "properties": {"key": {"type": "string", "writeOnly": true}, "n": {"type": "integer"}}});
        let (arguments, result) = scrub_call(
            &json!({"key": "sk-123456", "n": 1}),
            &schema,
            Some(&json!({"content": [{"type": "text", "text": "called with sk-123456 and 1"}]})),
        );
        assert_eq!(arguments, json!({"key": NOT_STORED, "n": 1}));
        assert_eq!(
            result.unwrap()["content"][0]["text"],
            format!("called with {NOT_STORED} and 1")
        );
    }

    #[test]
    fn secret_fields_are_replaced_wherever_they_sit() {
        let schema = json!({
            "type": "object",
            "$defs": {"Login": {"type": "object", "properties": {"user": {"type": "string"}, "token": {"type": "string", "writeOnly": true}}}},
            "properties": {
                "password": {"type": "string", "format": "password"},
                "login": {"$ref": "#/$defs/Login"},
                "logins": {"type": "array", "items": {"$ref": "#/$defs/Login"}},
                "maybe": {"anyOf": [{"type": "string", "writeOnly": true}, {"type": "null"}]},
                "env": {"type": "object", "additionalProperties": {"type": "string", "writeOnly": true}},
                "plain": {"type": "string"}
            }
        });
        let arguments = json!({
            "password": "hunter2", "login": {"user": "ada", "token": "t1"},
            "logins": [{"user": "bob", "token": "t2"}], "maybe": "t3",
            "env": {"A": "t4"}, "plain": "kept"
        });
        assert_eq!(
            scrub(&arguments, &schema),
            json!({
                "password": NOT_STORED, "login": {"user": "ada", "token": NOT_STORED},
                "logins": [{"user": "bob", "token": NOT_STORED}], "maybe": NOT_STORED,
                "env": {"A": NOT_STORED}, "plain": "kept"
            })
        );
    }
}
