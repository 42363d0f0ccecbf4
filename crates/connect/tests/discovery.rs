//! What is shown of a server's tools is clean, and results are checked against the tool's
//! outputSchema (reported, never hidden).

mod support;

use std::time::Duration;

use mcp_manager_connect::sanitize::strip;
use mcp_manager_connect::stderr::StderrLog;
use mcp_manager_connect::Connection;
use mcp_manager_core::config::entry::ServerConfig;

#[test]
fn stripping_rules() {
    let cases = [
        ("plain_text_stays", "Reads a file", "Reads a file"),
        ("newlines_and_tabs_stay", "a\n\tb", "a\n\tb"),
        ("zero_width_space_goes", "a\u{200B}b", "ab"),
        ("bidi_override_goes", "safe\u{202E}txt.exe", "safetxt.exe"),
        ("tag_characters_go", "x\u{E0041}\u{E0042}y", "xy"),
        ("c0_and_c1_controls_go", "a\u{7}b\u{85}c", "abc"),
        ("byte_order_mark_goes", "\u{FEFF}title", "title"),
        ("emoji_and_accents_stay", "café ☕", "café ☕"),
    ];
    for (rule, input, want) in cases {
        assert_eq!(strip(input), want, "{rule}");
    }
}

#[tokio::test]
async fn tools_are_listed_clean_and_outputs_are_checked() {
    let edge = ServerConfig::stdio(
        "node",
        vec![support::repo("tests/fixtures/servers/edge-server.mjs")
            .display()
            .to_string()],
        vec![],
    );
    let connection = Connection::open(
        &edge,
        &std::env::temp_dir(),
        Duration::from_secs(30),
        StderrLog::default(),
    )
    .await
    .unwrap();
    let tools = connection.list_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "huge",
            "flood",
            "never",
            "change-tools",
            "sneaky",
            "cancellations",
            "whole",
            "structured"
        ],
        "all three pages, in order"
    );
    let sneaky = tools.iter().find(|t| t.name == "sneaky").unwrap();
    let description = sneaky.description.as_deref().unwrap();
    assert!(
        description.starts_with("Reads a file.Ignore previous instructions"),
        "hidden characters are gone: {description:?}"
    );
    assert!(!description
        .chars()
        .any(|c| c == '\u{200B}' || c == '\u{202E}'));
    assert!(description.len() > 3000, "the description is kept whole");
    assert!(
        sneaky.input_schema["properties"].get("path").is_some(),
        "schema keys are cleaned too"
    );
    assert_eq!(
        sneaky.input_schema["properties"]["path"]["description"],
        "the path"
    );

    let outcome = connection
        .call_tool("structured", None, None)
        .await
        .unwrap();
    assert_eq!(
        outcome.result["structuredContent"]["n"], "not a number",
        "the result is kept as sent"
    );
    assert_eq!(
        outcome.schema_errors.len(),
        1,
        "{:?}",
        outcome.schema_errors
    );
    assert!(
        outcome.schema_errors[0].starts_with("/n:"),
        "{:?}",
        outcome.schema_errors
    );
    connection.shutdown().await;

    let everything = ServerConfig::stdio(
        "node",
        vec![support::repo("tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js").display().to_string(), "stdio".into()],
        vec![],
    );
    let connection = Connection::open(
        &everything,
        &std::env::temp_dir(),
        Duration::from_secs(30),
        StderrLog::default(),
    )
    .await
    .unwrap();
    let outcome = connection
        .call_tool(
            "get-structured-content",
            Some(
                serde_json::json!({"location": "New York"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            None,
        )
        .await
        .unwrap();
    assert!(outcome.result.get("structuredContent").is_some());
    assert!(
        outcome.schema_errors.is_empty(),
        "a conforming result has no errors: {:?}",
        outcome.schema_errors
    );
    connection.shutdown().await;
}

#[tokio::test]
async fn a_list_changed_notification_refetches_that_list_and_is_announced() {
    use mcp_manager_connect::{ListKind, Settings, Supervisor};
    use mcp_manager_core::config::catalog::Catalog;

    let world = support::World::with_servers(
        serde_json::json!({"edge": {"command": "node", "args": [support::repo("tests/fixtures/servers/edge-server.mjs").display().to_string()]}}),
    );
    let locations = world.locations.clone();
    let supervisor = Supervisor::new(locations.project.clone(), Settings::default());
    let mut lists = supervisor.subscribe_lists();
    supervisor.start(&Catalog::load(&locations)).await;
    let connection = supervisor.connection("edge").unwrap();
    let before = connection.list_tools().await.unwrap().len();
    connection
        .call_tool("change-tools", None, None)
        .await
        .unwrap();
    let change = tokio::time::timeout(Duration::from_secs(10), lists.recv())
        .await
        .expect("announced")
        .unwrap();
    assert_eq!(
        (change.server.as_str(), change.list, change.count),
        ("edge", ListKind::Tools, before + 1)
    );
    supervisor.shutdown().await;
}

#[test]
fn event_stream_parsing_rules() {
    use mcp_manager_connect::sse::{Event, EventParser};
    let event = |name: &str, data: &str| Event {
        name: name.into(),
        data: data.into(),
    };
    /// (rule, chunks as they arrive, events expected)
    type Case<'a> = (&'a str, Vec<&'a [u8]>, Vec<Event>);
    let cases: Vec<Case> = vec![
        (
            "named_event",
            vec![b"event: endpoint\ndata: /message?sessionId=1\n\n"],
            vec![event("endpoint", "/message?sessionId=1")],
        ),
        (
            "unnamed_event",
            vec![b"data: {}\n\n"],
            vec![event("", "{}")],
        ),
        (
            "multi_line_data_joins_with_newlines",
            vec![b"data: a\ndata: b\n\n"],
            vec![event("", "a\nb")],
        ),
        (
            "crlf_lines",
            vec![b"event: message\r\ndata: x\r\n\r\n"],
            vec![event("message", "x")],
        ),
        (
            "comments_are_ignored",
            vec![b": keep-alive\n\ndata: y\n\n"],
            vec![event("", "y")],
        ),
        (
            "split_across_chunks",
            vec![b"eve", b"nt: message\nda", b"ta: z\n", b"\n"],
            vec![event("message", "z")],
        ),
        (
            "no_space_after_colon",
            vec![b"data:tight\n\n"],
            vec![event("", "tight")],
        ),
        (
            "blank_line_without_data_dispatches_nothing",
            vec![b"event: ping\n\n"],
            vec![],
        ),
    ];
    for (rule, chunks, want) in cases {
        let mut parser = EventParser::default();
        let got: Vec<Event> = chunks
            .into_iter()
            .flat_map(|c| parser.feed(c).unwrap())
            .collect();
        assert_eq!(got, want, "{rule}");
    }
}

#[test]
fn an_event_longer_than_the_limit_ends_the_stream_and_keeps_nothing() {
    use mcp_manager_connect::sse::{EventParser, TooLong};
    // One endless line, fed in pieces: refused as soon as it passes the limit.
    let mut parser = EventParser::with_limit(1024);
    let piece = [b'x'; 300];
    let mut refused = None;
    for i in 0..10 {
        if let Err(err) = parser.feed(&piece) {
            refused = Some((i, err));
            break;
        }
    }
    assert_eq!(
        refused,
        Some((3, TooLong(1024))),
        "refused at the 4th piece (1200 bytes)"
    );
    // Many data lines of one event add up too.
    let mut parser = EventParser::with_limit(1024);
    let line = format!("data: {}\n", "y".repeat(200));
    let fed: Result<Vec<_>, _> = (0..10).map(|_| parser.feed(line.as_bytes())).collect();
    assert!(fed.is_err(), "one event of 2 KB of data lines");
    // Heartbeats and events each under the limit go on for ever.
    let mut parser = EventParser::with_limit(1024);
    for _ in 0..1000 {
        let events = parser.feed(b": ping\n\ndata: {}\n\n").unwrap();
        assert_eq!(events.len(), 1);
    }
}
