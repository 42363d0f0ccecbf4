//! MCP Apps (`io.modelcontextprotocol/ui`): a tool's interactive view, hosted in the window.
//!
//! An App is untrusted HTML from a server. This crate is the trusted half of hosting one, and
//! it is Tauri-free so that every rule is tested without a window:
//! - [`view`]: which tools have a view (`_meta.ui.resourceUri`) and who may call them
//!   (`_meta.ui.visibility`);
//! - [`document`]: the view read with `resources/read`, refused unless it is a `ui://`
//!   resource of type `text/html;profile=mcp-app`;
//! - [`csp`]: the Content-Security-Policy it is served with, from what it declares, hostile
//!   entries dropped;
//! - [`relay`]: the page between the window and the App;
//! - [`host`]: sessions, one-time pages on an origin per server (`mcpapp://<hash>`), the
//!   person's consent, and the checks on every request an App makes.
//!
//! The Tauri layer serves [`AppHost::page`] on the `mcpapp:` scheme and forwards the App's
//! requests (which the window's `AppBridge` receives) to [`AppHost`] by session token.

pub mod csp;
pub mod document;
pub mod host;
pub mod relay;
pub mod view;

pub use csp::{DeclaredDomains, Origins};
pub use host::{AppHost, AppOpening, Page, SCHEME};
pub use view::ToolUi;

use mcp_manager_core::{ApiError, ErrorCode};

/// Why an App cannot be shown, or a request of it was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppError {
    #[error("the view {uri} is not a ui:// resource, so it is not shown")]
    NotUiUri { uri: String },
    #[error("the view {uri} is of type {mime}, not text/html;profile=mcp-app, so it is not shown")]
    WrongType { uri: String, mime: String },
    #[error("the view {uri} has no content")]
    Empty { uri: String },
    #[error("the view {uri} cannot be read: {reason}")]
    Undecodable { uri: String, reason: String },
    #[error(
        "the App asked for tool \"{tool}\", which \"{server}\" does not offer; it was not called"
    )]
    UnknownTool { server: String, tool: String },
    #[error("the App asked for tool \"{tool}\" of \"{server}\", which is for the model only (its _meta.ui.visibility says so, or cannot be read); it was not called")]
    ModelOnly { server: String, tool: String },
    #[error("the tool's {what}: no App is shown for it, and no App may call it")]
    MalformedUi { what: String },
    #[error("the App asked to open \"{url}\": only http and https links are opened")]
    BadLink { url: String },
}

impl AppError {
    fn into_api(self, server: &str) -> ApiError {
        refused(format!("\"{server}\": {self}"))
    }

    fn into_api_plain(self) -> ApiError {
        refused(self.to_string())
    }
}

pub(crate) fn refused(message: String) -> ApiError {
    ApiError {
        code: ErrorCode::InvalidRequest,
        message,
    }
}
