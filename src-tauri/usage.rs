//! What Claude Code used, in the window: one door onto crates/usage. The index is opened at the
//! first request (not at start-up, which it would slow), then each request reads what Claude
//! Code added to its records since the last one, one request at a time.

use mcp_manager_core::{ApiError, ErrorCode};
use mcp_manager_usage::{Index, Query, Sources, UsageReport};

use crate::Context;

fn failure(message: String) -> ApiError {
    ApiError {
        code: ErrorCode::InvalidRequest,
        message,
    }
}

impl Context {
    /// Claude Code's use of MCP servers over the last `days` days, in the open project's
    /// folder or in `all` of them, after reading what is new in its records.
    pub async fn usage(&self, days: u32, all: bool) -> Result<UsageReport, ApiError> {
        let project = self.project();
        let locations = project.locations().clone();
        let mut index = self.usage.lock().await;
        if index.is_none() {
            let path = locations.app_data_dir().join(mcp_manager_usage::FILE_NAME);
            *index = Some(
                Index::open(&path)
                    .await
                    .map_err(|e| failure(e.to_string()))?,
            );
        }
        let index = index.as_ref().expect("opened above");
        index
            .update(&Sources::of(&locations))
            .await
            .map_err(|e| failure(e.to_string()))?;
        let configured = tokio::task::spawn_blocking(move || {
            mcp_manager_usage::configured_with_agents(&locations)
        })
        .await
        .map_err(|e| failure(e.to_string()))?;
        let query = Query {
            project: (!all).then(|| project.locations().project.display().to_string()),
            days: days.clamp(1, 3650),
            now_ms: mcp_manager_usage::now_ms(),
        };
        index
            .report(&query, &configured)
            .await
            .map_err(|e| failure(e.to_string()))
    }
}
