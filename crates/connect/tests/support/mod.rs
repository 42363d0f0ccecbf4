//! What the connection tests share: where the real servers are, and a temporary home and
//! project holding a given `mcpServers`.
#![allow(dead_code)] // each test file uses part of it

use std::path::{Path, PathBuf};

use mcp_manager_core::Locations;
use serde_json::{json, Value};

/// A path in the repository, absolute.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
        .canonicalize()
        .unwrap_or_else(|_| panic!("{path} is missing: run `scripts/setup test`"))
}

/// server-everything's entry point (run it with `node`).
pub fn everything() -> String {
    repo("tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .display()
        .to_string()
}

/// Our plain Node edge-case server.
pub fn edge() -> String {
    repo("tests/fixtures/servers/edge-server.mjs")
        .display()
        .to_string()
}

/// A temporary home (with `~/.claude.json`) and project.
pub struct World {
    _dir: tempfile::TempDir,
    pub locations: Locations,
}

impl World {
    /// `servers` becomes the user scope's `mcpServers`.
    pub fn with_servers(servers: Value) -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        std::fs::create_dir_all(root.join("project")).unwrap();
        let mut locations = Locations::new(root.join("home"), None, &root.join("project")).unwrap();
        locations.managed_dir = root.join("managed");
        let world = World {
            _dir: dir,
            locations,
        };
        world.write_servers(servers);
        world
    }

    /// Replaces the user scope's `mcpServers`.
    pub fn write_servers(&self, servers: Value) {
        std::fs::write(
            self.locations.claude_json(),
            json!({ "mcpServers": servers }).to_string(),
        )
        .unwrap();
    }
}

/// A program of a Python server from PyPI, in its virtual environment under
/// tests/reference/python (`scripts/setup test` makes them): `spring-2025` (the SDK 1.6 of
/// mcp-server-sqlite 2025.4.25) or `current`.
pub fn python_server(environment: &str, program: &str) -> String {
    let path = repo(&format!(
        "tests/reference/python/{environment}/bin/{program}"
    ));
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup test",
        path.display()
    );
    path.display().to_string()
}

/// npm's server-filesystem (the initialize era, -32601 to server/discover) over `folder`.
pub fn filesystem_stdio(folder: &Path) -> mcp_manager_core::config::entry::ServerConfig {
    mcp_manager_core::config::entry::ServerConfig::stdio(
        "node",
        vec![
            repo("tests/reference/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
                .display()
                .to_string(),
            folder.display().to_string(),
        ],
        vec![],
    )
}

/// server-everything over stdio.
pub fn everything_stdio() -> mcp_manager_core::config::entry::ServerConfig {
    mcp_manager_core::config::entry::ServerConfig::stdio(
        "node",
        vec![everything(), "stdio".into()],
        vec![],
    )
}

/// Opens a session from a temporary folder with a 30 s connect timeout.
pub async fn open(
    config: &mcp_manager_core::config::entry::ServerConfig,
) -> Result<mcp_manager_connect::Connection, mcp_manager_connect::ConnectError> {
    mcp_manager_connect::Connection::open(
        config,
        &std::env::temp_dir(),
        std::time::Duration::from_secs(30),
        mcp_manager_connect::stderr::StderrLog::default(),
    )
    .await
}

/// A JSON object literal as tool arguments.
pub fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().expect("arguments are an object").clone()
}

/// Runs a Node script of the repository that prints "listening PORT" once bound; the child
/// and its port.
pub fn listening(script: &str, args: &[&str]) -> (std::process::Child, u16) {
    let mut child = std::process::Command::new("node")
        .arg(repo(script))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let line = first_line(&mut child);
    let port = line
        .trim()
        .strip_prefix("listening ")
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("{script} did not start: {line:?}"));
    (child, port)
}

/// A running `tests/fixtures/servers/edge-http-server.mjs`, killed on drop.
pub struct EdgeHttp {
    child: std::process::Child,
    pub port: u16,
}

impl EdgeHttp {
    /// Starts it on an ephemeral port of 127.0.0.1 and waits until it listens.
    pub fn start() -> EdgeHttp {
        Self::start_with(&["0"])
    }

