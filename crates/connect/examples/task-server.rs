//! A server of the MCP Tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) over stdio,
//! built on the official Rust SDK's server side (rmcp) and its `TaskManager`, for the tests of
//! tasks: the SDK's TypeScript server 2.4 has no tasks. It speaks 2026-07-28 (and the
//! `initialize` era, as rmcp's servers do).
//!
//! Its tools, each run as a task when the request declares the extension and at once when not:
//! - `build {steps}`: `steps` tenths of a second, saying "step N of M" as its status message;
//!   "built in M steps" (and "(no task)" when it ran at once).
//! - `approve {change}`: asks the person (an elicitation, through `input_required` and
//!   `tasks/update`) who approves; "CHANGE approved by NAME", or declined.
//! - `forever`: works until it is cancelled (`tasks/cancel`); then the task is `cancelled`.
//! - `cancelled`: how many tasks were cancelled so far.
//!
//! `cargo test` builds it (examples are part of every test build): the tests run
//! `target/debug/examples/task-server`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::*;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{json, Value};

#[derive(Clone)]
struct Tasks {
    tasks: TaskManager,
    cancelled: Arc<AtomicU32>,
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    let schema = schema.as_object().cloned().unwrap_or_default();
    Tool::new(name.to_string(), description.to_string(), Arc::new(schema))
}

impl Tasks {
    /// The work of one tool, given its task (`None`: run at once).
    async fn run(
        self,
        name: String,
        arguments: serde_json::Map<String, Value>,
        task: Option<TaskContext>,
    ) -> Result<CallToolResult, TaskExit> {
        match name.as_str() {
            "build" => {
                let steps = arguments.get("steps").and_then(Value::as_u64).unwrap_or(3);
                for step in 1..=steps {
                    if let Some(task) = &task {
                        task.set_status_message(format!("step {step} of {steps}"));
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                let how = if task.is_some() { "" } else { " (no task)" };
                Ok(text(format!("built in {steps} steps{how}")))
            }
            "approve" => {
                let change = arguments
                    .get("change")
                    .and_then(Value::as_str)
                    .unwrap_or("the change")
                    .to_string();
                let Some(task) = task else {
                    return Ok(text(format!("{change} needs a task to ask who approves")));
                };
                let request: InputRequest = serde_json::from_value(json!({
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": format!("Who approves {change}?"),
                        "requestedSchema": {
                            "type": "object",
                            "properties": {"name": {"type": "string"}},
                            "required": ["name"]
                        }
                    }
                }))
                .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
                task.set_status_message("waiting for an approver");
                let answer = task.request_input("approver", request).await?;
                match answer["content"]["name"].as_str() {
                    Some(name) if answer["action"] == "accept" => {
                        Ok(text(format!("{change} approved by {name}")))
                    }
                    _ => Ok(text(format!("{change} was not approved"))),
                }
            }
            "forever" => {
                let Some(task) = task else {
                    return Ok(text("forever needs a task"));
                };
                task.set_status_message("working until cancelled");
                task.cancelled().await;
                self.cancelled.fetch_add(1, Ordering::SeqCst);
                Err(TaskExit::Cancelled)
            }
            "cancelled" => Ok(text(self.cancelled.load(Ordering::SeqCst).to_string())),
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None).into()),
        }
    }
}

impl ServerHandler for Tasks {
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let steps = json!({"type": "object", "properties": {"steps": {"type": "integer"}}});
        let change = json!({"type": "object", "properties": {"change": {"type": "string"}}, "required": ["change"]});
        let none = json!({"type": "object"});
        Ok(ListToolsResult::with_all_items(vec![
            tool("build", "Builds in steps tenths of a second", steps),
            tool("approve", "Asks who approves the change", change),
            tool("forever", "Works until cancelled", none.clone()),
            tool("cancelled", "How many tasks were cancelled", none),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let declared = context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks());
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        if !declared || name == "cancelled" {
            return match self.clone().run(name, arguments, None).await {
                Ok(result) => Ok(CallToolResponse::Complete(result)),
                Err(TaskExit::Error(error)) => Err(error),
                Err(TaskExit::Cancelled) => Err(ErrorData::internal_error("cancelled", None)),
            };
        }
        let this = self.clone();
        let options = TaskOptions::new()
            .with_poll_interval_ms(50)
            .with_status_message("started");
        let task = self.tasks.spawn(options, move |task| {
            Box::pin(async move { this.run(name, arguments, Some(task)).await })
        });
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }

    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        );
        info.server_info = Implementation::new("task-server", "1.0.0");
        info
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Tasks {
        tasks: TaskManager::new(),
        cancelled: Arc::default(),
    };
    let service = server.serve(rmcp::transport::io::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
