//! The stdio transport: newline-delimited JSON-RPC over the child's pipes.
//!
//! rmcp's own (`AsyncRwTransport`) reads every server message through the untagged
//! `ServerResult` union, which tries each result type in turn and formats an error for each
//! miss: for a `tools/call` answer, fifteen failed attempts before `CallToolResult`. That was
//! the largest share of our CPU per call. This transport remembers what each of its requests
//! asked for, and parses the answer to a `tools/call`, `tools/list` or `ping` as that type
//! directly; everything else (and any answer the direct parse refuses, or one that carries a
//! `resultType` or `task`) goes through rmcp's own parse, so what the session sees is the same.
//!
//! As rmcp's: a line that is not JSON-RPC is skipped; a line longer than the limit ends the
//! session; `receive` is cancel-safe (a partial line stays in the buffer for the next call).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, JsonRpcResponse, JsonRpcVersion2_0, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::RoleClient;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

/// What an answer is parsed as, by the request it answers.
#[derive(Debug, Clone, Copy)]
enum Expect {
    CallTool,
    ListTools,
    Empty,
}

/// Requests awaiting an answer whose type is known; bounded, since a request that is never
/// answered leaves its entry behind.
const REMEMBERED: usize = 4096;

/// The transport over one child's stdin and stdout.
pub struct Lines {
    reader: BufReader<ChildStdout>,
    writer: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    expected: Arc<Mutex<HashMap<RequestId, Expect>>>,
    line: Vec<u8>,
    max_line: usize,
}

impl Lines {
    pub fn new(stdout: ChildStdout, stdin: ChildStdin, max_line: usize) -> Self {
        Lines {
            reader: BufReader::with_capacity(64 * 1024, stdout),
            writer: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
            expected: Arc::new(Mutex::new(HashMap::new())),
            line: Vec::new(),
            max_line,
        }
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
    #[serde(default)]
    error: Option<IgnoredAny>,
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
) -> Option<ServerJsonRpcMessage> {
    if let Ok(envelope) = serde_json::from_slice::<Envelope>(line) {
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
        Expect::CallTool => serde_json::from_str(raw)
            .ok()
            .map(ServerResult::CallToolResult),
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
                ClientRequest::CallToolRequest(_) => Some(Expect::CallTool),
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
        let bytes = serde_json::to_vec(&item).map(|mut bytes| {
            bytes.push(b'\n');
            bytes
        });
        let writer = Arc::clone(&self.writer);
        async move {
            let bytes = bytes.map_err(std::io::Error::other)?;
            let mut writer = writer.lock().await;
            let stdin = writer.as_mut().ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin is closed")
            })?;
            stdin.write_all(&bytes).await?;
            stdin.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
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
                let last = parse(&self.line, &self.expected);
                self.line.clear();
                return last;
            }
            let message = parse(&self.line, &self.expected);
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

    fn expecting(id: i64, expect: Expect) -> Mutex<HashMap<RequestId, Expect>> {
        Mutex::new(HashMap::from([(RequestId::Number(id), expect)]))
    }

    #[test]
    fn an_answer_to_a_tools_call_is_parsed_as_a_tool_result_and_forgotten() {
        let expected = expecting(7, Expect::CallTool);
        let line =
            br#"{"result":{"content":[{"type":"text","text":"Echo: hi"}]},"jsonrpc":"2.0","id":7}"#;
        let message = parse(line, &expected).unwrap();
        let ServerJsonRpcMessage::Response(response) = message else {
            panic!("a response")
        };
        assert_eq!(response.id, RequestId::Number(7));
        assert!(matches!(response.result, ServerResult::CallToolResult(_)));
        assert!(expected.lock().unwrap().is_empty());
    }

    #[test]
    fn what_the_direct_parse_does_not_cover_takes_rmcps_path() {
        // A task acknowledgement to a tools/call: not a plain CallToolResult.
        let expected = expecting(1, Expect::CallTool);
        let line = br#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":null}}}"#;
        let direct = serde_json::from_slice::<ServerJsonRpcMessage>(line)
            .ok()
            .map(|m| serde_json::to_value(m).unwrap());
        let ours = parse(line, &expected).map(|m| serde_json::to_value(m).unwrap());
        assert_eq!(ours, direct);
        assert!(ours.is_some());
        // An error answer forgets the expectation.
        let expected = expecting(2, Expect::ListTools);
        let line = br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}"#;
        assert!(matches!(
            parse(line, &expected),
            Some(ServerJsonRpcMessage::Error(_))
        ));
        assert!(expected.lock().unwrap().is_empty());
        // A notification, and an answer nobody flagged.
        let none = Mutex::new(HashMap::new());
        let line = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        assert!(matches!(
            parse(line, &none),
            Some(ServerJsonRpcMessage::Notification(_))
        ));
        let line = br#"{"jsonrpc":"2.0","id":3,"result":{}}"#;
        assert!(matches!(
            parse(line, &none),
            Some(ServerJsonRpcMessage::Response(_))
        ));
    }

    #[test]
    fn a_line_that_is_not_json_rpc_is_nothing() {
        let none = Mutex::new(HashMap::new());
        assert!(parse(b"this is not JSON-RPC\n", &none).is_none());
        assert!(parse(br#"{"jsonrpc": "2.0", "bogus": true}"#, &none).is_none());
    }
}