    /// Starts it with these arguments (see the script).
    pub fn start_with(args: &[&str]) -> EdgeHttp {
        let (child, port) = listening("tests/fixtures/servers/edge-http-server.mjs", args);
        EdgeHttp { child, port }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    pub fn config(&self) -> mcp_manager_core::config::entry::ServerConfig {
        mcp_manager_core::config::entry::ServerConfig::remote(
            mcp_manager_core::config::entry::TransportKind::Http,
            self.url(),
            vec![],
        )
    }
}

impl Drop for EdgeHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running `tests/reference/oauth-server.mjs` (an OAuth-protected MCP server on the MCP
/// SDK's authorization server), killed on drop.
pub struct OAuthServer {
    child: std::process::Child,
    pub port: u16,
}

impl OAuthServer {
    /// Starts it on an ephemeral port; access tokens live `token_ttl_seconds`.
    pub fn start(token_ttl_seconds: u32) -> OAuthServer {
        let ttl = token_ttl_seconds.to_string();
        let (child, port) = listening("tests/reference/oauth-server.mjs", &["0", &ttl]);
        OAuthServer { child, port }
    }

    pub fn url(&self) -> String {
        format!("http://localhost:{}/mcp", self.port)
    }

    /// Its server of the 2026-07-28 protocol only, behind the same authorization server.
    pub fn modern_url(&self) -> String {
        format!("http://localhost:{}/modern", self.port)
    }

    /// One plain HTTP request; the JSON it answered.
    pub fn request(&self, method: &str, path: &str, body: &str) -> Value {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let body = response.split("\r\n\r\n").nth(1).unwrap_or("");
        serde_json::from_str(body).unwrap_or_else(|_| panic!("{path}: {response}"))
    }

    /// The server's counters (GET /stats).
    pub fn stats(&self) -> Value {
        self.request("GET", "/stats", "")
    }
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The SDK 2.4 server of the 2026-07-28 protocol only over stdio, with `env` set.
pub fn modern_stdio(env: &[(&str, &str)]) -> mcp_manager_core::config::entry::ServerConfig {
    mcp_manager_core::config::entry::ServerConfig::stdio(
        "node",
        vec![repo("tests/fixtures/servers/modern-server.mjs")
            .display()
            .to_string()],
        env.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// The same server over streamable HTTP on a free port, with `env` set; killed when dropped.
pub struct ModernHttp {
    child: std::process::Child,
    pub url: String,
}

impl ModernHttp {
    pub fn start(env: &[(&str, &str)]) -> ModernHttp {
        let script = "tests/fixtures/servers/modern-server.mjs";
        let (child, url) = printing_url(script, &["--http", "0"], env);
        ModernHttp { child, url }
    }

    pub fn config(&self) -> mcp_manager_core::config::entry::ServerConfig {
        mcp_manager_core::config::entry::ServerConfig::remote(
            mcp_manager_core::config::entry::TransportKind::Http,
            &self.url,
            vec![],
        )
    }
}

impl Drop for ModernHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a Node script of the repository that prints its URL once listening; the child and
/// the URL.
pub fn printing_url(
    script: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (std::process::Child, String) {
    let mut child = std::process::Command::new("node")
        .arg(repo(script))
        .args(args)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let url = first_line(&mut child).trim().to_string();
    (child, url)
}

/// The first line a child printed on stdout (where the test servers say where they listen).
fn first_line(child: &mut std::process::Child) -> String {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    line
}

/// The first text content of a tool's result (the call must succeed within 20 s).
pub async fn text_of(
    connection: &mcp_manager_connect::Connection,
    tool: &str,
    arguments: Value,
) -> String {
    let outcome = connection
        .call_tool(
            tool,
            arguments.as_object().cloned(),
            Some(std::time::Duration::from_secs(20)),
        )
        .await
        .unwrap();
    outcome.result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The names of a session's tools, as listed now.
pub async fn tool_names(connection: &mcp_manager_connect::Connection) -> Vec<String> {
    connection
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect()
}

/// `examples/task-server.rs` (rmcp's server side, the tasks extension) over stdio: `cargo
/// test` builds the examples beside the tests, in `target/debug/examples`.
pub fn task_server() -> mcp_manager_core::config::entry::ServerConfig {
    mcp_manager_core::config::entry::ServerConfig::stdio(task_server_program(), vec![], vec![])
}

/// The path of `examples/task-server.rs`'s program, built here when a narrower `cargo test`
/// (of another package) did not build it.
pub fn task_server_program() -> String {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(Path::parent).unwrap();
    let server = debug.join("examples").join("task-server");
    if !server.exists() {
        let built = std::process::Command::new(env!("CARGO"))
            .args([
                "build",
                "-q",
                "-p",
                "mcp-manager-connect",
                "--example",
                "task-server",
            ])
            .status()
            .unwrap();
        assert!(built.success(), "could not build the task server");
    }
    server.display().to_string()
}

/// Opens a session whose messages go to `log` and whose server requests `answerer` answers
/// (30 s to connect, roots none).
pub async fn open_logged(
    config: &mcp_manager_core::config::entry::ServerConfig,
    answerer: std::sync::Arc<dyn mcp_manager_connect::answer::Answerer>,
    log: &mcp_manager_connect::protocol_log::ProtocolLog,
) -> mcp_manager_connect::Connection {
    let logs = mcp_manager_connect::ServerLogs {
        stderr: mcp_manager_connect::stderr::StderrLog::default(),
        protocol: Some(log.clone()),
    };
    mcp_manager_connect::Connection::open_authorized(
        "s",
        config,
        &std::env::temp_dir(),
        mcp_manager_connect::Limits::connect(std::time::Duration::from_secs(30)),
        logs,
        answerer,
        mcp_manager_connect::Roots::default(),
        None,
    )
    .await
    .unwrap()
}

/// Claude Code's own program (`@anthropic-ai/claude-code`, installed in `tests/reference` by
/// `scripts/setup test`): the native one its package installs, or, for the releases before
/// it, `cli.js` run with node.
pub fn claude_cli() -> std::process::Command {
    let package = repo("tests/reference/node_modules/@anthropic-ai/claude-code");
    let native = package.join("bin/claude.exe");
    let script = package.join("cli.js");
    if native.exists() {
        std::process::Command::new(native)
    } else {
        assert!(
            script.exists(),
            "Claude Code is not installed in {}: run `scripts/setup test` (npm ci in tests/reference)",
            package.display()
        );
        let mut node = std::process::Command::new("node");
        node.arg(script);
        node
    }
}

/// A TCP listener on 127.0.0.1 that answers nothing and keeps what each connection sends
/// first: where a test asks whether a request (and which headers) ever reached a host.
pub struct Recorder {
    pub port: u16,
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Recorder {
    pub fn start() -> Recorder {
        let socket = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = socket.local_addr().unwrap().port();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = std::sync::Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in socket.incoming().flatten() {
                use std::io::Read;
                let mut stream = stream;
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_millis(500)));
                let mut buffer = [0u8; 8192];
                let n = stream.read(&mut buffer).unwrap_or(0);
                kept.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&buffer[..n]).into_owned());
            }
        });
        Recorder { port, seen }
    }

    /// What every connection sent so far.
    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}
