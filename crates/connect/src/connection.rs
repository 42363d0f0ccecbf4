//! A live session with one server: how it is opened for each transport, what can be asked of
//! it, and how it ends.
//!
//! Local (stdio) servers run in their own process group with the expanded `env` on top of
//! ours and the project as working folder; their stderr goes to a bounded [`StderrLog`] whose
//! tail is attached to a start-up failure. We own the child process (rmcp only sees its pipes),
//! so we know how it exited, and shutdown is ours: close stdin, wait [`STDIN_GRACE`], SIGTERM
//! to the group, wait [`TERM_GRACE`], SIGKILL to the group. Dropping a [`Connection`] kills the
//! group too, so no server process outlives us. Remote servers speak streamable HTTP through
//! rmcp's client.

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

/// A call's progress notifications on their way to its caller, for as long as the call
/// lasts (also when the caller stops waiting).
struct ProgressRoute<'a> {
    routes: &'a ProgressRoutes,
    token: rmcp::model::ProgressToken,
}

impl<'a> ProgressRoute<'a> {
    fn open(
        routes: &'a ProgressRoutes,
        token: rmcp::model::ProgressToken,
        sink: tokio::sync::mpsc::UnboundedSender<Progress>,
    ) -> Self {
        routes
            .lock()
            .expect("progress lock")
            .insert(token.clone(), sink);
        ProgressRoute { routes, token }
    }
}

impl Drop for ProgressRoute<'_> {
    fn drop(&mut self) {
        self.routes
            .lock()
            .expect("progress lock")
            .remove(&self.token);
    }
}

/// Where streamable HTTP falls back to legacy SSE, and with what.
struct Fallback<'a> {
    url: &'a str,
    headers: &'a [(String, String)],
    limits: Limits,
    auth: Option<&'a crate::oauth::Target>,
}

/// Opening a transport (`what`) failed for `err`.
fn opening_failed(what: &str, err: &dyn std::fmt::Display) -> ConnectError {
    ConnectError::Initialize {
        message: format!("{what}: {}", plain(&err.to_string())),
        stderr: String::new(),
    }
}

/// The `WWW-Authenticate` challenge of a legacy SSE 401 somewhere in `err`'s sources.
fn sse_challenge(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut current = Some(err);
    while let Some(error) = current {
        if let Some(crate::sse::SseError::Unauthorized { challenge, .. }) = error.downcast_ref() {
            return challenge.clone();
        }
        current = error.source();
    }
    None
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

/// "status 3; stderr = …", "signal 9 (SIGKILL); no output on stderr".
pub(crate) fn exit_detail(status: Option<ExitStatus>, tail: &str) -> String {
    let how = match status {
        Some(status) => match status.code() {
            Some(code) => format!("status {code}"),
            None => {
                #[cfg(unix)]
                {
                    use std::os::unix::process::ExitStatusExt;
                    match status.signal() {
                        Some(signal) => format!("signal {signal}"),
                        None => "an unknown status".into(),
                    }
                }
                #[cfg(not(unix))]
                {
                    "an unknown status".to_string()
                }
            }
        },
        None => "an unknown status".into(),
    };
    format!("{how}; {}", stderr_or_nothing(tail))
}

/// How a local server's process is started, by a session and by the doctor alike: in the
/// project folder, with the entry's `env` over ours, its three pipes taken, killed when
/// dropped.
pub(crate) fn server_process(
    program: &std::ffi::OsStr,
    args: &[String],
    env: &[(String, String)],
    project: &Path,
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .current_dir(project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own process group, so that shutdown reaches whatever it starts (npx → node).
    #[cfg(unix)]
    cmd.process_group(0);
    // Should this process die without shutting down (SIGKILL, a crash), the server is told
    // with SIGTERM instead of living on as an orphan.
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(2) is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    cmd
}

/// A tool's schemas as last listed.
#[derive(Debug, Clone)]
struct ToolSchemas {
    input: Value,
    output: Option<Value>,
}

/// A local server's process: its exit is watched by a task that owns the child.
struct Process {
    pid: Option<u32>,
    exit: watch::Receiver<Option<Option<ExitStatus>>>,
}

impl Process {
    fn watch(mut child: tokio::process::Child, pid: Option<u32>) -> Process {
        let (tx, exit) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await.ok();
            let _ = tx.send(Some(status));
        });
        Process { pid, exit }
    }

    /// How it ended, once it has.
    async fn wait(&self) -> Option<ExitStatus> {
        let mut exit = self.exit.clone();
        let status = match exit.wait_for(Option::is_some).await {
            Ok(status) => status.flatten(),
            Err(_) => None,
        };
        status
    }

    async fn wait_for_exit(&self, limit: Duration) -> Option<ExitStatus> {
        tokio::time::timeout(limit, self.wait())
            .await
            .ok()
            .flatten()
    }

    fn has_exited(&self) -> bool {
        self.exit.borrow().is_some()
    }

    fn signal_group(&self, signal: i32) {
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            // SAFETY: kill(2) on the process group our child leads; no memory is involved.
            unsafe { libc::kill(-(pid as i32), signal) };
        }
        #[cfg(not(unix))]
        let _ = signal;
    }

    /// SIGTERM to the group, then SIGKILL after [`TERM_GRACE`].
    async fn terminate(&self) {
        #[cfg(unix)]
        {
            if !self.has_exited() {
                self.signal_group(libc::SIGTERM);
                if self.wait_for_exit(TERM_GRACE).await.is_none() && !self.has_exited() {
                    self.signal_group(libc::SIGKILL);
                    let _ = self.wait_for_exit(TERM_GRACE).await;
                }
            }
            // Children of the server that ignored the group's SIGTERM do not survive either.
            self.signal_group(libc::SIGKILL);
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        #[cfg(unix)]
        self.signal_group(libc::SIGKILL);
    }
}

