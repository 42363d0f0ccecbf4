//! Trying tools by hand through the hosted project, as the window does: the tool list with
//! whole schemas, and a call whose exchange is the one that went over the wire.

mod support;

use mcp_manager_connect::project::LiveProject;
use mcp_manager_connect::Settings;
use serde_json::{json, Value};

#[tokio::test]
async fn tools_come_with_whole_schemas_and_a_call_with_its_exact_exchange() {
    let world = support::World::with_servers(json!({
        "everything": {"command": "node", "args": [support::everything(), "stdio"]}
    }));
    let project = LiveProject::open(world.locations.clone(), Settings::default());
    project.supervisor().keep_protocol_logs();
    project.start().await;

    let tools = project.tools("everything").await.unwrap();
    let sum = tools
        .iter()
        .find(|t| t.name == "get-sum")
        .expect("get-sum is listed");
    let schema: Value = serde_json::from_str(&sum.input_schema).unwrap();
    assert_eq!(
        schema["$schema"], "http://json-schema.org/draft-07/schema#",
        "kept whole"
    );
    assert_eq!(schema["properties"]["a"]["type"], "number");

    let call = project
        .call_tool("everything", "get-sum", r#"{"a": 2, "b": 3.5}"#)
        .await
        .unwrap();
    assert!(!call.is_error);
    let result: Value = serde_json::from_str(&call.result).unwrap();
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("5.5"),
        "{result}"
    );
    let request: Value =
        serde_json::from_str(call.request.as_deref().expect("the request")).unwrap();
    assert_eq!(request["method"], "tools/call");
    assert_eq!(request["params"]["arguments"], json!({"a": 2, "b": 3.5}));
    let response: Value =
        serde_json::from_str(call.response.as_deref().expect("the response")).unwrap();
    assert_eq!(response["id"], request["id"], "the answer to that request");
    assert_eq!(response["result"], result);

    let err = project
        .call_tool("everything", "get-sum", "[1]")
        .await
        .unwrap_err();
    assert!(
        err.message
            .starts_with("the arguments are not a JSON object"),
        "{}",
        err.message
    );
    let err = project.tools("nobody").await.unwrap_err();
    assert_eq!(
        err.message,
        "\"nobody\" is not connected: start it (or log in) first"
    );
    project.shutdown().await;
}

#[tokio::test]
async fn a_call_over_http_is_cancelled_at_once_and_the_server_is_told() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = std::process::Command::new("node")
        .args([support::everything().as_str(), "streamableHttp"])
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "server-everything listens"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let world = support::World::with_servers(json!({
        "remote": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}
    }));
    let project = LiveProject::open(world.locations.clone(), Settings::default());
    project.supervisor().keep_protocol_logs();
    project.start().await;

    let (sink, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let call = {
        let project = std::sync::Arc::clone(&project);
        tokio::spawn(async move {
            project
                .call_tool_watched(
                    "remote",
                    "trigger-long-running-operation",
                    r#"{"duration": 30, "steps": 30}"#,
                    Some(7),
                    Some(sink),
                    false,
                )
                .await
        })
    };
    let first = tokio::time::timeout(std::time::Duration::from_secs(10), progress.recv())
        .await
        .expect("progress comes")
        .unwrap();
    assert_eq!(first.total, Some(30.0));
    let cancelled_at = std::time::Instant::now();
    assert!(project.cancel_call(7));
    let err = call.await.unwrap().unwrap_err();
    assert!(cancelled_at.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(
        err.message,
        "\"remote\": the call was cancelled; the server was told (notifications/cancelled)"
    );
    assert!(!project.cancel_call(7), "no longer running");
    let told = project.protocol_log("remote", 0).into_iter().any(|m| {
        m.method.as_deref() == Some("notifications/cancelled")
            && m.text.contains("cancelled by the person")
    });
    assert!(told, "notifications/cancelled went out");
    project.shutdown().await;
    let _ = server.kill();
    let _ = server.wait();
}

/// server-everything says five times, as it connects, that its tools changed. Each notice
/// waiting when the tools are fetched again is answered by that one fetch, and asks for the
/// server's surface (the app asks on each connection and each list change) that come while one
/// is read are answered by one reading after it: before, this took six fetches of the tools
/// list after the first, and six readings of four lists each.
#[tokio::test]
async fn a_burst_of_list_changes_is_answered_by_few_fetches() {
    let world = support::World::with_servers(json!({
        "everything": {"command": "node", "args": [support::everything(), "stdio"]}
    }));
    let project = LiveProject::open(world.locations.clone(), Settings::default());
    project.supervisor().keep_protocol_logs();
    let data = tempfile::tempdir().unwrap();
    project
        .set_history(mcp_manager_history::History::open(&data.path().join("history.sqlite")).await);
    project.start().await;
    let tools_asked = |project: &LiveProject| {
        project
            .protocol_log("everything", 0)
            .iter()
            .filter(|m| {
                m.method.as_deref() == Some("tools/list")
                    && m.kind == mcp_manager_connect::protocol_log::MessageKind::Request
            })
            .count()
    };
    let notices = |project: &LiveProject| {
        project
            .protocol_log("everything", 0)
            .iter()
            .filter(|m| m.method.as_deref() == Some("notifications/tools/list_changed"))
            .count()
    };
    // The notices come with the first lists; their fetch follows.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let (asked, told) = (tools_asked(&project), notices(&project));
    assert!(
        told >= 3,
        "server-everything said its tools changed {told} times"
    );
    assert!(
        asked <= 3,
        "{asked} tools/list requests for {told} notices (one for the counts, then one per burst)"
    );

    // Six asks at once, as the app makes them for a connection and its list changes.
    let asks = (0..6).map(|_| {
        let project = std::sync::Arc::clone(&project);
        tokio::spawn(async move { project.keep_surface("everything").await })
    });
    let answers = futures::future::join_all(asks).await;
    for answer in answers {
        answer.unwrap().expect("the surface is read");
    }
    let read = tools_asked(&project) - asked;
    assert!(
        (1..=2).contains(&read),
        "six asks for the surface read the tools {read} times"
    );
    project.shutdown().await;
}
