//! The WebSocket transport (`"type": "ws"`), as Claude Code speaks it: one JSON-RPC message per
//! text frame, the `mcp` subprotocol, and the entry's headers on the upgrade request.
//!
//! rmcp ships no WebSocket client, so this is tokio-tungstenite under rmcp's sink-and-stream
//! adapter. Frames that are not JSON-RPC are skipped, as garbage lines are on stdio; a close
//! frame or a broken socket ends the stream, and the session with it.

use futures::{SinkExt, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;

/// What can go wrong opening or using the socket.
pub type WsError = tokio_tungstenite::tungstenite::Error;

/// Opens the socket at `url` (`ws://` or `wss://`) with `headers`; the sink and stream rmcp
/// serves a client over.
pub async fn connect(
    url: &str,
    headers: &[(String, String)],
    max_message: usize,
) -> Result<
    (
        impl futures::Sink<ClientJsonRpcMessage, Error = WsError> + Send + Unpin + 'static,
        impl futures::Stream<Item = ServerJsonRpcMessage> + Send + Unpin + 'static,
    ),
    WsError,
> {
    let mut request = url.into_client_request()?;
    request
        .headers_mut()
        .insert("Sec-WebSocket-Protocol", HeaderValue::from_static("mcp"));
    for (name, value) in headers {
        let name = tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|err| WsError::HttpFormat(err.into()))?;
        let value = HeaderValue::from_str(value).map_err(|err| WsError::HttpFormat(err.into()))?;
        request.headers_mut().insert(name, value);
    }
    let mut config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default();
    config.max_message_size = Some(max_message);
    config.max_frame_size = Some(max_message);
    let (socket, _) =
        tokio_tungstenite::connect_async_with_config(request, Some(config), false).await?;
    let (sink, stream) = socket.split();
    let sink = Box::pin(sink.with(|message: ClientJsonRpcMessage| async move {
        let text = serde_json::to_string(&message).expect("a JSON-RPC message serializes");
        Ok::<_, WsError>(Message::text(text))
    }));
    let stream = Box::pin(
        stream
            .take_while(|frame| std::future::ready(matches!(frame, Ok(m) if !m.is_close())))
            .filter_map(|frame| async move {
                match frame {
                    Ok(Message::Text(text)) => serde_json::from_str(text.as_str()).ok(),
                    Ok(Message::Binary(bytes)) => serde_json::from_slice(&bytes).ok(),
                    _ => None,
                }
            }),
    );
    Ok((sink, stream))
}
