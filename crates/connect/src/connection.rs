//! A live session with one server: how it is opened for each transport, what can be asked of
//! it, and how it ends.
//!
//! Local (stdio) servers run in their own process group with the expanded `env` on top of
//! ours and the project as working folder; their stderr goes to a bounded [`StderrLog`] whose
//! tail is attached to a start-up failure. Shutting down closes stdin, waits, then sends
//! SIGTERM and finally SIGKILL to the whole group (rmcp's graceful shutdown), so no server
//! process outlives us. Remote servers speak streamable HTTP through rmcp's client.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use mcp_manager_core::config::entry::{ServerConfig, Transport, TransportKind};
use rmcp::model::{CallToolRequestParams, ServerPeerInfo};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde::Serialize;
use serde_json::Value;

use crate::handler::Handler;
use crate::status::{Capabilities, ConnectedInfo};
use crate::stderr::StderrLog;

/// Why a session could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    #[error("could not start `{command}`: {source}")]
    Spawn {
        command: String,
        #[source]
        source: std::io::Error,
    },
    /// The process ended (or closed stdout) before answering `initialize`.
    #[error("exited before initialize: {detail}")]
    Exited { detail: String },
    #[error("no answer to initialize within {}s{}", .timeout.as_secs(), stderr_suffix(.stderr))]
    Timeout { timeout: Duration, stderr: String },
    #[error("the server asks for authorization")]
    NeedsAuth,
    #[error("initialize failed: {message}{}", stderr_suffix(.stderr))]
    Initialize { message: String, stderr: String },
    #[error("header \"{0}\" is not a valid HTTP header")]
    InvalidHeader(String),
    #[error("the {0} transport is not supported yet")]
    Unsupported(&'static str),
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("; stderr = {stderr}")
    }
}

/// A tool as listed, with what a person needs to pick and call it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolSummary {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The tool's JSON Schema for its arguments.
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    /// The tool's annotations as sent (readOnlyHint, destructiveHint, …).
    pub annotations: Option<Value>,
}

/// The result of a tool call, kept whole, with its timing.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CallOutcome {
    /// The `CallToolResult` exactly as the server sent it.
    pub result: Value,
    pub is_error: bool,
    pub elapsed_ms: u64,
}

/// An open session.
pub struct Connection {
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    peer: rmcp::Peer<RoleClient>,
    info: ConnectedInfo,
    stderr: Option<StderrLog>,
    pid: Option<u32>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.info.server_name)
            .field("pid", &self.pid)
            .finish()
    }
}

