//! What changed in a server: each time a server connects, or says a list of it changed
//! (`list_changed`, whatever its new size), its surface is read and kept in the history when
//! it differs (crates/connect's `keep_surface`); a change is announced (`surface-changed`) and
//! remembered for the window's "changed since" until another project is opened.

use std::sync::Arc;

use mcp_manager_collections::surface::{diff, SurfaceDiff};
use mcp_manager_connect::project::surface::SurfaceChange;
use mcp_manager_connect::project::LiveProject;
use mcp_manager_connect::ServerStatus;
use mcp_manager_core::{ApiError, ErrorCode};
use mcp_manager_history::SurfaceRecord;
use tauri::{AppHandle, Manager};

use crate::Context;

/// Broadcast when a server's surface differs from the one kept before.
#[derive(Debug, Clone, serde::Serialize, specta::Type, tauri_specta::Event)]
pub struct SurfaceChanged(pub SurfaceChange);

/// Keeps every connected server's surface, from now on, for `project`.
pub fn keep_surfaces(handle: AppHandle, project: Arc<LiveProject>) {
    let mut statuses = project.supervisor().subscribe();
    let mut lists = project.supervisor().subscribe_lists();
    tauri::async_runtime::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            // A connection (or a list that changed size), or a list that changed at all.
            let server = tokio::select! {
                event = statuses.recv() => match event {
                    Ok(event) if matches!(event.status, ServerStatus::Connected(_)) => event.server,
                    Ok(_) | Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => break,
                },
                changed = lists.recv() => match changed {
                    Ok(changed) => changed.server,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => break,
                },
            };
            let (handle, project) = (handle.clone(), Arc::clone(&project));
            tauri::async_runtime::spawn(async move {
                let Ok(Some(change)) = project.keep_surface(&server).await else {
                    return;
                };
                let context = handle.state::<Context>();
                // Only for the project still open.
                if !Arc::ptr_eq(&context.project(), &project) {
                    return;
                }
                context
                    .surface_changes
                    .lock()
                    .expect("surface changes lock")
                    .insert(change.server.clone(), change.clone());
                crate::feed::send(&handle, &SurfaceChanged(change));
            });
        }
    });
}

fn refused(message: String) -> ApiError {
    ApiError {
        code: ErrorCode::InvalidRequest,
        message,
    }
}

impl Context {
    /// The servers whose surface changed while this project was open.
    pub fn surface_changes(&self) -> Vec<SurfaceChange> {
        let mut changes: Vec<SurfaceChange> = self
            .surface_changes
            .lock()
            .expect("surface changes lock")
            .values()
            .cloned()
            .collect();
        changes.sort_by(|a, b| a.server.cmp(&b.server));
        changes
    }

    pub async fn surface_history(&self, server: &str) -> Result<Vec<SurfaceRecord>, ApiError> {
        self.project().surfaces(server).await
    }

    /// The diff from surface `from` to `to` (default: the newest) of `server`.
    pub async fn surface_diff(
        &self,
        server: &str,
        from: u32,
        to: Option<u32>,
    ) -> Result<SurfaceDiff, ApiError> {
        let kept = self.project().surfaces(server).await?;
        let find = |id: u32| {
            kept.iter()
                .find(|s| s.id == id)
                .and_then(|s| serde_json::from_str::<serde_json::Value>(&s.surface).ok())
                .ok_or_else(|| refused(format!("no surface {id} of \"{server}\" is kept")))
        };
        let newest = kept
            .first()
            .map(|s| s.id)
            .ok_or_else(|| refused(format!("no surface of \"{server}\" is kept")))?;
        Ok(diff(&find(from)?, &find(to.unwrap_or(newest))?))
    }
}
