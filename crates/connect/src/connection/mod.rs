//! A live session with one server: how it is opened for each transport, what can be asked of
//! it, and how it ends. One module per concern, so each is found in one hop:
//!
//! - [`open`](self::open): opening a session per transport (stdio with our own fast path for
//!   calls, streamable HTTP with its fallback to legacy SSE, SSE), the OAuth-authorized open,
//!   and why an open failed in words (the stderr tail of a local server that died); inside it,
//!   the first start of a local server of unknown era (`initialize`, and `server/discover`
//!   asked beside), which only opening uses.
//! - [`process`]: a local server's process. It runs in its own process group with the
//!   expanded `env` on top of ours and the project as working folder; its stderr goes to a
//!   bounded [`StderrLog`] whose tail is attached to a start-up failure. We own the child
//!   (rmcp only sees its pipes), so we know how it exited, and shutdown is ours: close stdin,
//!   wait [`STDIN_GRACE`], SIGTERM to the group, wait [`TERM_GRACE`], SIGKILL to the group.
//!   Dropping a [`Connection`] kills the group too, so no server process outlives us.
//! - [`requests`]: what can be asked of an open session: lists, reads, prompts, completion,
//!   subscriptions, the logging level, and tool calls (with progress, cancellation, the
//!   outputSchema check and the URL-elicitation retry).
//! - this module: the [`Connection`] itself, its facts (info, counts, the stderr tail), how
//!   a failed request is told to a person ([`Connection::explain`]), and shutdown.

mod listen;
mod open;
mod process;
mod requests;
pub mod skills;
mod tasks;

use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use mcp_manager_core::config::entry::{ServerConfig, Transport, TransportKind};
use rmcp::model::{CallToolRequestParams, ServerPeerInfo};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;

use crate::http_client::{TimedPosts, POST_TIMEOUT};
use rmcp::{RoleClient, ServiceExt};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;

use crate::answer::{Answerer, Decline};
use crate::handler::{Handler, ProgressRoutes};
use crate::sanitize;
use crate::status::{Capabilities, ConnectedInfo, ListCounts, ListKind, Progress};
use crate::stderr::StderrLog;

/// An error from a request on an open session (rmcp's).
pub use rmcp::ServiceError;

pub use crate::status::ListenState;
pub use listen::{REOPENS, STEADY};
pub use process::keep_from_servers;
pub use process::server_process;
use process::Process;
pub(crate) use process::{exit_detail, without_own_settings};
pub use requests::CANCELLED;
pub use tasks::TaskRun;

/// How long a remote server may take to answer a heartbeat ping.
pub const PING_TIMEOUT: Duration = Duration::from_secs(10);

/// Transport failures in a row after which a remote session counts as lost and is
/// reconnected (a transport that closes counts at once).
pub const TERMINAL_ERRORS: u32 = 3;

/// The JSON-RPC error a tool call gets when the person must first visit URLs.
pub const URL_ELICITATION_REQUIRED: i32 = -32042;
/// How often such a call is retried after the person acted.
pub const URL_ELICITATION_RETRIES: u32 = 3;

/// How long a local server may take to exit after its stdin closes before it gets SIGTERM.
pub const STDIN_GRACE: Duration = Duration::from_millis(500);
/// The largest single message we accept from a server. rmcp's default (16 MiB) drops a
/// larger line silently, which leaves its request waiting for ever; real tools return big
/// files and screenshots, so we allow 256 MiB.
pub const MAX_MESSAGE: usize = 256 * 1024 * 1024;
/// How long it may take after SIGTERM before it gets SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(2);

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
    #[error("no answer to initialize within {}s{}", .timeout.as_secs_f32(), stderr_suffix(.stderr))]
    Timeout { timeout: Duration, stderr: String },
    #[error("the server asks for authorization")]
    NeedsAuth {
        /// Its `WWW-Authenticate` challenge, which seeds discovery at login.
        challenge: Option<String>,
    },
    #[error("authorization: {0}")]
    Auth(String),
    #[error("initialize failed: {message}{}", stderr_suffix(.stderr))]
    Initialize { message: String, stderr: String },
    /// A remote server answered with an HTTP status that opens no session: what it means
    /// and what to try ([`crate::words::http_failure`]).
    #[error("{0}")]
    Http(String),
    /// The entry's `protocol` names an era the server does not speak.
    #[error("{0}")]
    WrongEra(String),
    /// Nothing answered at the URL (refused, no such host, no route).
    #[error(
        "could not reach {url}: nothing answered there. Check that the server is running and \
         that the URL is right"
    )]
    Unreachable { url: String },
    #[error("header \"{0}\" is not a valid HTTP header")]
    InvalidHeader(String),
    #[error("the {0} transport is not supported yet")]
    Unsupported(&'static str),
}

