//! Benchmark: the first start of each kind of local server (its era not yet known) against a
//! start whose era is remembered, whole `mcpctl status` process, beside Claude Code 2.1.332's
//! `claude mcp list` on the same configuration in the same run. Between the two, `mcpctl status
//! --find-eras` finds each era out as the window does beside a first session (timed apart: it
//! asks server/discover in a second process and waits for the answer). Prints figures, each
//! first start's evidence and the era found; asserts nothing.
//!
//! The servers are real: PyPI's mcp-server-sqlite 2025.4.25 on the Python SDK 1.6 (silent on a
//! `server/discover` before `initialize`), mcp-server-time and mcp-server-git on the current
//! Python SDK (both eras), npm's server-filesystem (-32601), the TypeScript SDK 2.4 server of
//! 2026-07-28 only, edge-server's strict-initialize fault (exits on the probe), and
//! server-filesystem through `npx -y` with an empty npm cache (a first download: slow to
//! start). `scripts/setup test` installs them.
//!
//! Run: `cargo bench -p mcpctl --bench first_start` (`FIRST_START_RUNS=N`, default 5;
//! `FIRST_START_ONLY=time,git` for those kinds alone, without the all-at-once line).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn python(environment: &str, program: &str) -> String {
    repo(&format!(
        "tests/reference/python/{environment}/bin/{program}"
    ))
    .display()
    .to_string()
}

fn node_module(path: &str) -> String {
    repo(&format!("tests/reference/node_modules/{path}"))
        .display()
        .to_string()
}

