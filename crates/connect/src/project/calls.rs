//! Trying tools by hand: a server's tools as the window shows them, and a call with the exact
//! JSON-RPC exchange it made.
//!
//! Schemas and results cross to the window as JSON text, unparsed: the window's form engine
//! reads the schema itself (keywords we do not model are kept, never dropped), and a result is
//! shown as the server sent it. The exchange is read back from the server's protocol log, so
//! the request shown is the request sent, id and all, whichever path (the fast stdio path or
//! rmcp) carried it.

use std::time::Duration;

use mcp_manager_core::ApiError;
use serde::Serialize;

use mcp_manager_history::{
    scrub_call, CallFilter, CallRecord, CallStatus, History, HistoryError, NewCall,
};

use super::{refused, LiveProject};
use crate::protocol_log::Direction;

/// One tool as the window lists it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolView {
    pub name: String,
    pub title: Option<String>,
    /// Whole, with control and format characters stripped.
    pub description: Option<String>,
    /// The name Claude Code gives its model (`mcp__server__tool`, rewritten as it does).
    pub name_for_model: String,
    /// The description Claude Code gives its model (cut, or with a constraint put before it);
    /// `None` when Claude Code does not send the tool.
    pub description_for_model: Option<String>,
    /// What clients cut or drop of this tool (the badges on it).
    pub client_notes: Vec<super::clients::ClientNote>,
    /// The inputSchema as JSON text, whole.
    pub input_schema: String,
    pub output_schema: Option<String>,
    pub annotations: Option<String>,
    /// The tool's `_meta` as JSON text, whole.
    pub meta: Option<String>,
}

/// One connected server's tools, for the list of every server's tools.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerTools {
    pub server: String,
    pub tools: Vec<ToolView>,
    /// Why the list could not be had (the server is still connected).
    pub problem: Option<String>,
}

/// A finished call: the exchange as it went over the wire, and the result's facts.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallView {
    /// The `tools/call` request as sent (JSON text), when the protocol log kept it.
    pub request: Option<String>,
    /// The response as received (JSON text), when the protocol log kept it.
    pub response: Option<String>,
    /// The `CallToolResult` as JSON text.
    pub result: String,
    pub is_error: bool,
    pub elapsed_ms: u32,
    /// Where `structuredContent` breaks the tool's `outputSchema`.
    pub schema_errors: Vec<String>,
    /// The call's id in the history, when it was kept.
    pub history_id: Option<u32>,
    /// Why the call was not kept, when the history failed.
    pub history_problem: Option<String>,
    /// Each `input_required` result before the final one (2026-07-28), as JSON text: what the
    /// server asked for in each round.
    pub input_rounds: Vec<String>,
    /// When the server ran the call as a task: what became of it.
    pub task: Option<crate::connection::TaskRun>,
    /// What Claude Code would have done with this result (given it whole, cut it, or saved
    /// it to a file), in a sentence.
    pub for_claude_code: Option<String>,
}

impl LiveProject {
    /// Keeps every call made through [`Self::call_tool`] in `history` (or, when it could not
    /// be opened, says why to whoever asks for the history).
    pub fn set_history(&self, history: Result<History, HistoryError>) {
        *self.history.lock().expect("history lock") = Some(history);
    }

    /// The history calls are kept in, when one is open.
    pub fn history(&self) -> Option<History> {
        match &*self.history.lock().expect("history lock") {
            Some(Ok(history)) => Some(history.clone()),
            _ => None,
        }
    }

    fn open_history(&self) -> Result<History, ApiError> {
        match &*self.history.lock().expect("history lock") {
            Some(Ok(history)) => Ok(history.clone()),
            Some(Err(err)) => Err(refused(err.to_string())),
            None => Err(refused("no history is kept here".into())),
        }
    }

