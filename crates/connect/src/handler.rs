//! Our side of the MCP session: what we tell a server about ourselves (client info and
//! capabilities) and how we answer its requests. For now: roots (the project folder) and
//! list-changed notifications passed on; sampling and elicitation are declined by rmcp's
//! defaults until the UI provides answers.
//!
//! rmcp marks roots deprecated (SEP-2577 moves them into per-request metadata), but the
//! servers people run today, and Claude Code, still use `roots/list`.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use tokio::sync::mpsc::UnboundedSender;

use crate::answer::Answerer;
use crate::status::{ListKind, Progress};

/// Where each in-flight request's progress notifications go, by progress token.
pub(crate) type ProgressRoutes = Arc<Mutex<HashMap<ProgressToken, UnboundedSender<Progress>>>>;

use rmcp::model::{ClientConfig, ListRootsResult, Root};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};

/// One per connection.
#[derive(Clone)]
pub(crate) struct Handler {
    server: String,
    answerer: Arc<dyn Answerer>,
    config: ClientConfig,
    roots: Vec<Root>,
    /// Where `notifications/*/list_changed` go; the connection's owner refetches that list.
    changes: UnboundedSender<ListKind>,
    pub(crate) progress: ProgressRoutes,
}

impl Handler {
    pub(crate) fn new(
        server: String,
        answerer: Arc<dyn Answerer>,
        roots: Vec<String>,
        changes: UnboundedSender<ListKind>,
    ) -> Handler {
        let config: ClientConfig = serde_json::from_value(serde_json::json!({
            "protocolVersion": rmcp::model::ProtocolVersion::default(),
            // Sampling is declared so that servers ask, and hear why we decline.
            "capabilities": {
                "roots": { "listChanged": true },
                "elicitation": { "form": {}, "url": {} },
                "sampling": {}
            },
            "clientInfo": {
                "name": "mcp-manager",
                "title": "MCP Manager",
                "version": env!("CARGO_PKG_VERSION"),
            },
        }))
        .expect("our client info is valid");
        Handler {
            server,
            answerer,
            config,
            roots: roots.into_iter().map(Root::new).collect(),
            changes,
            progress: ProgressRoutes::default(),
        }
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, ErrorData> {
        let request = serde_json::to_value(request).unwrap_or_default();
        let answer = self.answerer.elicit(&self.server, request).await;
        serde_json::from_value(answer).map_err(|err| {
            ErrorData::internal_error(format!("our elicitation answer is invalid: {err}"), None)
        })
    }

    async fn create_message(
        &self,
        request: rmcp::model::CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, ErrorData> {
        let request = serde_json::to_value(request).unwrap_or_default();
        match self.answerer.sample(&self.server, request).await {
            Ok(result) => serde_json::from_value(result).map_err(|err| {
                ErrorData::internal_error(format!("our sampling answer is invalid: {err}"), None)
            }),
            Err(reason) => Err(ErrorData::new(
                rmcp::model::ErrorCode::INVALID_REQUEST,
                reason,
                None,
            )),
        }
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(self.roots.clone()))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let route = self
            .progress
            .lock()
            .expect("progress lock")
            .get(&params.progress_token)
            .cloned();
        if let Some(route) = route {
            let _ = route.send(Progress {
                progress: params.progress,
                total: params.total,
                message: params.message.clone(),
            });
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changes.send(ListKind::Tools);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changes.send(ListKind::Resources);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changes.send(ListKind::Prompts);
    }
}
