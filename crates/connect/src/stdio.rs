//! The stdio transport: newline-delimited JSON-RPC over the child's pipes.
//!
//! Tool calls skip rmcp's service loop altogether ([`Calls`]): the caller writes its request
//! to the pipe itself and [`Lines`] hands the answer straight back as JSON. Through rmcp, each
//! call took a hop through its channel, a task spawned per send, its bookkeeping, and a parse
//! of the answer through the untagged `ServerResult` union (fifteen failed attempts before
//! `CallToolResult`); on a server that answers in 100 µs that was a fifth of every call
//! (`benches/echo.rs`). Direct calls take negative ids and progress tokens (-1, -2, …): rmcp
//! numbers its own from 0 up, so the two never meet, and JSON-RPC allows any integer.
//!
//! Everything else (lists, reads, the server's own requests and notifications, progress
//! included) goes through rmcp. Of those, answers to `tools/list` and `ping` are parsed as
//! their own type directly (this transport remembers what each request asked for); the rest,
//! and any answer the direct parse refuses or that carries a `resultType` or `task`, take
//! rmcp's own parse, so what the session sees is the same.
//!
//! As rmcp's: a line that is not JSON-RPC is skipped; a line longer than the limit ends the
//! session; `receive` is cancel-safe (a partial line stays in the buffer for the next call).

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorData, JsonRpcResponse, JsonRpcVersion2_0,
    NumberOrString, RequestId, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::RoleClient;
use rmcp::ServiceError;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::oneshot;

/// What an answer is parsed as, by the request it answers.
#[derive(Debug, Clone, Copy)]
enum Expect {
    ListTools,
    Empty,
}

/// Requests awaiting an answer whose type is known; bounded, since a request that is never
/// answered leaves its entry behind.
const REMEMBERED: usize = 4096;

/// The child's stdin, shared by rmcp's sends and direct calls so that lines never interleave;
/// `None` once closed.
type Writer = Arc<tokio::sync::Mutex<Option<ChildStdin>>>;

/// The transport over one child's stdin and stdout.
pub struct Lines {
    reader: BufReader<ChildStdout>,
    log: Option<crate::protocol_log::ProtocolLog>,
    writer: Writer,
    expected: Arc<Mutex<HashMap<RequestId, Expect>>>,
    calls: Arc<Calls>,
    line: Vec<u8>,
    max_line: usize,
}

impl Lines {
    /// `log`, when given, records every line written and read.
    pub fn new(
        stdout: ChildStdout,
        stdin: ChildStdin,
        max_line: usize,
        log: Option<crate::protocol_log::ProtocolLog>,
    ) -> Self {
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(Some(stdin)));
        Lines {
            // Tokio's default 8 KiB: a longer message takes more reads of the pipe, at a few
            // microseconds each, where 64 KiB cost 56 KiB more per stdio server all its life.
            reader: BufReader::new(stdout),
            calls: Arc::new(Calls::over(Arc::clone(&writer), log.clone())),
            log,
            writer,
            expected: Arc::new(Mutex::new(HashMap::new())),
            line: Vec::new(),
            max_line,
        }
    }

    /// The direct calls over this transport's pipes.
    pub fn calls(&self) -> Arc<Calls> {
        Arc::clone(&self.calls)
    }

    /// The next message for rmcp (answers to direct calls are handed over on the way);
    /// `None` when the stream ended or a line was over the limit.
    async fn next_message(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            let room = (self.max_line + 1).saturating_sub(self.line.len()) as u64;
            let read = (&mut self.reader)
                .take(room)
                .read_until(b'\n', &mut self.line)
                .await;
            match read {
                Ok(0) if self.line.is_empty() => return None,
                Ok(_) => {}
                Err(_) => return None,
            }
            if !self.line.ends_with(b"\n") {
                if self.line.len() > self.max_line {
                    // A message over the limit: the session cannot go on in step.
                    return None;
                }
                // End of stream in the middle of a line: what is there is the last message.
                self.record_read();
                let last = parse(&self.line, &self.expected, &self.calls);
                self.line.clear();
                return last;
            }
            self.record_read();
            let message = parse(&self.line, &self.expected, &self.calls);
            self.line.clear();
            if self.line.capacity() > 1 << 20 {
                // A huge message came through: do not keep its buffer for the session's life.
                self.line = Vec::new();
            }
            if message.is_some() {
                return message;
            }
        }
    }
}