    /// The calls kept, newest first.
    pub async fn calls(&self, filter: &CallFilter) -> Result<Vec<CallRecord>, ApiError> {
        self.open_history()?
            .search(filter)
            .await
            .map_err(|err| refused(err.to_string()))
    }

    /// Saves a kept call under `name` (none: forgets the name).
    pub async fn name_call(&self, id: u32, name: Option<&str>) -> Result<bool, ApiError> {
        self.open_history()?
            .name(id, name)
            .await
            .map_err(|err| refused(err.to_string()))
    }

    /// Cancels a running call by the id its caller gave it; whether it was running.
    pub fn cancel_call(&self, call_id: u32) -> bool {
        match self.running.lock().expect("calls lock").remove(&call_id) {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Keeps a call, its secret fields scrubbed; the id, or why it was not kept.
    async fn keep(
        &self,
        call: NewCall,
        schema: Option<&serde_json::Value>,
    ) -> (Option<u32>, Option<String>) {
        let history = match self.open_history() {
            Ok(history) => history,
            // A history that could not be opened says so with every call; none was asked for
            // (a one-shot command that keeps nothing) says nothing.
            Err(err) if self.history.lock().expect("history lock").is_some() => {
                return (None, Some(err.message))
            }
            Err(_) => return (None, None),
        };
        let call = match schema {
            Some(schema) => {
                let (arguments, result) = scrub_call(&call.arguments, schema, call.result.as_ref());
                NewCall {
                    arguments,
                    result,
                    ..call
                }
            }
            None => call,
        };
        match history.record(&call).await {
            Ok(id) => (Some(id), None),
            Err(err) => (None, Some(err.to_string())),
        }
    }

    pub(super) fn connected(
        &self,
        server: &str,
    ) -> Result<std::sync::Arc<crate::Connection>, ApiError> {
        self.supervisor.connection(server).ok_or_else(|| {
            refused(format!(
                "\"{server}\" is not connected: start it (or log in) first"
            ))
        })
    }

    /// The tools of a connected server, as it lists them now, each with what clients make
    /// of it.
    pub async fn tools(&self, server: &str) -> Result<Vec<ToolView>, ApiError> {
        self.tools_in(server, &self.client_setting(), true).await
    }

    /// [`Self::tools`], with the client setting read once for many servers; the other
    /// clients' badges only when `others` (a list of every server adds them once for all).
    async fn tools_in(
        &self,
        server: &str,
        setting: &super::clients::ClientSetting,
        others: bool,
    ) -> Result<Vec<ToolView>, ApiError> {
        let connection = self.connected(server)?;
        let tools = connection.list_tools().await.map_err(|err| {
            refused(format!(
                "\"{server}\": {}",
                crate::connection::plain(&err.to_string())
            ))
        })?;
        let listed = connection.last_listing_as_sent();
        let mut notes = Self::client_notes(setting, server, &listed);
        let mut badges = if others {
            super::clients::other_badges(&self.other_clients(setting), server)
        } else {
            Default::default()
        };
        let text = |value: &serde_json::Value| serde_json::to_string(value).unwrap_or_default();
        Ok(tools
            .into_iter()
            .map(|tool| {
                let for_model = notes.remove(&tool.name).unwrap_or_default();
                let other_notes = badges.remove(&tool.name).unwrap_or_default();
                ToolView {
                    input_schema: text(&tool.input_schema),
                    output_schema: tool.output_schema.as_ref().map(text),
                    annotations: tool.annotations.as_ref().map(text),
                    meta: tool.meta.as_ref().map(text),
                    name: tool.name,
                    title: tool.title,
                    description: tool.description,
                    name_for_model: for_model.name,
                    description_for_model: for_model.description,
                    client_notes: for_model.notes.into_iter().chain(other_notes).collect(),
                }
            })
            .collect())
    }

    /// The tools a connected server's last `tools/list` named that are not offered, and why
    /// (over streamable HTTP: broken `x-mcp-header` annotations).
    pub fn dropped_tools(
        &self,
        server: &str,
    ) -> Result<Vec<crate::param_headers::DroppedTool>, ApiError> {
        Ok(self.connected(server)?.dropped_tools())
    }

    /// The tools of every connected server that offers tools, by server name, each listed
    /// now and all at once.
    pub async fn all_tools(&self) -> Vec<ServerTools> {
        let mut names: Vec<String> = self
            .supervisor
            .statuses()
            .into_iter()
            .filter(|event| {
                matches!(&event.status, crate::ServerStatus::Connected(info) if info.capabilities.tools)
            })
            .map(|event| event.server)
            .collect();
        names.sort();
        let setting = &self.client_setting();
        let mut lists = futures::future::join_all(names.into_iter().map(|server| async move {
            match self.tools_in(&server, setting, false).await {
                Ok(tools) => ServerTools {
                    server,
                    tools,
                    problem: None,
                },
                Err(err) => ServerTools {
                    server,
                    tools: Vec::new(),
                    problem: Some(err.message),
                },
            }
        }))
        .await;
        // The other clients' badges, from one view of the whole project.
        let others = self.other_clients(setting);
        for list in &mut lists {
            let mut badges = super::clients::other_badges(&others, &list.server);
            for tool in &mut list.tools {
                tool.client_notes
                    .extend(badges.remove(&tool.name).unwrap_or_default());
            }
        }
        lists
    }

    /// Calls `tool` of `server` with `arguments` (a JSON object, as text), waiting the tool
    /// timeout at most.
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: &str,
    ) -> Result<ToolCallView, ApiError> {
        self.call_tool_watched(server, tool, arguments, None, None, false)
            .await
    }

    /// [`Self::call_tool`], its `notifications/progress` sent to `progress`, and cancellable
    /// by [`Self::cancel_call`] with `call_id` (the caller's own number for it); `as_task`
    /// offers to run it as a task (see [`crate::Connection::call_tool_as`]).
    pub async fn call_tool_watched(
        &self,
        server: &str,
        tool: &str,
        arguments: &str,
        call_id: Option<u32>,
        progress: Option<tokio::sync::mpsc::UnboundedSender<crate::Progress>>,
        as_task: bool,
    ) -> Result<ToolCallView, ApiError> {
        let arguments: serde_json::Map<String, serde_json::Value> = serde_json::from_str(arguments)
            .map_err(|err| refused(format!("the arguments are not a JSON object: {err}")))?;
        let connection = self.connected(server)?;
        // The tool's schema, to leave its secret fields out of the history.
        let schema = connection.tool_schema(tool).await;
        let kept = NewCall {
            server: server.to_string(),
            tool: tool.to_string(),
            arguments: serde_json::Value::Object(arguments.clone()),
            result: None,
            status: CallStatus::Failed,
            error: None,
            duration_ms: 0,
            at_ms: mcp_manager_history::now_ms(),
        };
        let started = std::time::Instant::now();
        let log = self.supervisor.protocol_log(server);
        let before = log
            .as_ref()
            .and_then(|log| log.entries(0).last().map(|m| m.seq))
            .unwrap_or(0);
        // The entry's `timeout` wins over MCP_TOOL_TIMEOUT, as in Claude Code; below 1000 ms
        // Claude Code ignores it, and so do we.
        let timeout = mcp_manager_core::config::catalog::Catalog::load(&self.locations)
            .effective(server)
            .and_then(|entry| entry.config.tool_timeout())
            .or(self.supervisor.settings().tool_timeout);
        let cancel = tokio_util::sync::CancellationToken::new();
        if let Some(id) = call_id {
            self.running
                .lock()
                .expect("calls lock")
                .insert(id, cancel.clone());
        }
        let outcome = connection
            .call_tool_as(tool, Some(arguments), timeout, progress, cancel, as_task)
            .await;
        if let Some(id) = call_id {
            self.running.lock().expect("calls lock").remove(&id);
        }
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(err) => {
                let message = format!("\"{server}\": {}", connection.explain(&err).await);
                let failed = NewCall {
                    error: Some(message.clone()),
                    duration_ms: u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX),
                    ..kept
                };
                self.keep(failed, schema.as_ref()).await;
                return Err(refused(message));
            }
        };
        let (history_id, history_problem) = self
            .keep(
                NewCall {
                    result: Some(outcome.result.clone()),
                    status: if outcome.is_error {
                        CallStatus::ToolError
                    } else {
                        CallStatus::Ok
                    },
                    duration_ms: u32::try_from(outcome.elapsed_ms).unwrap_or(u32::MAX),
                    ..kept
                },
                schema.as_ref(),
            )
            .await;
        // The request and its answer, found in the log by method, tool name and id.
        let (request, response) = match &log {
            Some(log) => {
                // The response may be logged a moment after the call returned.
                tokio::time::sleep(Duration::from_millis(20)).await;
                exchange(&log.entries(before), tool)
            }
            None => (None, None),
        };
        Ok(ToolCallView {
            request,
            response,
            result: serde_json::to_string(&outcome.result).unwrap_or_default(),
            is_error: outcome.is_error,
            elapsed_ms: u32::try_from(outcome.elapsed_ms).unwrap_or(u32::MAX),
            schema_errors: outcome.schema_errors,
            history_id,
            history_problem,
            input_rounds: outcome
                .input_rounds
                .iter()
                .map(|round| round.to_string())
                .collect(),
            task: outcome.task,
            for_claude_code: self.result_for_claude_code(
                &connection,
                server,
                tool,
                &outcome.result,
            ),
        })
    }
}

