//! What changed in a server: each time a server connects, or says a list of it changed
//! (`list_changed`, whatever its new size), its surface is read and kept in the history when
//! it differs (crates/connect's `keep_surface`); a change is announced (`surface-changed`) and
//! remembered for the window's "changed since" until another project is opened.

use std::sync::Arc;

use mcp_manager_collections::surface::{diff, SurfaceDiff};
use mcp_manager_connect::project::pins::PinCheck;
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
                check_pin(&handle, &project, &server).await;
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

/// Broadcast when a server was checked against its pin (at each connect and `list_changed`).
#[derive(Debug, Clone, serde::Serialize, specta::Type, tauri_specta::Event)]
pub struct PinChecked(pub PinCheck);

/// Checks `server` against its pin (its entry's first connect pins it), remembers the check
/// for the window and tells it.
async fn check_pin(handle: &AppHandle, project: &Arc<LiveProject>, server: &str) {
    let Ok(check) = project.check_pin(server, None).await else {
        return;
    };
    remember(handle, project, check);
}

fn remember(handle: &AppHandle, project: &Arc<LiveProject>, check: PinCheck) {
    let context = handle.state::<Context>();
    if !Arc::ptr_eq(&context.project(), project) {
        return;
    }
    context
        .pin_checks
        .lock()
        .expect("pin checks lock")
        .insert(check.server.clone(), check.clone());
    crate::feed::send(handle, &PinChecked(check));
}

impl Context {
    /// Every server's last check against its pin, in this project.
    pub fn pin_checks(&self) -> Vec<PinCheck> {
        let mut checks: Vec<PinCheck> = self
            .pin_checks
            .lock()
            .expect("pin checks lock")
            .values()
            .cloned()
            .collect();
        checks.sort_by(|a, b| a.server.cmp(&b.server));
        checks
    }

    /// Accepts what `server` serves now for `tool` (everything when `None`).
    pub async fn accept_change(
        &self,
        handle: &AppHandle,
        server: &str,
        tool: Option<&str>,
    ) -> Result<PinCheck, ApiError> {
        let project = self.project();
        let check = project.accept_change(server, tool).await?;
        remember(handle, &project, check.clone());
        Ok(check)
    }

    /// Pins what `server` serves now.
    pub async fn pin_now(&self, handle: &AppHandle, server: &str) -> Result<PinCheck, ApiError> {
        let project = self.project();
        let check = project.pin_now(server).await?;
        remember(handle, &project, check.clone());
        Ok(check)
    }

    /// Denies a changed tool of `server` (of every server when `None`) in Claude Code until it
    /// is accepted, in `file`; `None` turns that off. Applied to the server's last check now.
    pub async fn set_quarantine(
        &self,
        handle: &AppHandle,
        server: Option<&str>,
        file: Option<mcp_manager_core::config::permissions::SettingsFile>,
    ) -> Result<(), ApiError> {
        let project = self.project();
        mcp_manager_guard::quarantine::choose(&project.pins(), project.locations(), server, file)
            .map_err(ApiError::from)?;
        let servers: Vec<String> = match server {
            Some(server) => vec![server.to_string()],
            None => self.pin_checks().into_iter().map(|c| c.server).collect(),
        };
        for server in servers {
            if let Ok(check) = project.check_pin(&server, None).await {
                remember(handle, &project, check);
            }
        }
        Ok(())
    }

    /// Where a changed tool is denied, for every server and per server.
    pub fn quarantine_choice(
        &self,
    ) -> Result<mcp_manager_guard::quarantine::QuarantineChoice, ApiError> {
        let project = self.project();
        mcp_manager_guard::quarantine::choice(&project.pins(), project.locations())
            .map_err(ApiError::from)
    }
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