/// A tool as listed, with what a person needs to pick and call it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolSummary {
    pub name: String,
    pub title: Option<String>,
    /// Whole, with control and format characters stripped.
    pub description: Option<String>,
    /// The 2,048-character view a model would be given.
    pub description_for_model: Option<String>,
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
}

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
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    peer: rmcp::Peer<RoleClient>,
    /// Tool calls that go to a local server without rmcp's service loop (see `stdio.rs`).
    calls: Option<std::sync::Arc<crate::stdio::Calls>>,
    info: ConnectedInfo,
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

/// How long opening a session, and each HTTP POST in it, may take.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The whole start: spawn or first request, through `initialize`.
    pub connect: Duration,
    /// Each POST of a streamable HTTP session, up to its answer ([`POST_TIMEOUT`]).
    pub http_post: Duration,
}

impl Limits {
    /// `connect`, and the usual 60 s per HTTP POST.
    pub fn connect(connect: Duration) -> Self {
        Limits {
            connect,
            http_post: POST_TIMEOUT,
        }
    }
}

impl Connection {
    /// Opens a session that declines elicitation. `config` must already be `${VAR}`-expanded.
    pub async fn open(
        config: &ServerConfig,
        project: &Path,
        timeout: Duration,
        stderr: StderrLog,
    ) -> Result<Connection, ConnectError> {
        Self::open_with(
            "",
            config,
            project,
            Limits::connect(timeout),
            stderr,
            std::sync::Arc::new(Decline),
        )
        .await
    }

    /// Opens a session for `server` whose elicitation and sampling requests `answerer` answers.
    pub async fn open_with(
        server: &str,
        config: &ServerConfig,
        project: &Path,
        limits: Limits,
        stderr: StderrLog,
        answerer: std::sync::Arc<dyn Answerer>,
    ) -> Result<Connection, ConnectError> {
        let roots = crate::handler::Roots::of(&[project.to_path_buf()]);
        Self::open_authorized(
            server, config, project, limits, stderr, answerer, roots, None,
        )
        .await
    }

