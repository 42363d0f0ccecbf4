//! Streamable HTTP against the reference server run on 127.0.0.1 by the test.

mod support;

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_manager_connect::stderr::StderrLog;
use mcp_manager_connect::Connection;
use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use serde_json::{json, Value};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_everything(mode: &str) -> (Server, u16) {
    start_everything_on(mode, free_port())
}

fn start_everything_on(mode: &str, port: u16) -> (Server, u16) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        script.exists(),
        "server-everything is not installed: run `scripts/setup test`"
    );
    let child = Command::new("node")
        .arg(script)
        .arg(mode)
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "server-everything ({mode}) did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, port)
}

#[tokio::test]
async fn streamable_http_session_lists_and_calls() {
    let (_server, port) = start_everything("streamableHttp");
    let config = ServerConfig::remote(
        TransportKind::Http,
        format!("http://127.0.0.1:{port}/mcp"),
        vec![("X-Test-Header".into(), "present".into())],
    );
    let connection = support::open(&config)
        .await
        .expect("connects over streamable HTTP");
    assert_eq!(connection.info().server_name, "mcp-servers/everything");
    let tools = connection.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "echo"));
    let outcome = connection
        .call_tool(
            "get-sum",
            Some(json!({"a": 20, "b": 22}).as_object().unwrap().clone()),
            None,
        )
        .await
        .unwrap();
    assert!(outcome.result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("42"));
    let prompts = connection.list_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p["name"] == "simple-prompt"));
    connection.shutdown().await;
}

#[tokio::test]
async fn nothing_listening_is_a_clear_failure() {
    let port = free_port();
    let config = ServerConfig::remote(
        TransportKind::Http,
        format!("http://127.0.0.1:{port}/mcp"),
        vec![],
    );
    let err = Connection::open(
        &config,
        &std::env::temp_dir(),
        Duration::from_secs(10),
        StderrLog::default(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        format!(
            "could not reach http://127.0.0.1:{port}/mcp: nothing answered there. Check that \
             the server is running and that the URL is right"
        ),
        "a refused connection says so in plain words, with the URL and what to do"
    );
}

#[tokio::test]
async fn a_restarted_http_server_is_reconnected_by_the_supervisor() {
    use mcp_manager_connect::{Settings, Supervisor};
    use mcp_manager_core::config::catalog::Catalog;
    use mcp_manager_core::Locations;

    let (server, port) = start_everything("streamableHttp");
    let world = support::World::with_servers(
        serde_json::json!({"remote": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}}),
    );
    let locations = world.locations.clone();
    let _: &Locations = &locations;
    let supervisor = Supervisor::new(locations.project.clone(), Settings::default());
    let mut events = supervisor.subscribe();
    supervisor.start(&Catalog::load(&locations)).await;
    let first = supervisor.connection("remote").expect("connected");
    let args = json!({"message": "before"}).as_object().unwrap().clone();
    first.call_tool("echo", Some(args), None).await.unwrap();

    // Down: three transport errors in a row (unless the transport closes by itself first)
    // make the session lost, and the supervisor starts reconnecting.
    drop(server);
    for round in 1..=3 {
        let failed =
            tokio::time::timeout(Duration::from_secs(10), first.call_tool("echo", None, None))
                .await;
        assert!(
            matches!(failed, Ok(Err(_))),
            "a call to a stopped server fails: {failed:?}"
        );
        if round == 2 {
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert!(
                supervisor.connection("remote").is_some(),
                "two transport errors in a row are not yet a lost session"
            );
        }
    }
    let mut seen = Vec::new();
    while seen.len() < 3 {
        let event = tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .expect("events")
            .unwrap();
        seen.push(event.status.label());
    }
    assert_eq!(
        seen,
        ["pending", "connected", "pending"],
        "started, then lost"
    );

    // Back up on the same port: the next attempt (1 s later) connects.
    let (_server, _) = start_everything_on("streamableHttp", port);
    let event = tokio::time::timeout(Duration::from_secs(10), events.recv())
        .await
        .expect("reconnected in time")
        .unwrap();
    assert_eq!(event.status.label(), "connected");
    let second = supervisor.connection("remote").expect("reconnected");
    assert!(!std::sync::Arc::ptr_eq(&first, &second), "a new session");
    let args = json!({"message": "after"}).as_object().unwrap().clone();
    let outcome = second.call_tool("echo", Some(args), None).await.unwrap();
    assert_eq!(outcome.result["content"][0]["text"], "Echo: after");
    supervisor.shutdown().await;
}

