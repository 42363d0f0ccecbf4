//! What changed between two surfaces of a server, each change marked breaking or not.
//!
//! Breaking, for a client that worked against the old surface: a tool, resource, template or
//! prompt removed; an input property removed, newly required, or narrowed (a type that
//! accepts less, an enum that lost values); an output property removed or narrowed (a caller
//! reading it finds less); a prompt argument removed or newly required. Everything else (an
//! addition, a wider type, a description, annotations, the version) is a change, not a break.

use serde::Serialize;
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub what: String,
    pub breaking: bool,
}

/// One tool (or resource, template, prompt) added, removed or changed.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ItemChange {
    /// `tool`, `resource`, `template`, `prompt`.
    pub kind: String,
    pub name: String,
    /// `added`, `removed` or `changed`.
    pub how: String,
    pub changes: Vec<Change>,
    pub breaking: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SurfaceDiff {
    /// `name 1.0.0 → name 1.1.0`, when it changed.
    pub server: Option<String>,
    pub items: Vec<ItemChange>,
    pub breaking: bool,
}

fn list<'a>(surface: &'a Value, key: &str, id: &str) -> Vec<(String, &'a Value)> {
    surface
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|item| {
            (
                item.get(id)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                item,
            )
        })
        .collect()
}

/// The changes from `old` to `new` (both normalized surfaces).
pub fn diff(old: &Value, new: &Value) -> SurfaceDiff {
    let mut out = SurfaceDiff::default();
    let version = |s: &Value| {
        format!(
            "{} {}",
            s["server"]["name"].as_str().unwrap_or(""),
            s["server"]["version"].as_str().unwrap_or("")
        )
    };
    if old.get("server") != new.get("server") {
        out.server = Some(format!("{} → {}", version(old), version(new)));
    }
    for (key, id, kind) in [
        ("tools", "name", "tool"),
        ("resources", "uri", "resource"),
        ("resourceTemplates", "uriTemplate", "template"),
        ("prompts", "name", "prompt"),
    ] {
        let before = list(old, key, id);
        let after = list(new, key, id);
        for (name, item) in &before {
            match after.iter().find(|(n, _)| n == name) {
                None => out.items.push(ItemChange {
                    kind: kind.into(),
                    name: name.clone(),
                    how: "removed".into(),
                    changes: Vec::new(),
                    breaking: true,
                }),
                Some((_, now)) => {
                    let mut changes = Vec::new();
                    match kind {
                        "tool" => tool(item, now, &mut changes),
                        "prompt" => prompt(item, now, &mut changes),
                        _ => plain(item, now, &mut changes),
                    }
                    if !changes.is_empty() {
                        let breaking = changes.iter().any(|c| c.breaking);
                        out.items.push(ItemChange {
                            kind: kind.into(),
                            name: name.clone(),
                            how: "changed".into(),
                            changes,
                            breaking,
                        });
                    }
                }
            }
        }
        for (name, _) in &after {
            if !before.iter().any(|(n, _)| n == name) {
                out.items.push(ItemChange {
                    kind: kind.into(),
                    name: name.clone(),
                    how: "added".into(),
                    changes: Vec::new(),
                    breaking: false,
                });
            }
        }
    }
    out.breaking = out.items.iter().any(|i| i.breaking);
    out
}

fn change(changes: &mut Vec<Change>, what: String, breaking: bool) {
    changes.push(Change { what, breaking });
}

fn plain(old: &Value, new: &Value, changes: &mut Vec<Change>) {
    for key in ["name", "title", "description", "mimeType"] {
        if old.get(key) != new.get(key) {
            change(changes, format!("{key} changed"), false);
        }
    }
}

fn tool(old: &Value, new: &Value, changes: &mut Vec<Change>) {
    for key in ["title", "description"] {
        if old.get(key) != new.get(key) {
            change(changes, format!("{key} changed"), false);
        }
    }
    if old.get("annotations") != new.get("annotations") {
        change(changes, "annotations changed".into(), false);
    }
    let empty = Value::Object(Map::new());
    schema(
        "input",
        "",
        old.get("inputSchema").unwrap_or(&empty),
        new.get("inputSchema").unwrap_or(&empty),
        true,
        changes,
    );
    match (old.get("outputSchema"), new.get("outputSchema")) {
        (Some(before), Some(after)) => schema("output", "", before, after, false, changes),
        (Some(_), None) => change(changes, "outputSchema removed".into(), true),
        (None, Some(_)) => change(changes, "outputSchema added".into(), false),
        (None, None) => {}
    }
}

