//! The words of a failure to open a server, as a person reads them: each fault server here is
//! real (a socket on 127.0.0.1 answering as a broken or wrong server does, or a process), and
//! what opening it says must name what happened in words — no Rust path (`::`), no generic
//! (`Type<…>`), no rmcp phrasing ("Send message error", "when send", `Some(…)`) — and, for a
//! URL, name the URL.

mod support;

use std::time::Duration;

use mcp_manager_connect::stderr::StderrLog;
use mcp_manager_connect::Connection;
use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// How a fault server answers: to a POST, and to a GET (status, content type, body); `None`
/// closes the connection without a word.
#[derive(Clone, Copy)]
struct Fault {
    post: Option<(u16, &'static str, &'static str)>,
    get: Option<(u16, &'static str, &'static str)>,
}

/// Serves `fault` on 127.0.0.1 until the test ends; its port.
async fn serve(fault: Fault) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let answer = if head.starts_with(b"POST") {
                    fault.post
                } else {
                    fault.get
                };
                let Some((status, kind, body)) = answer else {
                    return; // hang up
                };
                let reply = format!(
                    "HTTP/1.1 {status} Whatever\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    port
}

async fn words_of(config: &ServerConfig) -> String {
    match Connection::open(
        config,
        &std::env::temp_dir(),
        Duration::from_secs(10),
        StderrLog::default(),
    )
    .await
    {
        Ok(_) => panic!("a fault server opened a session"),
        Err(err) => err.to_string(),
    }
}

/// What a person must never read.
fn library_phrasing(words: &str) -> Option<&'static str> {
    if words.contains("::") {
        return Some("a Rust path");
    }
    let generic = words.as_bytes().windows(3).any(|w| {
        w[0].is_ascii_alphanumeric() && w[1] == b'<' && (w[2].is_ascii_uppercase() || w[2] == b'_')
    });
    if generic {
        return Some("a generic");
    }
    for phrase in [
        "Send message error",
        "when send ",
        "Some(",
        "Transport [",
        "Box<",
    ] {
        if words.contains(phrase) {
            return Some("rmcp's phrasing");
        }
    }
    None
}

#[test]
fn the_check_sees_library_phrasing() {
    // Real words from before (the issue quotes them): the check must catch each kind.
    assert_eq!(library_phrasing("initialize failed: Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::transport::streamable_http_client::StreamableHttpClientWorker<mcp_manager_connect::http_client::TimedPosts>>] error: x"), Some("a Rust path"));
    assert_eq!(library_phrasing("Vec<String> was empty"), Some("a generic"));
    assert_eq!(
        library_phrasing("Send message error HTTP 501, when send discover request"),
        Some("rmcp's phrasing")
    );
    assert_eq!(
        library_phrasing("Unexpected content type: Some(\"text/html\")"),
        Some("rmcp's phrasing")
    );
    assert_eq!(library_phrasing("HTTP 404 at http://x/mcp: no MCP endpoint answers there (tried streamable HTTP, then legacy SSE: HTTP 404); check the URL's path"), None);
}

