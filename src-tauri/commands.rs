//! Tauri commands: one line each, into `mcp_manager_core::api`.

use mcp_manager_core::{ApiError, ServerList};
use tauri::State;

use crate::Context;

/// Every configured server by scope, with the problems met reading the files.
#[tauri::command]
#[specta::specta]
pub async fn list_servers(context: State<'_, Context>) -> Result<ServerList, ApiError> {
    Ok(mcp_manager_core::list_servers(&context.locations))
}
