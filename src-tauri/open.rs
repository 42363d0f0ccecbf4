//! What the window opens outside itself: the login page in the person's browser, a
//! configuration file in their editor and a saved result, through `tauri-plugin-opener` (the
//! successor of `tauri-plugin-shell`'s deprecated `open`).
//!
//! Why from Rust and not from the page: the window holds no opener permission at all, so a
//! page that misbehaves cannot open arbitrary URLs or run programs. It can only ask for "the
//! login page of server X" (the URL the login itself produced), "the file entry X is written
//! in" (a path the catalog read), "the page server request N asks for" (an http or https URL a
//! server sent, opened only on the person's click) or "this saved result" (a file of the
//! results folder, checked), and this module resolves those here.

use mcp_manager_connect::project::LiveProject;
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::{ApiError, ErrorCode, Scope};
use mcp_manager_oauth::Phase;
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

/// The folder saved results go to: `results/` in the app's data folder.
pub fn results_folder(app: &AppHandle) -> Result<std::path::PathBuf, ApiError> {
    use tauri::Manager;
    app.path()
        .app_data_dir()
        .map(|dir| dir.join("results"))
        .map_err(|err| refused(format!("the app's data folder is unknown ({err})")))
}

/// Saves a call's result there; its path.
pub fn save_result(
    app: &AppHandle,
    server: &str,
    tool: &str,
    result: &str,
) -> Result<String, ApiError> {
    let folder = results_folder(app)?;
    mcp_manager_connect::project::save_result(&folder, server, tool, result)
        .map(|path| path.display().to_string())
        .map_err(|err| {
            refused(format!(
                "the result could not be saved in {} ({err})",
                folder.display()
            ))
        })
}

/// Opens a saved result with the person's default application: only a file of the results
/// folder, so the window cannot have anything else opened this way.
pub fn saved_result(app: &AppHandle, path: &str) -> Result<(), ApiError> {
    let folder = results_folder(app)?;
    let file = std::path::Path::new(path);
    let inside = file
        .canonicalize()
        .ok()
        .zip(folder.canonicalize().ok())
        .is_some_and(|(file, folder)| file.parent() == Some(folder.as_path()));
    if !inside {
        return Err(refused(format!("{path} is not a saved result")));
    }
    app.opener().open_path(path, None::<&str>).map_err(|err| {
        refused(format!(
            "{path} could not be opened ({err}): open it yourself"
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

/// Saves one content of a resource read in the results folder; its path.
pub fn save_resource(app: &AppHandle, server: &str, content: &str) -> Result<String, ApiError> {
    let folder = results_folder(app)?;
    mcp_manager_connect::project::save_resource(&folder, server, content)
        .map(|path| path.display().to_string())
        .map_err(|err| {
            refused(format!(
                "the resource could not be saved in {} ({err})",
                folder.display()
            ))
        })
}

/// Opens the page a URL-mode elicitation asks for, then accepts the request: the person
/// clicked "Open" after reading where it leads. Only http and https are opened.
pub fn ask_url(app: &AppHandle, context: &crate::Context, id: u32) -> Result<(), ApiError> {
    let asks = context.asks();
    let url = asks.url_of(id).map_err(|err| refused(err.to_string()))?;
    let scheme_ok = tauri::Url::parse(&url)
        .map(|parsed| matches!(parsed.scheme(), "http" | "https"))
        .unwrap_or(false);
    if !scheme_ok {
        return Err(refused(format!(
            "{url} is not a web address (http or https): it was not opened; decline the request"
        )));
    }
    app.opener().open_url(&url, None::<&str>).map_err(|err| {
        refused(format!(
            "the browser could not be opened ({err}): copy the address instead"
        ))
    })?;
    context.answer_ask(
        id,
        mcp_manager_connect::asks::Reply::Accept {
            content: "{}".into(),
        },
    )
}
