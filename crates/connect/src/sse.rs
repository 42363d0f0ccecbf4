//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp no longer ships a client for.
//!
//! The client opens `GET <url>` as a `text/event-stream`; the server's first event, `endpoint`,
//! carries the URL (usually relative, with a session id) to which every message is POSTed;
//! the server's messages come back as `message` events on the stream. [`SseTransport`] is an
//! rmcp [`Transport`]: a task reads the stream and parses events (the SSE rules: `event:`,
//! multi-line `data:`, comments, blank line to dispatch); `send` waits for the endpoint and
//! POSTs. Streamable HTTP falls back to this transport when its initialize POST gets a 4xx, as
//! the spec's backwards-compatibility section describes.
//!
//! OAuth works as on streamable HTTP (Claude Code logs in to SSE servers too): with a stored
//! token ([`Bearer`]) the stream's GET and every POST carry it, refreshed when it is about to
//! expire; a POST refused with 401 gets one refresh and one retry. A 401 that no token cures
//! is [`SseError::Unauthorized`], which carries rmcp's `AuthorizationRequired` as its source, so
//! the session ends as needs-auth, as a streamable one does.

use std::borrow::Cow;
use std::time::Duration;

use futures::StreamExt;
use rmcp::service::TxJsonRpcMessage;
use rmcp::transport::auth::AuthError;
use rmcp::transport::Transport;
use rmcp::RoleClient;
use tokio::sync::{mpsc, watch};

/// What can go wrong on the legacy transport.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    #[error("HTTP request failed: {0}")]
    Http(#[from] reqwest::Error),
    #[error("the server answered the POST with HTTP {0}")]
    Status(u16),
    #[error("the server opened no event stream: HTTP {0}")]
    StreamStatus(u16),
    /// Refused for want of authorization (HTTP 401), or no usable token is stored.
    #[error("the server asks for authorization")]
    Unauthorized {
        /// Its `WWW-Authenticate` challenge, which seeds discovery at login.
        challenge: Option<String>,
        #[source]
        source: AuthError,
    },
    /// The stored token could not be refreshed for another reason (the token endpoint is
    /// down, say): not a reason to log in again.
    #[error("could not get an access token: {0}")]
    Token(AuthError),
    #[error("the event stream ended before the server sent its `endpoint` event")]
    NoEndpoint,
    #[error("no usable `endpoint` event: {0}")]
    BadEndpoint(String),
    #[error("header \"{0}\" is not a valid HTTP header")]
    InvalidHeader(String),
}

type Incoming = rmcp::service::RxJsonRpcMessage<RoleClient>;

/// Where a session's OAuth access token comes from: rmcp's authorized client (its HTTP client
/// unused), whose `get_access_token` refreshes a token about to expire.
pub type Bearer = rmcp::transport::AuthClient<()>;

/// A client session over HTTP+SSE.
pub struct SseTransport {
    http: reqwest::Client,
    headers: reqwest::header::HeaderMap,
    auth: Option<Bearer>,
    post_timeout: Duration,
    endpoint: watch::Receiver<Option<Result<String, String>>>,
    incoming: mpsc::Receiver<Incoming>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl SseTransport {
    /// Opens the event stream at `url` and returns once it answered 2xx. Each POST may take
    /// `post_timeout`; the stream itself has no limit.
    pub async fn connect(
        url: &str,
        headers: &[(String, String)],
        post_timeout: Duration,
        auth: Option<Bearer>,
    ) -> Result<SseTransport, SseError> {
        let mut map = reqwest::header::HeaderMap::new();
        for (name, value) in headers {
            let header_name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| SseError::InvalidHeader(name.clone()))?;
            let header_value = reqwest::header::HeaderValue::from_str(value)
                .map_err(|_| SseError::InvalidHeader(name.clone()))?;
            map.insert(header_name, header_value);
        }
        let http = crate::http_client::shared();
        let request = http
            .get(url)
            .headers(map.clone())
            .header(reqwest::header::ACCEPT, "text/event-stream");
        let response = with_token(request, auth.as_ref()).await?.send().await?;
        if response.status() == reqwest::StatusCode::UNAUTHORIZED {
            return Err(refused(&response));
        }
        if !response.status().is_success() {
            return Err(SseError::StreamStatus(response.status().as_u16()));
        }
        let base = response.url().clone();
        let (endpoint_tx, endpoint) = watch::channel(None);
        let (incoming_tx, incoming) = mpsc::channel(1024);
        let reader = tokio::spawn(read_events(response, base, endpoint_tx, incoming_tx));
        Ok(SseTransport {
            http,
            headers: map,
            auth,
            post_timeout,
            endpoint,
            incoming,
            reader,
        })
    }
}

