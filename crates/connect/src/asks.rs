//! Requests a server makes of the person, held until the person answers them in the window.
//!
//! A server may ask for input in the middle of a call (`elicitation/create`, as a form or as
//! a URL to open) or for a completion (`sampling/createMessage`). [`Asks`] is the
//! [`Answerer`] the app gives its supervisor: each request becomes a [`PendingAsk`] with an
//! id, everyone who listens hears that the list changed, and the server's request waits until
//! [`Asks::answer`] is called with the person's [`Reply`]. When the server gives up first (it
//! cancels its request, or the session ends), the pending ask goes away by itself: the wait is
//! a future whose drop removes it.
//!
//! A server may send requests faster than a person reads them: at most
//! [`MAX_PENDING_PER_SERVER`] of one server's requests wait at once, and any more are answered
//! at once as declined (elicitation) or refused (sampling), with why. [`Asks::decline_all`]
//! answers every request of a server in one go.
//!
//! Nothing here shows anything or decides anything; it only parks requests and hands answers
//! back, so it is tested without a window.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::{broadcast, oneshot};

use crate::answer::{Answer, Answerer};

/// What a server asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum AskKind {
    /// Elicitation in form mode: fields of a `requestedSchema`.
    Form,
    /// Elicitation in URL mode: a page the person should open.
    Url,
    /// Sampling: a completion the person writes by hand, or refuses.
    Sampling,
}

/// A request waiting for the person.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PendingAsk {
    pub id: u32,
    pub server: String,
    pub kind: AskKind,
    /// The request's params as the server sent them, as JSON.
    pub request: String,
    /// When it came, in milliseconds since the Unix epoch.
    pub received_ms: f64,
}

/// The person's answer to a [`PendingAsk`].
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", tag = "reply")]
pub enum Reply {
    /// Elicitation accepted: the form's values as a JSON object (`{}` for a URL).
    Accept { content: String },
    /// Elicitation declined.
    Decline,
    /// Elicitation dismissed without a choice.
    Cancel,
    /// Sampling answered by hand with this text, as if from `model`.
    Complete { text: String, model: String },
    /// Sampling refused, with the reason the server is told.
    Reject { reason: String },
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AskError {
    #[error("that request is no longer waiting: the server withdrew it or it was answered")]
    Gone,
    #[error("{0}")]
    Mismatch(String),
}

/// How many of one server's requests may wait for the person at once.
pub const MAX_PENDING_PER_SERVER: usize = 8;

struct Waiting {
    ask: PendingAsk,
    reply: oneshot::Sender<Reply>,
}

#[derive(Default)]
struct Inner {
    waiting: Mutex<BTreeMap<u32, Waiting>>,
    next: AtomicU32,
}

/// The requests of every server of a supervisor waiting for the person. Cheap to clone.
#[derive(Clone)]
pub struct Asks {
    inner: Arc<Inner>,
    changes: broadcast::Sender<()>,
}

impl Default for Asks {
    fn default() -> Self {
        Asks {
            inner: Arc::default(),
            changes: broadcast::channel(64).0,
        }
    }
}

impl std::fmt::Debug for Asks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asks")
            .field("pending", &self.pending().len())
            .finish()
    }
}

/// Removes its ask when the server's request stops waiting, answered or not.
struct Parked {
    id: u32,
    asks: Asks,
}

impl Drop for Parked {
    fn drop(&mut self) {
        let removed = self
            .asks
            .inner
            .waiting
            .lock()
            .expect("asks lock")
            .remove(&self.id)
            .is_some();
        if removed {
            let _ = self.asks.changes.send(());
        }
    }
}

impl Asks {
    /// No request waiting.
    pub fn new() -> Asks {
        Asks::default()
    }

    /// Every request waiting now, oldest first.
    pub fn pending(&self) -> Vec<PendingAsk> {
        let waiting = self.inner.waiting.lock().expect("asks lock");
        waiting.values().map(|w| w.ask.clone()).collect()
    }

    /// Hears of every change of [`Asks::pending`] from now on (a request came, was answered
    /// or was withdrawn).
    pub fn changes(&self) -> broadcast::Receiver<()> {
        self.changes.subscribe()
    }

    /// Hands the person's reply to the waiting request `id`. A reply of the wrong kind (a
    /// form's values for a sampling request) is refused and the request goes on waiting.
    pub fn answer(&self, id: u32, reply: Reply) -> Result<(), AskError> {
        let waiting = {
            let mut waiting = self.inner.waiting.lock().expect("asks lock");
            let kind = waiting.get(&id).ok_or(AskError::Gone)?.ask.kind;
            check_fits(kind, &reply)?;
            waiting.remove(&id).ok_or(AskError::Gone)?
        };
        let _ = self.changes.send(());
        waiting.reply.send(reply).map_err(|_| AskError::Gone)
    }