    /// [`Connection::open_with`], with `roots` for the server's `roots/list` (instead of the
    /// project folder), sending the stored OAuth token of `auth` (when one is stored) to a
    /// remote server (streamable HTTP or legacy SSE), and refreshing it as needed.
    #[allow(clippy::too_many_arguments)]
    pub async fn open_authorized(
        server: &str,
        config: &ServerConfig,
        project: &Path,
        limits: Limits,
        logs: impl Into<ServerLogs>,
        answerer: std::sync::Arc<dyn Answerer>,
        roots: crate::handler::Roots,
        auth: Option<&crate::oauth::Target>,
    ) -> Result<Connection, ConnectError> {
        let ServerLogs { stderr, protocol } = logs.into();
        let timeout = limits.connect;
        let (changes_tx, changes) = tokio::sync::mpsc::unbounded_channel();
        let mut handler = Handler::new(server.to_string(), answerer.clone(), roots, changes_tx);
        handler.protocol = protocol.clone();
        let progress = handler.progress.clone();
        match &config.transport {
            Transport::Stdio { command, args, env } => {
                let mut cmd = server_process(command.as_ref(), args, env, project);
                let mut child = cmd.spawn().map_err(|source| ConnectError::Spawn {
                    command: command.clone(),
                    source,
                })?;
                let pid = child.id();
                let stdin = child.stdin.take().expect("stdin is piped");
                let stdout = child.stdout.take().expect("stdout is piped");
                let collector = child
                    .stderr
                    .take()
                    .map(|pipe| tokio::spawn(stderr.clone().collect(pipe)));
                let process = Process::watch(child, pid);
                let transport = crate::stdio::Lines::new(stdout, stdin, MAX_MESSAGE, protocol);
                let calls = transport.calls();
                let started = tokio::time::timeout(timeout, handler.serve(transport)).await;
                let service = match started {
                    Ok(Ok(service)) => service,
                    Ok(Err(err)) => {
                        // The process may be on its way out: give it, and the stderr reader, a
                        // moment, so the message can say how it ended and what it said.
                        let status = process.wait_for_exit(Duration::from_millis(500)).await;
                        if let Some(collector) = collector {
                            let _ =
                                tokio::time::timeout(Duration::from_millis(500), collector).await;
                        }
                        let exited = process.has_exited();
                        process.terminate().await;
                        let tail = stderr.tail(20);
                        return Err(match err {
                            _ if exited => ConnectError::Exited {
                                detail: exit_detail(status, &tail),
                            },
                            rmcp::service::ClientInitializeError::ConnectionClosed(_) => {
                                ConnectError::Exited {
                                    detail: format!("stdout closed; {}", stderr_or_nothing(&tail)),
                                }
                            }
                            other => ConnectError::Initialize {
                                message: plain(&other.to_string()),
                                stderr: tail,
                            },
                        });
                    }
                    Err(_) => {
                        process.terminate().await;
                        return Err(ConnectError::Timeout {
                            timeout,
                            stderr: stderr.tail(20),
                        });
                    }
                };
                let mut connection = Connection::from_service(
                    server,
                    answerer.clone(),
                    service,
                    Some(stderr),
                    Some(process),
                    changes,
                    progress,
                );
                connection.calls = Some(calls);
                Ok(connection)
            }
            Transport::Remote { kind, url, headers } => {
                let service =
                    Self::serve_remote(handler, *kind, url, headers, limits, auth).await?;
                Ok(Connection::from_service(
                    server,
                    answerer.clone(),
                    service,
                    None,
                    None,
                    changes,
                    progress,
                ))
            }
        }
    }

