//! The shape check Claude Code runs on a whole `tools/list` result before it looks at any tool.
//!
//! Claude Code parses the result with the MCP SDK's schema (zod, in 2.1.332 the `tools/list`
//! result schema beside `Invalid result for ${method}`): one tool of the wrong shape fails the
//! parse, and the server then offers the model no tool at all (`Failed to fetch tools: Invalid
//! result for tools/list: …`). Optional fields may be absent but never `null`. The rules:
//! `tools` is an array; each tool is an object with a string `name`; `title` and
//! `description` strings; `inputSchema` an object whose `type` is `"object"`, whose
//! `properties` (if any) is an object and whose `required` (if any) is an array of strings;
//! `outputSchema` an object (its `$schema` a string); `annotations` an object of a string
//! `title` and boolean hints; `execution.taskSupport` one of `required`, `optional`,
//! `forbidden`; `_meta` an object; `icons` an array of objects with a string `src`.

use serde_json::Value;

use crate::view::{entry, field};

/// Why Claude Code refuses a whole listing: the first tool (and field) of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShapeError {
    /// The position of the tool in the listing, when a tool is at fault.
    pub index: Option<usize>,
    /// The tool's name, when it has a readable one.
    pub tool: Option<String>,
    /// The field at fault, as a path (`inputSchema.required`).
    pub field: String,
    /// What it should be, in words.
    pub expected: &'static str,
    /// What it is.
    pub found: &'static str,
}

impl ShapeError {
    /// The problem, said for a person.
    pub fn words(&self) -> String {
        let at = match (&self.tool, self.index) {
            (Some(name), _) => format!("tool \"{name}\": "),
            (None, Some(index)) => format!("tool #{}: ", index + 1),
            (None, None) => String::new(),
        };
        format!(
            "{at}`{}` must be {} but it is {}",
            self.field, self.expected, self.found
        )
    }
}

/// The JSON type of `value`, in words.
fn kind(value: Option<&Value>) -> &'static str {
    match value {
        None => "missing",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "a boolean",
        Some(Value::Number(_)) => "a number",
        Some(Value::String(_)) => "a string",
        Some(Value::Array(_)) => "an array",
        Some(Value::Object(_)) => "an object",
    }
}

/// Checks `result` (a `tools/list` result) as Claude Code's parse does; the first problem.
pub fn check(result: &Value) -> Result<(), ShapeError> {
    let whole = |field: &str, expected, found| ShapeError {
        index: None,
        tool: None,
        field: field.to_string(),
        expected,
        found,
    };
    let Value::Object(result) = result else {
        return Err(whole("result", "an object", kind(Some(result))));
    };
    if let Some(cursor) = result.get("nextCursor") {
        if !cursor.is_string() {
            return Err(whole("nextCursor", "a string", kind(Some(cursor))));
        }
    }
    let tools = match result.get("tools") {
        Some(Value::Array(tools)) => tools,
        other => return Err(whole("tools", "an array", kind(other))),
    };
    for (index, tool) in tools.iter().enumerate() {
        check_tool(tool).map_err(|(field, expected, found)| ShapeError {
            index: Some(index),
            tool: tool.get("name").and_then(Value::as_str).map(str::to_string),
            field,
            expected,
            found,
        })?;
    }
    Ok(())
}

type Problem = (String, &'static str, &'static str);

