//! Every JSON-RPC message a session sends and receives, kept per server in a bounded ring for
//! the window's protocol log.
//!
//! Recording must cost almost nothing on the hot path (a tool call over stdio answers in about
//! 100 µs): a message is recorded as the text that went over the wire, with its direction and
//! time, and is parsed only when someone first reads the log ([`ProtocolLog::entries`]). The ring
//! keeps the newest [`MAX_MESSAGES`] messages and at most [`MAX_BYTES`] of text; a message
//! longer than [`MAX_MESSAGE_TEXT`] keeps its head and its size. Live readers subscribe to
//! new messages ([`ProtocolLog::follow`]).
//!
//! Only messages are recorded, never HTTP headers, so the `Authorization` a remote session
//! sends is not in the log.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

/// How many messages a server's log keeps.
pub const MAX_MESSAGES: usize = 2000;
/// How much message text a server's log keeps in all.
pub const MAX_BYTES: usize = 8 * 1024 * 1024;
/// How much of one message is kept.
pub const MAX_MESSAGE_TEXT: usize = 256 * 1024;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From this app to the server.
    Out,
    /// From the server to this app.
    In,
}

/// What kind of JSON-RPC message it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    Request,
    Notification,
    Response,
    Error,
    /// Not JSON-RPC, or cut short before it could be read.
    Other,
}

/// One logged message, as the window shows it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LoggedMessage {
    /// Increases by one per message of this server's log, from 1.
    pub seq: u32,
    /// Milliseconds since the Unix epoch when it was sent or received.
    pub at_ms: f64,
    pub direction: Direction,
    pub kind: MessageKind,
    /// The request's or notification's method; for a response, the method of the request it
    /// answers when that request is still in the log.
    pub method: Option<String>,
    /// The JSON-RPC id, as text.
    pub id: Option<String>,
    /// The message as sent (cut at [`MAX_MESSAGE_TEXT`] when `truncated`).
    pub text: String,
    /// Its whole size in bytes.
    pub size: u32,
    pub truncated: bool,
}

/// A message's method, id and kind, read from its text.
type Parsed = Option<(Option<String>, Option<String>, MessageKind)>;

#[derive(Debug, Clone)]
struct Raw {
    seq: u32,
    at_ms: f64,
    direction: Direction,
    text: Arc<str>,
    size: u32,
    truncated: bool,
    /// Read once, the first time anyone reads the log, and kept with the message (clones
    /// share it), so a live follower does not parse the whole ring again for every batch.
    parsed: Arc<std::sync::OnceLock<Parsed>>,
}

impl Raw {
    fn parsed(&self) -> &Parsed {
        self.parsed.get_or_init(|| head(&self.text))
    }
}

#[derive(Debug, Default)]
struct Ring {
    messages: VecDeque<Raw>,
    bytes: usize,
    next_seq: u32,
}

/// A server's protocol log; cheap to clone (one shared ring).
#[derive(Debug, Clone)]
pub struct ProtocolLog {
    ring: Arc<Mutex<Ring>>,
    live: broadcast::Sender<u32>,
}

impl Default for ProtocolLog {
    fn default() -> Self {
        ProtocolLog {
            ring: Arc::default(),
            live: broadcast::channel(256).0,
        }
    }
}

impl ProtocolLog {
    /// Records one message as it went over the wire (without its line end).
    pub fn record(&self, direction: Direction, wire: &[u8]) {
        let wire = wire.strip_suffix(b"\n").unwrap_or(wire);
        let wire = wire.strip_suffix(b"\r").unwrap_or(wire);
        let truncated = wire.len() > MAX_MESSAGE_TEXT;
        let kept = &wire[..wire.len().min(MAX_MESSAGE_TEXT)];
        let text: Arc<str> = String::from_utf8_lossy(kept).into();
        let at_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0);
        let seq = {
            let mut ring = self.ring.lock().expect("protocol log lock");
            ring.next_seq = ring.next_seq.wrapping_add(1);
            let seq = ring.next_seq;
            ring.bytes += text.len();
            ring.messages.push_back(Raw {
                seq,
                at_ms,
                direction,
                text,
                size: u32::try_from(wire.len()).unwrap_or(u32::MAX),
                truncated,
                parsed: Arc::default(),
            });
            while ring.messages.len() > MAX_MESSAGES || ring.bytes > MAX_BYTES {
                match ring.messages.pop_front() {
                    Some(old) => ring.bytes -= old.text.len(),
                    None => break,
                }
            }
            seq
        };
        let _ = self.live.send(seq);
    }

    /// Records a message given as a value (transports that hand over parsed messages).
    pub fn record_value(&self, direction: Direction, message: &impl Serialize) {
        if let Ok(text) = serde_json::to_vec(message) {
            self.record(direction, &text);
        }
    }

    /// The kept messages after `after` (0: all), oldest first, read for display.
    pub fn entries(&self, after: u32) -> Vec<LoggedMessage> {
        let kept: Vec<Raw> = self
            .ring
            .lock()
            .expect("protocol log lock")
            .messages
            .iter()
            .cloned()
            .collect();
        // Requests' methods by who asked and id, as of each message, to name the responses that
        // answer them: ids start again from 0 in each session (a restart, or `server/discover`
        // after an `initialize` refused with -32022), so a response answers the latest request
        // with its id before it.
        let mut asked = std::collections::HashMap::new();
        let mut entries = Vec::new();
        for raw in kept {
            let (method, id, kind) =
                raw.parsed()
                    .clone()
                    .unwrap_or((None, None, MessageKind::Other));
            if let (Some(method), Some(id), MessageKind::Request) = (&method, &id, kind) {
                asked.insert((raw.direction, id.clone()), method.clone());
            }
            if raw.seq <= after {
                continue;
            }
            let asker = match raw.direction {
                Direction::In => Direction::Out,
                Direction::Out => Direction::In,
            };
            let method = method.or_else(|| {
                id.as_ref()
                    .and_then(|id| asked.get(&(asker, id.clone())).cloned())
            });
            entries.push(LoggedMessage {
                seq: raw.seq,
                at_ms: raw.at_ms,
                direction: raw.direction,
                kind,
                method,
                id,
                text: raw.text.to_string(),
                size: raw.size,
                truncated: raw.truncated,
            });
        }
        entries
    }

    /// Wakes with the sequence number of each message recorded from now on.
    pub fn follow(&self) -> broadcast::Receiver<u32> {
        self.live.subscribe()
    }
}

