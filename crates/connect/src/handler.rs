//! Our side of the MCP session: what we tell a server about ourselves (client info and
//! capabilities) and how we answer its requests: roots ([`Roots`], the project folder unless
//! set otherwise), elicitation and sampling (handed to an [`Answerer`]), progress and
//! list-changed notifications passed on.
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

/// The folders servers are told they may work in (`roots/list`), as `file://` URIs. One list
/// is shared by every session of a supervisor, so that a change reaches all of them; each is
/// then sent `notifications/roots/list_changed`.
#[derive(Debug, Clone, Default)]
pub struct Roots(Arc<std::sync::RwLock<Vec<String>>>);

impl Roots {
    /// Roots for these folders.
    pub fn of(folders: &[std::path::PathBuf]) -> Roots {
        let roots = Roots::default();
        roots.set(folders);
        roots
    }

    /// Replaces the folders (sessions still need to hear of it).
    pub fn set(&self, folders: &[std::path::PathBuf]) {
        *self.0.write().expect("roots lock") = folders.iter().map(|f| file_uri(f)).collect();
    }

    /// The current roots, as URIs.
    pub fn uris(&self) -> Vec<String> {
        self.0.read().expect("roots lock").clone()
    }
}

/// `file://` URI of a folder, for roots.
fn file_uri(path: &std::path::Path) -> String {
    let mut uri = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(byte as char)
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri
}

/// One per connection.
#[derive(Clone)]
pub(crate) struct Handler {
    server: String,
    answerer: Arc<dyn Answerer>,
    config: ClientConfig,
    pub(crate) roots: Roots,
    /// Where `notifications/*/list_changed` go; the connection's owner refetches that list.
    pub(crate) changes: UnboundedSender<ListKind>,
    pub(crate) progress: ProgressRoutes,
    /// `notifications/resources/updated`, by URI, for whoever subscribed in the window.
    pub(crate) updates: tokio::sync::broadcast::Sender<String>,
    /// Where the session's messages are recorded, when someone keeps a log.
    pub(crate) protocol: Option<crate::protocol_log::ProtocolLog>,
    /// The tools the last `tools/list` over HTTP left out for their `x-mcp-header`s.
    pub(crate) dropped: crate::param_headers::DroppedTools,
}

impl Handler {
    pub(crate) fn new(
        server: String,
        answerer: Arc<dyn Answerer>,
        roots: Roots,
        changes: UnboundedSender<ListKind>,
    ) -> Handler {
        let config: ClientConfig = serde_json::from_value(serde_json::json!({
            // The newest version that still has the initialize handshake we use (rmcp's
            // default, 2026-07-28, has none). Servers answer with what they speak.
            "protocolVersion": rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE,
            // Sampling is declared so that servers ask, and hear why we decline.
            "capabilities": {
                "roots": { "listChanged": true },
                "elicitation": { "form": {}, "url": {} },
                "sampling": {},
                // MCP Apps: tools may name an HTML view, which the window hosts
                // (crates/apps). Servers may then list app-only tools and views.
                "extensions": {
                    "io.modelcontextprotocol/ui": { "mimeTypes": ["text/html;profile=mcp-app"] },
                    // SEP-2640: a server's skills are listed and loaded, each file checked
                    // (connection/skills.rs).
                    "io.modelcontextprotocol/skills": {}
                }
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
            roots,
            changes,
            progress: ProgressRoutes::default(),
            updates: tokio::sync::broadcast::channel(64).0,
            protocol: None,
            dropped: Default::default(),
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
        context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, ErrorData> {
        let request = serde_json::to_value(request).unwrap_or_default();
        // A request the server withdraws stops waiting for the answerer (the person).
        let mut answer = tokio::select! {
            answer = self.answerer.elicit(&self.server, request.clone()) => answer,
            _ = context.ct.cancelled() => return Err(withdrawn()),
        };
        fill_defaults(&request, &mut answer);
        serde_json::from_value(answer).map_err(|err| {
            ErrorData::internal_error(format!("our elicitation answer is invalid: {err}"), None)
        })
    }

    async fn create_message(
        &self,
        request: rmcp::model::CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, ErrorData> {
        let request = serde_json::to_value(request).unwrap_or_default();
        let answer = tokio::select! {
            answer = self.answerer.sample(&self.server, request) => answer,
            _ = context.ct.cancelled() => return Err(withdrawn()),
        };
        match answer {
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
        Ok(ListRootsResult::new(
            self.roots.uris().into_iter().map(Root::new).collect(),
        ))
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

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.updates.send(params.uri);
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

/// The answer to a request the server cancelled (it does not read it).
fn withdrawn() -> ErrorData {
    ErrorData::internal_error("the request was cancelled by the server", None)
}

/// SEP-1034: an accepted form answer gets the `default` of every field of the requested
/// schema it leaves out.
pub(crate) fn fill_defaults(request: &serde_json::Value, answer: &mut serde_json::Value) {
    if answer.get("action").and_then(serde_json::Value::as_str) != Some("accept") {
        return;
    }
    let Some(properties) = request
        .pointer("/requestedSchema/properties")
        .and_then(serde_json::Value::as_object)
    else {
        return;
    };
    let Some(answer) = answer.as_object_mut() else {
        return;
    };
    let content = answer
        .entry("content")
        .or_insert_with(|| serde_json::Value::Object(Default::default()));
    let Some(content) = content.as_object_mut() else {
        return;
    };
    for (name, schema) in properties {
        if let Some(default) = schema.get("default") {
            content
                .entry(name.clone())
                .or_insert_with(|| default.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn an_accepted_form_gets_the_defaults_of_omitted_fields_only() {
        let request = json!({"requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "John"},
            "age": {"type": "integer", "default": 30},
            "note": {"type": "string"}
        }}});
        let mut answer = json!({"action": "accept", "content": {"name": "Ann"}});
        super::fill_defaults(&request, &mut answer);
        assert_eq!(
            answer,
            json!({"action": "accept", "content": {"name": "Ann", "age": 30}})
        );
        let mut declined = json!({"action": "decline"});
        super::fill_defaults(&request, &mut declined);
        assert_eq!(declined, json!({"action": "decline"}));
    }
}