struct Sandbox {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    scratch: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project, scratch) = (root.join("home"), root.join("project"), root.join("s"));
        for folder in [&home, &project, &scratch] {
            std::fs::create_dir_all(folder).unwrap();
        }
        Sandbox {
            _dir: dir,
            home,
            project,
            scratch,
        }
    }

    /// The user scope's servers, as both programs read them.
    fn servers(&self, servers: &Map<String, Value>) {
        std::fs::write(
            self.home.join(".claude.json"),
            serde_json::to_string_pretty(&json!({"mcpServers": servers})).unwrap(),
        )
        .unwrap();
    }

    /// A fresh npm cache for the `npx` server, so its start is a first download each time.
    fn fresh_npm_cache(&self) -> PathBuf {
        let cache = self.scratch.join("npm-cache");
        let _ = std::fs::remove_dir_all(&cache);
        cache
    }

    fn command(&self, program: &str, data: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env("XDG_DATA_HOME", data)
            .env("npm_config_cache", self.fresh_npm_cache())
            .env("npm_config_update_notifier", "false")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("MCP_MANAGER_MANAGED_DIR", self.home.join("managed"))
            .env("DISABLE_TELEMETRY", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .stdin(Stdio::null());
        command
    }

    /// `mcpctl status --json` (with `extra` arguments) with its era memory in `data`: the
    /// time, and each server's era evidence.
    fn mcpctl_status(&self, data: &Path, extra: &[&str]) -> (Duration, Vec<(String, String)>) {
        let started = Instant::now();
        let output = self
            .command(env!("CARGO_BIN_EXE_mcpctl"), data)
            .args(["--json", "status"])
            .args(extra)
            .stderr(Stdio::null())
            .output()
            .unwrap();
        let took = started.elapsed();
        let said: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        let servers = said
            .get("servers")
            .or(Some(&said))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let evidence = servers
            .iter()
            .map(|server| {
                let name = server["name"].as_str().unwrap_or("?").to_string();
                let status = &server["status"];
                let what = match status["eraEvidence"].as_str() {
                    Some(evidence) => evidence.to_string(),
                    None => format!("{}: {}", status["state"], status["error"]),
                };
                (name, what)
            })
            .collect();
        (took, evidence)
    }

    fn claude_mcp_list(&self, data: &Path) -> Duration {
        let started = Instant::now();
        let output = self
            .command(
                &node_module("@anthropic-ai/claude-code/bin/claude.exe"),
                data,
            )
            .args(["mcp", "list"])
            .output()
            .unwrap();
        let took = started.elapsed();
        let said = String::from_utf8_lossy(&output.stdout);
        if !said.contains("Connected") {
            eprintln!("claude mcp list said: {said}");
        }
        took
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let runs: usize = std::env::var("FIRST_START_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let sandbox = Sandbox::new();
    let repository = sandbox.scratch.join("repository");
    std::fs::create_dir_all(&repository).unwrap();
    Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repository)
        .status()
        .unwrap();
    let db = sandbox.scratch.join("notes.db");
    let filesystem = node_module("@modelcontextprotocol/server-filesystem/dist/index.js");
    let scratch = sandbox.scratch.display().to_string();
    let kinds: Vec<(&str, &str, Value)> = vec![
        (
            "sqlite",
            "silent until initialize (Python SDK 1.6)",
            json!({"command": python("spring-2025", "mcp-server-sqlite"), "args": ["--db-path", db]}),
        ),
        (
            "time",
            "both eras (Python SDK 2.3)",
            json!({"command": python("current", "mcp-server-time")}),
        ),
        (
            "git",
            "both eras (Python SDK 2.3)",
            json!({"command": python("current", "mcp-server-git"), "args": ["--repository", repository]}),
        ),
        (
            "filesystem",
            "legacy, -32601 (npm)",
            json!({"command": "node", "args": [filesystem, scratch]}),
        ),
        (
            "modern",
            "2026-07-28 only (TypeScript SDK 2.4)",
            json!({"command": "node", "args": [repo("tests/fixtures/servers/modern-server.mjs")]}),
        ),
        (
            "strict",
            "exits on the probe (edge-server)",
            json!({"command": "node", "args": [repo("tests/fixtures/servers/edge-server.mjs")], "env": {"EDGE_FAULT": "strict-initialize"}}),
        ),
        (
            "npx",
            "slow to start: npx -y, empty npm cache",
            json!({"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", scratch]}),
        ),
    ];

    println!("First start (era unknown) vs remembered era, whole `mcpctl status`; median of {runs}; Claude Code 2.1.332 `claude mcp list` on the same entry; `status --find-eras` between them:");
    println!(
        "{:<11} {:<40} {:>9} {:>11} {:>7} {:>12} {:>10}  evidence of the first start | the era found",
        "server", "kind", "first", "remembered", "ratio", "claude list", "find-eras"
    );
    let only: Option<Vec<String>> = std::env::var("FIRST_START_ONLY")
        .ok()
        .map(|names| names.split(',').map(str::to_string).collect());
    for (name, kind, entry) in &kinds {
        if only
            .as_ref()
            .is_some_and(|only| !only.iter().any(|o| o == name))
        {
            continue;
        }
        let mut one = Map::new();
        one.insert(name.to_string(), entry.clone());
        sandbox.servers(&one);
        let (mut first, mut remembered, mut claude, mut finding) = (vec![], vec![], vec![], vec![]);
        let (mut evidence, mut found) = (String::new(), String::new());
        // The remembered start comes after the first one in one run and before it in the next
        // (in the era memory the run before found), so that neither is always the one that
        // follows `--find-eras` or Claude Code: in that order alone, the fastest kinds' first
        // starts came out 15–30 % slower here, where alternating shell loops of the same two
        // commands gave 0.97–1.03×.
        let mut known: Option<tempfile::TempDir> = None;
        for run in 0..runs {
            let mut remember = |data: &Path| {
                let (took, said) = sandbox.mcpctl_status(data, &[]);
                remembered.push(took);
                found = said.first().map(|(_, e)| e.clone()).unwrap_or_default();
            };
            let before = run % 2 == 1 && known.is_some();
            if before {
                remember(known.as_ref().unwrap().path());
            }
            let data = tempfile::tempdir().unwrap();
            let (took, said) = sandbox.mcpctl_status(data.path(), &[]);
            first.push(took);
            evidence = said.first().map(|(_, e)| e.clone()).unwrap_or_default();
            finding.push(sandbox.mcpctl_status(data.path(), &["--find-eras"]).0);
            if !before {
                remember(data.path());
            }
            claude.push(sandbox.claude_mcp_list(data.path()));
            known = Some(data);
        }
        let (first, remembered, claude) = (median(first), median(remembered), median(claude));
        println!(
            "{:<11} {:<40} {:>9} {:>11} {:>6.2}× {:>12} {:>10}  {} | {}",
            name,
            kind,
            ms(first),
            ms(remembered),
            first.as_secs_f64() / remembered.as_secs_f64(),
            ms(claude),
            ms(median(finding)),
            evidence,
            found
        );
    }

    if only.is_some() {
        return;
    }
    let all: Map<String, Value> = kinds
        .iter()
        .map(|(name, _, entry)| (name.to_string(), entry.clone()))
        .collect();
    sandbox.servers(&all);
    let (mut first, mut remembered, mut claude) = (vec![], vec![], vec![]);
    for _ in 0..runs {
        let data = tempfile::tempdir().unwrap();
        first.push(sandbox.mcpctl_status(data.path(), &[]).0);
        sandbox.mcpctl_status(data.path(), &["--find-eras"]);
        remembered.push(sandbox.mcpctl_status(data.path(), &[]).0);
        claude.push(sandbox.claude_mcp_list(data.path()));
    }
    println!(
        "All {} at once: mcpctl status first {}, remembered {}; claude mcp list {}",
        kinds.len(),
        ms(median(first)),
        ms(median(remembered)),
        ms(median(claude))
    );
}