/// A tool's schemas as last listed.
#[derive(Debug, Clone)]
struct ToolSchemas {
    input: Value,
    output: Option<Value>,
}

/// A tool as listed, with what a person needs to pick and call it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolSummary {
    pub name: String,
    pub title: Option<String>,
    /// Whole, with control and format characters stripped.
    pub description: Option<String>,
    /// The tool's JSON Schema for its arguments.
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    /// The tool's annotations as sent (readOnlyHint, destructiveHint, …).
    pub annotations: Option<Value>,
    /// The tool's `_meta` as sent (what the spec leaves to each implementation).
    pub meta: Option<Value>,
}

/// The result of a tool call, kept whole, with its timing.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CallOutcome {
    /// The `CallToolResult` exactly as the server sent it.
    pub result: Value,
    pub is_error: bool,
    pub elapsed_ms: u64,
    /// Where `structuredContent` breaks the tool's `outputSchema` (empty when it conforms or
    /// the tool declares none). The result is kept and shown all the same.
    pub schema_errors: Vec<String>,
    /// Each `input_required` result the server sent before the final one (2026-07-28), as
    /// sent: what it asked for in each round.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[specta(skip)]
    pub input_rounds: Vec<Value>,
    /// When the server ran the call as a task (2026-07-28's tasks extension): what became of
    /// it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskRun>,
}

pub use crate::stdio::InputRound;

/// At most this many `input_required` rounds in one call.
pub const INPUT_ROUNDS: usize = 10;

/// What is kept of a session besides its answers: a local server's stderr, and every message
/// when a protocol log is wanted.
#[derive(Debug, Clone, Default)]
pub struct ServerLogs {
    pub stderr: StderrLog,
    pub protocol: Option<crate::protocol_log::ProtocolLog>,
}

impl From<StderrLog> for ServerLogs {
    fn from(stderr: StderrLog) -> Self {
        ServerLogs {
            stderr,
            protocol: None,
        }
    }
}

