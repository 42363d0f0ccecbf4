//! Tool calls run as tasks: the 2026-07-28 tasks extension (SEP-2663,
//! `io.modelcontextprotocol/tasks`).
//!
//! A call made as a task declares the extension in its request's client capabilities (every
//! other request leaves it out, so a server answers them at once, as Claude Code is answered).
//! The server then decides: it answers as usual, or with a task (`resultType: "task"`) that
//! the call follows to its end: `tasks/get` every `pollIntervalMs` (at least 50 ms, at most
//! 5 s, 1 s when the server names none), each new status or status message passed to the
//! caller as progress, an `input_required` answered as a multi-round call's input is (the
//! person, through the answerer; roots from the session) and sent with `tasks/update`, and the
//! final `result` (or `error`) returned as the call's own. Cancelling the call sends
//! `tasks/cancel` and waits a moment for the task to settle. Every `tasks/*` request declares
//! the extension too: servers refuse them otherwise (-32021).

use super::*;
use rmcp::model::{ClientRequest, RequestMetaObject};
use serde_json::json;

/// The fastest and slowest polling a server's `pollIntervalMs` is held to.
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(50), Duration::from_secs(5));
/// The polling when the server suggests none.
const POLL_DEFAULT: Duration = Duration::from_secs(1);
/// How long a cancelled task is polled for its terminal status.
const SETTLE: Duration = Duration::from_secs(5);

/// Why a call ended whose task the person cancelled.
pub const CANCELLED_TASK: &str = "task cancelled by the person";

fn task_cancelled() -> ServiceError {
    ServiceError::Cancelled {
        reason: Some(CANCELLED_TASK.into()),
    }
}

/// What became of a call the server ran as a task.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TaskRun {
    pub task_id: String,
    /// Its terminal status: completed, failed or cancelled.
    pub status: String,
    /// Each status it was seen in, with its message, in order ("working: step 1 of 3"), each
    /// change once.
    pub seen: Vec<String>,
    /// How many times `tasks/get` was asked.
    pub polls: u32,
    /// How many `tasks/update`s answered the server's input requests.
    pub updates: u32,
}

/// The client capabilities a task's requests declare: ours with the tasks extension.
pub(crate) fn declaring(capabilities: &rmcp::model::ClientCapabilities) -> Value {
    let mut declared = serde_json::to_value(capabilities).unwrap_or_else(|_| json!({}));
    if let Some(map) = declared.as_object_mut() {
        let extensions = map.entry("extensions").or_insert_with(|| json!({}));
        if let Some(extensions) = extensions.as_object_mut() {
            extensions.insert(rmcp::model::TASKS_EXTENSION_ID.into(), json!({}));
        }
    }
    declared
}

impl Connection {
    /// The `_meta` of a task's requests over rmcp: the tasks extension among our capabilities.
    fn task_meta(&self) -> Option<RequestMetaObject> {
        let capabilities = serde_json::from_value(self.task_capabilities.clone()?).ok()?;
        let mut meta = RequestMetaObject::new();
        meta.set_client_capabilities(capabilities);
        Some(meta)
    }

    /// Request options for a task's requests.
    pub(super) fn task_options(&self, timeout: Option<Duration>) -> PeerRequestOptions {
        let options = match timeout {
            Some(timeout) => PeerRequestOptions::with_timeout(timeout),
            None => PeerRequestOptions::no_options(),
        };
        match self.task_meta() {
            Some(meta) => options.with_meta(meta),
            None => options,
        }
    }

    /// One `tasks/*` request declaring the extension; its result as JSON.
    async fn task_request(
        &self,
        request: ClientRequest,
        timeout: Option<Duration>,
    ) -> Result<Value, ServiceError> {
        let handle = self
            .peer
            .send_request_with_option(request, self.task_options(timeout))
            .await?;
        let answer = self.note(handle.await_response().await)?;
        Ok(serde_json::to_value(answer).unwrap_or(Value::Null))
    }

