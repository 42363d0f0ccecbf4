//! Requests a server makes of us: elicitation (asking the person for input) and sampling
//! (asking for an LLM completion).
//!
//! The connection engine does not decide the answers: an [`Answerer`] does. The app's UI will
//! implement one that shows a form; `mcpctl` answers from a flag ([`FixedAnswer`]) or declines
//! ([`Decline`]). Sampling is declined with a clear message: MCP Manager has no model to offer.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

/// A boxed future, so answerers can be trait objects.
pub type Answer<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Why sampling requests are refused.
pub const SAMPLING_DECLINED: &str =
    "MCP Manager does not answer sampling requests: it has no language model to offer";

/// Answers a server's requests for input.
pub trait Answerer: Send + Sync + 'static {
    /// `request` is the `elicitation/create` params as sent (a `message` and a
    /// `requestedSchema`, or a `url`). Returns the result: `{"action": "accept", "content":
    /// {...}}`, `{"action": "decline"}` or `{"action": "cancel"}`.
    fn elicit<'a>(&'a self, server: &'a str, request: Value) -> Answer<'a, Value>;

    /// `sampling/createMessage`: a result, or the reason it is refused.
    fn sample<'a>(&'a self, server: &'a str, request: Value) -> Answer<'a, Result<Value, String>> {
        let _ = (server, request);
        Box::pin(async { Err(SAMPLING_DECLINED.to_string()) })
    }
}

/// Declines every elicitation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Decline;

impl Answerer for Decline {
    fn elicit<'a>(&'a self, _server: &'a str, _request: Value) -> Answer<'a, Value> {
        Box::pin(async { serde_json::json!({ "action": "decline" }) })
    }
}

/// Accepts every elicitation with the same content (`mcpctl call --elicit JSON`).
#[derive(Debug, Clone)]
pub struct FixedAnswer(pub Value);

impl Answerer for FixedAnswer {
    fn elicit<'a>(&'a self, _server: &'a str, _request: Value) -> Answer<'a, Value> {
        let content = self.0.clone();
        Box::pin(async move { serde_json::json!({ "action": "accept", "content": content }) })
    }
}
