//! The HTTP client under every remote session, and the 60 s limit on each POST.
//!
//! One `reqwest::Client` is shared with the logins: building one loads the system's root
//! certificates, which costs tens of milliseconds and serialised connecting to many servers.
//!
//! A POST that gets no answer must not hold its caller for ever, yet the GET event stream and
//! a streamed (SSE) answer to a POST may stay open as long as the server likes, so a timeout on
//! the client as a whole is wrong. [`TimedPosts`] bounds each POST up to its answer: the headers
//! of a streamed response, or the whole body of a JSON one. A tool that streams its result for
//! longer is governed by the tool-call timeout instead.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use mcp_manager_oauth::dpop::DpopKey;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;

/// Claude Code's limit on each HTTP POST.
pub const POST_TIMEOUT: Duration = Duration::from_secs(60);

/// The client every remote session shares (OAuth's own, see [`mcp_manager_oauth::shared_client`]).
pub(crate) fn shared() -> reqwest::Client {
    mcp_manager_oauth::shared_client()
}

/// The shared client with a limit on how long each POST may wait for its answer, noting the
/// tools each `tools/list` answer carries that rmcp will leave out (see
/// [`crate::param_headers`]).
#[derive(Clone)]
pub(crate) struct TimedPosts {
    client: reqwest::Client,
    limit: Duration,
    dropped: Option<crate::param_headers::DroppedTools>,
    /// The key of a DPoP-bound login: its token goes as `Authorization: DPoP`, with a proof.
    dpop: Option<Arc<DpopKey>>,
}

impl TimedPosts {
    pub(crate) fn new(limit: Duration) -> Self {
        TimedPosts {
            client: shared(),
            limit,
            dropped: None,
            dpop: None,
        }
    }

    /// Presents tokens bound to `key` (RFC 9449 §7): `Authorization: DPoP <token>` and a
    /// fresh proof with the token's hash on every request.
    pub(crate) fn proving(mut self, key: Option<Arc<DpopKey>>) -> Self {
        self.dpop = key;
        self
    }

    /// The token and headers of a `method` request to `uri`: unchanged for a bearer token; for
    /// a DPoP-bound one, no bearer but the DPoP scheme and a proof among the headers.
    fn presenting(
        &self,
        method: &str,
        uri: &str,
        token: Option<String>,
        mut headers: HashMap<HeaderName, HeaderValue>,
    ) -> (Option<String>, HashMap<HeaderName, HeaderValue>) {
        let (Some(key), Some(token)) = (&self.dpop, &token) else {
            return (token, headers);
        };
        let proof = key.proof(method, uri, Some(token));
        if let (Ok(scheme), Ok(proof)) = (
            HeaderValue::from_str(&format!("DPoP {token}")),
            HeaderValue::from_str(&proof),
        ) {
            headers.insert(http::header::AUTHORIZATION, scheme);
            headers.insert(HeaderName::from_static("dpop"), proof);
        }
        (None, headers)
    }

    /// After a 401 that asks for a DPoP nonce: learns it. rmcp's client keeps no header of
    /// a 401, so a `ping` goes to the same URL with a proof (the resource refuses it and names
    /// its nonce; a server that would take it answers a ping). Whether a new nonce came.
    async fn learn_nonce(
        &self,
        uri: &str,
        session_id: Option<&str>,
        token: &str,
        custom: &HashMap<HeaderName, HeaderValue>,
    ) -> bool {
        let Some(key) = &self.dpop else {
            return false;
        };
        let (_, headers) = self.presenting("POST", uri, Some(token.to_string()), custom.clone());
        let mut request = self
            .client
            .post(uri)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json, text/event-stream")
            .body(r#"{"jsonrpc":"2.0","id":"dpop-nonce","method":"ping"}"#);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        if let Some(session) = session_id {
            request = request.header("mcp-session-id", session);
        }
        match tokio::time::timeout(self.limit, request.send()).await {
            Ok(Ok(answer)) => key.note_nonce(uri, answer.headers()),
            _ => false,
        }
    }

    /// Notes in `dropped` the tools of each 2026-07-28 `tools/list` that rmcp leaves out.
    pub(crate) fn noting_dropped(mut self, dropped: crate::param_headers::DroppedTools) -> Self {
        self.dropped = Some(dropped);
        self
    }