    /// Answers every request of `server` that waits: declined (elicitation) or refused
    /// (sampling). Returns how many there were.
    pub fn decline_all(&self, server: &str) -> usize {
        let answered: Vec<Waiting> = {
            let mut waiting = self.inner.waiting.lock().expect("asks lock");
            let ids: Vec<u32> = waiting
                .iter()
                .filter(|(_, w)| w.ask.server == server)
                .map(|(id, _)| *id)
                .collect();
            ids.iter().filter_map(|id| waiting.remove(id)).collect()
        };
        let count = answered.len();
        for waiting in answered {
            let _ = waiting.reply.send(declined(waiting.ask.kind));
        }
        if count > 0 {
            let _ = self.changes.send(());
        }
        count
    }

    /// The URL an URL-mode request `id` asks the person to open.
    pub fn url_of(&self, id: u32) -> Result<String, AskError> {
        let waiting = self.inner.waiting.lock().expect("asks lock");
        let ask = &waiting.get(&id).ok_or(AskError::Gone)?.ask;
        if ask.kind != AskKind::Url {
            return Err(AskError::Mismatch("that request has no URL to open".into()));
        }
        serde_json::from_str::<Value>(&ask.request)
            .ok()
            .and_then(|r| r.get("url").and_then(Value::as_str).map(str::to_string))
            .ok_or_else(|| AskError::Mismatch("the server sent no URL".into()))
    }

    /// Parks a request and waits for the person's reply. `None` when the asks were dropped.
    async fn wait(&self, server: &str, kind: AskKind, request: &Value) -> Option<Reply> {
        let id = self.inner.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (reply, replied) = oneshot::channel();
        let ask = PendingAsk {
            id,
            server: server.to_string(),
            kind,
            request: request.to_string(),
            received_ms: now_ms(),
        };
        {
            let mut waiting = self.inner.waiting.lock().expect("asks lock");
            let of_server = waiting.values().filter(|w| w.ask.server == server).count();
            if of_server >= MAX_PENDING_PER_SERVER {
                return Some(match kind {
                    AskKind::Sampling => Reply::Reject {
                        reason: format!(
                            "{MAX_PENDING_PER_SERVER} requests of this server already wait for the person; this one was refused"
                        ),
                    },
                    _ => Reply::Decline,
                });
            }
            waiting.insert(id, Waiting { ask, reply });
        }
        let _parked = Parked {
            id,
            asks: self.clone(),
        };
        let _ = self.changes.send(());
        replied.await.ok()
    }
}

/// The answer "no" to a request of this kind.
fn declined(kind: AskKind) -> Reply {
    match kind {
        AskKind::Sampling => Reply::Reject {
            reason: "declined with every other request of this server in MCP Manager".into(),
        },
        _ => Reply::Decline,
    }
}

fn check_fits(kind: AskKind, reply: &Reply) -> Result<(), AskError> {
    let fits = match reply {
        Reply::Accept { content } => {
            if kind == AskKind::Sampling {
                false
            } else {
                let parsed: Value = serde_json::from_str(content)
                    .map_err(|err| AskError::Mismatch(format!("the answer is not JSON: {err}")))?;
                if !parsed.is_object() {
                    return Err(AskError::Mismatch(
                        "the answer must be a JSON object of the form's fields".into(),
                    ));
                }
                true
            }
        }
        Reply::Decline | Reply::Cancel => kind != AskKind::Sampling,
        Reply::Complete { .. } | Reply::Reject { .. } => kind == AskKind::Sampling,
    };
    if fits {
        Ok(())
    } else {
        Err(AskError::Mismatch(format!(
            "that answer does not fit a {} request",
            match kind {
                AskKind::Form => "form",
                AskKind::Url => "URL",
                AskKind::Sampling => "sampling",
            }
        )))
    }
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as f64)
        .unwrap_or(0.0)
}

impl Answerer for Asks {
    fn elicit<'a>(&'a self, server: &'a str, request: Value) -> Answer<'a, Value> {
        Box::pin(async move {
            let kind = if request.get("mode").and_then(Value::as_str) == Some("url")
                || request.get("url").is_some()
            {
                AskKind::Url
            } else {
                AskKind::Form
            };
            match self.wait(server, kind, &request).await {
                Some(Reply::Accept { content }) => json!({
                    "action": "accept",
                    "content": serde_json::from_str::<Value>(&content).unwrap_or_else(|_| json!({})),
                }),
                Some(Reply::Decline) => json!({ "action": "decline" }),
                _ => json!({ "action": "cancel" }),
            }
        })
    }

