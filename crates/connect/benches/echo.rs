//! Benchmark: 1,000 sequential `echo` calls over stdio to server-everything through
//! `Connection::call_tool` (whose stdio calls skip rmcp's service loop, `src/stdio.rs`), side
//! by side with a raw JSON-RPC loop over the same kind of pipes to the same server (the
//! floor), in alternating rounds so both see the same machine. The floor sends the request our
//! client sends (with `_meta.progressToken`; positive ids where ours are negative). Ours is
//! measured on a current-thread runtime (as `mcpctl` runs) and a multi-thread one (as the
//! app's). Goal: median within 1.2× the floor. Prints figures.
//!
//! The 2026-07-28 row: the same calls to a server of that protocol only (the official SDK
//! 2.4's, `tests/fixtures/servers/modern-server.mjs`), through our session (the same fast
//! path, carrying the per-request `_meta`), against a raw loop sending the same requests to
//! the same server.
//!
//! Run: `cargo bench -p mcp-manager-connect --bench echo`

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_manager_connect::stderr::StderrLog;
use mcp_manager_connect::Connection;
use mcp_manager_core::config::entry::ServerConfig;
use serde_json::{json, Value};

const CALLS: usize = 1000;

fn everything() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .canonicalize()
        .expect("server-everything is installed (scripts/setup test)")
        .display()
        .to_string()
}

fn modern_server() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/servers/modern-server.mjs")
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

fn summary(name: &str, mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let median = us(times[times.len() / 2]);
    let p99 = us(times[times.len() * 99 / 100]);
    println!(
        "{name:<30} median {median:8.1} µs   p99 {p99:8.1} µs   ({} calls)",
        times.len()
    );
    (median, p99)
}

/// A server process spoken to with plain blocking reads and writes: the floor.
struct Raw {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next_id: u64,
    /// The per-request `_meta` of a 2026-07-28 session (none: the initialize era).
    envelope: Option<Value>,
}

impl Raw {
    /// `node ARGS`, spoken to over its pipes.
    fn spawn(args: &[String], envelope: Option<Value>) -> Raw {
        let mut child = Command::new("node")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Raw {
            child,
            stdin,
            stdout,
            next_id: 0,
            envelope,
        }
    }