    /// For a `tools/list` of 2026-07-28 or later (the request's `_meta` names its version;
    /// from that version on rmcp checks the annotations), where its tools go and whether it
    /// is the list's first page.
    fn listing(
        &self,
        message: &ClientJsonRpcMessage,
    ) -> Option<(crate::param_headers::DroppedTools, bool)> {
        use rmcp::model::GetMeta;
        let dropped = self.dropped.clone()?;
        let ClientJsonRpcMessage::Request(request) = message else {
            return None;
        };
        let rmcp::model::ClientRequest::ListToolsRequest(list) = &request.request else {
            return None;
        };
        let version = request.request.get_meta().protocol_version()?;
        (version >= rmcp::model::ProtocolVersion::STANDARD_HEADERS).then(|| {
            let first = list.params.as_ref().is_none_or(|p| p.cursor.is_none());
            (dropped, first)
        })
    }
}

/// Notes the tools of a `tools/list` answer, whether it came whole or as an SSE stream.
fn note_tools(
    answer: StreamableHttpPostResponse,
    dropped: crate::param_headers::DroppedTools,
    first: bool,
) -> StreamableHttpPostResponse {
    use futures::StreamExt;
    let note = move |message: &serde_json::Value| {
        if let Some(result) = message.get("result") {
            dropped.note_page(first, result);
        }
    };
    match answer {
        StreamableHttpPostResponse::Json(message, session) => {
            note(&serde_json::to_value(&message).unwrap_or_default());
            StreamableHttpPostResponse::Json(message, session)
        }
        StreamableHttpPostResponse::Sse(stream, session) => {
            let stream = stream.inspect(move |event| {
                let data = event.as_ref().ok().and_then(|e| e.data.as_deref());
                if let Some(Ok(message)) = data.map(serde_json::from_str::<serde_json::Value>) {
                    note(&message);
                }
            });
            StreamableHttpPostResponse::Sse(stream.boxed(), session)
        }
        other => other,
    }
}

type Error = StreamableHttpError<reqwest::Error>;

impl StreamableHttpClient for TimedPosts {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let listing = self.listing(&message);
        // Kept for a second try only when a DPoP nonce may be asked for.
        let again = self
            .dpop
            .is_some()
            .then(|| (message.clone(), session_id.clone(), custom_headers.clone()));
        let (token, headers) = self.presenting("POST", &uri, auth_header.clone(), custom_headers);
        let post = self.client.post_message_with_response_limits(
            uri.clone(),
            message,
            session_id,
            token,
            headers,
            limits,
        );
        let mut answer = tokio::time::timeout(self.limit, post).await;
        // A resource that wants a DPoP nonce: asked once more with it (RFC 9449 §9).
        let wants_nonce = matches!(
            &answer,
            Ok(Err(StreamableHttpError::AuthRequired(challenge)))
                if challenge.www_authenticate_header.contains("use_dpop_nonce")
        );
        if let (true, Some(bearer), Some((message, session_id, custom_headers))) =
            (wants_nonce, &auth_header, again)
        {
            if self
                .learn_nonce(&uri, session_id.as_deref(), bearer, &custom_headers)
                .await
            {
                let (token, headers) =
                    self.presenting("POST", &uri, auth_header.clone(), custom_headers);
                let post = self.client.post_message_with_response_limits(
                    uri, message, session_id, token, headers, limits,
                );
                answer = tokio::time::timeout(self.limit, post).await;
            }
        }
        match answer {
            Ok(Ok(answer)) => Ok(match listing {
                Some((dropped, first)) => note_tools(answer, dropped, first),
                None => answer,
            }),
            Ok(answer) => answer,
            Err(_) => Err(StreamableHttpError::UnexpectedServerResponse(
                format!(
                    "no answer to the HTTP POST within {} s",
                    self.limit.as_secs_f64()
                )
                .into(),
            )),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        let (token, headers) = self.presenting("DELETE", &uri, auth_header, custom_headers);
        let delete = self.client.delete_session(uri, session_id, token, headers);
        tokio::time::timeout(self.limit, delete)
            .await
            .unwrap_or(Ok(()))
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let (token, headers) = self.presenting("GET", &uri, auth_header, custom_headers);
        self.client
            .get_stream(uri, session_id, last_event_id, token, headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let (token, headers) = self.presenting("GET", &uri, auth_header, custom_headers);
        self.client
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                token,
                headers,
                max_sse_event_size,
            )
            .await
    }
}