/// `request` with the session's current access token, if it has one.
async fn with_token(
    request: reqwest::RequestBuilder,
    auth: Option<&Bearer>,
) -> Result<reqwest::RequestBuilder, SseError> {
    let Some(auth) = auth else {
        return Ok(request);
    };
    let token = auth.get_access_token().await.map_err(|err| match err {
        AuthError::AuthorizationRequired => SseError::Unauthorized {
            challenge: None,
            source: err,
        },
        other => SseError::Token(other),
    })?;
    Ok(request.bearer_auth(token))
}

/// A 401, with the server's challenge.
fn refused(response: &reqwest::Response) -> SseError {
    SseError::Unauthorized {
        challenge: response
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string),
        source: AuthError::AuthorizationRequired,
    }
}

async fn read_events(
    response: reqwest::Response,
    base: reqwest::Url,
    endpoint: watch::Sender<Option<Result<String, String>>>,
    incoming: mpsc::Sender<Incoming>,
) {
    let mut parser = EventParser::with_limit(crate::connection::MAX_MESSAGE);
    let mut body = response.bytes_stream();
    while let Some(Ok(chunk)) = body.next().await {
        let events = match parser.feed(&chunk) {
            Ok(events) => events,
            Err(too_long) => {
                // An event over the limit: the session cannot go on in step, and the stream
                // is not read further (an endless line must not take the app's memory).
                if endpoint.borrow().is_none() {
                    let _ = endpoint.send(Some(Err(too_long.to_string())));
                }
                break;
            }
        };
        for event in events {
            match event.name.as_str() {
                "endpoint" => {
                    let _ = endpoint.send(Some(resolve_endpoint(&base, &event.data)));
                }
                "message" | "" => {
                    if let Ok(message) = serde_json::from_str::<Incoming>(&event.data) {
                        if incoming.send(message).await.is_err() {
                            return;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    // The stream ended: `receive` returns None once the queue drains, and rmcp closes.
    if endpoint.borrow().is_none() {
        let _ = endpoint.send(Some(Err(String::new())));
    }
}

/// The URL an `endpoint` event names, resolved against the stream's URL. It must be of the
/// same origin: the POSTs carry the session's messages and its bearer token, and a server (or
/// whoever can write to its stream) must not send them to another host.
fn resolve_endpoint(base: &reqwest::Url, data: &str) -> Result<String, String> {
    let resolved = base.join(data.trim()).map_err(|e| e.to_string())?;
    if resolved.origin() != base.origin() {
        return Err(format!(
            "it points to another origin ({}) than the server's ({}), so nothing is sent there",
            resolved.origin().ascii_serialization(),
            base.origin().ascii_serialization()
        ));
    }
    Ok(resolved.to_string())
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn name() -> Cow<'static, str> {
        "legacy HTTP+SSE".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let http = self.http.clone();
        let headers = self.headers.clone();
        let auth = self.auth.clone();
        let post_timeout = self.post_timeout;
        let mut endpoint = self.endpoint.clone();
        async move {
            let url = {
                let ready = endpoint
                    .wait_for(Option::is_some)
                    .await
                    .map_err(|_| SseError::NoEndpoint)?;
                match ready.as_ref() {
                    Some(Ok(url)) => url.clone(),
                    Some(Err(why)) if why.is_empty() => return Err(SseError::NoEndpoint),
                    Some(Err(why)) => return Err(SseError::BadEndpoint(why.clone())),
                    None => return Err(SseError::NoEndpoint),
                }
            };
            let post = || {
                http.post(&url)
                    .headers(headers.clone())
                    .timeout(post_timeout)
                    .json(&item)
            };
            let mut response = with_token(post(), auth.as_ref()).await?.send().await?;
            if response.status() == reqwest::StatusCode::UNAUTHORIZED {
                let Some(auth) = &auth else {
                    return Err(refused(&response));
                };
                // The token may have been revoked or expired early: one refresh, one retry.
                let refreshed = auth.auth_manager.lock().await.refresh_token().await;
                if refreshed.is_err() {
                    return Err(refused(&response));
                }
                response = with_token(post(), Some(auth)).await?.send().await?;
                if response.status() == reqwest::StatusCode::UNAUTHORIZED {
                    return Err(refused(&response));
                }
            }
            if !response.status().is_success() {
                return Err(SseError::Status(response.status().as_u16()));
            }
            Ok(())
        }
    }

    fn receive(&mut self) -> impl std::future::Future<Output = Option<Incoming>> + Send {
        self.incoming.recv()
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.reader.abort();
        std::future::ready(Ok(()))
    }
}

/// One dispatched server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub name: String,
    pub data: String,
}

/// An incremental parser for `text/event-stream` (the WHATWG rules that matter here), with a
/// limit on what one event may hold (its lines so far and its data), as the other transports
/// limit one message.
#[derive(Debug)]
pub struct EventParser {
    line: Vec<u8>,
    name: String,
    data: Vec<String>,
    /// The bytes of the event's data so far.
    held: usize,
    limit: usize,
}

impl Default for EventParser {
    fn default() -> Self {
        Self::with_limit(crate::connection::MAX_MESSAGE)
    }
}

/// An event grew past the parser's limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an event of the stream is longer than {0} bytes: the stream was given up")]
pub struct TooLong(pub usize);

impl EventParser {
    /// A parser whose events may hold at most `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        EventParser {
            line: Vec::new(),
            name: String::new(),
            data: Vec::new(),
            held: 0,
            limit,
        }
    }

    /// Feeds bytes; returns the events they completed, or [`TooLong`] once an event passes
    /// the limit (nothing more is kept then).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<Event>, TooLong> {
        let mut events = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            // Whole runs up to the next newline at once: an endless line is a few copies,
            // not a step per byte.
            let (run, newline) = match rest.iter().position(|&b| b == b'\n') {
                Some(at) => (&rest[..at], true),
                None => (rest, false),
            };
            rest = &rest[run.len() + usize::from(newline)..];
            if self.line.len() + run.len() + self.held > self.limit {
                self.line = Vec::new();
                self.data = Vec::new();
                return Err(TooLong(self.limit));
            }
            self.line.extend_from_slice(run);
            if !newline {
                continue;
            }
            let raw = std::mem::take(&mut self.line);
            let line = String::from_utf8_lossy(&raw);
            let line = line.strip_suffix('\r').unwrap_or(&line);
            if line.is_empty() {
                if !self.data.is_empty() {
                    events.push(Event {
                        name: std::mem::take(&mut self.name),
                        data: std::mem::take(&mut self.data).join("\n"),
                    });
                }
                self.name.clear();
                self.held = 0;
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line, ""),
            };
            match field {
                "event" => self.name = value.to_string(),
                "data" => {
                    self.held += value.len() + 1;
                    self.data.push(value.to_string());
                }
                _ => {}
            }
        }
        Ok(events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_of_another_origin_is_refused() {
        let base = reqwest::Url::parse("http://127.0.0.1:8080/sse").unwrap();
        assert_eq!(
            resolve_endpoint(&base, "/messages?session=1").unwrap(),
            "http://127.0.0.1:8080/messages?session=1"
        );
        assert_eq!(
            resolve_endpoint(&base, " http://127.0.0.1:8080/m \n").unwrap(),
            "http://127.0.0.1:8080/m"
        );
        for elsewhere in [
            "http://evil.example/messages",
            "//evil.example/messages",
            "http://127.0.0.1:9999/messages",
            "https://127.0.0.1:8080/messages",
        ] {
            let err = resolve_endpoint(&base, elsewhere).unwrap_err();
            assert!(err.contains("another origin"), "{elsewhere}: {err}");
        }
    }
}
