//! What Claude Code used, judged by real Claude Code 2.1.332 sessions.
//!
//! `claude -p` runs in a sandbox home against a stand-in for the model API
//! (`tests/fixtures/model-api.mjs`, which answers with `tool_use`s of the tools it is given,
//! then "done"), with four user servers: `alpha` (a tool that answers, one that fails),
//! `beta.x` (its tools named `mcp__beta_x__…`), `gamma` (exits at start: Claude Code cannot
//! connect) and `idle` (never called). `mcpctl usage --json` must then count exactly the calls,
//! failures, denials and failed connections those sessions made, name the servers never
//! called, keep no word of the conversations in its index, and read only what was added when
//! run again.

#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    managed: PathBuf,
}

const PROMPT_MARKER: &str = "prompt-words-7f3a";
const RESULT_MARKER: &str = "result-words-91c2";

fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, project) = (root.join("home"), root.join("project"));
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let edge = support::repo("tests/fixtures/servers/edge-server.mjs");
    let tools = |names: &[&str]| {
        json!({"tools": names.iter().map(|n| json!({"name": n, "description": n,
            "inputSchema": {"type": "object"}})).collect::<Vec<_>>()})
    };
    let file = |name: &str, value: Value| {
        let path = root.join(name);
        std::fs::write(&path, value.to_string()).unwrap();
        path.display().to_string()
    };
    let alpha_tools = file("alpha.json", tools(&["echo", "boom", "unused"]));
    let alpha_results = file(
        "alpha.results.json",
        json!({"boom": {"content": [{"type": "text", "text": RESULT_MARKER}], "isError": true}}),
    );
    let beta_tools = file("beta.json", tools(&["time-now"]));
    let idle_tools = file("idle.json", tools(&["nap"]));
    let stdio = |env: Value| json!({"type": "stdio", "command": "node", "args": [edge.display().to_string()], "env": env});
    let config = json!({
        "hasCompletedOnboarding": true,
        "mcpServers": {
            "alpha": stdio(json!({"EDGE_TOOLS_FROM": alpha_tools, "EDGE_RESULTS_FROM": alpha_results})),
            "beta.x": stdio(json!({"EDGE_TOOLS_FROM": beta_tools})),
            "gamma": stdio(json!({"EDGE_FAULT": "exit"})),
            "idle": stdio(json!({"EDGE_TOOLS_FROM": idle_tools})),
        }
    });
    std::fs::write(home.join(".claude.json"), config.to_string()).unwrap();
    Home {
        managed: root.join("managed"),
        _dir: dir,
        home,
        project,
    }
}

fn env(command: &mut Command, home: &Home) {
    command
        .current_dir(&home.project)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home.home)
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("MCP_MANAGER_MANAGED_DIR", &home.managed)
        .env("XDG_DATA_HOME", home.home.join(".local/share"));
}

/// One `claude -p` session whose model calls `calls` in turn; `allowed` are the tools it may
/// call without asking (the others are denied: `-p` cannot ask).
fn session(home: &Home, calls: &[&str], allowed: &str) {
    let (mut api, port) = support::listening("tests/fixtures/model-api.mjs", calls);
    let mut command = Command::new(support::repo(
        "tests/reference/node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    ));
    env(&mut command, home);
    command
        .args([
            "-p",
            &format!("hi {PROMPT_MARKER}"),
            "--allowedTools",
            allowed,
        ])
        .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("ANTHROPIC_API_KEY", "sk-ant-usage-not-a-key")
        .env("ENABLE_TOOL_SEARCH", "false")
        .env("MCP_TIMEOUT", "60000")
        .env("CLAUDE_CODE_MCP_STARTUP_WAIT_MS", "60000");
    let out = command.output().expect("Claude Code runs");
    let _ = api.kill();
    let _ = api.wait();
    assert!(
        out.status.success(),
        "claude -p failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mcpctl(home: &Home, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
    env(&mut command, home);
    command.arg("--project").arg(&home.project).args(args);
    command.output().expect("mcpctl runs")
}

fn usage(home: &Home) -> Value {
    let out = mcpctl(home, &["usage", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn server<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["server"] == name)
        .unwrap_or_else(|| panic!("no {name} in {report:#}"))
}

fn tool<'a>(server: &'a Value, name: &str) -> &'a Value {
    server["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tool"] == name)
        .unwrap_or_else(|| panic!("no {name} in {server:#}"))
}

fn every_file(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            every_file(&path, into);
        } else {
            into.push(path);
        }
    }
}

