//! Entry rules, one case per rule, named after the rule (Claude Code's reading of `mcpServers`).

use std::path::Path;

use mcp_manager_core::config::parse_entry;
use mcp_manager_core::{ConfigError, Transport, TransportKind};
use serde_json::json;

fn parse(entry: serde_json::Value) -> Result<mcp_manager_core::ServerConfig, ConfigError> {
    parse_entry(Path::new("/p/.mcp.json"), "srv", &entry)
}

#[test]
fn transport_kind_rules() {
    let cases = [
        (
            "command_without_type_is_stdio",
            json!({"command": "node"}),
            TransportKind::Stdio,
        ),
        (
            "explicit_stdio",
            json!({"type": "stdio", "command": "node"}),
            TransportKind::Stdio,
        ),
        (
            "http",
            json!({"type": "http", "url": "http://127.0.0.1/mcp"}),
            TransportKind::Http,
        ),
        (
            "streamable_http_is_read_as_http",
            json!({"type": "streamable-http", "url": "http://127.0.0.1/mcp"}),
            TransportKind::Http,
        ),
        (
            "sse",
            json!({"type": "sse", "url": "http://127.0.0.1/sse"}),
            TransportKind::Sse,
        ),
        (
            "ws",
            json!({"type": "ws", "url": "ws://127.0.0.1/ws"}),
            TransportKind::Ws,
        ),
        (
            "unknown_keys_do_not_matter",
            json!({"command": "x", "alwaysLoad": true, "somethingNew": {"a": 1}}),
            TransportKind::Stdio,
        ),
    ];
    for (rule, entry, want) in cases {
        let got = parse(entry).unwrap_or_else(|err| panic!("{rule}: unexpected error {err}"));
        assert_eq!(got.kind(), want, "{rule}");
    }
}

#[test]
fn invalid_entry_rules() {
    let cases = [
        (
            "url_without_type_is_an_error",
            json!({"url": "http://x"}),
            "no `type`",
        ),
        (
            "unknown_type_is_an_error",
            json!({"type": "grpc", "url": "http://x"}),
            "unknown `type`",
        ),
        (
            "neither_command_nor_url",
            json!({"env": {}}),
            "needs a `command`",
        ),
        (
            "stdio_needs_command",
            json!({"type": "stdio"}),
            "needs a `command`",
        ),
        (
            "empty_command",
            json!({"command": "  "}),
            "`command` is empty",
        ),
        ("remote_needs_url", json!({"type": "http"}), "needs a `url`"),
        (
            "args_are_strings",
            json!({"command": "x", "args": [1]}),
            "list of strings",
        ),
        (
            "env_values_are_strings",
            json!({"command": "x", "env": {"A": 1}}),
            "`env.A`",
        ),
        (
            "headers_are_an_object",
            json!({"type": "sse", "url": "u", "headers": []}),
            "`headers`",
        ),
        ("entry_is_an_object", json!("node"), "JSON object"),
        (
            "type_is_a_string",
            json!({"type": 3, "command": "x"}),
            "`type` must be a string",
        ),
    ];
    for (rule, entry, fragment) in cases {
        match parse(entry) {
            Ok(config) => panic!("{rule}: accepted as {config:?}"),
            Err(err) => {
                let text = err.to_string();
                assert!(
                    text.contains(fragment),
                    "{rule}: message {text:?} lacks {fragment:?}"
                );
                assert!(
                    text.contains("\"srv\""),
                    "{rule}: the message names the server: {text}"
                );
            }
        }
    }
}

#[test]
fn debug_redacts_env_and_header_values() {
    let stdio = parse(json!({"command": "x", "env": {"API_KEY": "sk-very-secret"}})).unwrap();
    let remote =
        parse(json!({"type": "http", "url": "u", "headers": {"Authorization": "Bearer tok-123"}}))
            .unwrap();
    let shown = format!("{stdio:?} {remote:?}");
    assert!(
        !shown.contains("sk-very-secret"),
        "env value leaked: {shown}"
    );
    assert!(!shown.contains("tok-123"), "header value leaked: {shown}");
    assert!(
        shown.contains("API_KEY") && shown.contains("Authorization"),
        "names stay: {shown}"
    );
}

#[test]
fn target_is_the_command_line_or_url_and_never_env() {
    let stdio = parse(json!({
        "command": "node",
        "args": ["server.js", "--root", "My Documents"],
        "env": {"TOKEN": "secret"}
    }))
    .unwrap();
    assert_eq!(stdio.target(), "node server.js --root 'My Documents'");
    let Transport::Stdio { env, .. } = &stdio.transport else {
        panic!("stdio expected")
    };
    assert_eq!(env, &[("TOKEN".to_string(), "secret".to_string())]);
    let remote = parse(json!({"type": "sse", "url": "http://127.0.0.1:9/sse"})).unwrap();
    assert_eq!(remote.target(), "http://127.0.0.1:9/sse");
}
