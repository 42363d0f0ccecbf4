//! Tool calls run as tasks (the 2026-07-28 tasks extension, SEP-2663) against a server built on
//! the official Rust SDK's server side and its `TaskManager` (`examples/task-server.rs`, over
//! stdio, and over streamable HTTP through `tests/fixtures/servers/http-bridge.mjs`): started as
//! a task only when asked, polled with `tasks/get` to the end with its statuses passed on as
//! progress, its input request answered with `tasks/update`, and cancelled with `tasks/cancel`.

mod support;

use std::sync::Arc;
use std::time::Duration;

use mcp_manager_connect::answer::{Answerer, Decline, FixedAnswer};
use mcp_manager_connect::protocol_log::{Direction, ProtocolLog};
use mcp_manager_connect::Connection;
use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The task server over streamable HTTP, through the bridge; killed when dropped.
struct OverHttp {
    child: std::process::Child,
    url: String,
}

impl OverHttp {
    fn start() -> OverHttp {
        let program = support::task_server_program();
        let (child, url) =
            support::printing_url("tests/fixtures/servers/http-bridge.mjs", &[&program], &[]);
        OverHttp { child, url }
    }

    fn config(&self) -> ServerConfig {
        ServerConfig::remote(TransportKind::Http, &self.url, vec![])
    }
}

impl Drop for OverHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn open(config: &ServerConfig, answerer: Arc<dyn Answerer>, log: &ProtocolLog) -> Connection {
    support::open_logged(config, answerer, log).await
}

/// The task server over stdio, in the 2026-07-28 era its tasks are of. It speaks both eras,
/// and a first start opens such a server with `initialize` (the era is found out beside it, for
/// the next start: `era.rs`), so the entry sets the era, as a person may.
fn task_server() -> ServerConfig {
    let mut config = support::task_server();
    config.protocol = mcp_manager_core::config::entry::ProtocolChoice::Modern;
    config
}

fn sent(log: &ProtocolLog, method: &str) -> Vec<String> {
    log.entries(0)
        .into_iter()
        .filter(|m| m.direction == Direction::Out && m.method.as_deref() == Some(method))
        .map(|m| m.text)
        .collect()
}

#[tokio::test]
async fn a_call_asked_to_run_as_a_task_is_followed_to_its_result_with_its_statuses_as_progress() {
    let http = OverHttp::start();
    for config in [task_server(), http.config()] {
        let log = ProtocolLog::default();
        let connection = open(&config, Arc::new(Decline), &log).await;
        assert!(
            connection.info().capabilities.tasks,
            "the server declares the extension"
        );

        // Not asked: the server answers at once, as it must for a client that did not declare
        // the extension.
        let plain = connection
            .call_tool("build", Some(support::args(json!({"steps": 1}))), None)
            .await
            .unwrap();
        assert_eq!(
            plain.result["content"][0]["text"],
            "built in 1 steps (no task)"
        );
        assert!(plain.task.is_none());

        let (sink, mut progress) = tokio::sync::mpsc::unbounded_channel();
        let outcome = connection
            .call_tool_as(
                "build",
                Some(support::args(json!({"steps": 3}))),
                Some(Duration::from_secs(10)),
                Some(sink),
                CancellationToken::new(),
                true,
            )
            .await
            .unwrap();
        assert_eq!(outcome.result["content"][0]["text"], "built in 3 steps");
        let task = outcome.task.expect("the server made a task of it");
        assert_eq!(task.status, "completed");
        assert!(task.polls >= 2, "it was polled until done: {task:?}");
        assert_eq!(
            task.seen.first().map(String::as_str),
            Some("working: started")
        );
        assert_eq!(
            task.seen.last().map(String::as_str),
            Some("completed: step 3 of 3")
        );
        let mut messages = Vec::new();
        while let Ok(step) = progress.try_recv() {
            messages.extend(step.message);
        }
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("task working: step ")),
            "each status reached the caller as progress: {messages:?}"
        );
        let call = &sent(&log, "tools/call")[1];
        assert!(
            call.contains("io.modelcontextprotocol/tasks"),
            "the call declared the extension: {call}"
        );
        assert!(
            !sent(&log, "tools/call")[0].contains("io.modelcontextprotocol/tasks"),
            "a plain call does not"
        );
        for get in sent(&log, "tasks/get") {
            assert!(get.contains("io.modelcontextprotocol/tasks"), "{get}");
            assert!(get.contains(&task.task_id), "{get}");
        }
    }
}

#[tokio::test]
async fn a_task_that_needs_input_is_answered_with_tasks_update() {
    let http = OverHttp::start();
    for config in [task_server(), http.config()] {
        let log = ProtocolLog::default();
        let answerer = Arc::new(FixedAnswer(json!({"name": "Ada"})));
        let connection = open(&config, answerer.clone(), &log).await;
        let outcome = connection
            .call_tool_as(
                "approve",
                Some(support::args(json!({"change": "release 7"}))),
                Some(Duration::from_secs(10)),
                None,
                CancellationToken::new(),
                true,
            )
            .await
            .unwrap();
        assert_eq!(
            outcome.result["content"][0]["text"],
            "release 7 approved by Ada"
        );
        let task = outcome.task.unwrap();
        assert_eq!(task.updates, 1);
        assert!(
            task.seen
                .iter()
                .any(|s| s == "input_required: waiting for an approver"),
            "{task:?}"
        );
        let update = &sent(&log, "tasks/update")[0];
        assert!(
            update.contains("\"approver\"") && update.contains("Ada"),
            "{update}"
        );
        assert!(update.contains("io.modelcontextprotocol/tasks"), "{update}");
    }
}

#[tokio::test]
async fn a_cancelled_task_is_cancelled_at_the_server() {
    let http = OverHttp::start();
    for config in [task_server(), http.config()] {
        let log = ProtocolLog::default();
        let connection = open(&config, Arc::new(Decline), &log).await;
        let cancel = CancellationToken::new();
        let stop = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            stop.cancel();
        });
        let cancelled = connection
            .call_tool_as(
                "forever",
                None,
                Some(Duration::from_secs(10)),
                None,
                cancel,
                true,
            )
            .await;
        assert!(
            matches!(
                cancelled,
                Err(mcp_manager_connect::connection::ServiceError::Cancelled { .. })
            ),
            "{cancelled:?}"
        );
        let cancels = sent(&log, "tasks/cancel");
        assert_eq!(cancels.len(), 1);
        assert!(
            cancels[0].contains("io.modelcontextprotocol/tasks"),
            "{cancels:?}"
        );
        assert_eq!(
            support::text_of(&connection, "cancelled", json!({})).await,
            "1",
            "the server's task saw the cancellation"
        );
    }
}
