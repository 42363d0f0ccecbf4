//! Benchmark: 1,000 sequential `echo` calls over stdio to server-everything, through our
//! connection (rmcp underneath), side by side with a raw JSON-RPC loop over the same kind of
//! pipes to the same server (the floor). Goal: median within 1.2× the floor. Prints figures.
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

fn summary(name: &str, mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let median = us(times[times.len() / 2]);
    let p99 = us(times[times.len() * 99 / 100]);
    println!(
        "{name:<28} median {median:8.1} µs   p99 {p99:8.1} µs   ({} calls)",
        times.len()
    );
    (median, p99)
}

fn raw_floor() -> Vec<Duration> {
    let mut child = Command::new("node")
        .arg(everything())
        .arg("stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut request =
        |id: u64, method: &str, params: Value, stdin: &mut std::process::ChildStdin| {
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
            stdin.flush().unwrap();
            loop {
                line.clear();
                stdout.read_line(&mut line).unwrap();
                let reply: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
                if reply["id"] == id {
                    return reply;
                }
            }
        };
    request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "floor", "version": "1"}}),
        &mut stdin,
    );
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .unwrap();
    for id in 1..=50 {
        request(
            id,
            "tools/call",
            json!({"name": "echo", "arguments": {"message": "warm"}}),
            &mut stdin,
        );
    }
    let mut times = Vec::with_capacity(CALLS);
    for id in 0..CALLS as u64 {
        let started = Instant::now();
        let reply = request(
            1000 + id,
            "tools/call",
            json!({"name": "echo", "arguments": {"message": "hello"}}),
            &mut stdin,
        );
        times.push(started.elapsed());
        assert_eq!(reply["result"]["content"][0]["text"], "Echo: hello");
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    times
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let ours = runtime.block_on(async {
        let config = ServerConfig::stdio("node", vec![everything(), "stdio".into()], vec![]);
        let connection = Connection::open(
            &config,
            &std::env::temp_dir(),
            Duration::from_secs(30),
            StderrLog::default(),
        )
        .await
        .unwrap();
        let args = json!({"message": "hello"}).as_object().unwrap().clone();
        for _ in 0..50 {
            connection
                .call_tool("echo", Some(args.clone()), None)
                .await
                .unwrap();
        }
        let mut times = Vec::with_capacity(CALLS);
        for _ in 0..CALLS {
            let started = Instant::now();
            let outcome = connection
                .call_tool("echo", Some(args.clone()), None)
                .await
                .unwrap();
            times.push(started.elapsed());
            assert_eq!(outcome.result["content"][0]["text"], "Echo: hello");
        }
        connection.shutdown().await;
        times
    });
    let floor = raw_floor();
    println!("1,000 sequential echo calls over stdio to server-everything:");
    let (floor_median, floor_p99) = summary("raw JSON-RPC loop (floor)", floor);
    let (median, p99) = summary("mcp-manager-connect", ours);
    println!(
        "ratio to the floor: median {:.2}×, p99 {:.2}× (goal: ≤ 1.2×)",
        median / floor_median,
        p99 / floor_p99
    );
}