impl Lines {
    fn record_read(&self) {
        if let Some(log) = &self.log {
            if !self.line.iter().all(u8::is_ascii_whitespace) {
                log.record(crate::protocol_log::Direction::In, &self.line);
            }
        }
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        self.calls.end();
    }
}

/// What a direct call gets back: the JSON-RPC `result`, or its `error`.
type Answer = Result<Value, ErrorData>;

/// Tool calls written straight to the pipe, answered straight from [`Lines::receive`].
pub struct Calls {
    writer: Writer,
    /// By (negative) id, the callers waiting for an answer.
    waiting: Mutex<HashMap<i64, oneshot::Sender<Answer>>>,
    next: AtomicI64,
    /// The session is over: nothing more will be answered.
    ended: AtomicBool,
    log: Option<crate::protocol_log::ProtocolLog>,
    /// On a session of 2026-07-28: the per-request `_meta` every request carries (protocol
    /// version, client info and capabilities), beside the progress token; and the same for a
    /// call made as a task, whose capabilities name the tasks extension.
    envelope: std::sync::OnceLock<(Map<String, Value>, Map<String, Value>)>,
}

impl std::fmt::Debug for Calls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Calls")
            .field("ended", &self.ended.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct Outgoing<'a, P: Serialize> {
    jsonrpc: &'static str,
    id: i64,
    method: &'a str,
    params: P,
}

#[derive(Serialize)]
struct Notification<'a, P: Serialize> {
    jsonrpc: &'static str,
    method: &'a str,
    params: P,
}

#[derive(Serialize)]
struct CallToolParams<'a> {
    #[serde(rename = "_meta")]
    meta: RequestMeta<'a>,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    arguments: Option<&'a Map<String, Value>>,
    /// A round after `input_required`: the answers, by the server's keys.
    #[serde(rename = "inputResponses", skip_serializing_if = "Option::is_none")]
    input_responses: Option<&'a Map<String, Value>>,
    /// And the state the server sent, echoed as it came.
    #[serde(rename = "requestState", skip_serializing_if = "Option::is_none")]
    request_state: Option<&'a str>,
}

#[derive(Serialize)]
struct RequestMeta<'a> {
    #[serde(rename = "progressToken")]
    progress_token: i64,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    envelope: Option<&'a Map<String, Value>>,
}

#[derive(Serialize)]
struct CancelledParams<'a> {
    #[serde(rename = "requestId")]
    request_id: i64,
    reason: &'a str,
}

/// The reason a cancellation gives when the caller's time ran out (rmcp's words).
const TIMED_OUT: &str = "request timeout";
/// The reason it gives when the caller stopped waiting.
const GAVE_UP: &str = "the client no longer waits for this request";

impl Calls {
    fn over(writer: Writer, log: Option<crate::protocol_log::ProtocolLog>) -> Calls {
        Calls {
            writer,
            waiting: Mutex::new(HashMap::new()),
            next: AtomicI64::new(-1),
            ended: AtomicBool::new(false),
            log,
            envelope: std::sync::OnceLock::new(),
        }
    }

