//! Each call `mcpctl call` makes, kept in the history the window keeps (the app's data folder),
//! its secret fields scrubbed.

use crate::failure;
use mcp_manager_connect::{CallOutcome, Connection};
use mcp_manager_core::{ApiError, Locations};
use mcp_manager_history::{scrub_call, CallStatus, History, NewCall, FILE_NAME};

/// The history file, opened.
pub async fn open(locations: &Locations) -> Result<History, ApiError> {
    History::open(&locations.app_data_dir().join(FILE_NAME))
        .await
        .map_err(|err| failure(err.to_string()))
}

/// Keeps a call of `mcpctl call`, its secret fields scrubbed. A history that cannot be opened
/// or written costs the call nothing: it is said on stderr.
pub async fn keep(
    locations: &Locations,
    conn: &Connection,
    server: &str,
    tool: &str,
    arguments: serde_json::Value,
    at_ms: i64,
    outcome: &Result<CallOutcome, ApiError>,
) {
    let history = match open(locations).await {
        Ok(history) => history,
        Err(err) => {
            eout!("warning: {}", err.message);
            return;
        }
    };
    let schema = conn.tool_schema(tool).await;
    let result = outcome.as_ref().ok().map(|outcome| outcome.result.clone());
    let (arguments, result) = match &schema {
        Some(schema) => scrub_call(&arguments, schema, result.as_ref()),
        None => (arguments, result),
    };
    let call = match outcome {
        Ok(outcome) => NewCall {
            server: server.into(),
            tool: tool.into(),
            arguments,
            result,
            status: if outcome.is_error {
                CallStatus::ToolError
            } else {
                CallStatus::Ok
            },
            error: None,
            duration_ms: u32::try_from(outcome.elapsed_ms).unwrap_or(u32::MAX),
            at_ms,
        },
        Err(err) => NewCall {
            server: server.into(),
            tool: tool.into(),
            arguments,
            result: None,
            status: CallStatus::Failed,
            error: Some(err.message.clone()),
            duration_ms: u32::try_from(mcp_manager_history::now_ms() - at_ms).unwrap_or(0),
            at_ms,
        },
    };
    if let Err(err) = history.record(&call).await {
        eout!("warning: {err}");
    }
    history.close().await;
}
