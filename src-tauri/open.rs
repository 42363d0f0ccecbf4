//! What the window opens outside itself: the login page in the person's browser and a
//! configuration file in their editor, through `tauri-plugin-opener` (the successor of
//! `tauri-plugin-shell`'s deprecated `open`).
//!
//! Why from Rust and not from the page: the window holds no opener permission at all, so a
//! page that misbehaves cannot open arbitrary URLs or run programs. It can only ask for "the
//! login page of server X" (the URL the login itself produced) or "the file entry X is written
//! in" (a path the catalog read), and this module resolves those here.

use mcp_manager_connect::oauth::Phase;
use mcp_manager_connect::project::LiveProject;
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::{ApiError, ErrorCode, Scope};
use tauri::AppHandle;
use tauri_plugin_opener::OpenerExt;

fn refused(message: String) -> ApiError {
    ApiError {
        code: ErrorCode::InvalidRequest,
        message,
    }
}

/// Opens the authorization URL of `server`'s login that waits for the browser.
pub async fn login_page(
    app: &AppHandle,
    project: &LiveProject,
    server: &str,
) -> Result<(), ApiError> {
    let activity = project.oauth_activity(server).await?;
    let Some(Phase::WaitingForBrowser { url, .. }) = activity.phase else {
        return Err(refused(format!(
            "no login of \"{server}\" is waiting for the browser: press Log in first"
        )));
    };
    app.opener().open_url(url, None::<&str>).map_err(|err| {
        refused(format!(
            "the browser could not be opened ({err}): copy the URL instead"
        ))
    })
}

/// Opens the file `server`'s entry in `scope` is written in.
pub fn config_file(
    app: &AppHandle,
    project: &LiveProject,
    server: &str,
    scope: Scope,
) -> Result<(), ApiError> {
    let catalog = Catalog::load(project.locations());
    let entry = catalog
        .named(server)
        .find(|entry| entry.scope == scope)
        .ok_or_else(|| refused(format!("\"{server}\" has no {} entry", scope.as_str())))?;
    app.opener()
        .open_path(entry.path.display().to_string(), None::<&str>)
        .map_err(|err| {
            refused(format!(
                "{} could not be opened ({err}): open it in your editor yourself",
                entry.path.display()
            ))
        })
}