/// An open session.
pub struct Connection {
    /// Transport failures in a row (see [`TERMINAL_ERRORS`]).
    transport_errors: std::sync::atomic::AtomicU32,
    server: String,
    answerer: std::sync::Arc<dyn Answerer>,
    progress: ProgressRoutes,
    /// The folders `roots/list` answers (for input a 2026-07-28 server asks in a call).
    roots: crate::handler::Roots,
    /// `notifications/resources/updated` URIs (see [`Connection::resource_updates`]).
    updates: tokio::sync::broadcast::Sender<String>,
    /// List-changed notifications, for whoever takes them first (the supervisor).
    changes: std::sync::Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<ListKind>>>,
    /// Woken when a request fails at the transport: the session is lost.
    lost: tokio::sync::Notify,
    /// A request was refused with 401 and no refresh helped: the session needs a login.
    auth_required: std::sync::atomic::AtomicBool,
    /// Tool name → its schemas, from the last `tools/list` (refreshed on `list_changed`).
    schemas: std::sync::Mutex<Option<std::collections::HashMap<String, ToolSchemas>>>,
    /// The last `tools/list`, every tool as the server sent it (nothing stripped): what a
    /// client such as Claude Code works from (see [`Connection::list_tools_as_sent`]).
    listed: std::sync::Mutex<Option<Vec<Value>>>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    peer: rmcp::Peer<RoleClient>,
    /// The tools the last `tools/list` left out (see [`crate::param_headers`]).
    dropped: crate::param_headers::DroppedTools,
    /// On a 2026-07-28 session: our client capabilities with the tasks extension, which a
    /// call made as a task declares (see [`tasks`]).
    task_capabilities: Option<Value>,
    /// A 2026-07-28 session's `subscriptions/listen` (see [`listen`]).
    listener: Option<listen::Listener>,
    /// Tool calls that go to a local server without rmcp's service loop (see `stdio.rs`).
    calls: Option<std::sync::Arc<crate::stdio::Calls>>,
    /// The answer to `server/discover` asked beside this session: the verdict for the next
    /// start (see `first_start.rs`).
    late_verdict: Option<tokio::sync::oneshot::Receiver<crate::era::Verdict>>,
    /// Whether the era this session was opened in is a verdict to remember.
    era_settled: bool,
    /// Tool calls under way: a session that another replaces ends once there are none.
    calls_running: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    info: ConnectedInfo,
    /// How long a listing (`tools/list` and the others, every page) may take.
    list_timeout: std::time::Duration,
    stderr: Option<StderrLog>,
    process: Option<Process>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.info.server_name)
            .field("pid", &self.pid())
            .finish()
    }
}

/// How long a listing may take, every page together: the MCP SDK's request timeout, which
/// Claude Code's `tools/list` has too. A server whose answer cannot be read (nested past the
/// parser's depth, a lone surrogate, `Infinity`) otherwise leaves the request waiting for
/// ever: no answer the reader accepts ever comes.
pub const LIST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// How long opening a session, and each HTTP POST in it, may take; and the era the server
/// was found to speak last time, when that is remembered (see [`crate::era`]).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The whole start: spawn or first request, through `initialize`.
    pub connect: Duration,
    /// Each POST of a streamable HTTP session, up to its answer ([`POST_TIMEOUT`]).
    pub http_post: Duration,
    /// The era remembered for this entry: opened in it without a probe (and probed once more
    /// when that fails).
    pub remembered: Option<crate::era::Era>,
    /// On a first start that `initialize` answered: ask `server/discover` in a second process
    /// beside the session, for the next start (where the answer is remembered).
    pub ask_beside: bool,
}

impl Limits {
    /// `connect`, and the usual 60 s per HTTP POST.
    pub fn connect(connect: Duration) -> Self {
        Limits {
            connect,
            http_post: POST_TIMEOUT,
            remembered: None,
            ask_beside: false,
        }
    }
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("; stderr = {stderr}")
    }
}

fn stderr_or_nothing(tail: &str) -> String {
    if tail.is_empty() {
        "no output on stderr".into()
    } else {
        format!("stderr = {tail}")
    }
}

impl Connection {
    /// What the server said about itself.
    pub fn info(&self) -> &ConnectedInfo {
        &self.info
    }

    /// The answer to `server/discover` asked beside this session, still to come: the verdict
    /// to remember for the next start.
    pub(crate) fn take_late_verdict(
        &mut self,
    ) -> Option<tokio::sync::oneshot::Receiver<crate::era::Verdict>> {
        self.late_verdict.take()
    }

    /// Whether the era this session was opened in is a verdict to remember.
    pub(crate) fn era_settled(&self) -> bool {
        self.era_settled
    }

    /// Whether no tool call is under way on this session.
    pub(crate) fn idle(&self) -> bool {
        self.calls_running.load(std::sync::atomic::Ordering::SeqCst) == 0
    }

    /// Says how the era was found out, when the opener knew more than the opening.
    pub(crate) fn set_era_evidence(&mut self, evidence: String) {
        self.info.era_evidence = evidence;
    }