/// The newest `tools/call` of `tool` among `messages`, and the response with its id.
fn exchange(
    messages: &[crate::protocol_log::LoggedMessage],
    tool: &str,
) -> (Option<String>, Option<String>) {
    let Some(request) = messages.iter().rev().find(|m| {
        m.direction == Direction::Out
            && m.method.as_deref() == Some("tools/call")
            && serde_json::from_str::<serde_json::Value>(&m.text)
                .is_ok_and(|v| v["params"]["name"] == tool)
    }) else {
        return (None, None);
    };
    let response = messages.iter().find(|m| {
        m.direction == Direction::In
            && m.seq > request.seq
            && m.id == request.id
            && m.method.as_deref() == Some("tools/call")
    });
    (Some(request.text.clone()), response.map(|m| m.text.clone()))
}

/// Saves a call's result (JSON text) as a file in `folder`, named after the server, the tool
/// and the time (`everything__get-sum__1764560000000.json`); returns its path. Names are
/// reduced to `[A-Za-z0-9_-]` so that no server or tool name can lead outside `folder`.
pub fn save_result(
    folder: &std::path::Path,
    server: &str,
    tool: &str,
    result: &str,
) -> std::io::Result<std::path::PathBuf> {
    let safe = |name: &str| mcp_manager_core::config::names::normalize(name);
    mcp_manager_core::private::dir(folder)?;
    let pretty = serde_json::from_str::<serde_json::Value>(result)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| result.to_string());
    let path = folder.join(format!(
        "{}__{}__{}.json",
        safe(server),
        safe(tool),
        mcp_manager_history::now_ms()
    ));
    mcp_manager_core::private::write_within(&path, folder, pretty.as_bytes())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_saved_result_stays_in_its_folder_whatever_the_names() {
        let dir = tempfile::tempdir().unwrap();
        let path = super::save_result(dir.path(), "../evil", "a/b", r#"{"content":[]}"#).unwrap();
        assert_eq!(path.parent().unwrap(), dir.path());
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            name.starts_with("___evil__a_b__") && name.ends_with(".json"),
            "{name}"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n  \"content\": []\n}"
        );
    }
}
