//! Opening a session, per transport: a local server's process and its pipes (with the fast
//! path for calls beside rmcp's service), streamable HTTP (falling back to legacy SSE where
//! the server answers as an SSE server does), SSE, and the OAuth-authorized open. A failure
//! says why in words: the transport's error, or how a local server's process ended and the
//! tail of its stderr.

mod first_start;

use super::*;
use crate::era::{Era, Handshake, ProbeAnswer, ProbeWatch};
use mcp_manager_core::config::entry::ProtocolChoice;
use rmcp::service::ClientLifecycleMode;
use rmcp::ClientServiceExt;

/// Where streamable HTTP falls back to legacy SSE, and with what.
struct Fallback<'a> {
    url: &'a str,
    headers: &'a [(String, String)],
    limits: Limits,
    auth: Option<&'a mcp_manager_oauth::Target>,
}

/// Opening a transport (`what`) to `url` failed for `err`.
fn opening_failed(what: &str, url: &str, err: &dyn std::fmt::Display) -> ConnectError {
    ConnectError::Http(crate::words::remote_failure(url, what, &err.to_string()))
}

/// No answer from `url` within `timeout`.
fn no_answer(url: &str, timeout: Duration) -> ConnectError {
    ConnectError::Http(crate::words::no_answer(url, &seconds(timeout)))
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

/// Why an attempt to open failed, as far as the era negotiation cares.
pub(super) enum Failed {
    /// `initialize` was refused with -32022; the versions the server says it serves.
    Unsupported {
        supported: Vec<String>,
        error: ConnectError,
    },
    /// A `server/discover` was answered with this JSON-RPC error: a server of the era before.
    Refused {
        code: i64,
        error: ConnectError,
    },
    /// The server went away while a probe was out (a stdio process exited or closed its pipe,
    /// an HTTP server answered 4xx other than 401 and 403): `why`, in a few words.
    GoneOnProbe {
        why: String,
        error: ConnectError,
    },
    Other(ConnectError),
}

impl Failed {
    fn into_error(self) -> ConnectError {
        match self {
            Failed::Unsupported { error, .. }
            | Failed::Refused { error, .. }
            | Failed::GoneOnProbe { error, .. }
            | Failed::Other(error) => error,
        }
    }

    /// The error, in words.
    pub(super) fn error(&self) -> &ConnectError {
        match self {
            Failed::Unsupported { error, .. }
            | Failed::Refused { error, .. }
            | Failed::GoneOnProbe { error, .. }
            | Failed::Other(error) => error,
        }
    }

    /// Classifies an rmcp opening error (already put in words as `error`).
    pub(super) fn of(
        handshake: Handshake,
        err: &rmcp::service::ClientInitializeError,
        error: ConnectError,
        gone: Option<String>,
    ) -> Failed {
        if let rmcp::service::ClientInitializeError::JsonRpcError(data) = err {
            if data.code == rmcp::model::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION {
                let supported = data
                    .data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(Value::as_array)
                    .map(|list| {
                        list.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                return Failed::Unsupported { supported, error };
            }
            if handshake == Handshake::Discover {
                return Failed::Refused {
                    code: i64::from(data.code.0),
                    error,
                };
            }
        }
        // A server of the era before that answers any request it does not know with an
        // empty result (the conformance suite's do): not a discover result, so not this era.
        let answered_otherwise = matches!(
            err,
            rmcp::service::ClientInitializeError::ExpectedInitResult(_)
                | rmcp::service::ClientInitializeError::ExpectedInitResponse(_)
        );
        let gone = gone.or_else(|| answered_otherwise.then(|| "an answer of another kind".into()));
        match gone {
            Some(why) if handshake != Handshake::Initialize && !err.is_authorization_required() => {
                Failed::GoneOnProbe { why, error }
            }
            _ => Failed::Other(error),
        }
    }
}

/// A session opened by one attempt, before it becomes a [`Connection`].
pub(super) struct Opened {
    pub(super) service: RunningService<RoleClient, Handler>,
    pub(super) process: Option<Process>,
    pub(super) calls: Option<std::sync::Arc<crate::stdio::Calls>>,
    pub(super) probe: ProbeWatch,
    /// The verdict for the next start, still to come: `server/discover` asked beside the
    /// session (see `first_start.rs`).
    pub(super) late: Option<tokio::sync::oneshot::Receiver<crate::era::Verdict>>,
    /// Whether this session's era is a verdict to remember: not when `initialize` answered and
    /// `server/discover` was not asked at all.
    pub(super) settled: bool,
}

impl Opened {
    /// The evidence of a probe that opened the session.
    pub(super) fn probe_evidence(&self) -> String {
        let version = self
            .service
            .peer_info()
            .map(|info| info.protocol_version.clone())
            .unwrap_or_default();
        if !version.has_initialize() {
            return format!("server/discover → {version}");
        }
        match self.probe.answer() {
            ProbeAnswer::Error(code) => format!("legacy: {code}"),
            ProbeAnswer::Nothing if self.probe.sent() => "legacy: probe timed out".into(),
            ProbeAnswer::Nothing => "legacy".into(),
            ProbeAnswer::Result => "legacy: server/discover offered no version in common".into(),
        }
    }

    fn into_connection(
        self,
        handler_info: rmcp::model::ClientConfig,
        server: &str,
        answerer: &std::sync::Arc<dyn Answerer>,
        stderr: &StderrLog,
        changes: tokio::sync::mpsc::UnboundedReceiver<ListKind>,
        progress: ProgressRoutes,
    ) -> Connection {
        let local = self.process.is_some();
        let version = self
            .service
            .peer_info()
            .map(|info| info.protocol_version.clone());
        let mut connection = Connection::from_service(
            server,
            answerer.clone(),
            self.service,
            local.then(|| stderr.clone()),
            self.process,
            changes,
            progress,
        );
        // On a 2026-07-28 session our fast path carries the per-request `_meta` rmcp's
        // requests carry: the version, who we are, what we can do.
        if connection.info.era == Era::Modern {
            connection.task_capabilities =
                Some(super::tasks::declaring(&handler_info.capabilities));
        }
        if let (Era::Modern, Some(calls)) = (connection.info.era, &self.calls) {
            let info = handler_info;
            let tasks = super::tasks::declaring(&info.capabilities);
            let envelope = rmcp::model::RequestMetaObject::with_client_context(
                version.unwrap_or(rmcp::model::ProtocolVersion::V_2026_07_28),
                info.client_info,
                info.capabilities,
            );
            match serde_json::to_value(envelope) {
                Ok(Value::Object(map)) => calls.carry(map, tasks),
                _ => return connection,
            }
        }
        connection.calls = self.calls;
        connection.late_verdict = self.late;
        connection.era_settled = self.settled;
        connection
    }
}

/// What every attempt to open a server's session shares.
pub(super) struct Opening<'a> {
    pub(super) handler: &'a Handler,
    pub(super) config: &'a ServerConfig,
    pub(super) project: &'a Path,
    pub(super) limits: Limits,
    pub(super) stderr: &'a StderrLog,
    pub(super) auth: Option<&'a mcp_manager_oauth::Target>,
}

/// A failure that says nothing of the era: the server could not be reached or started, or
/// wants a login.
fn opening_refused(error: &ConnectError) -> bool {
    matches!(
        error,
        ConnectError::NeedsAuth { .. }
            | ConnectError::Auth(_)
            | ConnectError::Spawn { .. }
            | ConnectError::Unreachable { .. }
    )
}

/// rmcp's lifecycle for a handshake.
pub(super) fn lifecycle(handshake: Handshake) -> ClientLifecycleMode {
    let modern = vec![rmcp::model::ProtocolVersion::V_2026_07_28];
    match handshake {
        Handshake::Initialize => ClientLifecycleMode::Initialize,
        Handshake::Discover => ClientLifecycleMode::Discover {
            preferred_versions: modern,
        },
        Handshake::Probe => ClientLifecycleMode::Auto {
            preferred_versions: modern,
            legacy_version: None,
        },
    }
}

impl Opening<'_> {
    /// An opening whose era is not known, and its evidence. A local server is sent `initialize`
    /// first ([`first_start`]). A remote server is probed on its connection; one the
    /// probe made leave (a 2025 HTTP server answers 400) is of the era before: opened again
    /// with `initialize`.
    async fn probe(&self) -> Result<(Opened, String), Failed> {
        if let Transport::Stdio { command, args, env } = &self.config.transport {
            let start =
                first_start::StdioStart::new(self.handler.clone(), command, args, env, self);
            return start.first(self.stderr, self.limits.ask_beside).await;
        }
        match self.attempt(Handshake::Probe).await {
            Ok(opened) => {
                let evidence = opened.probe_evidence();
                Ok((opened, evidence))
            }
            Err(Failed::GoneOnProbe { why, .. }) => Ok((
                self.attempt(Handshake::Initialize).await?,
                format!("legacy: {why} on server/discover"),
            )),
            Err(other) => Err(other),
        }
    }

    /// One attempt with `handshake`: a new process for a local server, a new transport for a
    /// remote one.
    async fn attempt(&self, handshake: Handshake) -> Result<Opened, Failed> {
        let handler = self.handler.clone();
        match &self.config.transport {
            Transport::Stdio { command, args, env } => {
                first_start::StdioStart::new(handler, command, args, env, self)
                    .run(handshake, self.stderr.clone())
                    .await
            }
            Transport::Remote { kind, url, headers } => {
                let (service, probe) = Connection::serve_remote(
                    handler,
                    *kind,
                    url,
                    headers,
                    self.limits,
                    self.auth,
                    handshake,
                )
                .await?;
                Ok(Opened {
                    service,
                    process: None,
                    calls: None,
                    probe,
                    late: None,
                    settled: true,
                })
            }
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
    /// remote server (streamable HTTP or legacy SSE), and refreshing it as needed. The era is
    /// negotiated as [`crate::era`] says: the entry's `protocol`, else what is remembered in
    /// `limits`, else a probe.
    #[allow(clippy::too_many_arguments)]
    pub async fn open_authorized(
        server: &str,
        config: &ServerConfig,
        project: &Path,
        limits: Limits,
        logs: impl Into<ServerLogs>,
        answerer: std::sync::Arc<dyn Answerer>,
        roots: crate::handler::Roots,
        auth: Option<&mcp_manager_oauth::Target>,
    ) -> Result<Connection, ConnectError> {
        let ServerLogs { stderr, protocol } = logs.into();
        let (changes_tx, changes) = tokio::sync::mpsc::unbounded_channel();
        let mut handler = Handler::new(server.to_string(), answerer.clone(), roots, changes_tx);
        handler.protocol = protocol;
        let progress = handler.progress.clone();
        let opening = Opening {
            handler: &handler,
            config,
            project,
            limits,
            stderr: &stderr,
            auth,
        };
        let (first, why) = match (config.protocol, limits.remembered) {
            (ProtocolChoice::Modern, _) => (Handshake::Discover, "set in the entry: 2026-07-28"),
            (ProtocolChoice::Legacy, _) => (Handshake::Initialize, "set in the entry: legacy"),
            (ProtocolChoice::Auto, Some(Era::Modern)) => {
                (Handshake::Discover, "remembered: 2026-07-28")
            }
            (ProtocolChoice::Auto, Some(Era::Legacy)) => {
                (Handshake::Initialize, "remembered: legacy")
            }
            (ProtocolChoice::Auto, None) => (Handshake::Probe, ""),
        };
        let first_try = match first {
            Handshake::Probe => opening.probe().await,
            _ => opening
                .attempt(first)
                .await
                .map(|opened| (opened, why.to_string())),
        };
        let (opened, evidence) = match first_try {
            Ok(opened) => opened,
            // A server of 2026-07-28 only, asked to initialize: it says which versions it
            // serves.
            Err(Failed::Unsupported { supported, error })
                if config.protocol != ProtocolChoice::Legacy =>
            {
                if !supported.iter().any(|v| v == Era::Modern.as_str()) {
                    return Err(error);
                }
                let opened = opening
                    .attempt(Handshake::Discover)
                    .await
                    .map_err(Failed::into_error)?;
                let evidence = format!("initialize → -32022, then {}", Era::Modern.as_str());
                (opened, evidence)
            }
            Err(Failed::Unsupported { supported, .. }) => {
                return Err(ConnectError::WrongEra(format!(
                    "the entry sets \"protocol\": \"legacy\", but the server speaks only {} \
                     (it refused initialize with -32022): remove the key, or set it to \"auto\"",
                    supported.join(", ")
                )))
            }
            Err(failed)
                if config.protocol == ProtocolChoice::Modern
                    && !opening_refused(failed.error()) =>
            {
                return Err(ConnectError::WrongEra(format!(
                    "the entry sets \"protocol\": \"2026-07-28\", and server/discover failed \
                     ({}): if the server is of an earlier version, remove the key or set it to \"auto\"",
                    failed.error().to_string().trim_start_matches("initialize failed: ")
                )))
            }
            // What was remembered no longer opens: probed once more.
            Err(failed)
                if limits.remembered.is_some()
                    && config.protocol == ProtocolChoice::Auto
                    && !matches!(
                        failed.error(),
                        ConnectError::NeedsAuth { .. } | ConnectError::Auth(_)
                    ) =>
            {
                let began = std::time::Instant::now();
                let (mut opened, mut evidence) =
                    opening.probe().await.map_err(Failed::into_error)?;
                // A remembered 2026-07-28 that `server/discover` no longer opens: how it failed
                // is the verdict, as the question asked beside a session would have found.
                if limits.remembered == Some(Era::Modern) && !opened.settled {
                    evidence =
                        first_start::legacy_evidence(&failed, limits.connect, began.elapsed());
                    opened.settled = true;
                }
                (opened, evidence)
            }
            Err(other) => return Err(other.into_error()),
        };
        let mut connection = opened.into_connection(
            rmcp::ClientHandler::get_info(&handler),
            server,
            &answerer,
            &stderr,
            changes,
            progress,
        );
        connection.info.era_evidence = evidence;
        Ok(connection)
    }

    /// Opens a remote session over the transport `kind` names. Only streamable HTTP
    /// negotiates the era; legacy SSE and ws are of the `initialize` era by nature.
    #[allow(clippy::too_many_arguments)]
    async fn serve_remote(
        handler: Handler,
        kind: TransportKind,
        url: &str,
        headers: &[(String, String)],
        limits: Limits,
        auth: Option<&mcp_manager_oauth::Target>,
        handshake: Handshake,
    ) -> Result<(RunningService<RoleClient, Handler>, ProbeWatch), Failed> {
        let legacy = |opened: Result<RunningService<RoleClient, Handler>, ConnectError>| {
            opened
                .map(|service| (service, ProbeWatch::default()))
                .map_err(Failed::Other)
        };
        let timeout = limits.connect;
        match kind {
            TransportKind::Http => {
                let mut custom = std::collections::HashMap::new();
                for (name, value) in headers {
                    let header_name = http::HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| Failed::Other(ConnectError::InvalidHeader(name.clone())))?;
                    let header_value = http::HeaderValue::from_str(value)
                        .map_err(|_| Failed::Other(ConnectError::InvalidHeader(name.clone())))?;
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
                let dpop = match auth {
                    Some(target) => mcp_manager_oauth::dpop_key(target)
                        .await
                        .map_err(|err| Failed::Other(ConnectError::Auth(err.to_string())))?,
                    None => None,
                };
                let client = TimedPosts::new(limits.http_post)
                    .noting_dropped(handler.dropped.clone())
                    .proving(dpop);
                let authorized = match auth {
                    Some(target) => mcp_manager_oauth::authorized(target, client.clone())
                        .await
                        .map_err(|err| Failed::Other(ConnectError::Auth(err.to_string())))?,
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
                        Self::serve_streamable(handler, client, http_config, fallback, handshake)
                            .await
                    }
                    None => {
                        Self::serve_streamable(handler, client, http_config, fallback, handshake)
                            .await
                    }
                }
            }
            TransportKind::Sse => {
                legacy(Self::serve_sse(handler, url, headers, limits, auth).await)
            }
            TransportKind::Ws => {
                let transport = crate::ws::connect(url, headers, MAX_MESSAGE);
                let opening = async {
                    transport
                        .await
                        .map_err(|err| opening_failed("WebSocket", url, &err))
                };
                legacy(Self::serve_opened(handler, "WebSocket", url, opening, timeout).await)
            }
            TransportKind::Stdio => Err(Failed::Other(ConnectError::Unsupported(kind.as_str()))),
        }
    }

    /// Opens a session over streamable HTTP with `client` and `handshake`. An `initialize`
    /// answered 4xx falls back to legacy SSE; a probe answered 4xx (not 401 or 403) is the
    /// server of an era before, said as such.
    async fn serve_streamable<C>(
        handler: Handler,
        client: C,
        http_config: StreamableHttpClientTransportConfig,
        fallback_to: Fallback<'_>,
        handshake: Handshake,
    ) -> Result<(RunningService<RoleClient, Handler>, ProbeWatch), Failed>
    where
        C: rmcp::transport::streamable_http_client::StreamableHttpClient + Send + Sync + 'static,
    {
        let timeout = fallback_to.limits.connect;
        let (transport, probe) = crate::era::witness(crate::protocol_log::tap(
            StreamableHttpClientTransport::with_client(client, http_config),
            handler.protocol.clone(),
        ));
        let fallback = handler.clone();
        let started = tokio::time::timeout(
            timeout,
            handler.serve_with_lifecycle(transport, lifecycle(handshake)),
        )
        .await;
        let err = match started {
            Ok(Ok(service)) => return Ok((service, probe)),
            Ok(Err(err)) => err,
            Err(_) => return Err(Failed::Other(no_answer(fallback_to.url, timeout))),
        };
        if err.is_authorization_required() {
            return Err(Failed::Other(ConnectError::NeedsAuth {
                challenge: err.auth_challenge().map(str::to_string),
            }));
        }
        // rmcp's probe that fell back to initialize on the same transport says both failed:
        // what the initialize got is what counts.
        let said = match &err {
            rmcp::service::ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
                fallback.to_string()
            }
            other => other.to_string(),
        };
        let url = fallback_to.url;
        let status = crate::words::answered_status(&said);
        match (handshake, status.filter(|s| crate::words::no_endpoint(*s))) {
            (Handshake::Probe, Some(status)) => {
                return Err(Failed::GoneOnProbe {
                    why: format!("HTTP {status} answered"),
                    error: ConnectError::Http(crate::words::http_failure(
                        url,
                        status,
                        "streamable HTTP",
                        None,
                    )),
                })
            }
            // No endpoint for the initialize POST: perhaps a server of the 2024-11-05 spec,
            // which expects a GET for its event stream at this URL (the spec's
            // backwards-compatibility rule).
            (Handshake::Initialize, Some(status)) => {
                let Fallback {
                    url,
                    headers,
                    limits,
                    auth,
                } = fallback_to;
                return Self::serve_sse(fallback, url, headers, limits, auth)
                    .await
                    .map(|service| (service, ProbeWatch::default()))
                    .map_err(|sse| {
                        Failed::Other(match sse {
                            // The SSE endpoint, at least, wants a login: say so.
                            ConnectError::NeedsAuth { .. } => sse,
                            sse => {
                                let said = sse.to_string();
                                let also = match crate::words::answered_status(&said) {
                                    Some(status) => format!("HTTP {status}"),
                                    None => said
                                        .trim_start_matches(&format!("legacy SSE at {url}: "))
                                        .to_string(),
                                };
                                ConnectError::Http(crate::words::http_failure(
                                    url,
                                    status,
                                    "streamable HTTP",
                                    Some(&also),
                                ))
                            }
                        })
                    });
            }
            _ => {}
        }
        let error = if said.contains("error sending request") {
            ConnectError::Unreachable {
                url: url.to_string(),
            }
        } else if let Some(status) = status {
            ConnectError::Http(crate::words::http_failure(
                url,
                status,
                "streamable HTTP",
                None,
            ))
        } else {
            ConnectError::Http(crate::words::remote_failure(url, "streamable HTTP", &said))
        };
        Err(Failed::of(handshake, &err, error, None))
    }

    async fn serve_sse(
        handler: Handler,
        url: &str,
        headers: &[(String, String)],
        limits: Limits,
        auth: Option<&mcp_manager_oauth::Target>,
    ) -> Result<RunningService<RoleClient, Handler>, ConnectError> {
        let bearer = match auth {
            Some(target) => mcp_manager_oauth::authorized(target, ())
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
                    other => opening_failed("legacy SSE", url, &other),
                })
        };
        Self::serve_opened(handler, "legacy SSE", url, opening, limits.connect).await
    }

    /// Opens a transport (`opening`) and initializes over it, all within `timeout`; failures
    /// are named after the transport (`what`), and a refusal for want of authorization is
    /// needs-auth.
    async fn serve_opened<T, E, A>(
        handler: Handler,
        what: &str,
        url: &str,
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
                    opening_failed(what, url, &err)
                }
            })
        })
        .await;
        opened.unwrap_or(Err(no_answer(url, timeout)))
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
        let roots = service.service().roots.clone();
        let dropped = service.service().dropped.clone();
        let info = connected_info(service.peer_info().as_deref());
        let listener = (info.era == Era::Modern).then(|| {
            let sinks = listen::Sinks {
                changes: service.service().changes.clone(),
                updates: updates.clone(),
            };
            listen::Listener::start(peer.clone(), info.capabilities, sinks)
        });
        Connection {
            transport_errors: std::sync::atomic::AtomicU32::new(0),
            server: server.to_string(),
            answerer,
            progress,
            roots,
            updates,
            changes: std::sync::Mutex::new(Some(changes)),
            lost: tokio::sync::Notify::new(),
            auth_required: std::sync::atomic::AtomicBool::new(false),
            schemas: std::sync::Mutex::new(None),
            listed: std::sync::Mutex::new(None),
            service: tokio::sync::Mutex::new(Some(service)),
            peer,
            task_capabilities: None,
            dropped,
            listener,
            calls: None,
            late_verdict: None,
            era_settled: true,
            calls_running: Default::default(),
            info,
            list_timeout: super::LIST_TIMEOUT,
            stderr,
            process,
        }
    }
}