    fn sample<'a>(&'a self, server: &'a str, request: Value) -> Answer<'a, Result<Value, String>> {
        Box::pin(async move {
            match self.wait(server, AskKind::Sampling, &request).await {
                Some(Reply::Complete { text, model }) => Ok(json!({
                    "role": "assistant",
                    "content": { "type": "text", "text": text },
                    "model": model,
                    "stopReason": "endTurn",
                })),
                Some(Reply::Reject { reason }) => Err(reason),
                _ => Err("the request was dismissed in MCP Manager".to_string()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn first_pending(asks: &Asks) -> PendingAsk {
        let mut changes = asks.changes();
        loop {
            if let Some(ask) = asks.pending().into_iter().next() {
                return ask;
            }
            changes.recv().await.unwrap();
        }
    }

    #[tokio::test]
    async fn a_form_waits_for_the_person_and_gets_their_values() {
        let asks = Asks::new();
        let request = json!({"message": "Who?", "requestedSchema": {"type": "object"}});
        let waiting = tokio::spawn({
            let asks = asks.clone();
            async move { asks.elicit("everything", request).await }
        });
        let ask = first_pending(&asks).await;
        assert_eq!(
            (ask.kind, ask.server.as_str()),
            (AskKind::Form, "everything")
        );
        // A sampling answer does not fit, and the request goes on waiting.
        let wrong = Reply::Complete {
            text: "x".into(),
            model: "m".into(),
        };
        assert!(matches!(
            asks.answer(ask.id, wrong),
            Err(AskError::Mismatch(_))
        ));
        let not_object = Reply::Accept {
            content: "[1]".into(),
        };
        assert!(matches!(
            asks.answer(ask.id, not_object),
            Err(AskError::Mismatch(_))
        ));
        asks.answer(
            ask.id,
            Reply::Accept {
                content: r#"{"name":"Ann"}"#.into(),
            },
        )
        .unwrap();
        assert_eq!(
            waiting.await.unwrap(),
            json!({"action": "accept", "content": {"name": "Ann"}})
        );
        assert!(asks.pending().is_empty());
        assert_eq!(asks.answer(ask.id, Reply::Decline), Err(AskError::Gone));
    }

    #[tokio::test]
    async fn a_flood_of_requests_is_capped_per_server_and_can_be_declined_at_once() {
        let asks = Asks::new();
        let form = json!({"message": "?", "requestedSchema": {"type": "object"}});
        let mut waiting = Vec::new();
        for _ in 0..MAX_PENDING_PER_SERVER {
            let asks = asks.clone();
            let form = form.clone();
            waiting.push(tokio::spawn(
                async move { asks.elicit("flood", form).await },
            ));
        }
        while asks.pending().len() < MAX_PENDING_PER_SERVER {
            tokio::task::yield_now().await;
        }
        // One more from the same server is declined at once, without waiting.
        let over = tokio::time::timeout(
            std::time::Duration::from_secs(1),
            asks.elicit("flood", form.clone()),
        )
        .await
        .expect("answered at once");
        assert_eq!(over, json!({"action": "decline"}));
        let sampled = asks.sample("flood", json!({"messages": []})).await;
        assert!(sampled.unwrap_err().contains("already wait"));
        // Another server is not held back by it.
        let other = {
            let asks = asks.clone();
            let form = form.clone();
            tokio::spawn(async move { asks.elicit("other", form).await })
        };
        while asks.pending().len() < MAX_PENDING_PER_SERVER + 1 {
            tokio::task::yield_now().await;
        }
        assert_eq!(asks.decline_all("flood"), MAX_PENDING_PER_SERVER);
        for answer in waiting {
            assert_eq!(answer.await.unwrap(), json!({"action": "decline"}));
        }
        assert_eq!(
            asks.pending().len(),
            1,
            "the other server's request still waits"
        );
        assert_eq!(asks.pending()[0].server, "other");
        other.abort();
    }

    #[tokio::test]
    async fn a_withdrawn_request_leaves_the_list() {
        let asks = Asks::new();
        let waiting = tokio::spawn({
            let asks = asks.clone();
            async move {
                asks.elicit("s", json!({"mode": "url", "url": "https://example.com/x"}))
                    .await
            }
        });
        let ask = first_pending(&asks).await;
        assert_eq!(ask.kind, AskKind::Url);
        assert_eq!(asks.url_of(ask.id).unwrap(), "https://example.com/x");
        let mut changes = asks.changes();
        waiting.abort();
        changes.recv().await.unwrap();
        assert!(asks.pending().is_empty());
    }

    #[tokio::test]
    async fn sampling_is_answered_by_hand_or_rejected_with_the_reason() {
        let asks = Asks::new();
        for (reply, expected) in [
            (
                Reply::Complete {
                    text: "Paris".into(),
                    model: "by hand".into(),
                },
                Ok(
                    json!({"role": "assistant", "content": {"type": "text", "text": "Paris"},
                    "model": "by hand", "stopReason": "endTurn"}),
                ),
            ),
            (
                Reply::Reject {
                    reason: "not now".into(),
                },
                Err("not now".to_string()),
            ),
        ] {
            let waiting = tokio::spawn({
                let asks = asks.clone();
                async move { asks.sample("s", json!({"messages": []})).await }
            });
            let ask = first_pending(&asks).await;
            assert_eq!(ask.kind, AskKind::Sampling);
            assert!(matches!(
                asks.answer(ask.id, Reply::Decline),
                Err(AskError::Mismatch(_))
            ));
            asks.answer(ask.id, reply).unwrap();
            assert_eq!(waiting.await.unwrap(), expected);
        }
    }
}
