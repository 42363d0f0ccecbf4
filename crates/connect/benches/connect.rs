//! Benchmark: connecting 30 stdio and 20 HTTP servers from one configuration.
//!
//! - stdio: the supervisor (3 at a time, Claude Code's default) against a bare loop that opens
//!   the same 30 servers all at once, in the same run. Starting Node servers is CPU-bound on
//!   2 cores, so the goal is to stay within 1.1× of all-at-once.
//! - HTTP: 20 servers, one entry each; the supervisor (20 at a time) against one by one. Goal:
//!   at least 5× faster. Measured twice: 20 server-everything processes on loopback, where
//!   nothing is waited for but the servers' own CPU (2 cores cap the gain near 2×); and 20
//!   `edge-http-server.mjs` processes that answer after a 20 ms round trip, as a remote server
//!   does, which is what pooling is for.
//! - How soon the first status event arrives after `start` (goal: within 100 ms).
//!
//! Run: `cargo bench -p mcp-manager-connect --bench connect`

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_manager_connect::stderr::StderrLog;
use mcp_manager_connect::{Connection, ServerStatus, Settings, Supervisor};
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use mcp_manager_core::Locations;
use serde_json::{json, Map, Value};

fn everything() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .canonicalize()
        .expect("server-everything is installed (scripts/setup test)")
        .display()
        .to_string()
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let write = |servers: Map<String, Value>| {
        std::fs::write(
            home.join(".claude.json"),
            json!({"mcpServers": servers}).to_string(),
        )
        .unwrap()
    };
    let mut locations = Locations::new(home.clone(), None, &project).unwrap();
    locations.managed_dir = home.join("managed");

    runtime.block_on(async {
        // Warm the file cache and Node's compile cache, so neither run pays for them alone.
        let warm = ServerConfig::stdio("node", vec![everything(), "stdio".into()], vec![]);
        for _ in 0..2 {
            let connection = Connection::open(&warm, &std::env::temp_dir(), Duration::from_secs(60), StderrLog::default())
                .await
                .unwrap();
            connection.shutdown().await;
        }

        // stdio: supervisor, 3 at a time.
        let stdio: Map<String, Value> = (0..30).map(|i| (format!("s{i}"), json!({"command": "node", "args": [everything(), "stdio"]}))).collect();
        write(stdio);
        let supervisor = Supervisor::new(locations.project.clone(), Settings::default());
        let mut events = supervisor.subscribe();
        let catalog = Catalog::load(&locations);
        let started = Instant::now();
        let start = supervisor.start(&catalog);
        tokio::pin!(start);
        let mut first_event = None;
        loop {
            tokio::select! {
                _ = &mut start => break,
                event = events.recv(), if first_event.is_none() => {
                    if event.is_ok() { first_event = Some(started.elapsed()); }
                }
            }
        }
        let pooled = started.elapsed();
        let connected = supervisor.statuses().iter().filter(|s| matches!(s.status, ServerStatus::Connected(_))).count();
        supervisor.shutdown().await;

        // stdio: bare loop, all at once.
        let config = ServerConfig::stdio("node", vec![everything(), "stdio".into()], vec![]);
        let started = Instant::now();
        let opened = futures_join_all((0..30).map(|_| {
            let config = config.clone();
            async move { Connection::open(&config, &std::env::temp_dir(), Duration::from_secs(60), StderrLog::default()).await }
        }))
        .await;
        let all_at_once = started.elapsed();
        for connection in opened.into_iter().flatten() {
            connection.shutdown().await;
        }
        println!("30 stdio servers: supervisor (3 at a time) {:.2} s ({connected} connected), all at once {:.2} s: {:.2}× (goal ≤ 1.1×)",
            pooled.as_secs_f64(), all_at_once.as_secs_f64(), pooled.as_secs_f64() / all_at_once.as_secs_f64());
        println!("first status event {:.1} ms after start (goal ≤ 100 ms)", first_event.unwrap_or_default().as_secs_f64() * 1000.0);

        // HTTP, first with no network in between: 20 server-everything processes.
        let mut servers = Vec::new();
        let mut urls = Vec::new();
        for _ in 0..20 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            servers.push(
                Command::new("node")
                    .args([everything(), "streamableHttp".into()])
                    .env("PORT", port.to_string())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap(),
            );
            urls.push(format!("http://127.0.0.1:{port}/mcp"));
        }
        let (pooled, serial, connected) = http_pooled_and_serial(&urls, &write, &locations).await;
        println!("20 HTTP servers (server-everything on loopback, CPU-bound): supervisor (20 at a time) {:.3} s ({connected} connected), one by one {:.3} s: {:.1}× faster",
            pooled.as_secs_f64(), serial.as_secs_f64(), serial.as_secs_f64() / pooled.as_secs_f64());
        stop(servers);

        // Then as remote servers are: every answer after a 20 ms round trip.
        let (servers, urls) = edge_http_servers(20, 20);
        let (pooled, serial, connected) = http_pooled_and_serial(&urls, &write, &locations).await;
        println!("20 HTTP servers (20 ms round trip each): supervisor (20 at a time) {:.3} s ({connected} connected), one by one {:.3} s: {:.1}× faster (goal ≥ 5×)",
            pooled.as_secs_f64(), serial.as_secs_f64(), serial.as_secs_f64() / pooled.as_secs_f64());
        stop(servers);
    });
}