#[test]
fn usage_counts_what_claude_code_sessions_did_and_keeps_no_conversation() {
    let home = home();
    // Session 1: echo (answers), boom (fails), beta.x's time-now (answers).
    session(
        &home,
        &[
            "mcp__alpha__echo",
            "mcp__alpha__boom",
            "mcp__beta_x__time-now",
        ],
        "mcp__alpha,mcp__beta_x",
    );
    // Session 2: echo (answers), time-now (denied: not allowed, and -p cannot ask).
    session(
        &home,
        &["mcp__alpha__echo", "mcp__beta_x__time-now"],
        "mcp__alpha",
    );

    let report = usage(&home);
    assert_eq!(report["sessions"], 2, "{report:#}");
    let alpha = server(&report, "alpha");
    assert_eq!(
        alpha["month"],
        json!({"calls": 3, "failures": 1, "denied": 0, "notSent": 0})
    );
    assert_eq!(alpha["week"], alpha["month"]);
    assert_eq!(tool(alpha, "echo")["month"]["calls"], 2);
    assert_eq!(tool(alpha, "boom")["month"]["failures"], 1);
    assert!(alpha["medianMs"].is_u64() && alpha["lastUsedMs"].is_number());
    // The dotted name comes back from the names Claude Code wrote beside the calls.
    let beta = server(&report, "beta.x");
    assert_eq!(
        beta["month"],
        json!({"calls": 2, "failures": 0, "denied": 1, "notSent": 0})
    );
    assert_eq!(beta["configured"], true);
    // Never called: the two servers the model never touched (gamma never even connected).
    assert_eq!(report["neverUsed"], json!(["gamma", "idle"]));
    let gamma = server(&report, "gamma");
    assert_eq!(gamma["connections"]["sessions"], 2);
    assert_eq!(gamma["connections"]["failed"], 2);
    assert_eq!(
        gamma["connections"]["lastFailure"],
        "it closed the connection (the process exited)"
    );
    assert_eq!(server(&report, "alpha")["connections"]["failed"], 0);

    // No word of the conversations is in the index (prompt, tool result).
    let data = home.home.join(".local/share");
    let mut files = Vec::new();
    every_file(&data, &mut files);
    assert!(files.iter().any(|f| f.ends_with("usage.sqlite")));
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(PROMPT_MARKER) && !text.contains(RESULT_MARKER),
            "{} keeps words of a conversation",
            file.display()
        );
    }

    // A third session, a damaged line and a link planted among the records: only the new
    // lines are read, the damaged one is counted, the link is not followed.
    session(&home, &["mcp__alpha__echo"], "mcp__alpha");
    let projects = home.home.join(".claude/projects");
    let folder = std::fs::read_dir(&projects)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let transcript = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let mut damaged = std::fs::read(&transcript).unwrap();
    damaged.extend_from_slice(b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"mcp__alpha__echo\"\n");
    std::fs::write(&transcript, damaged).unwrap();
    let outside = home.home.join("elsewhere.jsonl");
    let stolen = std::fs::read(&transcript).unwrap();
    std::fs::write(&outside, stolen).unwrap();
    std::os::unix::fs::symlink(&outside, folder.join("planted.jsonl")).unwrap();

    let report = usage(&home);
    assert_eq!(report["sessions"], 3, "{report:#}");
    assert_eq!(server(&report, "alpha")["month"]["calls"], 4);
    assert_eq!(report["skippedLines"], 1);

    // A tool name with a carriage return and a newline cannot rewrite or add a line of the
    // text output.
    let mut more = std::fs::read(&transcript).unwrap();
    let now = report["servers"][0]["lastUsedMs"].as_f64().unwrap() as i64;
    let line = json!({"type": "assistant", "message": {"content": [{"type": "tool_use",
        "id": "toolu_fake", "name": "mcp__alpha__y\rALL SERVERS VERIFIED\nmcp__z", "input": {}}]},
        "timestamp": mcp_manager_usage::synthetic::time(now), "cwd": home.project.display().to_string(),
        "sessionId": "s-fake"});
    more.extend_from_slice(format!("{line}\n").as_bytes());
    std::fs::write(&transcript, more).unwrap();
    let text = mcpctl(&home, &["usage"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(!text.contains('\r'), "{text:?}");
    assert!(!text.lines().any(|l| l.starts_with("mcp__z")), "{text}");
}
