//! What works on a session of the `initialize` era works on a 2026-07-28 one, against the
//! official TypeScript SDK 2.4's server of that protocol only (`modern-server.mjs`), over stdio
//! and streamable HTTP: list changes and resource updates over `subscriptions/listen`, lists
//! not fetched again before their `ttlMs` (and fetched again after a change), progress, and
//! cancellation.

mod support;

use std::sync::Arc;
use std::time::Duration;

use mcp_manager_connect::answer::Decline;
use mcp_manager_connect::connection::ListenState;
use mcp_manager_connect::protocol_log::{Direction, ProtocolLog};
use mcp_manager_connect::{Connection, ListKind};
use mcp_manager_core::config::entry::ServerConfig;
use serde_json::json;
use tokio_util::sync::CancellationToken;

async fn open(config: &ServerConfig, log: &ProtocolLog) -> Connection {
    support::open_logged(config, Arc::new(Decline), log).await
}

/// Waits until the session's `subscriptions/listen` is acknowledged.
async fn listening(connection: &Connection) -> ListenState {
    for _ in 0..100 {
        match connection.listening() {
            Some(state @ ListenState::Listening { .. }) => return state,
            Some(ListenState::GaveUp { reason }) => panic!("listening was given up: {reason}"),
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    panic!(
        "the server never acknowledged subscriptions/listen: {:?}",
        connection.listening()
    );
}

/// How many requests of `method` went out in the log.
fn sent(log: &ProtocolLog, method: &str) -> usize {
    log.entries(0)
        .iter()
        .filter(|m| m.direction == Direction::Out && m.method.as_deref() == Some(method))
        .count()
}

#[tokio::test]
async fn a_tool_list_change_arrives_over_subscriptions_listen_on_stdio_and_http() {
    let http = support::ModernHttp::start(&[]);
    for config in [support::modern_stdio(&[]), http.config()] {
        let log = ProtocolLog::default();
        let connection = open(&config, &log).await;
        assert_eq!(connection.info().era, mcp_manager_connect::era::Era::Modern);
        let ListenState::Listening { lists, .. } = listening(&connection).await else {
            unreachable!()
        };
        assert!(
            lists.contains(&ListKind::Tools),
            "the server declares tools.listChanged, so the stream asks for it: {lists:?}"
        );
        let mut changes = connection.take_list_changes().unwrap();
        let before = connection.list_tools().await.unwrap().len();
        assert!(support::text_of(&connection, "grow", json!({}))
            .await
            .starts_with("added extra-"));
        let change = tokio::time::timeout(Duration::from_secs(10), changes.recv())
            .await
            .expect("a list change within 10 s of grow");
        assert_eq!(change, Some(ListKind::Tools));
        let after = connection.list_tools().await.unwrap();
        assert_eq!(
            after.len(),
            before + 1,
            "the list fetched after the change has the new tool"
        );
        let listen = log
            .entries(0)
            .into_iter()
            .find(|m| m.method.as_deref() == Some("subscriptions/listen"))
            .expect("subscriptions/listen went out");
        assert!(listen.text.contains("toolsListChanged"), "{}", listen.text);
    }
}

#[tokio::test]
async fn a_followed_resource_is_updated_over_listen_until_it_is_no_longer_followed() {
    let http = support::ModernHttp::start(&[]);
    for config in [support::modern_stdio(&[]), http.config()] {
        let connection = open(&config, &ProtocolLog::default()).await;
        listening(&connection).await;
        let mut updates = connection.resource_updates();
        connection.subscribe("modern://counter").await.unwrap();
        let ListenState::Listening { resources, .. } = connection.listening().unwrap() else {
            panic!("still listening after following a resource");
        };
        assert_eq!(resources, vec!["modern://counter".to_string()]);
        support::text_of(&connection, "bump", json!({})).await;
        let uri = tokio::time::timeout(Duration::from_secs(10), updates.recv())
            .await
            .expect("an update within 10 s of bump")
            .unwrap();
        assert_eq!(uri, "modern://counter");
        let read = connection.read_resource("modern://counter").await.unwrap();
        assert!(read.to_string().contains("counter = "), "{read}");

        connection.unsubscribe("modern://counter").await.unwrap();
        support::text_of(&connection, "bump", json!({})).await;
        let quiet = tokio::time::timeout(Duration::from_millis(800), updates.recv()).await;
        assert!(
            quiet.is_err(),
            "no update once the resource is no longer followed: {quiet:?}"
        );
    }
}

#[tokio::test]
async fn a_list_is_not_fetched_again_before_its_ttl_but_is_after_a_change() {
    let ttl = [("MODERN_TOOLS_TTL_MS", "600000")];
    let http = support::ModernHttp::start(&ttl);
    for config in [support::modern_stdio(&ttl), http.config()] {
        let log = ProtocolLog::default();
        let connection = open(&config, &log).await;
        listening(&connection).await;
        let mut changes = connection.take_list_changes().unwrap();
        let first = connection.list_tools().await.unwrap().len();
        let again = connection.list_tools().await.unwrap().len();
        assert_eq!(first, again);
        assert_eq!(
            sent(&log, "tools/list"),
            1,
            "a tools/list of ttlMs 600000 is not asked for again within the minute"
        );
        support::text_of(&connection, "grow", json!({})).await;
        tokio::time::timeout(Duration::from_secs(10), changes.recv())
            .await
            .expect("a list change within 10 s");
        let changed = connection.list_tools().await.unwrap().len();
        assert_eq!(
            (changed, sent(&log, "tools/list")),
            (first + 1, 2),
            "a list change makes the cached list stale at once"
        );
    }
}

#[tokio::test]
async fn progress_reaches_the_caller_and_a_cancelled_call_is_stopped_at_the_server() {
    let http = support::ModernHttp::start(&[]);
    for config in [support::modern_stdio(&[]), http.config()] {
        let connection = open(&config, &ProtocolLog::default()).await;
        let (sink, mut progress) = tokio::sync::mpsc::unbounded_channel();
        let outcome = connection
            .call_tool_with_progress(
                "slow",
                Some(support::args(json!({"steps": 3}))),
                Some(Duration::from_secs(20)),
                Some(sink),
            )
            .await
            .unwrap();
        assert_eq!(outcome.result["content"][0]["text"], "slept 3 steps");
        let mut seen = Vec::new();
        while let Ok(step) = progress.try_recv() {
            seen.push((step.progress, step.total, step.message));
        }
        assert_eq!(
            seen,
            (1..=3)
                .map(|n| (n as f64, Some(3.0), Some(format!("step {n}"))))
                .collect::<Vec<_>>()
        );

        let cancel = CancellationToken::new();
        let (sink, mut progress) = tokio::sync::mpsc::unbounded_channel();
        let stop = cancel.clone();
        tokio::spawn(async move {
            progress.recv().await;
            stop.cancel();
        });
        let cancelled = connection
            .call_tool_as(
                "slow",
                Some(support::args(json!({"steps": 50}))),
                Some(Duration::from_secs(20)),
                Some(sink),
                cancel,
                false,
            )
            .await;
        assert!(cancelled.is_err(), "{cancelled:?}");
        // Over stdio the server is told with notifications/cancelled; over streamable HTTP
        // closing the call's response stream is the signal (2026-07-28). Either way it stops.
        let mut stopped = String::new();
        for _ in 0..30 {
            stopped = support::text_of(&connection, "cancellations", json!({})).await;
            if stopped == "1" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(stopped, "1", "the server stopped the cancelled call");
    }
}

#[tokio::test]
async fn a_server_that_refuses_every_stream_is_given_up_after_a_bounded_number_of_tries() {
    let refusing = [("MODERN_MAX_SUBSCRIPTIONS", "0")];
    let log = ProtocolLog::default();
    let connection = open(&support::modern_stdio(&refusing), &log).await;
    let mut reason = None;
    for _ in 0..200 {
        if let Some(ListenState::GaveUp { reason: why }) = connection.listening() {
            reason = Some(why);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let reason = reason.expect("listening is given up within 20 s");
    assert!(
        reason.contains(&format!(
            "ended {} times in a row",
            mcp_manager_connect::connection::REOPENS
        )),
        "{reason}"
    );
    assert_eq!(
        sent(&log, "subscriptions/listen"),
        mcp_manager_connect::connection::REOPENS as usize,
        "one request per try, no more"
    );
    // The session itself goes on: the server's own fault, not the app's.
    assert_eq!(
        support::text_of(&connection, "echo", json!({"text": "still"})).await,
        "modern echo: still"
    );
}

#[tokio::test]
async fn over_http_a_tool_with_a_broken_header_annotation_is_left_out_and_listed_with_why() {
    let http = support::ModernHttp::start(&[]);
    let connection = open(&http.config(), &ProtocolLog::default()).await;
    let names: Vec<String> = support::tool_names(&connection).await;
    assert!(names.contains(&"regional".to_string()), "{names:?}");
    assert!(
        !names.contains(&"misheaded".to_string()),
        "a client over streamable HTTP must leave it out: {names:?}"
    );
    let dropped = connection.dropped_tools();
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert_eq!(dropped[0].name, "misheaded");
    assert_eq!(
        dropped[0].reason,
        "property `zone`: x-mcp-header `Bad Zone` is not a valid HTTP token"
    );
    assert_eq!(
        support::text_of(&connection, "regional", json!({"region": "eu-west"})).await,
        "region eu-west, header eu-west",
        "the annotated parameter went out as Mcp-Param-Region"
    );

    // Over stdio there are no headers: the annotations may be ignored, and nothing is left out.
    let stdio = open(&support::modern_stdio(&[]), &ProtocolLog::default()).await;
    let names: Vec<String> = support::tool_names(&stdio).await;
    assert!(names.contains(&"misheaded".to_string()), "{names:?}");
    assert!(stdio.dropped_tools().is_empty());
}

#[tokio::test]
async fn reads_and_prompts_that_ask_first_are_answered_and_prompts_complete_their_arguments() {
    let answerer = Arc::new(mcp_manager_connect::answer::FixedAnswer(
        json!({"name": "Ada"}),
    ));
    let http = support::ModernHttp::start(&[]);
    for config in [support::modern_stdio(&[]), http.config()] {
        let log = ProtocolLog::default();
        let connection = support::open_logged(&config, answerer.clone(), &log).await;
        let read = connection.read_resource("modern://vault").await.unwrap();
        assert_eq!(read["contents"][0]["text"], "the vault, opened by Ada");
        let prompt = connection.get_prompt("introduce", None).await.unwrap();
        assert_eq!(prompt["messages"][0]["content"]["text"], "Please meet Ada.");
        assert_eq!(
            (sent(&log, "resources/read"), sent(&log, "prompts/get")),
            (2, 2),
            "each asked once, then was made again with the answer"
        );
        // Completion works as in the initialize era.
        let suggested = connection
            .complete(
                json!({"type": "ref/prompt", "name": "greet"}),
                "name",
                "A",
                None,
            )
            .await
            .unwrap();
        assert_eq!(suggested, ["Ada", "Alan"]);
        let greeted = connection
            .get_prompt("greet", Some(support::args(json!({"name": "Ada"}))))
            .await
            .unwrap();
        assert_eq!(greeted["messages"][0]["content"]["text"], "Hello, Ada!");
    }
}

#[tokio::test]
async fn the_connected_status_says_what_is_followed_live_and_changes_when_it_does() {
    use mcp_manager_connect::{ServerStatus, Settings, Supervisor};
    let world = support::World::with_servers(json!({
        "modern": {"command": "node", "args": [support::repo("tests/fixtures/servers/modern-server.mjs")]},
        "refusing": {
            "command": "node",
            "args": [support::repo("tests/fixtures/servers/modern-server.mjs")],
            "env": {"MODERN_MAX_SUBSCRIPTIONS": "0"}
        },
    }));
    let supervisor = Supervisor::new(world.locations.project.clone(), Settings::default());
    let mut events = supervisor.subscribe();
    supervisor
        .start(&mcp_manager_core::config::catalog::Catalog::load(
            &world.locations,
        ))
        .await;
    let listening = |server: &str| {
        supervisor
            .statuses()
            .into_iter()
            .find(|s| s.server == server)
            .and_then(|s| match s.status {
                ServerStatus::Connected(info) => info.listening,
                _ => None,
            })
    };
    let mut announced = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !matches!(listening("refusing"), Some(ListenState::GaveUp { .. }))
        || !matches!(listening("modern"), Some(ListenState::Listening { .. }))
    {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(event)) => {
                if let ServerStatus::Connected(info) = event.status {
                    announced.push((event.server, info.listening));
                }
            }
            _ => panic!(
                "never settled: modern {:?}, refusing {:?}",
                listening("modern"),
                listening("refusing")
            ),
        }
    }
    assert_eq!(
        listening("modern"),
        Some(ListenState::Listening {
            lists: vec![ListKind::Tools, ListKind::Resources, ListKind::Prompts],
            resources: vec![],
            refused: vec![]
        })
    );
    assert!(
        announced.iter().any(|(server, state)| server == "refusing"
            && matches!(state, Some(ListenState::GaveUp { .. }))),
        "giving up was announced as a status event: {announced:?}"
    );
    supervisor.shutdown().await;
}
