//! Opening a session, per transport: a local server's process and its pipes (with the fast
//! path for calls beside rmcp's service), streamable HTTP (falling back to legacy SSE where
//! the server answers as an SSE server does), SSE, and the OAuth-authorized open. A failure
//! says why in words: the transport's error, or how a local server's process ended and the
//! tail of its stderr.

use super::*;

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
}