#[tokio::test]
async fn every_fault_server_is_said_in_plain_words_with_its_url() {
    let html = Some((200, "text/html", "<html><body>Welcome</body></html>"));
    let cases: Vec<(&str, Fault, TransportKind, &str)> = vec![
        (
            "404 everywhere",
            Fault {
                post: Some((404, "text/plain", "Not Found")),
                get: Some((404, "text/plain", "Not Found")),
            },
            TransportKind::Http,
            "no MCP endpoint answers there",
        ),
        (
            "python http.server: 501 to a POST, 404 to a GET",
            Fault {
                post: Some((501, "text/html", "Unsupported method ('POST')")),
                get: Some((404, "text/html", "File not found")),
            },
            TransportKind::Http,
            "no MCP endpoint answers there",
        ),
        (
            "405 to both",
            Fault {
                post: Some((405, "text/plain", "")),
                get: Some((405, "text/plain", "")),
            },
            TransportKind::Http,
            "no MCP endpoint answers there",
        ),
        (
            "500 with a body",
            Fault {
                post: Some((500, "text/plain", "panic: nil pointer")),
                get: Some((500, "text/plain", "panic")),
            },
            TransportKind::Http,
            "the server failed",
        ),
        (
            "503 JSON",
            Fault {
                post: Some((503, "application/json", "{\"status\":\"down\"}")),
                get: None,
            },
            TransportKind::Http,
            "try again later",
        ),
        (
            "400 as an older server answers an unknown request",
            Fault {
                post: Some((400, "application/json", "{\"error\":\"bad\"}")),
                get: Some((404, "text/plain", "")),
            },
            TransportKind::Http,
            "the server refused the request",
        ),
        (
            "a web page instead of MCP",
            Fault {
                post: html,
                get: html,
            },
            TransportKind::Http,
            "a web page",
        ),
        (
            "JSON that is not JSON-RPC",
            Fault {
                post: Some((200, "application/json", "{\"hello\":1}")),
                get: None,
            },
            TransportKind::Http,
            "not an MCP message",
        ),
        (
            "hangs up at once",
            Fault {
                post: None,
                get: None,
            },
            TransportKind::Http,
            "nothing answered",
        ),
        (
            "legacy SSE at a 404",
            Fault {
                post: Some((404, "text/plain", "")),
                get: Some((404, "text/plain", "")),
            },
            TransportKind::Sse,
            "no MCP endpoint answers there",
        ),
        (
            "legacy SSE at a web page",
            Fault {
                post: html,
                get: html,
            },
            TransportKind::Sse,
            "event stream",
        ),
        (
            "WebSocket at a 404",
            Fault {
                post: Some((404, "text/plain", "")),
                get: Some((404, "text/plain", "")),
            },
            TransportKind::Ws,
            "no MCP endpoint answers there",
        ),
    ];
    let mut failures = Vec::new();
    for (what, fault, kind, expected) in cases {
        let port = serve(fault).await;
        let scheme = if kind == TransportKind::Ws {
            "ws"
        } else {
            "http"
        };
        let url = format!("{scheme}://127.0.0.1:{port}/mcp");
        let words = words_of(&ServerConfig::remote(kind, &url, vec![])).await;
        println!("{what}: {words}");
        if let Some(why) = library_phrasing(&words) {
            failures.push(format!("{what}: {why} in {words:?}"));
        }
        if !words.contains(&url) {
            failures.push(format!("{what}: the URL is not named in {words:?}"));
        }
        if !words.contains(expected) {
            failures.push(format!("{what}: {expected:?} is not said in {words:?}"));
        }
    }
    // Nothing listens; a TLS URL at a plain port.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let plain_port = serve(Fault {
        post: Some((404, "text/plain", "")),
        get: None,
    })
    .await;
    for (what, url) in [
        ("nothing listens", format!("http://127.0.0.1:{port}/mcp")),
        (
            "https at a plain port",
            format!("https://127.0.0.1:{plain_port}/mcp"),
        ),
    ] {
        let words = words_of(&ServerConfig::remote(TransportKind::Http, &url, vec![])).await;
        println!("{what}: {words}");
        if let Some(why) = library_phrasing(&words) {
            failures.push(format!("{what}: {why} in {words:?}"));
        }
        if !words.contains(&url) {
            failures.push(format!("{what}: the URL is not named in {words:?}"));
        }
    }
    // Local servers that fail in each way a process can.
    for (what, command, args) in [
        ("no such command", "mcp-no-such-command-here", vec![]),
        (
            "exits with a message",
            "sh",
            vec![
                "-c".to_string(),
                "echo 'cannot open database' >&2; exit 3".into(),
            ],
        ),
        (
            "prints garbage",
            "sh",
            vec!["-c".to_string(), "echo 'not json at all'; sleep 5".into()],
        ),
        (
            "answers HTML",
            "sh",
            vec![
                "-c".to_string(),
                "cat >/dev/null & echo '<html>'; sleep 5".into(),
            ],
        ),
    ] {
        let words = words_of(&ServerConfig::stdio(command, args, vec![])).await;
        println!("{what}: {words}");
        if let Some(why) = library_phrasing(&words) {
            failures.push(format!("{what}: {why} in {words:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