fn prompt(old: &Value, new: &Value, changes: &mut Vec<Change>) {
    if old.get("description") != new.get("description") {
        change(changes, "description changed".into(), false);
    }
    let args = |p: &Value| -> Vec<(String, bool)> {
        p.get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|a| {
                (
                    a["name"].as_str().unwrap_or("").to_string(),
                    a["required"].as_bool().unwrap_or(false),
                )
            })
            .collect()
    };
    let (before, after) = (args(old), args(new));
    for (name, required) in &before {
        match after.iter().find(|(n, _)| n == name) {
            None => change(changes, format!("argument {name} removed"), true),
            Some((_, now)) if *now && !required => {
                change(changes, format!("argument {name} now required"), true)
            }
            _ => {}
        }
    }
    for (name, required) in &after {
        if !before.iter().any(|(n, _)| n == name) {
            change(
                changes,
                format!(
                    "argument {name} added{}",
                    if *required { ", required" } else { "" }
                ),
                *required,
            );
        }
    }
}

fn types(schema: &Value) -> Option<Vec<String>> {
    match schema.get("type")? {
        Value::String(t) => Some(vec![t.clone()]),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(|t| t.as_str().map(String::from))
                .collect(),
        ),
        _ => None,
    }
}

/// What accepts `t`: `integer` is a `number`.
fn covers(set: &[String], t: &str) -> bool {
    set.iter()
        .any(|s| s == t || (s == "number" && t == "integer"))
}

fn schema(
    side: &str,
    path: &str,
    old: &Value,
    new: &Value,
    input: bool,
    changes: &mut Vec<Change>,
) {
    let here = if path.is_empty() {
        side.to_string()
    } else {
        format!("{side} {path}")
    };
    match (types(old), types(new)) {
        (Some(before), Some(after)) if before != after => {
            let narrowed = before.iter().any(|t| !covers(&after, t));
            change(
                changes,
                format!(
                    "{here}: type {} → {}{}",
                    before.join("|"),
                    after.join("|"),
                    if narrowed {
                        " (narrowed)"
                    } else {
                        " (widened)"
                    }
                ),
                narrowed,
            );
        }
        (None, Some(after)) => change(
            changes,
            format!("{here}: type now {} (narrowed)", after.join("|")),
            true,
        ),
        _ => {}
    }
    if let (Some(before), Some(after)) = (
        old.get("enum").and_then(Value::as_array),
        new.get("enum").and_then(Value::as_array),
    ) {
        let lost: Vec<String> = before
            .iter()
            .filter(|v| !after.contains(v))
            .map(Value::to_string)
            .collect();
        let gained: Vec<String> = after
            .iter()
            .filter(|v| !before.contains(v))
            .map(Value::to_string)
            .collect();
        if !lost.is_empty() {
            change(
                changes,
                format!("{here}: enum lost {} (narrowed)", lost.join(", ")),
                true,
            );
        }
        if !gained.is_empty() {
            change(
                changes,
                format!("{here}: enum gained {}", gained.join(", ")),
                false,
            );
        }
    } else if old.get("enum").is_none() && new.get("enum").is_some() {
        change(changes, format!("{here}: now an enum (narrowed)"), true);
    }
    if old.get("description") != new.get("description") && !path.is_empty() {
        change(changes, format!("{here}: description changed"), false);
    }
    let required = |s: &Value| -> Vec<String> {
        s.get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str().map(String::from))
            .collect()
    };
    let (was_required, now_required) = (required(old), required(new));
    let empty = Map::new();
    let before = old
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let after = new
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (name, sub) in before {
        let at = format!("{path}/{name}");
        match after.get(name) {
            None => change(changes, format!("{side} {at}: property removed"), true),
            Some(now) => {
                if input && now_required.contains(name) && !was_required.contains(name) {
                    change(changes, format!("{side} {at}: now required"), true);
                }
                schema(side, &at, sub, now, input, changes);
            }
        }
    }
    for name in after.keys() {
        if !before.contains_key(name) {
            let at = format!("{path}/{name}");
            let required = input && now_required.contains(name);
            change(
                changes,
                format!(
                    "{side} {at}: property added{}",
                    if required { ", required" } else { "" }
                ),
                required,
            );
        }
    }
    if let (Some(before), Some(after)) = (old.get("items"), new.get("items")) {
        schema(
            side,
            &format!("{path}/items"),
            before,
            after,
            input,
            changes,
        );
    }
}

