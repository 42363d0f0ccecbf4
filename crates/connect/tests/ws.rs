//! The WebSocket transport against a real WebSocket MCP server on 127.0.0.1
//! (tests/reference/ws-server.mjs, on the `ws` package).

mod support;

use std::time::Duration;

use mcp_manager_connect::{ServerStatus, Settings, Supervisor};
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use serde_json::json;

struct WsServer(std::process::Child, u16);

impl WsServer {
    fn start() -> WsServer {
        let (child, port) = support::listening("tests/reference/ws-server.mjs", &["0"]);
        WsServer(child, port)
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.1)
    }
}

impl Drop for WsServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn text(outcome: &mcp_manager_connect::CallOutcome) -> String {
    outcome.result["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_websocket_session_speaks_mcp_with_the_headers_and_ends_when_closed() {
    let server = WsServer::start();
    let config = ServerConfig::remote(
        TransportKind::Ws,
        server.url(),
        vec![("Authorization".into(), "Bearer t0k".into())],
    );
    let connection = support::open(&config).await.unwrap();
    assert_eq!(connection.info().server_name, "ws-server");
    let tools = connection.list_tools().await.unwrap();
    assert_eq!(tools.len(), 3);
    let echo = connection
        .call_tool("echo", Some(support::args(json!({"message": "hi"}))), None)
        .await
        .unwrap();
    assert_eq!(text(&echo), "Echo: hi");
    let headers = connection.call_tool("headers", None, None).await.unwrap();
    assert_eq!(text(&headers), "protocol=mcp authorization=Bearer t0k");

    connection.call_tool("close", None, None).await.unwrap();
    let ended = tokio::time::timeout(
        Duration::from_secs(5),
        connection.ended(Duration::from_secs(30)),
    )
    .await
    .expect("a closed socket ends the session");
    assert_eq!(ended, "the connection was closed");
}

#[tokio::test]
async fn the_supervisor_connects_ws_entries_and_reports_a_refused_one() {
    let server = WsServer::start();
    let world = support::World::with_servers(json!({
        "socket": {"type": "ws", "url": server.url()},
        "nobody": {"type": "ws", "url": "ws://127.0.0.1:9/"},
    }));
    let supervisor = Supervisor::new(world.locations.project.clone(), Settings::default());
    supervisor.start(&Catalog::load(&world.locations)).await;
    let statuses = supervisor.statuses();
    let status = |name: &str| {
        statuses
            .iter()
            .find(|s| s.server == name)
            .map(|s| s.status.clone())
            .unwrap()
    };
    assert!(
        matches!(status("socket"), ServerStatus::Connected(_)),
        "{:?}",
        status("socket")
    );
    match status("nobody") {
        ServerStatus::Failed { error } => assert!(error.contains("WebSocket"), "{error}"),
        other => panic!("{other:?}"),
    }
    supervisor.shutdown().await;
}
