//! MCP Apps in the window: the `mcpapp:` scheme that serves each App's relay and document
//! once, and the requests an App makes, forwarded by session to [`AppHost`]
//! (crates/apps decides; this file only connects it to Tauri).
//!
//! Each page is answered with its own Content-Security-Policy, `Cache-Control: no-store`,
//! `Referrer-Policy: no-referrer` and `X-Content-Type-Options: nosniff`; anything else on the
//! scheme (a page asked for twice, a made-up path, another host) is a 404 with no body.

use mcp_manager_apps::{AppHost, AppOpening, Origins};
use mcp_manager_core::{ApiError, ErrorCode};
use tauri::http::{Request, Response, StatusCode};
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_opener::OpenerExt;

use crate::Context;

/// The answer to a request on the `mcpapp:` scheme.
pub fn serve<R: Runtime>(app: &AppHandle<R>, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
    let uri = request.uri();
    // mcpapp://<host>/<path> (Linux, macOS); Windows' WebView2 would say
    // http://mcpapp.<host>/<path>.
    let host = uri.host().unwrap_or_default();
    let host = host.strip_prefix("mcpapp.").unwrap_or(host);
    let page = app
        .try_state::<Context>()
        .and_then(|context| context.apps().and_then(|apps| apps.page(host, uri.path())));
    respond(page)
}

/// A page with its headers, or a bare 404.
fn respond(page: Option<mcp_manager_apps::Page>) -> Response<Vec<u8>> {
    let builder = Response::builder()
        .header("Cache-Control", "no-store")
        .header("Referrer-Policy", "no-referrer")
        .header("X-Content-Type-Options", "nosniff");
    match page {
        Some(page) => builder
            .status(StatusCode::OK)
            .header("Content-Type", "text/html; charset=utf-8")
            .header("Content-Security-Policy", page.csp)
            .body(page.html.into_bytes()),
        None => builder.status(StatusCode::NOT_FOUND).body(Vec::new()),
    }
    .expect("a response of fixed headers")
}

/// The answer to anything not ours to serve.
pub fn not_found() -> Response<Vec<u8>> {
    Response::builder()
        .status(StatusCode::NOT_FOUND)
        .body(Vec::new())
        .expect("a bare 404")
}

fn closed() -> ApiError {
    ApiError {
        code: ErrorCode::InvalidRequest,
        message: "Apps are not available: the app's data folder is unknown".into(),
    }
}

impl Context {
    /// The Apps host, once set up.
    pub fn apps(&self) -> Option<&AppHost> {
        self.apps.get()
    }

    fn host(&self) -> Result<&AppHost, ApiError> {
        self.apps().ok_or_else(closed)
    }

    pub async fn open_app(&self, server: &str, tool: &str) -> Result<AppOpening, ApiError> {
        let project = self.project();
        self.host()?.open(&project, server, tool).await
    }

    pub fn allow_apps(&self, server: &str, origins: Origins) -> Result<(), ApiError> {
        let project = self.project();
        self.host()?
            .allow(&project.locations().project, server, origins)
    }

    pub async fn app_call_tool(
        &self,
        session: &str,
        tool: &str,
        arguments: &str,
    ) -> Result<String, ApiError> {
        let project = self.project();
        self.host()?
            .call_tool(&project, session, tool, arguments)
            .await
    }

    pub async fn app_read_resource(&self, session: &str, uri: &str) -> Result<String, ApiError> {
        let project = self.project();
        self.host()?.read_resource(&project, session, uri).await
    }

    pub async fn app_list_resources(
        &self,
        session: &str,
        templates: bool,
    ) -> Result<String, ApiError> {
        let project = self.project();
        self.host()?
            .list_resources(&project, session, templates)
            .await
    }

    /// Opens a link an App asked for, in the person's browser (they clicked "Open").
    pub fn app_open_link(&self, app: &AppHandle, session: &str, url: &str) -> Result<(), ApiError> {
        let url = self.host()?.link(session, url)?;
        app.opener()
            .open_url(url.as_str(), None::<&str>)
            .map_err(|err| ApiError {
                code: ErrorCode::InvalidRequest,
                message: format!("the browser could not be opened ({err}): copy the link instead"),
            })
    }

    pub fn close_app(&self, session: &str) {
        if let Some(apps) = self.apps() {
            apps.close(session)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_goes_with_its_csp_and_no_cache_and_anything_else_is_a_bare_404() {
        let page = respond(Some(mcp_manager_apps::Page {
            html: "<p>app</p>".into(),
            csp: "default-src 'none'".into(),
        }));
        assert_eq!(page.status(), StatusCode::OK);
        let header = |name: &str| {
            page.headers()
                .get(name)
                .unwrap()
                .to_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(header("Content-Security-Policy"), "default-src 'none'");
        assert_eq!(header("Cache-Control"), "no-store");
        assert_eq!(header("Referrer-Policy"), "no-referrer");
        assert_eq!(header("X-Content-Type-Options"), "nosniff");
        assert_eq!(header("Content-Type"), "text/html; charset=utf-8");
        assert_eq!(page.body(), b"<p>app</p>");
        let missing = respond(None);
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert!(missing.body().is_empty());
        assert!(missing.headers().get("Content-Security-Policy").is_none());
    }
}
