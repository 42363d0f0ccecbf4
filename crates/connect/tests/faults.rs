//! Faults: each ends in the documented state with a clear message, without a hang and without
//! a leaked process. Real processes: shell one-liners, the reference server, and a plain Node
//! server of ours for what the reference servers do not do (tests/fixtures/servers).

mod support;

use support::{edge, everything};

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_manager_connect::stderr::{StderrLog, MAX_BYTES};
use mcp_manager_connect::{Connection, ServerStatus, Settings, Supervisor};
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::entry::ServerConfig;
use serde_json::{json, Value};

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(marker) && !stat.contains(") Z ") {
            found.push(pid);
        }
    }
    found
}

fn marker(name: &str) -> String {
    format!("mcp-fault-{name}-{}", std::process::id())
}

async fn open(config: &ServerConfig, timeout: Duration) -> Result<Connection, String> {
    let dir = std::env::temp_dir();
    Connection::open(config, &dir, timeout, StderrLog::default())
        .await
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn exits_at_once_with_a_message_on_stderr() {
    let config = ServerConfig::stdio(
        "sh",
        vec![
            "-c".into(),
            "echo 'cannot open database: permission denied' >&2; exit 3".into(),
        ],
        vec![],
    );
    let err = open(&config, Duration::from_secs(10)).await.unwrap_err();
    assert!(err.contains("exited before initialize: status 3"), "{err}");
    assert!(
        err.contains("cannot open database: permission denied"),
        "the stderr tail is attached: {err}"
    );
}

#[tokio::test]
async fn a_command_that_does_not_exist_is_named() {
    let config = ServerConfig::stdio("/nonexistent/mcp-server", vec![], vec![]);
    let err = open(&config, Duration::from_secs(10)).await.unwrap_err();
    assert!(
        err.contains("could not start `/nonexistent/mcp-server`"),
        "{err}"
    );
}

#[tokio::test]
async fn hangs_on_initialize_times_out_and_leaves_no_process() {
    let mark = marker("hang");
    let config = ServerConfig::stdio(
        "sh",
        vec![
            "-c".into(),
            "echo waiting >&2; exec sleep 600".into(),
            mark.clone(),
        ],
        vec![],
    );
    let started = Instant::now();
    let err = open(&config, Duration::from_secs(1)).await.unwrap_err();
    assert!(err.contains("no answer to initialize within 1s"), "{err}");
    assert!(
        err.contains("waiting"),
        "stderr is attached to a timeout too: {err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "no hang: {:?}",
        started.elapsed()
    );
    assert!(
        processes_with(&mark).is_empty(),
        "the hung process was killed"
    );
}

#[tokio::test]
async fn garbage_on_stdout_fails_cleanly() {
    let mark = marker("garbage");
    let script = "while true; do echo 'this is not JSON-RPC'; echo '{\"jsonrpc\": \"2.0\", \"bogus\": true}'; sleep 0.05; done";
    let config = ServerConfig::stdio("sh", vec!["-c".into(), script.into(), mark.clone()], vec![]);
    let err = open(&config, Duration::from_secs(2)).await.unwrap_err();
    assert!(err.contains("no answer to initialize within 2s"), "{err}");
    assert!(processes_with(&mark).is_empty());
}

#[tokio::test]
async fn a_stderr_flood_stays_bounded_and_the_server_still_works() {
    let script = format!(
        "head -c 20000000 /dev/zero | tr '\\0' 'e' | fold -w 100 >&2; exec node {} stdio",
        everything()
    );
    let config = ServerConfig::stdio("sh", vec!["-c".into(), script], vec![]);
    let stderr = StderrLog::default();
    let connection = Connection::open(
        &config,
        &std::env::temp_dir(),
        Duration::from_secs(60),
        stderr.clone(),
    )
    .await
    .unwrap();
    let outcome = connection
        .call_tool(
            "echo",
            Some(
                json!({"message": "still here"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            None,
        )
        .await
        .unwrap();
    assert_eq!(outcome.result["content"][0]["text"], "Echo: still here");
    let kept: usize = stderr.lines().iter().map(|l| l.len() + 1).sum();
    assert!(kept <= MAX_BYTES, "kept {kept} bytes of stderr");
    assert!(
        stderr.dropped_lines() > 100_000,
        "20 MB were read and dropped: {}",
        stderr.dropped_lines()
    );
    connection.shutdown().await;
}

#[tokio::test]
async fn a_fifty_megabyte_result_arrives_whole() {
    let config = ServerConfig::stdio("node", vec![edge()], vec![]);
    let connection = open(&config, Duration::from_secs(30)).await.unwrap();
    let outcome = connection
        .call_tool(
            "huge",
            Some(json!({"megabytes": 50}).as_object().unwrap().clone()),
            None,
        )
        .await
        .unwrap();
    let text = outcome.result["content"][0]["text"].as_str().unwrap();
    assert_eq!(text.len(), 50 * 1024 * 1024);
    eprintln!("50 MB result in {} ms", outcome.elapsed_ms);
    connection.shutdown().await;
}

#[tokio::test]
async fn ten_thousand_notifications_do_not_drown_the_answer() {
    let config = ServerConfig::stdio("node", vec![edge()], vec![]);
    let connection = open(&config, Duration::from_secs(30)).await.unwrap();
    let started = Instant::now();
    let outcome = connection
        .call_tool(
            "flood",
            Some(json!({"count": 10000}).as_object().unwrap().clone()),
            Some(Duration::from_secs(30)),
        )
        .await
        .unwrap();
    assert_eq!(outcome.result["content"][0]["text"], "sent 10000");
    eprintln!(
        "10,000 notifications then the answer in {:?}",
        started.elapsed()
    );
    let ping = connection
        .call_tool(
            "flood",
            Some(json!({"count": 1}).as_object().unwrap().clone()),
            Some(Duration::from_secs(5)),
        )
        .await;
    assert!(ping.is_ok(), "the session still works");
    connection.shutdown().await;
}

/// The `notifications/cancelled` the edge server has received so far.
async fn cancellations(connection: &Connection) -> Vec<Value> {
    let seen = connection
        .call_tool("cancellations", None, Some(Duration::from_secs(5)))
        .await
        .unwrap();
    serde_json::from_str(seen.result["content"][0]["text"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn a_tool_timeout_cancels_and_the_session_goes_on() {
    let config = ServerConfig::stdio("node", vec![edge()], vec![]);
    let connection = open(&config, Duration::from_secs(30)).await.unwrap();
    let err = connection
        .call_tool("never", None, Some(Duration::from_millis(300)))
        .await
        .unwrap_err();
    assert!(err.to_string().to_lowercase().contains("timeout"), "{err}");
    let again = connection
        .call_tool(
            "flood",
            Some(json!({"count": 0}).as_object().unwrap().clone()),
            Some(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    assert_eq!(again.result["content"][0]["text"], "sent 0");
    let cancelled = cancellations(&connection).await;
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert_eq!(cancelled[0]["reason"], "request timeout");
    assert!(cancelled[0]["requestId"].is_i64(), "{cancelled:?}");
    connection.shutdown().await;
}

#[tokio::test]
async fn a_call_its_caller_gives_up_on_is_cancelled_at_the_server() {
    let config = ServerConfig::stdio("node", vec![edge()], vec![]);
    let connection = open(&config, Duration::from_secs(30)).await.unwrap();
    // The caller stops waiting (a person pressed Cancel, mcpctl got Ctrl-C): the future
    // is dropped.
    let gave_up = tokio::time::timeout(
        Duration::from_millis(200),
        connection.call_tool("never", None, None),
    )
    .await;
    assert!(gave_up.is_err(), "the call never answers");
    let cancelled = cancellations(&connection).await;
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert!(cancelled[0]["requestId"].is_i64(), "{cancelled:?}");
    assert_ne!(cancelled[0]["reason"], "request timeout");
    // The answer, if it ever came, would go nowhere; the session goes on.
    let again = connection
        .call_tool(
            "flood",
            Some(json!({"count": 1}).as_object().unwrap().clone()),
            None,
        )
        .await
        .unwrap();
    assert_eq!(again.result["content"][0]["text"], "sent 1");
    connection.shutdown().await;
}

#[tokio::test]
async fn a_server_killed_mid_call_fails_the_call_and_becomes_failed() {
    let world = support::World::with_servers(
        serde_json::json!({"victim": {"command": "node", "args": [edge()]}}),
    );
    let locations = world.locations.clone();
    let supervisor: Arc<Supervisor> =
        Supervisor::new(locations.project.clone(), Settings::default());
    let mut events = supervisor.subscribe();
    supervisor.start(&Catalog::load(&locations)).await;
    let connection = supervisor.connection("victim").expect("connected");
    let pid = connection.pid().unwrap();
    let call = tokio::spawn({
        let connection = Arc::clone(&connection);
        async move { connection.call_tool("never", None, None).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    std::process::Command::new("kill")
        .arg("-9")
        .arg(pid.to_string())
        .status()
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the call does not hang")
        .unwrap();
    assert!(result.is_err(), "the call fails: {result:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut last = None;
    while Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_millis(200), events.recv()).await {
            Ok(Ok(event)) if event.server == "victim" => last = Some(event.status),
            _ => {}
        }
        if matches!(last, Some(ServerStatus::Failed { .. })) {
            break;
        }
    }
    match last {
        Some(ServerStatus::Failed { error }) => {
            assert!(error.contains("exited with signal 9"), "{error}")
        }
        other => panic!("expected failed, got {other:?}"),
    }
    supervisor.shutdown().await;
}

#[tokio::test]
async fn a_tool_result_is_kept_whole_down_to_fields_no_spec_names() {
    let config = ServerConfig::stdio("node", vec![edge()], vec![]);
    let connection = open(&config, Duration::from_secs(30)).await.unwrap();
    let outcome = connection.call_tool("whole", None, None).await.unwrap();
    assert_eq!(
        outcome.result,
        json!({
            "content": [
                {"type": "text", "text": "plain", "annotations": {"audience": ["user"], "priority": 0.5}, "_meta": {"example.com/x": 1}},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///tmp/a.txt", "name": "a.txt", "mimeType": "text/plain"},
                {"type": "resource", "resource": {"uri": "file:///tmp/b.txt", "mimeType": "text/plain", "text": "embedded"}},
            ],
            "structuredContent": {"n": 1, "nested": {"list": [1, 2.5, "three", null]}},
            "isError": false,
            "_meta": {"example.com/trace": "abc"},
            "laterSpecField": {"kept": true},
        })
    );
    assert!(!outcome.is_error);
    connection.shutdown().await;
}

#[tokio::test]
async fn a_start_that_ends_after_a_restart_does_not_overwrite_the_restarts_state() {
    // The first start of this server waits 3 s and then fails; every later start runs the
    // real server. A restart asked for meanwhile (as a login finishing during a change of
    // its store does) connects first: the first start's late failure must not replace it.
    let world = support::World::with_servers(serde_json::json!({}));
    let first = world.locations.project.join("first-start-done");
    let script = format!(
        "if [ -e '{first}' ]; then exec node '{edge}'; fi; : > '{first}'; sleep 3; \
         echo 'the first start gave up' >&2; exit 7",
        first = first.display(),
        edge = edge()
    );
    world.write_servers(serde_json::json!({"slow": {"command": "sh", "args": ["-c", script]}}));
    let locations = world.locations.clone();
    let supervisor: Arc<Supervisor> =
        Supervisor::new(locations.project.clone(), Settings::default());
    let catalog = Catalog::load(&locations);
    let starting = tokio::spawn({
        let (supervisor, locations) = (Arc::clone(&supervisor), locations.clone());
        async move { supervisor.start(&Catalog::load(&locations)).await }
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while !first.exists() {
        assert!(Instant::now() < deadline, "the first start never began");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    supervisor.restart(&catalog, "slow").await;
    assert!(
        supervisor.connection("slow").is_some(),
        "the restart connected"
    );
    tokio::time::timeout(Duration::from_secs(15), starting)
        .await
        .expect("the first start ends")
        .unwrap();
    let status = supervisor
        .statuses()
        .into_iter()
        .find(|event| event.server == "slow")
        .map(|event| event.status);
    assert!(
        matches!(status, Some(ServerStatus::Connected(_))),
        "the restart's session stays: {status:?}"
    );
    assert!(supervisor.connection("slow").is_some());
    supervisor.shutdown().await;
}

#[tokio::test]
async fn a_listing_that_cannot_be_read_fails_after_the_list_timeout_instead_of_waiting_for_ever() {
    // A server that answers tools/list with a schema nested past the JSON parser's depth:
    // Claude Code's JSON.parse reads it, ours cannot, and no other answer ever comes.
    let script = r#"
const rl = require("node:readline").createInterface({ input: process.stdin });
let deep = '{"type":"string"}';
for (let i = 0; i < 70; i++) deep = '{"type":"object","properties":{"p":' + deep + '}}';
const send = (s) => process.stdout.write(s + "\n");
rl.on("line", (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  if (method === "initialize") send(JSON.stringify({ jsonrpc: "2.0", id, result: {
    protocolVersion: params.protocolVersion, capabilities: { tools: {} },
    serverInfo: { name: "deep", version: "1" } } }));
  else if (method === "tools/list") send('{"jsonrpc":"2.0","id":' + JSON.stringify(id) +
    ',"result":{"tools":[{"name":"deep","inputSchema":' + deep + '}]}}');
  else send(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message: "no" } }));
});"#;
    let config = ServerConfig::stdio("node", vec!["-e".into(), script.into()], vec![]);
    let connection = open(&config, Duration::from_secs(20))
        .await
        .expect("it starts")
        .with_list_timeout(Duration::from_secs(2));
    let started = Instant::now();
    let listed = tokio::time::timeout(Duration::from_secs(20), connection.list_tools())
        .await
        .expect("the listing ends by itself");
    let err = listed.expect_err("an unreadable listing is a failure");
    assert!(err.to_string().contains("timeout"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10));
    connection.shutdown().await;
}