    /// Follows the task `created` (a `CreateTaskResult`) to its end: its final result, and
    /// what became of it. Each request waits at most `timeout`; the task as a whole as long
    /// as it runs, or until `cancel`.
    pub(super) async fn follow_task(
        &self,
        created: &Value,
        timeout: Option<Duration>,
        progress: Option<&tokio::sync::mpsc::UnboundedSender<Progress>>,
        cancel: &CancellationToken,
    ) -> Result<(Value, TaskRun), ServiceError> {
        let task_id = created
            .get("taskId")
            .and_then(Value::as_str)
            .ok_or(ServiceError::UnexpectedResponse)?
            .to_string();
        let mut run = TaskRun {
            task_id: task_id.clone(),
            status: String::new(),
            seen: Vec::new(),
            polls: 0,
            updates: 0,
        };
        let mut state = created.clone();
        let mut cancelled_at: Option<Instant> = None;
        loop {
            let status = state
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("working")
                .to_string();
            let seen = match state.get("statusMessage").and_then(Value::as_str) {
                Some(message) => format!("{status}: {message}"),
                None => status.clone(),
            };
            if run.seen.last() != Some(&seen) {
                if let Some(progress) = progress {
                    let _ = progress.send(Progress {
                        progress: run.seen.len() as f64 + 1.0,
                        total: None,
                        message: Some(format!("task {seen}")),
                    });
                }
                run.seen.push(seen);
            }
            match status.as_str() {
                // Also after a cancel: cancelling is cooperative, and work that finished all
                // the same is worth showing.
                "completed" => {
                    run.status = status;
                    let result = state.get("result").cloned().unwrap_or(Value::Null);
                    return Ok((result, run));
                }
                "failed" => {
                    let error = state.get("error").cloned().unwrap_or(Value::Null);
                    let error = serde_json::from_value(error).unwrap_or_else(|_| {
                        rmcp::ErrorData::internal_error("the task failed and said no more", None)
                    });
                    return Err(ServiceError::McpError(error));
                }
                "cancelled" => {
                    return Err(match cancelled_at {
                        Some(_) => task_cancelled(),
                        None => ServiceError::McpError(rmcp::ErrorData::internal_error(
                            "the server cancelled the task",
                            None,
                        )),
                    })
                }
                "input_required" if cancelled_at.is_none() => {
                    let round = tokio::select! {
                        round = self.answer_input(&state) => round?,
                        _ = cancel.cancelled() => {
                            cancelled_at = Some(self.cancel_task(&task_id, timeout).await);
                            state = self.get_task(&task_id, timeout, &mut run).await?;
                            continue;
                        }
                    };
                    let params = json!({"taskId": task_id, "inputResponses": round.responses});
                    let params = serde_json::from_value(params)
                        .map_err(|_| ServiceError::UnexpectedResponse)?;
                    let update = rmcp::model::UpdateTaskRequest::new(params);
                    self.task_request(ClientRequest::UpdateTaskRequest(update), timeout)
                        .await?;
                    run.updates += 1;
                }
                _ => {}
            }
            if let Some(at) = cancelled_at {
                if at.elapsed() > SETTLE {
                    return Err(task_cancelled());
                }
            }
            let pause = state
                .get("pollIntervalMs")
                .and_then(Value::as_u64)
                .map(Duration::from_millis)
                .unwrap_or(POLL_DEFAULT)
                .clamp(POLL_BOUNDS.0, POLL_BOUNDS.1);
            tokio::select! {
                _ = tokio::time::sleep(pause) => {}
                _ = cancel.cancelled(), if cancelled_at.is_none() => {
                    cancelled_at = Some(self.cancel_task(&task_id, timeout).await);
                }
            }
            state = self.get_task(&task_id, timeout, &mut run).await?;
        }
    }

    async fn get_task(
        &self,
        task_id: &str,
        timeout: Option<Duration>,
        run: &mut TaskRun,
    ) -> Result<Value, ServiceError> {
        run.polls += 1;
        let get = rmcp::model::GetTaskRequest::new(rmcp::model::GetTaskParams::new(task_id));
        self.task_request(ClientRequest::GetTaskRequest(get), timeout)
            .await
    }

    /// `tasks/cancel` (its failure is not the call's: the task is polled all the same).
    async fn cancel_task(&self, task_id: &str, timeout: Option<Duration>) -> Instant {
        let params = rmcp::model::CancelTaskParams::new(task_id);
        let request = ClientRequest::CancelTaskRequest(rmcp::model::CancelTaskRequest::new(params));
        let _ = self.task_request(request, timeout).await;
        Instant::now()
    }
}