impl Connection {
    /// Opens a session. `config` must already be `${VAR}`-expanded.
    pub async fn open(
        config: &ServerConfig,
        project: &Path,
        timeout: Duration,
        stderr: StderrLog,
    ) -> Result<Connection, ConnectError> {
        let handler = Handler::new(vec![file_uri(project)]);
        match &config.transport {
            Transport::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args)
                    .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                    .current_dir(project)
                    .kill_on_drop(true);
                let mut wrapped = process_wrap::tokio::CommandWrap::from(cmd);
                #[cfg(unix)]
                wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
                let (transport, stderr_pipe) = TokioChildProcess::builder(wrapped)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|source| ConnectError::Spawn {
                        command: command.clone(),
                        source,
                    })?;
                let pid = transport.id();
                let collector = stderr_pipe.map(|pipe| tokio::spawn(stderr.clone().collect(pipe)));
                let started = tokio::time::timeout(timeout, handler.serve(transport)).await;
                let service = match started {
                    Ok(Ok(service)) => service,
                    Ok(Err(err)) => {
                        // Give the stderr reader a moment to take in the last words.
                        if let Some(collector) = collector {
                            let _ =
                                tokio::time::timeout(Duration::from_millis(500), collector).await;
                        }
                        let tail = stderr.tail(20);
                        return Err(match err {
                            rmcp::service::ClientInitializeError::ConnectionClosed(_) => {
                                ConnectError::Exited {
                                    detail: if tail.is_empty() {
                                        "no output on stderr".into()
                                    } else {
                                        format!("stderr = {tail}")
                                    },
                                }
                            }
                            other => ConnectError::Initialize {
                                message: other.to_string(),
                                stderr: tail,
                            },
                        });
                    }
                    Err(_) => {
                        return Err(ConnectError::Timeout {
                            timeout,
                            stderr: stderr.tail(20),
                        })
                    }
                };
                Ok(Connection::from_service(service, Some(stderr), pid))
            }
            Transport::Remote {
                kind: TransportKind::Http,
                url,
                headers,
            } => {
                let mut custom = std::collections::HashMap::new();
                for (name, value) in headers {
                    let header_name = http::HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| ConnectError::InvalidHeader(name.clone()))?;
                    let header_value = http::HeaderValue::from_str(value)
                        .map_err(|_| ConnectError::InvalidHeader(name.clone()))?;
                    custom.insert(header_name, header_value);
                }
                let transport = StreamableHttpClientTransport::from_config(
                    StreamableHttpClientTransportConfig::with_uri(url.as_str())
                        .custom_headers(custom),
                );
                let service = match tokio::time::timeout(timeout, handler.serve(transport)).await {
                    Ok(Ok(service)) => service,
                    Ok(Err(err)) if err.is_authorization_required() => {
                        return Err(ConnectError::NeedsAuth)
                    }
                    Ok(Err(err)) => {
                        return Err(ConnectError::Initialize {
                            message: err.to_string(),
                            stderr: String::new(),
                        })
                    }
                    Err(_) => {
                        return Err(ConnectError::Timeout {
                            timeout,
                            stderr: String::new(),
                        })
                    }
                };
                Ok(Connection::from_service(service, None, None))
            }
            Transport::Remote { kind, .. } => Err(ConnectError::Unsupported(kind.as_str())),
        }
    }

    fn from_service(
        service: RunningService<RoleClient, Handler>,
        stderr: Option<StderrLog>,
        pid: Option<u32>,
    ) -> Connection {
        let peer = service.peer().clone();
        let info = connected_info(service.peer_info().as_deref());
        Connection {
            service: tokio::sync::Mutex::new(Some(service)),
            peer,
            info,
            stderr,
            pid,
        }
    }

    /// What the server said about itself.
    pub fn info(&self) -> &ConnectedInfo {
        &self.info
    }

    /// The local server's process id (it leads its own process group).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The stderr tail of a local server.
    pub fn stderr(&self) -> Option<&StderrLog> {
        self.stderr.as_ref()
    }

    /// Every tool, following pagination; empty when the server has no tools capability.
    pub async fn list_tools(&self) -> Result<Vec<ToolSummary>, rmcp::ServiceError> {
        if !self.info.capabilities.tools {
            return Ok(Vec::new());
        }
        let tools = self.peer.list_all_tools().await?;
        Ok(tools
            .into_iter()
            .map(|tool| {
                let value = serde_json::to_value(&tool).unwrap_or(Value::Null);
                ToolSummary {
                    name: tool.name.to_string(),
                    title: value
                        .get("title")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    description: tool.description.as_ref().map(|d| d.to_string()),
                    input_schema: value.get("inputSchema").cloned().unwrap_or(Value::Null),
                    output_schema: value.get("outputSchema").cloned(),
                    annotations: value.get("annotations").cloned(),
                }
            })
            .collect())
    }

    /// Calls a tool. On `timeout` the server gets `notifications/cancelled`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        timeout: Option<Duration>,
    ) -> Result<CallOutcome, rmcp::ServiceError> {
        let mut params = CallToolRequestParams::new(name.to_string());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let request =
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params));
        let options = match timeout {
            Some(timeout) => PeerRequestOptions::with_timeout(timeout),
            None => PeerRequestOptions::no_options(),
        };
        let started = Instant::now();
        let response = self
            .peer
            .send_request_with_option(request, options)
            .await?
            .await_response()
            .await?;
        let elapsed_ms = started.elapsed().as_millis() as u64;
        let result = match response {
            rmcp::model::ServerResult::CallToolResult(result) => {
                serde_json::to_value(result).unwrap_or(Value::Null)
            }
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        };
        let is_error = result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(CallOutcome {
            result,
            is_error,
            elapsed_ms,
        })
    }

    /// Ends the session: closes the transport (for a local server: stdin, wait, SIGTERM, SIGKILL
    /// to its process group).
    pub async fn shutdown(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close_with_timeout(Duration::from_secs(10)).await;
        }
    }
}

fn connected_info(info: Option<&ServerPeerInfo>) -> ConnectedInfo {
    let Some(info) = info else {
        return ConnectedInfo {
            server_name: String::new(),
            server_version: String::new(),
            server_title: None,
            protocol_version: String::new(),
            instructions: None,
            capabilities: Capabilities::default(),
        };
    };
    let caps = serde_json::to_value(&info.capabilities).unwrap_or(Value::Null);
    let flag = |section: &str, key: &str| {
        caps.get(section)
            .and_then(|s| s.get(key))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    ConnectedInfo {
        server_name: info
            .server_info
            .as_ref()
            .map(|i| i.name.clone())
            .unwrap_or_default(),
        server_version: info
            .server_info
            .as_ref()
            .map(|i| i.version.clone())
            .unwrap_or_default(),
        server_title: info.server_info.as_ref().and_then(|i| i.title.clone()),
        protocol_version: info.protocol_version.to_string(),
        instructions: info.instructions.clone(),
        capabilities: Capabilities {
            tools: caps.get("tools").is_some(),
            tools_list_changed: flag("tools", "listChanged"),
            resources: caps.get("resources").is_some(),
            resources_subscribe: flag("resources", "subscribe"),
            resources_list_changed: flag("resources", "listChanged"),
            prompts: caps.get("prompts").is_some(),
            prompts_list_changed: flag("prompts", "listChanged"),
            logging: caps.get("logging").is_some(),
            completions: caps.get("completions").is_some(),
        },
    }
}

/// `file://` URI of a folder, for roots.
fn file_uri(path: &Path) -> String {
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