    /// Makes every call carry `envelope` in its `_meta` (a session of 2026-07-28).
    pub fn carry(&self, envelope: Map<String, Value>, task_capabilities: Value) {
        let mut as_task = envelope.clone();
        as_task.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            task_capabilities,
        );
        let _ = self.envelope.set((envelope, as_task));
    }

    fn record_written(&self, bytes: &[u8]) {
        if let Some(log) = &self.log {
            log.record(crate::protocol_log::Direction::Out, bytes);
        }
    }

    /// The id (and progress token) of the next call; the caller routes progress by it
    /// before [`Calls::call_tool`].
    pub fn next_id(&self) -> i64 {
        self.next.fetch_sub(1, Ordering::Relaxed)
    }

    /// The progress token a call with `id` sends.
    pub fn progress_token(id: i64) -> rmcp::model::ProgressToken {
        rmcp::model::ProgressToken(NumberOrString::Number(id))
    }

    /// `tools/call` as request `id`, with `_meta.progressToken` = `id` (and, for a round after
    /// `input_required`, the answers and the server's state; `as_task`: declaring the tasks
    /// extension). On `timeout`, or when the caller stops waiting, the server gets
    /// `notifications/cancelled`.
    pub async fn call_tool(
        &self,
        id: i64,
        name: &str,
        arguments: Option<&Map<String, Value>>,
        input: Option<&InputRound>,
        timeout: Option<Duration>,
        as_task: bool,
    ) -> Result<Value, ServiceError> {
        let envelope = self
            .envelope
            .get()
            .map(|(plain, task)| if as_task { task } else { plain });
        let params = CallToolParams {
            meta: RequestMeta {
                progress_token: id,
                envelope,
            },
            name,
            arguments,
            input_responses: input.map(|round| &round.responses),
            request_state: input.and_then(|round| round.state.as_deref()),
        };
        self.request(id, "tools/call", params, timeout).await
    }

    async fn request(
        &self,
        id: i64,
        method: &str,
        params: impl Serialize,
        timeout: Option<Duration>,
    ) -> Result<Value, ServiceError> {
        let bytes = line(&Outgoing {
            jsonrpc: "2.0",
            id,
            method,
            params,
        })
        .map_err(send_error)?;
        let (answer, answered) = oneshot::channel();
        self.waiting.lock().expect("calls lock").insert(id, answer);
        // After registering: a session that ends from here on drops our sender.
        if self.ended.load(Ordering::SeqCst) {
            self.waiting.lock().expect("calls lock").remove(&id);
            return Err(ServiceError::TransportClosed);
        }
        let mut pending = Pending {
            calls: self,
            id,
            armed: true,
            reason: GAVE_UP,
        };
        self.record_written(&bytes);
        if let Err(err) = write(&self.writer, bytes).await {
            pending.armed = false;
            self.waiting.lock().expect("calls lock").remove(&id);
            return Err(send_error(err));
        }
        let answer = match timeout {
            None => answered.await,
            Some(limit) => match tokio::time::timeout(limit, answered).await {
                Ok(answer) => answer,
                Err(_) => {
                    pending.reason = TIMED_OUT;
                    return Err(ServiceError::Timeout { timeout: limit });
                }
            },
        };
        pending.armed = false;
        match answer {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(ServiceError::McpError(error)),
            Err(_) => Err(ServiceError::TransportClosed),
        }
    }

    /// Hands an answer to its caller; false when the id is not one of ours.
    fn answer(&self, id: &RequestId, answer: impl FnOnce() -> Answer) -> bool {
        let NumberOrString::Number(id) = id else {
            return false;
        };
        if *id >= 0 {
            return false;
        }
        // An answer nobody waits for any more (timed out, gone) is dropped, as rmcp does.
        if let Some(waiter) = self.waiting.lock().expect("calls lock").remove(id) {
            let _ = waiter.send(answer());
        }
        true
    }

    /// The session is over: every waiting caller, and every later one, gets
    /// `TransportClosed`.
    fn end(&self) {
        self.ended.store(true, Ordering::SeqCst);
        self.waiting.lock().expect("calls lock").clear();
    }

    /// Tells the server that request `id` is no longer wanted, without waiting.
    fn cancel(&self, id: i64, reason: &str) {
        if self.ended.load(Ordering::SeqCst) {
            return;
        }
        let Ok(bytes) = line(&Notification {
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: CancelledParams {
                request_id: id,
                reason,
            },
        }) else {
            return;
        };
        // Not awaited: this runs where a call is dropped. Written at once in the common case,
        // so it reaches the server before whatever the caller sends next.
        if tokio::runtime::Handle::try_current().is_ok() {
            self.record_written(&bytes);
            let _ = begin_write(&self.writer, bytes);
        }
    }
}

/// A direct call on its way: dropped before its answer (timed out, or the caller's future
/// dropped), it forgets the call and sends `notifications/cancelled`.
struct Pending<'a> {
    calls: &'a Calls,
    id: i64,
    armed: bool,
    reason: &'static str,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.calls
                .waiting
                .lock()
                .expect("calls lock")
                .remove(&self.id);
            self.calls.cancel(self.id, self.reason);
        }
    }
}

fn send_error(err: impl Into<std::io::Error>) -> ServiceError {
    ServiceError::TransportSend(rmcp::transport::DynamicTransportError::new::<Lines, _>(
        err.into(),
    ))
}

fn line(message: &impl Serialize) -> Result<Vec<u8>, serde_json::Error> {
    let mut bytes = serde_json::to_vec(message)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Writes one whole line. It is tried right away (a line that fits the pipe goes out with
/// no task and in the order of the calls); what cannot finish at once is finished by a task
/// of its own, so that a caller dropped mid-write never leaves half a line in the pipe.
fn begin_write(
    writer: &Writer,
    bytes: Vec<u8>,
) -> Result<std::io::Result<()>, tokio::task::JoinHandle<std::io::Result<()>>> {
    let writer = Arc::clone(writer);
    let mut whole = Box::pin(async move {
        let mut stdin = writer.lock().await;
        let stdin = stdin.as_mut().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin is closed")
        })?;
        stdin.write_all(&bytes).await?;
        stdin.flush().await
    });
    // The task (if one is needed) polls again with a waker of its own.
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match whole.as_mut().poll(&mut cx) {
        Poll::Ready(result) => Ok(result),
        Poll::Pending => Err(tokio::spawn(whole)),
    }
}

