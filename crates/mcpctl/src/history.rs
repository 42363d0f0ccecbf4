//! `mcpctl history`: the calls made by hand, from the window or `mcpctl call`, kept in the
//! same SQLite file (the app's data folder); listed, filtered, and replayed.

use crate::failure;
use crate::kept::open;
use mcp_manager_core::{ApiError, Locations};
use mcp_manager_history::{CallFilter, CallStatus, NOT_STORED};

/// `mcpctl history [filters]`: the calls kept, newest first.
pub fn list(locations: &Locations, filter: CallFilter, json: bool) -> Result<bool, ApiError> {
    crate::runtime::block_on(async {
        let history = open(locations).await?;
        let calls = history
            .search(&filter)
            .await
            .map_err(|err| failure(err.to_string()))?;
        history.close().await;
        if json {
            crate::print_json(&calls);
        } else {
            for call in &calls {
                let status = match call.status {
                    CallStatus::Ok => "ok",
                    CallStatus::ToolError => "tool error",
                    CallStatus::Failed => "failed",
                };
                let name = call
                    .name
                    .as_deref()
                    .map(|n| format!(" \"{n}\""))
                    .unwrap_or_default();
                out!(
                    "#{}  {}  {}  {}{name}  {status}  {} ms  {}",
                    call.id,
                    call.at_ms as i64,
                    call.server,
                    call.tool,
                    call.duration_ms,
                    call.arguments
                );
            }
        }
        Ok(true)
    })
}

/// `mcpctl history replay ID`: the kept call, made again with its arguments.
pub fn replay(locations: &Locations, id: u32, json: bool) -> Result<bool, ApiError> {
    let call = crate::runtime::block_on(async {
        let history = open(locations).await?;
        let call = history
            .get(id)
            .await
            .map_err(|err| failure(err.to_string()))?;
        history.close().await;
        call.ok_or_else(|| {
            failure(format!(
                "no call #{id} in the history: `mcpctl history` lists them"
            ))
        })
    })?;
    if call.arguments.contains(NOT_STORED) {
        return Err(failure(format!(
            "call #{id} had secret fields, which the history does not keep: run `mcpctl call {} {} --args JSON` with them",
            call.server, call.tool
        )));
    }
    let arguments = match serde_json::from_str::<serde_json::Value>(&call.arguments) {
        Ok(serde_json::Value::Object(map)) => Some(map),
        _ => None,
    };
    crate::runtime::ask(
        locations,
        Some(&call.server),
        crate::runtime::Ask::Call {
            tool: call.tool,
            arguments,
            timeout: None,
            elicit: None,
            task: false,
            save_to: None,
        },
        json,
    )
}

/// `mcpctl history clear [--before DATE]`: the unnamed calls removed; named ones kept.
pub fn clear(locations: &Locations, before_ms: Option<i64>, json: bool) -> Result<bool, ApiError> {
    let cleared = crate::runtime::block_on(async {
        let history = open(locations).await?;
        let cleared = history
            .clear(before_ms)
            .await
            .map_err(|err| failure(err.to_string()));
        history.close().await;
        cleared
    })?;
    if json {
        crate::print_json(&cleared);
    } else {
        out!(
            "removed {} calls; kept {} saved under a name (remove their names to clear them)",
            cleared.removed,
            cleared.kept_named
        );
    }
    Ok(true)
}