/// The parts of a JSON-RPC message the log shows; the rest is skipped, not built.
#[derive(serde::Deserialize)]
struct Head {
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
}

/// The method, id and kind of a message's text; `None` when it is not a JSON object.
fn head(text: &str) -> Option<(Option<String>, Option<String>, MessageKind)> {
    let head: Head = serde_json::from_str(text).ok()?;
    let id = head.id.filter(|v| !v.is_null()).map(|id| match id {
        Value::String(s) => s,
        other => other.to_string(),
    });
    let kind = match (&head.method, &id) {
        (Some(_), Some(_)) => MessageKind::Request,
        (Some(_), None) => MessageKind::Notification,
        (None, _) if head.error.is_some() => MessageKind::Error,
        (None, Some(_)) => MessageKind::Response,
        (None, None) => MessageKind::Other,
    };
    Some((head.method, id, kind))
}

/// An rmcp transport whose messages are recorded on their way (remote sessions; stdio
/// records at the byte level in `stdio.rs`).
pub(crate) struct Tapped<T> {
    inner: T,
    log: Option<ProtocolLog>,
}

/// Wraps a transport so that what it sends and receives lands in `log` (nothing when `None`).
pub(crate) fn tap<T>(inner: T, log: Option<ProtocolLog>) -> Tapped<T> {
    Tapped { inner, log }
}

impl<T> rmcp::transport::Transport<rmcp::service::RoleClient> for Tapped<T>
where
    T: rmcp::transport::Transport<rmcp::service::RoleClient>,
{
    type Error = T::Error;

    fn name() -> std::borrow::Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: rmcp::model::ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let Some(log) = &self.log {
            log.record_value(Direction::Out, &item);
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<rmcp::model::ServerJsonRpcMessage> {
        let message = self.inner.receive().await;
        if let (Some(log), Some(message)) = (&self.log, &message) {
            log.record_value(Direction::In, message);
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_read_with_their_kind_and_a_response_names_its_request() {
        let log = ProtocolLog::default();
        log.record(
            Direction::Out,
            br#"{"jsonrpc":"2.0","id":-3,"method":"tools/call","params":{"name":"echo"}}"#,
        );
        log.record(
            Direction::In,
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
        );
        log.record(
            Direction::In,
            b"{\"jsonrpc\":\"2.0\",\"id\":-3,\"result\":{\"content\":[]}}\n",
        );
        log.record(
            Direction::In,
            br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}"#,
        );
        let entries = log.entries(0);
        let seen: Vec<(Direction, MessageKind, Option<&str>)> = entries
            .iter()
            .map(|e| (e.direction, e.kind, e.method.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [
                (Direction::Out, MessageKind::Request, Some("tools/call")),
                (
                    Direction::In,
                    MessageKind::Notification,
                    Some("notifications/progress")
                ),
                (Direction::In, MessageKind::Response, Some("tools/call")),
                (Direction::In, MessageKind::Error, None),
            ]
        );
        assert!(!entries[2].text.ends_with('\n'), "the line end is not kept");
        assert_eq!(log.entries(2).len(), 2, "entries after a sequence number");
    }

    #[test]
    fn a_response_names_the_latest_request_of_its_id_before_it() {
        // An `initialize` refused with -32022, then `server/discover` on the same process: rmcp
        // numbers each handshake from 0.
        let log = ProtocolLog::default();
        log.record(
            Direction::Out,
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
        );
        log.record(
            Direction::In,
            br#"{"jsonrpc":"2.0","id":0,"error":{"code":-32022,"message":"no"}}"#,
        );
        log.record(
            Direction::Out,
            br#"{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}"#,
        );
        log.record(
            Direction::In,
            br#"{"jsonrpc":"2.0","id":0,"result":{"supportedVersions":[]}}"#,
        );
        let methods: Vec<Option<String>> = log.entries(0).into_iter().map(|e| e.method).collect();
        assert_eq!(
            methods,
            [
                "initialize",
                "initialize",
                "server/discover",
                "server/discover"
            ]
            .map(|m| Some(m.into()))
        );
        assert_eq!(log.entries(1)[0].method.as_deref(), Some("initialize"));
    }

    #[test]
    fn the_ring_is_bounded_and_a_huge_message_keeps_its_head_and_size() {
        let log = ProtocolLog::default();
        for _ in 0..MAX_MESSAGES + 10 {
            log.record(Direction::In, b"{}");
        }
        let entries = log.entries(0);
        assert_eq!(entries.len(), MAX_MESSAGES);
        assert_eq!(entries[0].seq, 11, "the oldest went first");
        let huge = vec![b'x'; MAX_MESSAGE_TEXT * 2];
        log.record(Direction::In, &huge);
        let last = log.entries(0).pop().expect("recorded");
        assert!(last.truncated);
        assert_eq!(last.size as usize, huge.len());
        assert_eq!(last.text.len(), MAX_MESSAGE_TEXT);
        assert_eq!(last.kind, MessageKind::Other);
    }
}