    /// Initializes a remote session over the transport `kind` names.
    async fn serve_remote(
        handler: Handler,
        kind: TransportKind,
        url: &str,
        headers: &[(String, String)],
        limits: Limits,
        auth: Option<&crate::oauth::Target>,
    ) -> Result<RunningService<RoleClient, Handler>, ConnectError> {
        let timeout = limits.connect;
        match kind {
            TransportKind::Http => {
                let mut custom = std::collections::HashMap::new();
                for (name, value) in headers {
                    let header_name = http::HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| ConnectError::InvalidHeader(name.clone()))?;
                    let header_value = http::HeaderValue::from_str(value)
                        .map_err(|_| ConnectError::InvalidHeader(name.clone()))?;
                    custom.insert(header_name, header_value);
                }
                let mut http_config = StreamableHttpClientTransportConfig::with_uri(url)
                    .custom_headers(custom)
                    // A 404 to a known session: rmcp initializes a new one and retries each
                    // POST that failed that way once (tests/http.rs). A restart that wedges the
                    // session instead is noticed by the heartbeat (`ended`).
                    .reinit_on_expired_session(true);
                http_config.max_json_response_size = MAX_MESSAGE;
                http_config.max_sse_event_size = MAX_MESSAGE;
                let client = TimedPosts::new(limits.http_post);
                let authorized = match auth {
                    Some(target) => crate::oauth::authorized(target, client.clone())
                        .await
                        .map_err(|err| ConnectError::Auth(err.to_string()))?,
                    None => None,
                };
                let fallback = Fallback {
                    url,
                    headers,
                    limits,
                    auth,
                };
                match authorized {
                    Some(client) => {
                        Self::serve_streamable(handler, client, http_config, fallback).await
                    }
                    None => Self::serve_streamable(handler, client, http_config, fallback).await,
                }
            }
            TransportKind::Sse => Self::serve_sse(handler, url, headers, limits, auth).await,
            TransportKind::Ws => {
                let transport = crate::ws::connect(url, headers, MAX_MESSAGE);
                let opening = async {
                    transport
                        .await
                        .map_err(|err| opening_failed("WebSocket", &err))
                };
                Self::serve_opened(handler, "WebSocket", opening, timeout).await
            }
            TransportKind::Stdio => Err(ConnectError::Unsupported(kind.as_str())),
        }
    }

    /// Initializes over streamable HTTP with `client`, falling back to legacy SSE on a 4xx.
    async fn serve_streamable<C>(
        handler: Handler,
        client: C,
        http_config: StreamableHttpClientTransportConfig,
        fallback_to: Fallback<'_>,
    ) -> Result<RunningService<RoleClient, Handler>, ConnectError>
    where
        C: rmcp::transport::streamable_http_client::StreamableHttpClient + Send + Sync + 'static,
    {
        let timeout = fallback_to.limits.connect;
        let transport = crate::protocol_log::tap(
            StreamableHttpClientTransport::with_client(client, http_config),
            handler.protocol.clone(),
        );
        let fallback = handler.clone();
        match tokio::time::timeout(timeout, handler.serve(transport)).await {
            Ok(Ok(service)) => Ok(service),
            Ok(Err(err)) if err.is_authorization_required() => Err(ConnectError::NeedsAuth {
                challenge: err.auth_challenge().map(str::to_string),
            }),
            // A 4xx to the initialize POST: perhaps a server of the 2024-11-05 spec, which
            // expects a GET for its event stream at this URL (the spec's
            // backwards-compatibility rule).
            Ok(Err(err))
                if err
                    .to_string()
                    .contains("unexpected server response: HTTP 4") =>
            {
                let Fallback {
                    url,
                    headers,
                    limits,
                    auth,
                } = fallback_to;
                Self::serve_sse(fallback, url, headers, limits, auth)
                    .await
                    .map_err(|sse| match sse {
                        // The SSE endpoint, at least, wants a login: say so.
                        ConnectError::NeedsAuth { .. } => sse,
                        sse => ConnectError::Initialize {
                            message: format!("{err}; and as legacy SSE: {sse}"),
                            stderr: String::new(),
                        },
                    })
            }
            Ok(Err(err)) if err.to_string().contains("error sending request") => {
                Err(ConnectError::Unreachable {
                    url: fallback_to.url.to_string(),
                })
            }
            Ok(Err(err)) => Err(ConnectError::Initialize {
                message: plain(&err.to_string()),
                stderr: String::new(),
            }),
            Err(_) => Err(ConnectError::Timeout {
                timeout,
                stderr: String::new(),
            }),
        }
    }

    async fn serve_sse(
        handler: Handler,
        url: &str,
        headers: &[(String, String)],
        limits: Limits,
        auth: Option<&crate::oauth::Target>,
    ) -> Result<RunningService<RoleClient, Handler>, ConnectError> {
        let bearer = match auth {
            Some(target) => crate::oauth::authorized(target, ())
                .await
                .map_err(|err| ConnectError::Auth(err.to_string()))?,
            None => None,
        };
        let opening = async {
            crate::sse::SseTransport::connect(url, headers, limits.http_post, bearer)
                .await
                .map_err(|err| match err {
                    crate::sse::SseError::Unauthorized { challenge, .. } => {
                        ConnectError::NeedsAuth { challenge }
                    }
                    other => opening_failed("legacy SSE", &other),
                })
        };
        Self::serve_opened(handler, "legacy SSE", opening, limits.connect).await
    }

    /// Opens a transport (`opening`) and initializes over it, all within `timeout`; failures
    /// are named after the transport (`what`), and a refusal for want of authorization is
    /// needs-auth.
    async fn serve_opened<T, E, A>(
        handler: Handler,
        what: &str,
        opening: impl std::future::Future<Output = Result<T, ConnectError>>,
        timeout: Duration,
    ) -> Result<RunningService<RoleClient, Handler>, ConnectError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let opened = tokio::time::timeout(timeout, async {
            let transport = crate::protocol_log::tap(
                rmcp::transport::IntoTransport::<RoleClient, E, A>::into_transport(opening.await?),
                handler.protocol.clone(),
            );
            handler.serve(transport).await.map_err(|err| {
                if err.is_authorization_required() {
                    ConnectError::NeedsAuth {
                        challenge: sse_challenge(&err),
                    }
                } else {
                    opening_failed(what, &err)
                }
            })
        })
        .await;
        opened.unwrap_or(Err(ConnectError::Timeout {
            timeout,
            stderr: String::new(),
        }))
    }

    fn from_service(
        server: &str,
        answerer: std::sync::Arc<dyn Answerer>,
        service: RunningService<RoleClient, Handler>,
        stderr: Option<StderrLog>,
        process: Option<Process>,
        changes: tokio::sync::mpsc::UnboundedReceiver<ListKind>,
        progress: ProgressRoutes,
    ) -> Connection {
        let peer = service.peer().clone();
        let updates = service.service().updates.clone();
        let info = connected_info(service.peer_info().as_deref());
        Connection {
            transport_errors: std::sync::atomic::AtomicU32::new(0),
            server: server.to_string(),
            answerer,
            progress,
            updates,
            changes: std::sync::Mutex::new(Some(changes)),
            lost: tokio::sync::Notify::new(),
            auth_required: std::sync::atomic::AtomicBool::new(false),
            schemas: std::sync::Mutex::new(None),
            service: tokio::sync::Mutex::new(Some(service)),
            peer,
            calls: None,
            info,
            stderr,
            process,
        }
    }

    /// Tells the server its roots changed (it asks for them again).
    pub async fn roots_changed(&self) -> Result<(), ServiceError> {
        self.note(self.peer.notify_roots_list_changed().await)
    }

    /// What the server said about itself.
    pub fn info(&self) -> &ConnectedInfo {
        &self.info
    }

    /// The local server's process id (it leads its own process group).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|p| p.pid)
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

    /// The inputSchema of `tool` as last listed (listing once if the tools never were).
    pub async fn tool_schema(&self, tool: &str) -> Option<Value> {
        self.listed_schemas(tool).await.map(|schemas| schemas.input)
    }

    /// `tool`'s schemas from the last `tools/list`, listing once if the tools never were.
    async fn listed_schemas(&self, tool: &str) -> Option<ToolSchemas> {
        let listed = self.schemas.lock().expect("schema lock").is_some();
        if !listed {
            self.list_tools().await.ok()?;
        }
        self.schemas
            .lock()
            .expect("schema lock")
            .as_ref()
            .and_then(|schemas| schemas.get(tool).cloned())
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

    /// Every tool, following pagination; empty when the server has no tools capability.
    pub async fn list_tools(&self) -> Result<Vec<ToolSummary>, rmcp::ServiceError> {
        if !self.info.capabilities.tools {
            return Ok(Vec::new());
        }
        let tools = self.note(self.peer.list_all_tools().await)?;
        let summaries: Vec<ToolSummary> = tools
            .into_iter()
            .map(|tool| {
                let value =
                    sanitize::strip_value(&serde_json::to_value(&tool).unwrap_or(Value::Null));
                let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
                let description = text("description");
                ToolSummary {
                    name: text("name").unwrap_or_default(),
                    title: text("title"),
                    description_for_model: description.as_deref().map(sanitize::model_view),
                    description,
                    input_schema: value.get("inputSchema").cloned().unwrap_or(Value::Null),
                    output_schema: value.get("outputSchema").cloned(),
                    annotations: value.get("annotations").cloned(),
                    meta: value.get("_meta").cloned(),
                }
            })
            .collect();
        *self.schemas.lock().expect("schema lock") = Some(
            summaries
                .iter()
                .map(|t| {
                    let schemas = ToolSchemas {
                        input: t.input_schema.clone(),
                        output: t.output_schema.clone(),
                    };
                    (t.name.clone(), schemas)
                })
                .collect(),
        );
        Ok(summaries)
    }

    /// Every resource (pagination followed) as sent; empty without the resources capability.
    pub async fn list_resources(&self) -> Result<Vec<Value>, rmcp::ServiceError> {
        if !self.info.capabilities.resources {
            return Ok(Vec::new());
        }
        Ok(to_values(self.note(self.peer.list_all_resources().await)?))
    }

    /// Every resource template as sent; empty without the resources capability.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, rmcp::ServiceError> {
        if !self.info.capabilities.resources {
            return Ok(Vec::new());
        }
        Ok(to_values(
            self.note(self.peer.list_all_resource_templates().await)?,
        ))
    }

    /// Every prompt as sent; empty without the prompts capability.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, rmcp::ServiceError> {
        if !self.info.capabilities.prompts {
            return Ok(Vec::new());
        }
        Ok(to_values(self.note(self.peer.list_all_prompts().await)?))
    }

    /// `resources/read`, the result as sent.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, rmcp::ServiceError> {
        let result = self.note(
            self.peer
                .read_resource(rmcp::model::ReadResourceRequestParams::new(uri.to_string()))
                .await,
        )?;
        Ok(serde_json::to_value(result).unwrap_or(Value::Null))
    }

    /// `completion/complete` for one argument of a prompt (`ref/prompt`) or resource template
    /// (`ref/resource`); `reference` is the `ref` object as the spec shapes it. Returns the
    /// suggested values.
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
        context: Option<serde_json::Map<String, Value>>,
    ) -> Result<Vec<String>, ServiceError> {
        let mut params = serde_json::json!({
            "ref": reference,
            "argument": { "name": argument, "value": value },
        });
        if let Some(arguments) = context {
            params["context"] = serde_json::json!({ "arguments": arguments });
        }
        let params = serde_json::from_value(params).map_err(|err| {
            ServiceError::McpError(rmcp::ErrorData::invalid_params(err.to_string(), None))
        })?;
        let result = self.note(self.peer.complete(params).await)?;
        let result = serde_json::to_value(result).unwrap_or(Value::Null);
        Ok(result["completion"]["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect())
    }

    /// `resources/subscribe`: the server will send `notifications/resources/updated`.
    #[allow(deprecated)] // legacy in rmcp's newest protocol; what servers speak today
    pub async fn subscribe(&self, uri: &str) -> Result<(), ServiceError> {
        let params = rmcp::model::SubscribeRequestParams::new(uri.to_string());
        self.note(self.peer.subscribe(params).await).map(|_| ())
    }

    /// `resources/unsubscribe`: no more `notifications/resources/updated` for `uri`.
    #[allow(deprecated)] // legacy in rmcp's newest protocol; what servers speak today
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ServiceError> {
        let params = rmcp::model::UnsubscribeRequestParams::new(uri.to_string());
        self.note(self.peer.unsubscribe(params).await).map(|_| ())
    }

    /// The URIs of `notifications/resources/updated` from now on.
    pub fn resource_updates(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.updates.subscribe()
    }

    /// `logging/setLevel` (debug, info, notice, warning, error, critical, alert, emergency).
    #[allow(deprecated)] // legacy in rmcp's newest protocol; what servers speak today
    pub async fn set_log_level(&self, level: &str) -> Result<(), ServiceError> {
        let params =
            serde_json::from_value(serde_json::json!({ "level": level })).map_err(|err| {
                ServiceError::McpError(rmcp::ErrorData::invalid_params(err.to_string(), None))
            })?;
        self.note(self.peer.set_level(params).await).map(|_| ())
    }

    /// `prompts/get` with arguments, the result as sent.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
    ) -> Result<Value, rmcp::ServiceError> {
        let mut params = rmcp::model::GetPromptRequestParams::new(name.to_string());
        params.arguments = arguments;
        let result = self.note(self.peer.get_prompt(params).await)?;
        Ok(serde_json::to_value(result).unwrap_or(Value::Null))
    }

    /// Calls a tool. On `timeout` the server gets `notifications/cancelled`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        timeout: Option<Duration>,
    ) -> Result<CallOutcome, rmcp::ServiceError> {
        self.call_tool_with_progress(name, arguments, timeout, None)
            .await
    }

    /// [`Self::call_tool`], with the call's `notifications/progress` sent to `progress`.
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        timeout: Option<Duration>,
        progress: Option<tokio::sync::mpsc::UnboundedSender<Progress>>,
    ) -> Result<CallOutcome, rmcp::ServiceError> {
        self.call_tool_until(name, arguments, timeout, progress, CancellationToken::new())
            .await
    }

    /// [`Self::call_tool_with_progress`], given up when `cancel` is cancelled: the server is
    /// sent `notifications/cancelled` for the request, and the call ends with
    /// [`ServiceError::Cancelled`] at once.
    pub async fn call_tool_until(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        timeout: Option<Duration>,
        progress: Option<tokio::sync::mpsc::UnboundedSender<Progress>>,
        cancel: CancellationToken,
    ) -> Result<CallOutcome, rmcp::ServiceError> {
        let started = Instant::now();
        let mut attempt = 0;
        let result = loop {
            let answer = match &self.calls {
                // Dropping the fast path's request sends notifications/cancelled for it.
                Some(calls) => tokio::select! {
                    answer = self.call_directly(calls, name, arguments.as_ref(), timeout, progress.clone()) => answer,
                    _ = cancel.cancelled() => Err(cancelled()),
                },
                None => {
                    self.call_through_rmcp(
                        name,
                        arguments.clone(),
                        timeout,
                        progress.clone(),
                        &cancel,
                    )
                    .await
                }
            };
            let answer = self.note(answer);
            // -32042: the server needs the person to visit URLs first. Ask, and retry (at
            // most URL_ELICITATION_RETRIES times, as Claude Code).
            match answer {
                Err(ServiceError::McpError(error))
                    if error.code.0 == URL_ELICITATION_REQUIRED
                        && attempt < URL_ELICITATION_RETRIES =>
                {
                    attempt += 1;
                    let elicitations = error
                        .data
                        .as_ref()
                        .and_then(|d| d.get("elicitations"))
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    for elicitation in elicitations {
                        let reply = self.answerer.elicit(&self.server, elicitation).await;
                        if reply.get("action").and_then(Value::as_str) != Some("accept") {
                            return Err(ServiceError::McpError(error));
                        }
                    }
                }
                other => break other?,
            }
        };
        let elapsed_ms = started.elapsed().as_millis() as u64;
        let is_error = result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let schema_errors = self.check_output(name, &result, is_error).await;
        Ok(CallOutcome {
            result,
            is_error,
            elapsed_ms,
            schema_errors,
        })
    }

    /// One `tools/call` written to a local server's pipe by us; its answer as JSON.
    async fn call_directly(
        &self,
        calls: &crate::stdio::Calls,
        name: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
        timeout: Option<Duration>,
        progress: Option<tokio::sync::mpsc::UnboundedSender<Progress>>,
    ) -> Result<Value, ServiceError> {
        let id = calls.next_id();
        let _route = progress.map(|sink| {
            ProgressRoute::open(
                &self.progress,
                crate::stdio::Calls::progress_token(id),
                sink,
            )
        });
        calls.call_tool(id, name, arguments, timeout).await
    }

    /// One `tools/call` through rmcp's session (remote servers); its answer as JSON.
    async fn call_through_rmcp(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        timeout: Option<Duration>,
        progress: Option<tokio::sync::mpsc::UnboundedSender<Progress>>,
        cancel: &CancellationToken,
    ) -> Result<Value, ServiceError> {
        let mut params = CallToolRequestParams::new(name.to_string());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let options = match timeout {
            Some(timeout) => PeerRequestOptions::with_timeout(timeout),
            None => PeerRequestOptions::no_options(),
        };
        let request =
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params));
        let handle = self.peer.send_request_with_option(request, options).await?;
        let _route = progress
            .map(|sink| ProgressRoute::open(&self.progress, handle.progress_token.clone(), sink));
        let id = handle.id.clone();
        let answer = tokio::select! {
            answer = handle.await_response() => answer?,
            _ = cancel.cancelled() => {
                let notice = rmcp::model::CancelledNotification::new(
                    rmcp::model::CancelledNotificationParam::new(Some(id), Some(CANCELLED.into())),
                );
                let _ = self
                    .peer
                    .send_notification(rmcp::model::ClientNotification::CancelledNotification(notice))
                    .await;
                return Err(cancelled());
            }
        };
        Ok(match answer {
            rmcp::model::ServerResult::CallToolResult(result) => {
                serde_json::to_value(result).unwrap_or(Value::Null)
            }
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        })
    }

    /// Checks `structuredContent` against the tool's `outputSchema` (fetching the tool list
    /// once if it was never listed).
    async fn check_output(&self, tool: &str, result: &Value, is_error: bool) -> Vec<String> {
        if is_error {
            return Vec::new();
        }
        let Some(schema) = self.listed_schemas(tool).await.and_then(|s| s.output) else {
            return Vec::new();
        };
        let Some(structured) = result.get("structuredContent") else {
            return vec!["the tool declares an outputSchema but sent no structuredContent".into()];
        };
        match jsonschema::validator_for(&schema) {
            Ok(validator) => validator
                .iter_errors(structured)
                .map(|e| {
                    let at = e.instance_path().to_string();
                    format!("{}: {e}", if at.is_empty() { "/" } else { &at })
                })
                .collect(),
            Err(err) => vec![format!(
                "the tool's outputSchema is not a valid JSON Schema: {err}"
            )],
        }
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
            counts: ListCounts::default(),
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
        counts: ListCounts::default(),
    }
}