/// `count` edge-http-server processes answering after `latency_ms`, and their URLs.
fn edge_http_servers(count: usize, latency_ms: u64) -> (Vec<std::process::Child>, Vec<String>) {
    use std::io::BufRead;
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/servers/edge-http-server.mjs");
    let mut servers = Vec::new();
    let mut urls = Vec::new();
    for _ in 0..count {
        let mut child = Command::new("node")
            .arg(&script)
            .args(["0", &latency_ms.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("listening ")
            .expect("edge-http-server listens");
        urls.push(format!("http://127.0.0.1:{port}/mcp"));
        servers.push(child);
    }
    (servers, urls)
}

fn stop(servers: Vec<std::process::Child>) {
    for mut server in servers {
        let _ = server.kill();
        let _ = server.wait();
    }
}

/// The supervisor connecting all of `urls` (20 at a time), then a bare loop opening them one by
/// one; and how many the supervisor connected.
async fn http_pooled_and_serial(
    urls: &[String],
    write: &impl Fn(Map<String, Value>),
    locations: &Locations,
) -> (Duration, Duration, usize) {
    for url in urls {
        let port: u16 = url
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches("/mcp")
            .parse()
            .unwrap();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    // Each server answers once before timing, so no run pays for their JIT warm-up.
    for url in urls {
        let config = ServerConfig::remote(TransportKind::Http, url.clone(), vec![]);
        let connection = Connection::open(
            &config,
            &std::env::temp_dir(),
            Duration::from_secs(30),
            StderrLog::default(),
        )
        .await
        .unwrap();
        connection.shutdown().await;
    }
    let http: Map<String, Value> = urls
        .iter()
        .enumerate()
        .map(|(i, url)| (format!("h{i}"), json!({"type": "http", "url": url})))
        .collect();
    write(http);
    let supervisor = Supervisor::new(locations.project.clone(), Settings::default());
    let started = Instant::now();
    supervisor.start(&Catalog::load(locations)).await;
    let pooled = started.elapsed();
    let connected = supervisor
        .statuses()
        .iter()
        .filter(|s| matches!(s.status, ServerStatus::Connected(_)))
        .count();
    supervisor.shutdown().await;
    let started = Instant::now();
    let mut opened = Vec::new();
    for url in urls {
        let config = ServerConfig::remote(TransportKind::Http, url.clone(), vec![]);
        opened.push(
            Connection::open(
                &config,
                &std::env::temp_dir(),
                Duration::from_secs(30),
                StderrLog::default(),
            )
            .await
            .unwrap(),
        );
    }
    let serial = started.elapsed();
    for connection in opened {
        connection.shutdown().await;
    }
    (pooled, serial, connected)
}

async fn futures_join_all<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let mut set = tokio::task::JoinSet::new();
    for future in futures {
        set.spawn(future);
    }
    let mut out = Vec::new();
    while let Some(result) = set.join_next().await {
        out.push(result.unwrap());
    }
    out
}