#[tokio::test]
async fn legacy_sse_session_lists_and_calls() {
    let (_server, port) = start_everything("sse");
    let config = ServerConfig::remote(
        TransportKind::Sse,
        format!("http://127.0.0.1:{port}/sse"),
        vec![],
    );
    let connection = support::open(&config)
        .await
        .expect("connects over legacy SSE");
    assert_eq!(connection.info().server_name, "mcp-servers/everything");
    assert!(connection
        .list_tools()
        .await
        .unwrap()
        .iter()
        .any(|t| t.name == "echo"));
    let args = json!({"message": "over sse"}).as_object().unwrap().clone();
    let outcome = connection
        .call_tool("echo", Some(args), None)
        .await
        .unwrap();
    assert_eq!(outcome.result["content"][0]["text"], "Echo: over sse");
    connection.shutdown().await;
}

#[tokio::test]
async fn streamable_http_falls_back_to_sse_on_a_4xx() {
    let (_server, port) = start_everything("sse");
    let config = ServerConfig::remote(
        TransportKind::Http,
        format!("http://127.0.0.1:{port}/sse"),
        vec![],
    );
    let connection = support::open(&config)
        .await
        .expect("an http entry pointing at a legacy server still connects");
    let args = json!({"message": "fallback"}).as_object().unwrap().clone();
    let outcome = connection
        .call_tool("echo", Some(args), None)
        .await
        .unwrap();
    assert_eq!(outcome.result["content"][0]["text"], "Echo: fallback");
    connection.shutdown().await;
}

#[tokio::test]
async fn a_session_wedged_by_a_server_restart_is_noticed_by_the_heartbeat_and_replaced() {
    use mcp_manager_connect::{Settings, Supervisor};
    use mcp_manager_core::config::catalog::Catalog;

    let (server, port) = start_everything("streamableHttp");
    let world = support::World::with_servers(
        serde_json::json!({"remote": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}}),
    );
    let locations = world.locations.clone();
    let settings = Settings {
        heartbeat: Duration::from_secs(1),
        ..Settings::default()
    };
    let supervisor = Supervisor::new(locations.project.clone(), settings);
    supervisor.start(&Catalog::load(&locations)).await;
    let mut events = supervisor.subscribe();
    let old = supervisor.connection("remote").unwrap();
    old.call_tool(
        "echo",
        Some(json!({"message": "a"}).as_object().unwrap().clone()),
        None,
    )
    .await
    .unwrap();

    // Restarted at once: the old session is unknown to the new process.
    drop(server);
    let (_server, _) = start_everything_on("streamableHttp", port);
    let waiting = tokio::spawn({
        let old = std::sync::Arc::clone(&old);
        async move {
            old.call_tool(
                "echo",
                Some(json!({"message": "b"}).as_object().unwrap().clone()),
                None,
            )
            .await
        }
    });
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(40);
    while Instant::now() < deadline && !seen.ends_with(&["connected"]) {
        if let Ok(Ok(event)) = tokio::time::timeout(Duration::from_millis(500), events.recv()).await
        {
            seen.push(event.status.label());
        }
    }
    assert_eq!(seen, ["pending", "connected"], "noticed and replaced");
    let stuck = tokio::time::timeout(Duration::from_secs(5), waiting).await;
    assert!(
        matches!(stuck, Ok(Ok(Err(_)))),
        "a call left on the old session fails instead of hanging: {stuck:?}"
    );
    let new = supervisor.connection("remote").unwrap();
    let outcome = new
        .call_tool(
            "echo",
            Some(json!({"message": "c"}).as_object().unwrap().clone()),
            None,
        )
        .await
        .unwrap();
    assert_eq!(outcome.result["content"][0]["text"], "Echo: c");
    supervisor.shutdown().await;
}

