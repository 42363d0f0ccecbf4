//! The HTTP client under every remote session, and the 60 s limit on each POST.
//!
//! One `reqwest::Client` is shared: building one loads the system's root certificates, which
//! costs tens of milliseconds and serialised connecting to many servers.
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
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;

/// Claude Code's limit on each HTTP POST.
pub const POST_TIMEOUT: Duration = Duration::from_secs(60);

/// The client every remote session shares.
pub(crate) fn shared() -> reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(reqwest::Client::new).clone()
}

/// The shared client with a limit on how long each POST may wait for its answer.
#[derive(Clone)]
pub(crate) struct TimedPosts {
    client: reqwest::Client,
    limit: Duration,
}

impl TimedPosts {
    pub(crate) fn new(limit: Duration) -> Self {
        TimedPosts {
            client: shared(),
            limit,
        }
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
        let post = self.client.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        );
        match tokio::time::timeout(self.limit, post).await {
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
        let delete = self
            .client
            .delete_session(uri, session_id, auth_header, custom_headers);
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
        self.client
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
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
        self.client
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}