    /// The local server's process id (it leads its own process group).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|p| p.pid)
    }

    /// Where a 2026-07-28 session's `subscriptions/listen` stands; `None` in the initialize
    /// era, whose notifications need no stream of their own.
    pub fn listening(&self) -> Option<ListenState> {
        self.listener.as_ref().map(listen::Listener::state)
    }

    /// Each change of [`Self::listening`] from now on; `None` in the initialize era.
    pub fn listen_changes(&self) -> Option<tokio::sync::watch::Receiver<ListenState>> {
        self.listener.as_ref().map(listen::Listener::changes)
    }

    /// The tools the server listed last that are not offered, with why: over streamable HTTP,
    /// those whose `x-mcp-header` annotations break the rules (see [`crate::param_headers`]).
    pub fn dropped_tools(&self) -> Vec<crate::param_headers::DroppedTool> {
        self.dropped.list()
    }

    /// The stream of list-changed notifications; `None` once taken.
    pub fn take_list_changes(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<ListKind>> {
        self.changes.lock().expect("changes lock").take()
    }

    /// How many tools, resources and prompts the server lists now, fetched together; `None`
    /// for a list it does not offer or that could not be fetched.
    pub async fn counts(&self) -> ListCounts {
        let caps = self.info.capabilities;
        let count = |offered: bool, listed: Result<usize, ServiceError>| {
            offered
                .then(|| listed.ok())
                .flatten()
                .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
        };
        let (tools, resources, prompts) = tokio::join!(
            self.refetch(ListKind::Tools),
            self.refetch(ListKind::Resources),
            self.refetch(ListKind::Prompts)
        );
        ListCounts {
            tools: count(caps.tools, tools),
            resources: count(caps.resources, resources),
            prompts: count(caps.prompts, prompts),
        }
    }

    /// Fetches one list again and returns how many items it has.
    pub async fn refetch(&self, list: ListKind) -> Result<usize, ServiceError> {
        Ok(match list {
            ListKind::Tools => self.list_tools().await?.len(),
            ListKind::Resources => self.list_resources().await?.len(),
            ListKind::Prompts => self.list_prompts().await?.len(),
        })
    }

    /// Whether a request of this session was refused for want of authorization (a 401 that
    /// no refresh cured): the session [ended](Self::ended) and needs a login.
    pub fn needs_auth(&self) -> bool {
        self.auth_required.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Passes a request's result through, counting transport failures: after
    /// [`TERMINAL_ERRORS`] in a row the session is lost and [`Self::ended`] resolves; any
    /// success resets the count.
    fn note<T>(&self, result: Result<T, ServiceError>) -> Result<T, ServiceError> {
        use std::sync::atomic::Ordering;
        match &result {
            // A 401 that a refresh could not cure: the token is gone for good.
            Err(err) if err.is_authorization_required() => {
                self.auth_required.store(true, Ordering::SeqCst);
                self.lost.notify_one();
            }
            Err(ServiceError::TransportSend(_) | ServiceError::TransportClosed) => {
                if self.transport_errors.fetch_add(1, Ordering::SeqCst) + 1 >= TERMINAL_ERRORS {
                    self.lost.notify_one();
                }
            }
            Ok(_) => self.transport_errors.store(0, Ordering::SeqCst),
            Err(_) => {}
        }
        result
    }

    /// Resolves when the session has ended on its own: for a local server, when its process
    /// exited (with how: "status 1; stderr = …"); for a remote one, when the transport closed.
    ///
    /// A remote session is also pinged every `heartbeat`: a session that does not answer a
    /// ping within [`PING_TIMEOUT`] is wedged (seen with rmcp 3.11 after a server restart:
    /// requests stop leaving) and counts as ended.
    pub async fn ended(&self, heartbeat: Duration) -> String {
        match &self.process {
            Some(process) => {
                let status = process.wait().await;
                exit_detail(
                    status,
                    &self.stderr.as_ref().map(|s| s.tail(20)).unwrap_or_default(),
                )
            }
            None => {
                let closed = async {
                    while !self.peer.is_transport_closed() {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                };
                let wedged = async {
                    loop {
                        tokio::time::sleep(heartbeat).await;
                        let ping = rmcp::model::ClientRequest::PingRequest(Default::default());
                        let answered = async {
                            self.peer
                                .send_request_with_option(
                                    ping,
                                    PeerRequestOptions::with_timeout(PING_TIMEOUT),
                                )
                                .await?
                                .await_response()
                                .await
                        };
                        if answered.await.is_err() {
                            return;
                        }
                    }
                };
                tokio::select! {
                    _ = closed => "the connection was closed".into(),
                    _ = self.lost.notified() => if self.needs_auth() {
                        "the server asks for authorization again".into()
                    } else {
                        "a request could not reach the server".into()
                    },
                    _ = wedged => format!("no answer to a ping within {}s", PING_TIMEOUT.as_secs()),
                }
            }
        }
    }

    /// A failed request in words for a person: a timeout as "no answer within 2 s"; a closed
    /// transport of a local server as how its process ended, with its stderr tail (waiting a
    /// moment for the exit, which follows the closed pipe); anything else as rmcp says it,
    /// without Rust type names.
    pub async fn explain(&self, err: &ServiceError) -> String {
        match err {
            ServiceError::Timeout { timeout } => {
                format!("no answer within {}", seconds(*timeout))
            }
            ServiceError::Cancelled {
                reason: Some(reason),
            } if reason == CANCELLED => {
                "the call was cancelled; the server was told (notifications/cancelled)".into()
            }
            ServiceError::Cancelled {
                reason: Some(reason),
            } if reason == tasks::CANCELLED_TASK => {
                "the task was cancelled; the server was told (tasks/cancel)".into()
            }
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => match &self.process {
                Some(process) => {
                    let status = process.wait_for_exit(Duration::from_secs(1)).await;
                    if process.has_exited() {
                        // The stderr reader may still hold the last lines.
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        let tail = self.stderr.as_ref().map(|s| s.tail(20)).unwrap_or_default();
                        format!("the server exited ({})", exit_detail(status, &tail))
                    } else {
                        "the server closed its end of the pipe but still runs".into()
                    }
                }
                None => "the connection to the server was closed".into(),
            },
            other => plain(&other.to_string()),
        }
    }

    /// The stderr tail of a local server.
    pub fn stderr(&self) -> Option<&StderrLog> {
        self.stderr.as_ref()
    }

    /// Ends the session: stdin closed (the service stops), then for a local server
    /// [`STDIN_GRACE`] to exit, SIGTERM to its group, [`TERM_GRACE`], SIGKILL.
    pub async fn shutdown(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close_with_timeout(Duration::from_secs(5)).await;
        }
        if let Some(process) = &self.process {
            if process.wait_for_exit(STDIN_GRACE).await.is_none() {
                process.terminate().await;
            }
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
            era: crate::era::Era::Legacy,
            era_evidence: String::new(),
            counts: ListCounts::default(),
            listening: None,
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
            tasks: caps
                .get("extensions")
                .and_then(|e| e.get(rmcp::model::TASKS_EXTENSION_ID))
                .is_some(),
            skills: caps
                .get("extensions")
                .and_then(|e| e.get(rmcp::model::SKILLS_EXTENSION_ID))
                .is_some(),
        },
        era: if info.protocol_version.has_initialize() {
            crate::era::Era::Legacy
        } else {
            crate::era::Era::Modern
        },
        era_evidence: String::new(),
        counts: ListCounts::default(),
        listening: None,
    }
}

/// A duration as a person reads it: "2 s", "1.5 s", "250 ms".
pub fn seconds(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else {
        let secs = duration.as_secs_f64();
        if secs.fract() == 0.0 {
            format!("{secs:.0} s")
        } else {
            format!("{secs:.1} s")
        }
    }
}

pub use crate::words::plain;

#[cfg(test)]
mod plain_tests {
    #[test]
    fn durations_read_as_a_person_says_them() {
        use std::time::Duration;
        assert_eq!(super::seconds(Duration::from_secs(2)), "2 s");
        assert_eq!(super::seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(super::seconds(Duration::from_millis(250)), "250 ms");
    }
}