#[tokio::test]
async fn an_expired_session_is_replaced_and_the_call_retried_once() {
    let server = support::EdgeHttp::start();
    let connection = support::open(&server.config()).await.unwrap();
    let call = |tool: &'static str| {
        let connection = &connection;
        async move {
            let outcome = connection
                .call_tool(tool, Some(support::args(json!({"message": "again"}))), None)
                .await
                .unwrap_or_else(|err| panic!("{tool}: {err}"));
            outcome.result["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    assert_eq!(call("initializes").await, "1");
    assert!(call("expire").await.starts_with("expired "));
    // The server now answers 404 with -32001 to the old session.
    assert_eq!(
        call("echo").await,
        "Echo: again",
        "retried on a new session"
    );
    assert_eq!(call("initializes").await, "2", "exactly one new session");
    connection.shutdown().await;
}

#[tokio::test]
async fn an_unanswered_post_fails_after_the_post_limit_and_the_session_goes_on() {
    let server = support::EdgeHttp::start();
    let connection = Connection::open_with(
        "edge",
        &server.config(),
        &std::env::temp_dir(),
        mcp_manager_connect::Limits {
            connect: Duration::from_secs(30),
            http_post: Duration::from_secs(1),
            ..mcp_manager_connect::Limits::connect(Duration::from_secs(30))
        },
        StderrLog::default(),
        std::sync::Arc::new(mcp_manager_connect::answer::Decline),
    )
    .await
    .unwrap();
    let started = Instant::now();
    let err = connection
        .call_tool("hang", None, Some(Duration::from_secs(30)))
        .await
        .expect_err("the POST is never answered");
    let waited = started.elapsed();
    assert!(
        err.to_string()
            .contains("no answer to the HTTP POST within 1 s"),
        "{err}"
    );
    assert!(
        waited < Duration::from_secs(10),
        "the POST limit, not the tool timeout: {waited:?}"
    );
    let outcome = connection
        .call_tool(
            "echo",
            Some(support::args(json!({"message": "still here"}))),
            None,
        )
        .await
        .unwrap();
    assert_eq!(outcome.result["content"][0]["text"], "Echo: still here");
    connection.shutdown().await;
}

#[tokio::test]
async fn the_get_stream_is_reopened_with_last_event_id_after_the_servers_retry_delay() {
    let server = support::EdgeHttp::start_with(&["0", "--stream"]);
    let connection = support::open(&server.config()).await.unwrap();
    // The first stream sends event "ev-1" with `retry: 1500` and ends (rmcp's own delay
    // would be 1 s); the client opens the next one.
    let deadline = Instant::now() + Duration::from_secs(10);
    let streams = loop {
        let outcome = connection.call_tool("streams", None, None).await.unwrap();
        let streams: Vec<Value> =
            serde_json::from_str(outcome.result["content"][0]["text"].as_str().unwrap()).unwrap();
        if streams.len() >= 2 || Instant::now() > deadline {
            break streams;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        streams.len() >= 2,
        "the stream was not reopened: {streams:?}"
    );
    assert_eq!(streams[0]["lastEventId"], Value::Null);
    assert_eq!(streams[1]["lastEventId"], "ev-1", "{streams:?}");
    let after = streams[1]["afterMs"].as_u64().unwrap();
    assert!(
        (1400..5000).contains(&after),
        "reopened after the server's retry delay, not ours: {after} ms"
    );
    connection.shutdown().await;
}

#[tokio::test]
async fn a_server_that_stays_down_gets_five_attempts_with_backoff_then_fails() {
    use mcp_manager_connect::{ServerStatus, Settings, Supervisor};
    use mcp_manager_core::config::catalog::Catalog;

    let server = support::EdgeHttp::start();
    let world =
        support::World::with_servers(json!({"remote": {"type": "http", "url": server.url()}}));
    let supervisor = Supervisor::new(world.locations.project.clone(), Settings::default());
    supervisor.start(&Catalog::load(&world.locations)).await;
    let connection = supervisor.connection("remote").expect("connected");
    let mut events = supervisor.subscribe();
    drop(server);
    for _ in 0..3 {
        let failed = connection.call_tool("echo", None, None).await;
        assert!(failed.is_err(), "{failed:?}");
    }
    // Attempts 1 to 5, each after twice the wait of the one before (1, 2, 4, 8, 16 s), then
    // failed: about 31 s in all.
    let mut attempts = Vec::new();
    let failed = loop {
        let event = tokio::time::timeout(Duration::from_secs(60), events.recv())
            .await
            .expect("an answer within a minute")
            .unwrap();
        match event.status {
            ServerStatus::Pending { attempt } => attempts.push((attempt, Instant::now())),
            ServerStatus::Failed { error } => break (error, Instant::now()),
            other => panic!("only pending, then failed: {other:?}"),
        }
    };
    let numbers: Vec<u32> = attempts.iter().map(|(n, _)| *n).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5]);
    // Attempt n is announced, then waits 2^(n-1) s before it tries; the next is announced
    // when it failed.
    let mut waits: Vec<Duration> = attempts.windows(2).map(|w| w[1].1 - w[0].1).collect();
    waits.push(failed.1 - attempts[4].1);
    for (n, wait) in waits.iter().enumerate() {
        let expected = Duration::from_secs(1 << n);
        assert!(
            *wait >= expected.mul_f32(0.9) && *wait < expected + Duration::from_secs(3),
            "attempt {} waited {wait:?}, expected about {expected:?}",
            n + 1
        );
    }
    assert!(
        failed.0.contains("5 reconnection attempts failed"),
        "{}",
        failed.0
    );
    supervisor.shutdown().await;
}