/// The diff in words, one line each: what `mcpctl diff` prints.
pub fn lines(diff: &SurfaceDiff) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(server) = &diff.server {
        out.push(format!("  server: {server}"));
    }
    for item in &diff.items {
        let mark = if item.breaking { "✘ breaking" } else { "·" };
        out.push(format!("{mark} {} {} {}", item.kind, item.name, item.how));
        for change in &item.changes {
            out.push(format!(
                "    {}{}",
                if change.breaking { "✘ " } else { "" },
                change.what
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn surface(tools: Value, prompts: Value, version: &str) -> Value {
        json!({"server": {"name": "s", "version": version}, "tools": tools, "resources": [], "resourceTemplates": [], "prompts": prompts})
    }

    #[test]
    fn breaking_and_not() {
        let old = surface(
            json!([
                {"name": "search", "description": "Finds", "inputSchema": {"type": "object", "properties": {
                    "q": {"type": "string"}, "limit": {"type": ["integer", "null"]}, "mode": {"enum": ["a", "b"]}, "old": {"type": "string"}
                }, "required": ["q"]}, "outputSchema": {"type": "object", "properties": {"hits": {"type": "array"}, "total": {"type": "number"}}}},
                {"name": "gone", "inputSchema": {"type": "object"}}
            ]),
            json!([{"name": "p", "arguments": [{"name": "x"}, {"name": "y"}]}]),
            "1.0.0",
        );
        let new = surface(
            json!([
                {"name": "search", "description": "Finds things", "inputSchema": {"type": "object", "properties": {
                    "q": {"type": "string"}, "limit": {"type": "integer"}, "mode": {"enum": ["a", "c"]}, "region": {"type": "string"}, "page": {"type": "number"}
                }, "required": ["q", "region"]}, "outputSchema": {"type": "object", "properties": {"hits": {"type": "array"}}}},
                {"name": "new", "inputSchema": {"type": "object"}}
            ]),
            json!([{"name": "p", "arguments": [{"name": "x", "required": true}]}]),
            "2.0.0",
        );
        let diff = diff(&old, &new);
        assert!(diff.breaking);
        assert_eq!(diff.server.as_deref(), Some("s 1.0.0 → s 2.0.0"));
        let search = diff.items.iter().find(|i| i.name == "search").unwrap();
        let said: Vec<(String, bool)> = search
            .changes
            .iter()
            .map(|c| (c.what.clone(), c.breaking))
            .collect();
        assert_eq!(
            said,
            vec![
                ("description changed".to_string(), false),
                (
                    "input /limit: type integer|null → integer (narrowed)".to_string(),
                    true
                ),
                ("input /mode: enum lost \"b\" (narrowed)".to_string(), true),
                ("input /mode: enum gained \"c\"".to_string(), false),
                ("input /old: property removed".to_string(), true),
                ("input /region: property added, required".to_string(), true),
                ("input /page: property added".to_string(), false),
                ("output /total: property removed".to_string(), true),
            ]
        );
        let how: Vec<(&str, &str, bool)> = diff
            .items
            .iter()
            .map(|i| (i.name.as_str(), i.how.as_str(), i.breaking))
            .collect();
        assert!(how.contains(&("gone", "removed", true)));
        assert!(how.contains(&("new", "added", false)));
        let p = diff.items.iter().find(|i| i.kind == "prompt").unwrap();
        assert_eq!(
            p.changes
                .iter()
                .map(|c| c.what.as_str())
                .collect::<Vec<_>>(),
            ["argument x now required", "argument y removed"]
        );
    }

    #[test]
    fn only_additions_and_widening_are_not_breaking() {
        let old = surface(
            json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}, "m": {"enum": [1]}}}}]),
            json!([]),
            "1",
        );
        let new = surface(
            json!([
                {"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"type": "number"}, "m": {"enum": [1, 2]}, "o": {"type": "string"}}}},
                {"name": "u", "inputSchema": {"type": "object"}}
            ]),
            json!([]),
            "1",
        );
        let diff = diff(&old, &new);
        assert!(!diff.breaking, "{diff:?}");
        assert_eq!(diff.items.len(), 2);
        assert_eq!(super::diff(&old, &old), SurfaceDiff::default());
    }
}
