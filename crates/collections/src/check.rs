//! A case's expectations against what came: each failed expectation with what was expected,
//! what came, and for a snapshot a line diff.

use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use crate::model::{sorted, Expect, Outcome, ValueCheck};

/// What a case's request brought back.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    /// The result (CallToolResult, ReadResourceResult or GetPromptResult), or why there is none.
    pub result: Result<Value, String>,
    pub elapsed_ms: u32,
    /// For a tool call: where `structuredContent` breaks the tool's `outputSchema` (`None`: the
    /// tool declares none).
    pub schema_errors: Option<Vec<String>>,
}

/// One expectation that did not hold.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    /// Which expectation: `outcome`, `values /sum`, `textContains`, `snapshot`…
    pub check: String,
    pub expected: String,
    pub actual: String,
    /// For a snapshot or a value: the line diff of expected and actual.
    pub diff: Option<String>,
}

fn fail(
    check: impl Into<String>,
    expected: impl Into<String>,
    actual: impl Into<String>,
) -> Failure {
    Failure {
        check: check.into(),
        expected: expected.into(),
        actual: actual.into(),
        diff: None,
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(&sorted(value)).unwrap_or_default()
}

/// The texts of a result: `content[].text`, `contents[].text`, `messages[].content.text`.
pub fn text_of(result: &Value) -> String {
    let mut texts = Vec::new();
    let mut take = |item: &Value| {
        if let Some(text) = item.get("text").and_then(Value::as_str) {
            texts.push(text.to_string());
        }
    };
    for key in ["content", "contents"] {
        for item in result
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            take(item);
        }
    }
    for message in result
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match message.get("content") {
            Some(Value::Array(items)) => items.iter().for_each(&mut take),
            Some(item) => take(item),
            None => {}
        }
    }
    texts.join("\n")
}

/// `value` without what `pointers` lead to.
pub fn without(value: &Value, pointers: &[String]) -> Value {
    let mut value = value.clone();
    for pointer in pointers {
        let Some((parent, last)) = pointer.rsplit_once('/') else {
            continue;
        };
        let last = last.replace("~1", "/").replace("~0", "~");
        match value.pointer_mut(parent) {
            Some(Value::Object(map)) => {
                map.remove(&last);
            }
            Some(Value::Array(items)) => {
                if let Ok(index) = last.parse::<usize>() {
                    if index < items.len() {
                        items[index] = Value::String("(ignored)".into());
                    }
                }
            }
            _ => {}
        }
    }
    value
}

/// Every expectation of `expect` that `observed` breaks.
pub fn check(expect: &Expect, observed: &Observed) -> Vec<Failure> {
    let mut failures = Vec::new();
    let result = match &observed.result {
        Err(message) => {
            match expect.outcome {
                Some(Outcome::Fails) => {
                    if let Some(pattern) = &expect.message_matches {
                        match Regex::new(pattern) {
                            Ok(re) if re.is_match(message) => {}
                            Ok(_) => failures.push(fail(
                                "messageMatches",
                                format!("a message matching /{pattern}/"),
                                message.clone(),
                            )),
                            Err(err) => failures.push(fail(
                                "messageMatches",
                                "a valid regular expression",
                                err.to_string(),
                            )),
                        }
                    }
                }
                _ => failures.push(fail(
                    "outcome",
                    "a result",
                    format!("the request failed: {message}"),
                )),
            }
            check_time(expect, observed, &mut failures);
            return failures;
        }
        Ok(result) => result,
    };
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    match expect.outcome {
        Some(Outcome::Ok) if is_error => failures.push(fail(
            "outcome",
            "ok",
            format!("tool error: {}", text_of(result)),
        )),
        Some(Outcome::ToolError) if !is_error => {
            failures.push(fail("outcome", "tool error (isError)", "ok"))
        }
        Some(Outcome::Fails) => failures.push(fail(
            "outcome",
            "the request fails",
            if is_error {
                "tool error (a result)"
            } else {
                "ok"
            },
        )),
        _ => {}
    }
    for value in &expect.values {
        check_value(value, result, &mut failures);
    }
    let text = text_of(result);
    for wanted in &expect.text_contains {
        if !text.contains(wanted.as_str()) {
            failures.push(fail(
                "textContains",
                format!("text containing {wanted:?}"),
                text.clone(),
            ));
        }
    }
    for pattern in &expect.text_matches {
        match Regex::new(pattern) {
            Ok(re) if re.is_match(&text) => {}
            Ok(_) => failures.push(fail(
                "textMatches",
                format!("text matching /{pattern}/"),
                text.clone(),
            )),
            Err(err) => failures.push(fail(
                "textMatches",
                "a valid regular expression",
                err.to_string(),
            )),
        }
    }
    if expect.output_schema {
        match &observed.schema_errors {
            None => failures.push(fail(
                "outputSchema",
                "a result checked against the tool's outputSchema",
                "the tool declares no outputSchema",
            )),
            Some(errors) if !errors.is_empty() => failures.push(fail(
                "outputSchema",
                "structuredContent that satisfies the outputSchema",
                errors.join("; "),
            )),
            Some(_) => {}
        }
    }
    check_time(expect, observed, &mut failures);
    if let Some(snapshot) = &expect.snapshot {
        let expected = pretty(&without(snapshot, &expect.ignore));
        let actual = pretty(&without(result, &expect.ignore));
        if expected != actual {
            let mut failure = fail("snapshot", "the result as accepted", "a different result");
            failure.diff = Some(crate::diff::lines(&expected, &actual));
            failures.push(failure);
        }
    }
    failures
}