/// [`begin_write`], waiting for the end of the line.
async fn write(writer: &Writer, bytes: Vec<u8>) -> std::io::Result<()> {
    match begin_write(writer, bytes) {
        Ok(result) => result,
        Err(rest) => rest
            .await
            .unwrap_or_else(|err| Err(std::io::Error::other(err))),
    }
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<IgnoredAny>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// Results that are not plain answers (tasks, input requests) take rmcp's own path.
#[derive(Deserialize)]
struct Plain {
    #[serde(rename = "resultType", default)]
    result_type: Option<IgnoredAny>,
    #[serde(default)]
    task: Option<IgnoredAny>,
}

fn parse(
    line: &[u8],
    expected: &Mutex<HashMap<RequestId, Expect>>,
    calls: &Calls,
) -> Option<ServerJsonRpcMessage> {
    if let Ok(envelope) = serde_json::from_slice::<Envelope>(line) {
        if let (Some(id), None) = (&envelope.id, &envelope.method) {
            let direct = calls.answer(id, || match (envelope.result, envelope.error) {
                (Some(result), _) => serde_json::from_str(result.get())
                    .map_err(|err| ErrorData::parse_error(err.to_string(), None)),
                (None, Some(error)) => Err(serde_json::from_str::<ErrorData>(error.get())
                    .unwrap_or_else(|err| {
                        ErrorData::parse_error(
                            format!("an error that is not JSON-RPC: {err}"),
                            None,
                        )
                    })),
                (None, None) => Err(ErrorData::invalid_request(
                    "an answer with neither result nor error",
                    None,
                )),
            });
            if direct {
                return None;
            }
        }
        if let (Some(id), None, None) = (&envelope.id, &envelope.method, &envelope.error) {
            let expect = expected.lock().expect("expected lock").remove(id);
            if let (Some(expect), Some(raw)) = (expect, envelope.result) {
                if let Some(result) = direct(expect, raw.get()) {
                    return Some(ServerJsonRpcMessage::Response(JsonRpcResponse {
                        jsonrpc: JsonRpcVersion2_0,
                        id: id.clone(),
                        result,
                    }));
                }
            }
        } else if let (Some(id), Some(_)) = (&envelope.id, &envelope.error) {
            expected.lock().expect("expected lock").remove(id);
        }
    }
    serde_json::from_slice(line).ok()
}

fn direct(expect: Expect, raw: &str) -> Option<ServerResult> {
    let plain: Plain = serde_json::from_str(raw).ok()?;
    if plain.result_type.is_some() || plain.task.is_some() {
        return None;
    }
    match expect {
        Expect::ListTools => serde_json::from_str(raw)
            .ok()
            .map(ServerResult::ListToolsResult),
        Expect::Empty => Some(ServerResult::empty(())),
    }
}

impl rmcp::transport::Transport<RoleClient> for Lines {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ClientJsonRpcMessage::Request(request) = &item {
            let expect = match &request.request {
                ClientRequest::ListToolsRequest(_) => Some(Expect::ListTools),
                ClientRequest::PingRequest(_) => Some(Expect::Empty),
                _ => None,
            };
            if let Some(expect) = expect {
                let mut expected = self.expected.lock().expect("expected lock");
                if expected.len() >= REMEMBERED {
                    expected.clear();
                }
                expected.insert(request.id.clone(), expect);
            }
        }
        let bytes = line(&item);
        if let (Some(log), Ok(bytes)) = (&self.log, &bytes) {
            log.record(crate::protocol_log::Direction::Out, bytes);
        }
        let writer = Arc::clone(&self.writer);
        async move { write(&writer, bytes.map_err(std::io::Error::other)?).await }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        let message = self.next_message().await;
        if message.is_none() {
            // The session is over: direct calls waiting for an answer will get none.
            self.calls.end();
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        if let Some(mut stdin) = self.writer.lock().await.take() {
            let _ = stdin.shutdown().await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detached() -> Calls {
        Calls::over(Arc::new(tokio::sync::Mutex::new(None)), None)
    }

    fn expecting(id: i64, expect: Expect) -> Mutex<HashMap<RequestId, Expect>> {
        Mutex::new(HashMap::from([(RequestId::Number(id), expect)]))
    }

    #[test]
    fn an_answer_to_a_tools_list_is_parsed_as_a_tool_list_and_forgotten() {
        let expected = expecting(7, Expect::ListTools);
        let line = br#"{"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]},"jsonrpc":"2.0","id":7}"#;
        let message = parse(line, &expected, &detached()).unwrap();
        let ServerJsonRpcMessage::Response(response) = message else {
            panic!("a response")
        };
        assert_eq!(response.id, RequestId::Number(7));
        assert!(matches!(response.result, ServerResult::ListToolsResult(_)));
        assert!(expected.lock().unwrap().is_empty());
    }

    #[test]
    fn what_the_direct_parse_does_not_cover_takes_rmcps_path() {
        // A task acknowledgement: not a plain result.
        let expected = expecting(1, Expect::ListTools);
        let line = br#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":null}}}"#;
        let direct = serde_json::from_slice::<ServerJsonRpcMessage>(line)
            .ok()
            .map(|m| serde_json::to_value(m).unwrap());
        let ours = parse(line, &expected, &detached()).map(|m| serde_json::to_value(m).unwrap());
        assert_eq!(ours, direct);
        assert!(ours.is_some());
        // An error answer forgets the expectation.
        let expected = expecting(2, Expect::ListTools);
        let line = br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}"#;
        assert!(matches!(
            parse(line, &expected, &detached()),
            Some(ServerJsonRpcMessage::Error(_))
        ));
        assert!(expected.lock().unwrap().is_empty());
        // A notification, and an answer nobody flagged.
        let none = Mutex::new(HashMap::new());
        let line = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        assert!(matches!(
            parse(line, &none, &detached()),
            Some(ServerJsonRpcMessage::Notification(_))
        ));
        let line = br#"{"jsonrpc":"2.0","id":3,"result":{}}"#;
        assert!(matches!(
            parse(line, &none, &detached()),
            Some(ServerJsonRpcMessage::Response(_))
        ));
    }

    #[tokio::test]
    async fn a_direct_calls_answer_goes_to_its_caller_and_not_to_rmcp() {
        let calls = detached();
        let none = Mutex::new(HashMap::new());
        let (result_tx, result_rx) = oneshot::channel();
        let (error_tx, error_rx) = oneshot::channel();
        calls.waiting.lock().unwrap().insert(-1, result_tx);
        calls.waiting.lock().unwrap().insert(-2, error_tx);
        let line = br#"{"jsonrpc":"2.0","id":-1,"result":{"content":[],"isError":true}}"#;
        assert!(parse(line, &none, &calls).is_none());
        assert_eq!(
            result_rx.await.unwrap().unwrap(),
            serde_json::json!({"content": [], "isError": true})
        );
        let line = br#"{"jsonrpc":"2.0","id":-2,"error":{"code":-32042,"message":"visit","data":{"elicitations":[]}}}"#;
        assert!(parse(line, &none, &calls).is_none());
        let error = error_rx.await.unwrap().unwrap_err();
        assert_eq!(error.code.0, -32042);
        assert_eq!(error.message, "visit");
        // A late answer to a call nobody waits for is dropped; rmcp's ids still reach rmcp.
        let line = br#"{"jsonrpc":"2.0","id":-3,"result":{}}"#;
        assert!(parse(line, &none, &calls).is_none());
        let line = br#"{"jsonrpc":"2.0","id":3,"result":{}}"#;
        assert!(parse(line, &none, &calls).is_some());
    }

    #[tokio::test]
    async fn an_ended_session_fails_waiting_and_later_calls() {
        let calls = detached();
        let (tx, rx) = oneshot::channel();
        calls.waiting.lock().unwrap().insert(-1, tx);
        calls.end();
        assert!(rx.await.is_err(), "the waiting caller hears the end");
        let later = calls.call_tool(-2, "echo", None, None, None, false).await;
        assert!(
            matches!(later, Err(ServiceError::TransportClosed)),
            "{later:?}"
        );
    }

    #[test]
    fn a_line_that_is_not_json_rpc_is_nothing() {
        let none = Mutex::new(HashMap::new());
        assert!(parse(b"this is not JSON-RPC\n", &none, &detached()).is_none());
        assert!(parse(br#"{"jsonrpc": "2.0", "bogus": true}"#, &none, &detached()).is_none());
    }
}

/// The answers of one round after `input_required`, and the state to echo.
#[derive(Debug, Clone)]
pub struct InputRound {
    pub responses: serde_json::Map<String, Value>,
    pub state: Option<String>,
}