    /// The modern-only server, with the `_meta` our client sends on every request.
    fn start_modern() -> Raw {
        Raw::spawn(
            &[modern_server()],
            Some(json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "mcp-manager", "title": "MCP Manager", "version": env!("CARGO_PKG_VERSION")},
                "io.modelcontextprotocol/clientCapabilities": {
                    "roots": { "listChanged": true },
                    "elicitation": { "form": {}, "url": {} },
                    "sampling": {}
                },
            })),
        )
    }

    fn start() -> Raw {
        let mut raw = Raw::spawn(&[everything(), "stdio".into()], None);
        // The very initialize our client sends (handler.rs): what a server does per call can
        // depend on the client's capabilities (server-everything's does).
        raw.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {
                    "roots": { "listChanged": true },
                    "elicitation": { "form": {}, "url": {} },
                    "sampling": {}
                },
                "clientInfo": {"name": "mcp-manager", "title": "MCP Manager", "version": env!("CARGO_PKG_VERSION")},
            }),
        );
        raw.stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .unwrap();
        raw
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.stdin
            .write_all(format!("{message}\n").as_bytes())
            .unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            self.stdout.read_line(&mut line).unwrap();
            let message: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            match message.get("method").and_then(Value::as_str) {
                // The server's own requests get the answers our client gives.
                Some("roots/list") => {
                    let root = format!("file://{}", std::env::temp_dir().display());
                    let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"roots": [{"uri": root}]}});
                    self.stdin
                        .write_all(format!("{answer}\n").as_bytes())
                        .unwrap();
                    self.stdin.flush().unwrap();
                }
                Some(_) => {}
                None if message["id"] == id => return message,
                None => {}
            }
        }
    }

    fn echo(&mut self) -> Duration {
        let mut meta = json!({"progressToken": self.next_id + 1});
        let (arguments, expected) = match &self.envelope {
            Some(envelope) => {
                for (key, value) in envelope.as_object().unwrap() {
                    meta[key] = value.clone();
                }
                (json!({"text": "hello"}), "modern echo: hello")
            }
            None => (json!({"message": "hello"}), "Echo: hello"),
        };
        let started = Instant::now();
        let reply = self.request(
            "tools/call",
            json!({"_meta": meta, "name": "echo", "arguments": arguments}),
        );
        let took = started.elapsed();
        assert_eq!(reply["result"]["content"][0]["text"], expected, "{reply}");
        took
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Rounds of calls, alternating between the floor and our connections so that all see the
/// same moment of the machine.
const ROUNDS: usize = 10;

/// Our connection on one runtime; each call runs in a task on it, as commands do.
struct Ours {
    runtime: tokio::runtime::Runtime,
    connection: Option<std::sync::Arc<Connection>>,
}

impl Ours {
    fn open(runtime: tokio::runtime::Runtime) -> Ours {
        Self::open_to(
            runtime,
            ServerConfig::stdio("node", vec![everything(), "stdio".into()], vec![]),
        )
    }

    fn open_to(runtime: tokio::runtime::Runtime, config: ServerConfig) -> Ours {
        let connection = runtime
            .block_on(Connection::open(
                &config,
                &std::env::temp_dir(),
                Duration::from_secs(30),
                StderrLog::default(),
            ))
            .unwrap();
        Ours {
            runtime,
            connection: Some(std::sync::Arc::new(connection)),
        }
    }

    fn echo(&self, count: usize) -> Vec<Duration> {
        let connection = std::sync::Arc::clone(self.connection.as_ref().unwrap());
        let modern = connection.info().era == mcp_manager_connect::era::Era::Modern;
        let (args, expected) = if modern {
            (json!({"text": "hello"}), "modern echo: hello")
        } else {
            (json!({"message": "hello"}), "Echo: hello")
        };
        self.runtime.block_on(async move {
            tokio::spawn(async move {
                let args = args.as_object().unwrap().clone();
                let mut times = Vec::with_capacity(count);
                for _ in 0..count {
                    let started = Instant::now();
                    let outcome = connection
                        .call_tool("echo", Some(args.clone()), None)
                        .await
                        .unwrap();
                    times.push(started.elapsed());
                    assert_eq!(outcome.result["content"][0]["text"], expected);
                }
                times
            })
            .await
            .unwrap()
        })
    }
}

impl Drop for Ours {
    fn drop(&mut self) {
        if let Some(connection) = self
            .connection
            .take()
            .and_then(|c| std::sync::Arc::try_unwrap(c).ok())
        {
            self.runtime.block_on(connection.shutdown());
        }
    }
}

fn main() {
    // mcpctl's runtime, and a multi-thread one like the app's (Tauri's).
    let current = Ours::open(
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
    );
    let multi = Ours::open(tokio::runtime::Runtime::new().unwrap());
    let mut raw = Raw::start();
    // Warm all three (and the three servers' JIT).
    for _ in 0..100 {
        raw.echo();
    }
    current.echo(100);
    multi.echo(100);
    let (mut floor, mut on_current, mut on_multi) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        floor.extend((0..CALLS / ROUNDS).map(|_| raw.echo()));
        on_current.extend(current.echo(CALLS / ROUNDS));
        on_multi.extend(multi.echo(CALLS / ROUNDS));
    }
    println!("1,000 sequential echo calls over stdio to server-everything, in {ROUNDS} alternating rounds:");
    let (floor_median, floor_p99) = summary("raw JSON-RPC loop (floor)", floor);
    for (name, times) in [
        ("ours, current-thread (mcpctl)", on_current),
        ("ours, multi-thread (the app)", on_multi),
    ] {
        let (median, p99) = summary(name, times);
        println!(
            "{:<30}ratio to the floor: median {:.2}×, p99 {:.2}× (goal: ≤ 1.2×)",
            "",
            median / floor_median,
            p99 / floor_p99
        );
    }
    drop((current, multi, raw));

    // The 2026-07-28 row.
    let modern = Ours::open_to(
        tokio::runtime::Runtime::new().unwrap(),
        ServerConfig::stdio("node", vec![modern_server()], vec![]),
    );
    let mut raw = Raw::start_modern();
    for _ in 0..100 {
        raw.echo();
    }
    modern.echo(100);
    let (mut floor, mut ours) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        floor.extend((0..CALLS / ROUNDS).map(|_| raw.echo()));
        ours.extend(modern.echo(CALLS / ROUNDS));
    }
    println!("1,000 sequential echo calls over stdio to a server of 2026-07-28 only (SDK 2.4), in {ROUNDS} alternating rounds:");
    let (floor_median, floor_p99) = summary("raw JSON-RPC loop (floor)", floor);
    let (median, p99) = summary("ours, 2026-07-28 session", ours);
    println!(
        "{:<30}ratio to the floor: median {:.2}×, p99 {:.2}× (goal: ≤ 1.2×)",
        "",
        median / floor_median,
        p99 / floor_p99
    );
}