fn to_values<T: Serialize>(items: Vec<T>) -> Vec<Value> {
    items
        .into_iter()
        .map(|item| serde_json::to_value(item).unwrap_or(Value::Null))
        .collect()
}

/// Why a call ended that the person cancelled.
pub const CANCELLED: &str = "cancelled by the person";

fn cancelled() -> ServiceError {
    ServiceError::Cancelled {
        reason: Some(CANCELLED.into()),
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

/// An rmcp error message without the Rust type names it carries: "Transport
/// [rmcp::transport::worker::WorkerTransport<…>] error: X" becomes "X".
pub fn plain(message: &str) -> String {
    let mut out = message.to_string();
    while let Some(start) = out.find("Transport [") {
        let Some(end) = out[start..].find("] error: ") else {
            break;
        };
        out.replace_range(start..start + end + "] error: ".len(), "");
    }
    out
}

#[cfg(test)]
mod plain_tests {
    #[test]
    fn rust_type_names_leave_error_messages() {
        let raw = "Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::A<B<C>>>] error: Auth required, when send initialize request";
        assert_eq!(
            super::plain(raw),
            "Send message error Auth required, when send initialize request"
        );
        assert_eq!(super::plain("nothing to strip"), "nothing to strip");
    }

    #[test]
    fn durations_read_as_a_person_says_them() {
        use std::time::Duration;
        assert_eq!(super::seconds(Duration::from_secs(2)), "2 s");
        assert_eq!(super::seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(super::seconds(Duration::from_millis(250)), "250 ms");
    }
}