fn check_tool(tool: &Value) -> Result<(), Problem> {
    let Value::Object(tool) = tool else {
        return Err(("(the tool)".into(), "an object", kind(Some(tool))));
    };
    let optional =
        |field: &str, expected: &'static str, ok: fn(&Value) -> bool| match entry(tool, field) {
            None => Ok(()),
            Some(value) if ok(value) => Ok(()),
            Some(value) => Err((field.to_string(), expected, kind(Some(value)))),
        };
    match entry(tool, "name") {
        Some(Value::String(_)) => {}
        other => return Err(("name".into(), "a string", kind(other))),
    }
    optional("title", "a string", Value::is_string)?;
    optional("description", "a string", Value::is_string)?;
    optional("_meta", "an object", Value::is_object)?;
    let schema = match entry(tool, "inputSchema") {
        Some(Value::Object(schema)) => schema,
        other => return Err(("inputSchema".into(), "an object", kind(other))),
    };
    if entry(schema, "type").and_then(Value::as_str) != Some("object") {
        let found = match entry(schema, "type") {
            Some(Value::String(_)) => "another string",
            other => kind(other),
        };
        return Err(("inputSchema.type".into(), "the string \"object\"", found));
    }
    if let Some(properties) = entry(schema, "properties") {
        if !properties.is_object() {
            return Err((
                "inputSchema.properties".into(),
                "an object",
                kind(Some(properties)),
            ));
        }
    }
    if let Some(required) = entry(schema, "required") {
        let strings = required
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string));
        if !strings {
            let found = if required.is_array() {
                "an array with a value that is not a string"
            } else {
                kind(Some(required))
            };
            return Err(("inputSchema.required".into(), "an array of strings", found));
        }
    }
    if let Some(output) = entry(tool, "outputSchema") {
        let Value::Object(output) = output else {
            return Err(("outputSchema".into(), "an object", kind(Some(output))));
        };
        if let Some(version) = entry(output, "$schema") {
            if !version.is_string() {
                return Err((
                    "outputSchema.$schema".into(),
                    "a string",
                    kind(Some(version)),
                ));
            }
        }
    }
    if let Some(annotations) = entry(tool, "annotations") {
        let Value::Object(annotations) = annotations else {
            return Err(("annotations".into(), "an object", kind(Some(annotations))));
        };
        for (key, value) in annotations {
            let (expected, ok) = match key.as_str() {
                "title" => ("a string", value.is_string()),
                "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint" => {
                    ("a boolean", value.is_boolean())
                }
                _ => continue,
            };
            if !ok {
                return Err((format!("annotations.{key}"), expected, kind(Some(value))));
            }
        }
    }
    if let Some(execution) = entry(tool, "execution") {
        let Value::Object(execution) = execution else {
            return Err(("execution".into(), "an object", kind(Some(execution))));
        };
        if let Some(support) = entry(execution, "taskSupport") {
            if !matches!(
                support.as_str(),
                Some("required" | "optional" | "forbidden")
            ) {
                return Err((
                    "execution.taskSupport".into(),
                    "one of \"required\", \"optional\", \"forbidden\"",
                    kind(Some(support)),
                ));
            }
        }
    }
    if let Some(icons) = entry(tool, "icons") {
        let Value::Array(icons) = icons else {
            return Err(("icons".into(), "an array", kind(Some(icons))));
        };
        for (at, icon) in icons.iter().enumerate() {
            if !field(icon, "src").is_some_and(Value::is_string) {
                return Err((
                    format!("icons[{at}].src"),
                    "a string",
                    kind(field(icon, "src")),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_null_where_a_field_is_optional_fails_the_whole_listing() {
        let listing = json!({"tools": [
            {"name": "fine", "inputSchema": {"type": "object"}},
            {"name": "bad", "inputSchema": {"type": "object", "required": null}},
        ]});
        let err = check(&listing).unwrap_err();
        assert_eq!(err.index, Some(1));
        assert_eq!(err.field, "inputSchema.required");
        assert_eq!(
            err.words(),
            "tool \"bad\": `inputSchema.required` must be an array of strings but it is null"
        );
    }

    #[test]
    fn a_root_schema_that_is_not_an_object_fails_the_whole_listing() {
        let listing = json!({"tools": [{"name": "t", "inputSchema": {"anyOf": []}}]});
        assert_eq!(check(&listing).unwrap_err().field, "inputSchema.type");
        let fine = json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]});
        assert_eq!(check(&fine), Ok(()));
    }
}
