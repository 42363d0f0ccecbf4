//! What a person reads when a server cannot be opened: what happened, at which URL, and what
//! to try, in plain words.
//!
//! rmcp says its failures for programmers: "Send message error Transport
//! [rmcp::transport::worker::WorkerTransport<…>] error: unexpected server response: HTTP 404
//! Not Found: , when send initialize request". A person who typed a URL needs "HTTP 404 at
//! http://…/mcp: no MCP endpoint answers there (tried streamable HTTP, then legacy SSE);
//! check the URL's path". [`plain`] takes the library phrasing out of any message;
//! [`answered_status`] finds the HTTP status inside one, and [`http_failure`] says what that
//! status means for an MCP endpoint. A test (`tests/words.rs`) collects the words of every
//! fault server and fails on a Rust path, a generic or rmcp's phrasing.

/// An rmcp error message without the Rust type names and library phrasing it carries:
/// "Transport [rmcp::…<…>] error: X" becomes "X", "Send message error X, when send
/// initialize request" becomes "X (on initialize)", "unexpected server response: " goes.
pub fn plain(message: &str) -> String {
    let mut out = message.to_string();
    while let Some(start) = out.find("Transport [") {
        // The type name may hold brackets of its own: find the one that closes this.
        let mut depth = 0usize;
        let mut end = None;
        for (at, c) in out[start + "Transport ".len()..].char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(start + "Transport ".len() + at + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        let rest = &out[end..];
        let skip = if rest.starts_with(" error: ") {
            " error: ".len()
        } else {
            0
        };
        out.replace_range(start..end + skip, "");
    }
    out = out.replace("Send message error ", "");
    out = out.replace("Mcp error: ", "the server's error ");
    out = out.replace("unexpected server response: ", "");
    // "HTTP 404 Not Found: " with nothing after it.
    out = out.replace(": , ", ", ").replace(": ;", ";");
    // ", when send initialize request" → " (on initialize)".
    while let Some(at) = out.find(", when send ") {
        let tail = &out[at + ", when send ".len()..];
        let end = tail.find(" request").unwrap_or(tail.len());
        let what = tail[..end].to_string();
        let after = (end + " request".len()).min(tail.len());
        let rest = tail[after..].to_string();
        out = format!("{} (on {what}){rest}", &out[..at]);
    }
    // A `{:?}` of versions: [ProtocolVersion("2025-06-18")] → [2025-06-18].
    while let Some(at) = out.find("ProtocolVersion(\"") {
        let tail = &out[at + "ProtocolVersion(\"".len()..];
        let Some(end) = tail.find("\")") else { break };
        let version = tail[..end].to_string();
        let rest = tail[end + 2..].to_string();
        out = format!("{}{version}{rest}", &out[..at]);
    }
    out.trim_end_matches([':', ' ']).to_string()
}

/// The HTTP status a request was answered with, as rmcp's or our transports' words say it:
/// "HTTP 404 Not Found: …", "HTTP 501", "…opened no event stream: HTTP 404".
pub fn answered_status(said: &str) -> Option<u16> {
    let said = said.replace("HTTP error: ", "HTTP ");
    let mut from = 0;
    while let Some(at) = said[from..].find("HTTP ") {
        let digits: String = said[from + at + 5..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if digits.len() == 3 {
            return digits.parse().ok();
        }
        from += at + 5;
    }
    None
}

/// What a remote server's failure to open over `transport` at `url` means, from what the
/// transport said: an HTTP status ([`http_failure`]), a web page or other content where MCP
/// was expected, JSON that is not JSON-RPC, or else the transport's words, plainly, after
/// the URL.
pub fn remote_failure(url: &str, transport: &str, said: &str) -> String {
    if let Some(status) = answered_status(said) {
        return http_failure(url, status, transport, None);
    }
    if let Some(at) = said.find("Unexpected content type: ") {
        let rest = &said[at + "Unexpected content type: ".len()..];
        let kind = rest
            .strip_prefix("Some(\"")
            .and_then(|r| r.split('"').next())
            .map(str::to_string);
        let what = match kind.as_deref() {
            Some(k) if k.starts_with("text/html") => format!("a web page ({k})"),
            Some(k) => format!("content of type {k}"),
            None => "content of no stated type".to_string(),
        };
        return format!(
            "{url} answered with {what}, not MCP (JSON or an event stream) ({transport}); check the URL's path"
        );
    }
    if said.contains("could not parse JSON") || said.contains("unrecognized JSON-RPC") {
        return format!(
            "{url} answered with JSON that is not an MCP message ({transport}); check the URL's path"
        );
    }
    format!("{transport} at {url}: {}", plain(said))
}

/// No answer from `url` within `waited` (already in words: "10 s").
pub fn no_answer(url: &str, waited: &str) -> String {
    format!(
        "no answer from {url} within {waited}: the server may be busy or stuck, or the URL wrong (https:// at a plain http:// port, say); check the URL and that the server is up"
    )
}

/// Whether `status` says no MCP endpoint of this kind is at the URL (and another transport
/// may be worth a try): not found, method not allowed or not implemented, or a 4xx an older
/// server gives a request it does not know.
pub fn no_endpoint(status: u16) -> bool {
    (400..500).contains(&status) && status != 401 && status != 403 || status == 501
}

/// What `status` at `url` means, in words, for a request of `transport` ("streamable HTTP",
/// "legacy SSE"). `also` is what the fallback transport got, when one was tried.
pub fn http_failure(url: &str, status: u16, transport: &str, also: Option<&str>) -> String {
    let tried = match also {
        Some(other) => format!("tried {transport}, then legacy SSE: {other}"),
        None => format!("tried {transport}"),
    };
    match status {
        404 | 405 | 501 => format!(
            "HTTP {status} at {url}: no MCP endpoint answers there ({tried}); check the URL's path"
        ),
        400..=499 => format!(
            "HTTP {status} at {url}: the server refused the request ({tried}); check the URL, and the headers the entry sends"
        ),
        _ => format!(
            "HTTP {status} at {url}: the server failed while answering ({tried}); it may be down or overloaded: try again later, or look at its logs"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_type_names_and_rmcp_phrasing_leave_error_messages() {
        let raw = "Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::A<B<C>>>] error: unexpected server response: HTTP 404 Not Found: , when send initialize request";
        assert_eq!(plain(raw), "HTTP 404 Not Found (on initialize)");
        assert_eq!(
            plain("Send message error HTTP 501, when send discover request"),
            "HTTP 501 (on discover)"
        );
        assert_eq!(
            plain("no compatible protocol version (client: [ProtocolVersion(\"2026-07-28\")], server: [])"),
            "no compatible protocol version (client: [2026-07-28], server: [])"
        );
        assert_eq!(plain("nothing to strip"), "nothing to strip");
    }

    #[test]
    fn the_status_is_found_wherever_it_is_said() {
        assert_eq!(answered_status("HTTP 501 (on discover)"), Some(501));
        assert_eq!(
            answered_status("the server opened no event stream: HTTP 404"),
            Some(404)
        );
        assert_eq!(
            answered_status("HTTP response body exceeded the maximum size"),
            None
        );
        assert_eq!(
            answered_status("WebSocket: HTTP error: 404 Not Found"),
            Some(404)
        );
        assert!(no_endpoint(404) && no_endpoint(501) && no_endpoint(400));
        assert!(!no_endpoint(401) && !no_endpoint(403) && !no_endpoint(500));
    }

    #[test]
    fn a_status_says_what_to_try() {
        let words = http_failure(
            "http://127.0.0.1:1/mcp",
            404,
            "streamable HTTP",
            Some("HTTP 404"),
        );
        assert_eq!(words, "HTTP 404 at http://127.0.0.1:1/mcp: no MCP endpoint answers there (tried streamable HTTP, then legacy SSE: HTTP 404); check the URL's path");
        assert_eq!(
            remote_failure("http://h/mcp", "streamable HTTP", "Unexpected content type: Some(\"text/html; charset=utf-8\") (on discover)"),
            "http://h/mcp answered with a web page (text/html; charset=utf-8), not MCP (JSON or an event stream) (streamable HTTP); check the URL's path"
        );
        assert!(http_failure("u", 503, "streamable HTTP", None).contains("try again later"));
    }
}
