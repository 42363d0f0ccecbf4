//! The checks both kinds of server end with: the protocol version agreed, what the server
//! says it can do, its tools, and the first tool schema that does not compile.

use serde_json::Value;

use super::{Check, Checks};

/// Protocol versions an `initialize` session may agree on.
pub(crate) fn spoken() -> Vec<&'static str> {
    vec!["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
}

/// The `protocol` check of an `initialize` result.
pub(crate) fn protocol(checks: &mut Checks, agreed: &str, server: &str) -> bool {
    if spoken().contains(&agreed) {
        checks.push(Check::passed(
            "protocol",
            "Protocol version agreed",
            vec![format!("{server} speaks {agreed}")],
        ))
    } else {
        checks.push(Check::failed(
            "protocol",
            "Protocol version agreed",
            vec![
                format!("{server} answered protocol version {agreed:?}"),
                format!("MCP Manager speaks {}", spoken().join(", ")),
            ],
            "Update the server (or MCP Manager) so that both speak one protocol version.".into(),
        ))
    }
}

/// The `capabilities` check: what the server offers, in words.
pub(crate) fn capabilities(checks: &mut Checks, offered: &[String]) -> bool {
    let evidence = if offered.is_empty() {
        vec!["none (no tools, resources or prompts)".into()]
    } else {
        vec![offered.join(", ")]
    };
    checks.push(Check::passed("capabilities", "Capabilities", evidence))
}

/// The names of the capabilities in an `initialize` result's `capabilities`.
pub(crate) fn capability_names(capabilities: &Value) -> Vec<String> {
    capabilities
        .as_object()
        .map(|map| map.keys().cloned().collect())
        .unwrap_or_default()
}

/// The `tools` and `schemas` checks over `(name, inputSchema)` pairs.
pub(crate) fn tools(checks: &mut Checks, tools: &[(String, Value)]) -> bool {
    let names: Vec<&str> = tools.iter().map(|(name, _)| name.as_str()).collect();
    let mut evidence = vec![format!("{} tools", tools.len())];
    if !names.is_empty() {
        let shown: Vec<&str> = names.iter().take(12).copied().collect();
        let more = names.len().saturating_sub(shown.len());
        evidence.push(if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        });
    }
    if !checks.push(Check::passed("tools", "Tools listed", evidence)) {
        return false;
    }
    for (name, schema) in tools {
        if let Err(err) = jsonschema::validator_for(schema) {
            return checks.push(Check::failed(
                "schemas",
                "Tool schemas compile",
                vec![format!("{name}: {err}")],
                format!(
                    "Fix the inputSchema of tool `{name}` in the server: a client cannot check arguments against it, and some refuse the tool."
                ),
            ));
        }
    }
    checks.push(Check::passed(
        "schemas",
        "Tool schemas compile",
        vec![format!("all {} input schemas compile", tools.len())],
    ))
}