fn check_time(expect: &Expect, observed: &Observed, failures: &mut Vec<Failure>) {
    if let Some(max) = expect.max_ms {
        if observed.elapsed_ms > max {
            failures.push(fail(
                "maxMs",
                format!("at most {max} ms"),
                format!("{} ms", observed.elapsed_ms),
            ));
        }
    }
}

fn check_value(check: &ValueCheck, result: &Value, failures: &mut Vec<Failure>) {
    let name = format!("values {}", check.pointer);
    let parsed;
    let base = if check.in_text {
        match serde_json::from_str::<Value>(&text_of(result)) {
            Ok(value) => {
                parsed = value;
                &parsed
            }
            Err(err) => {
                failures.push(fail(name, "text that is JSON", format!("not JSON ({err})")));
                return;
            }
        }
    } else {
        result.get("structuredContent").unwrap_or(result)
    };
    let found = base.pointer(&check.pointer);
    if let Some(exists) = check.exists {
        if exists != found.is_some() {
            failures.push(fail(
                name.clone(),
                if exists { "a value" } else { "nothing" },
                found.map_or("nothing".to_string(), |v| v.to_string()),
            ));
            return;
        }
    }
    let wants_value = check.equals.is_some()
        || check.matches.is_some()
        || check.min.is_some()
        || check.max.is_some();
    let Some(found) = found else {
        if wants_value {
            failures.push(fail(name, "a value", "nothing at that pointer"));
        }
        return;
    };
    if let Some(equals) = &check.equals {
        if equals != found {
            let mut failure = fail(name.clone(), equals.to_string(), found.to_string());
            if equals.is_object() || equals.is_array() {
                failure.diff = Some(crate::diff::lines(&pretty(equals), &pretty(found)));
            }
            failures.push(failure);
        }
    }
    if let Some(pattern) = &check.matches {
        let text = match found {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        match Regex::new(pattern) {
            Ok(re) if re.is_match(&text) => {}
            Ok(_) => failures.push(fail(name.clone(), format!("matching /{pattern}/"), text)),
            Err(err) => failures.push(fail(
                name.clone(),
                "a valid regular expression",
                err.to_string(),
            )),
        }
    }
    if check.min.is_some() || check.max.is_some() {
        match found.as_f64() {
            Some(n) => {
                if check.min.is_some_and(|min| n < min) || check.max.is_some_and(|max| n > max) {
                    let bounds = match (check.min, check.max) {
                        (Some(min), Some(max)) => format!("between {min} and {max}"),
                        (Some(min), None) => format!("at least {min}"),
                        (None, Some(max)) => format!("at most {max}"),
                        (None, None) => String::new(),
                    };
                    failures.push(fail(name, bounds, found.to_string()));
                }
            }
            None => failures.push(fail(name, "a number", found.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(result: Value) -> Observed {
        Observed {
            result: Ok(result),
            elapsed_ms: 12,
            schema_errors: Some(Vec::new()),
        }
    }

    #[test]
    fn outcomes() {
        let expect = |outcome| Expect {
            outcome: Some(outcome),
            ..Expect::default()
        };
        let good = ok(json!({"content": [{"type": "text", "text": "fine"}]}));
        let bad = ok(json!({"isError": true, "content": [{"type": "text", "text": "nope"}]}));
        let failed = Observed {
            result: Err("MCP error -32602: unknown tool".into()),
            elapsed_ms: 3,
            schema_errors: None,
        };
        assert!(check(&expect(Outcome::Ok), &good).is_empty());
        assert_eq!(
            check(&expect(Outcome::Ok), &bad)[0].actual,
            "tool error: nope"
        );
        assert!(check(&expect(Outcome::ToolError), &bad).is_empty());
        assert_eq!(
            check(&expect(Outcome::ToolError), &good)[0].check,
            "outcome"
        );
        assert!(check(&expect(Outcome::Fails), &failed).is_empty());
        assert_eq!(
            check(&expect(Outcome::Fails), &good)[0].expected,
            "the request fails"
        );
        assert_eq!(
            check(&expect(Outcome::Ok), &failed)[0].actual,
            "the request failed: MCP error -32602: unknown tool"
        );
        let matching = Expect {
            outcome: Some(Outcome::Fails),
            message_matches: Some("unknown (tool|prompt)".into()),
            ..Expect::default()
        };
        assert!(check(&matching, &failed).is_empty());
        let other = Expect {
            message_matches: Some("^timeout".into()),
            ..matching
        };
        assert_eq!(check(&other, &failed)[0].check, "messageMatches");
    }

    #[test]
    fn values_at_pointers_of_structured_content_or_text() {
        let result = ok(
            json!({"content": [{"type": "text", "text": "{\"n\": 5, \"id\": \"abc-1\"}"}], "structuredContent": {"sum": 7, "list": [1, 2]}}),
        );
        let value = |v: Value| -> ValueCheck { serde_json::from_value(v).unwrap() };
        let expect = Expect {
            values: vec![
                value(json!({"pointer": "/sum", "equals": 7})),
                value(json!({"pointer": "/sum", "min": 1, "max": 10})),
                value(json!({"pointer": "/list/1", "exists": true})),
                value(json!({"pointer": "/missing", "exists": false})),
                value(json!({"pointer": "/id", "inText": true, "matches": "^abc-\\d+$"})),
                value(json!({"pointer": "/n", "inText": true, "equals": 5})),
            ],
            ..Expect::default()
        };
        assert_eq!(check(&expect, &result), vec![]);
        let wrong = Expect {
            values: vec![
                value(json!({"pointer": "/sum", "equals": 8})),
                value(json!({"pointer": "/sum", "max": 3})),
                value(json!({"pointer": "/list", "exists": false})),
                value(json!({"pointer": "/nothing", "equals": 1})),
                value(json!({"pointer": "/id", "inText": true, "matches": "^xyz"})),
            ],
            ..Expect::default()
        };
        let failures = check(&wrong, &result);
        let said: Vec<(String, String, String)> = failures
            .into_iter()
            .map(|f| (f.check, f.expected, f.actual))
            .collect();
        assert_eq!(
            said,
            vec![
                ("values /sum".into(), "8".into(), "7".into()),
                ("values /sum".into(), "at most 3".into(), "7".into()),
                ("values /list".into(), "nothing".into(), "[1,2]".into()),
                (
                    "values /nothing".into(),
                    "a value".into(),
                    "nothing at that pointer".into()
                ),
                (
                    "values /id".into(),
                    "matching /^xyz/".into(),
                    "abc-1".into()
                ),
            ]
        );
    }

    #[test]
    fn text_schema_time_and_snapshot() {
        let mut result = ok(
            json!({"content": [{"type": "text", "text": "hello at 10:00"}], "structuredContent": {"at": "10:00", "v": 1}}),
        );
        let expect = Expect {
            text_contains: vec!["hello".into()],
            text_matches: vec![r"\d\d:\d\d".into()],
            output_schema: true,
            max_ms: Some(50),
            snapshot: Some(
                json!({"content": [{"type": "text", "text": "hello at 09:00"}], "structuredContent": {"at": "09:00", "v": 1}}),
            ),
            ignore: vec!["/structuredContent/at".into(), "/content/0/text".into()],
            ..Expect::default()
        };
        assert_eq!(check(&expect, &result), vec![]);
        result.elapsed_ms = 51;
        result.schema_errors = Some(vec!["/v: must be a string".into()]);
        if let Ok(value) = &mut result.result {
            value["structuredContent"]["v"] = json!(2);
        }
        let failures = check(
            &Expect {
                text_contains: vec!["bye".into()],
                ..expect.clone()
            },
            &result,
        );
        let checks: Vec<&str> = failures.iter().map(|f| f.check.as_str()).collect();
        assert_eq!(
            checks,
            ["textContains", "outputSchema", "maxMs", "snapshot"]
        );
        let diff = failures[3].diff.as_deref().unwrap();
        assert!(
            diff.contains("-     \"v\": 1") && diff.contains("+     \"v\": 2"),
            "{diff}"
        );
        let no_schema = Observed {
            schema_errors: None,
            ..result.clone()
        };
        assert_eq!(
            check(
                &Expect {
                    output_schema: true,
                    ..Expect::default()
                },
                &no_schema
            )[0]
            .actual,
            "the tool declares no outputSchema"
        );
    }

    #[test]
    fn texts_of_every_kind_of_result() {
        assert_eq!(
            text_of(
                &json!({"contents": [{"uri": "x", "text": "a"}, {"uri": "y", "blob": "AA=="}]})
            ),
            "a"
        );
        assert_eq!(
            text_of(
                &json!({"messages": [{"role": "user", "content": {"type": "text", "text": "q"}}, {"role": "assistant", "content": [{"type": "text", "text": "r"}]}]})
            ),
            "q\nr"
        );
    }
}
