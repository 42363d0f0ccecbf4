//! Benchmark: `mcpctl list` over a configuration of 100 servers, whole process (start, read
//! every scope, print). Goal: 30 ms. Prints figures; asserts nothing.
//!
//! Run: `cargo bench -p mcpctl --bench list`

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let project = project.canonicalize().unwrap();

    // 100 servers: 40 user, 30 local, 30 project, with env, headers and unknown keys, in a
    // ~/.claude.json padded with the kind of state Claude Code keeps there.
    let entry = |i: usize| -> Value {
        if i.is_multiple_of(2) {
            json!({"type": "stdio", "command": "npx", "args": ["-y", format!("server-{i}"), "--root", "${HOME:-/tmp}"], "env": {"TOKEN": format!("${{TOKEN_{i}}}"), "LEVEL": "debug"}})
        } else {
            json!({"type": "http", "url": format!("https://mcp{i}.example.com/mcp"), "headers": {"Authorization": "Bearer ${API_KEY}"}, "x-vendor": {"tier": i}})
        }
    };
    let servers = |range: std::ops::Range<usize>| -> Value {
        Value::Object(
            range
                .map(|i| (format!("srv-{i}"), entry(i)))
                .collect::<Map<_, _>>(),
        )
    };
    let mut projects = Map::new();
    for p in 0..200 {
        projects.insert(format!("/home/ada/other-{p}"), json!({"allowedTools": [], "history": (0..20).map(|h| json!({"display": format!("prompt {h}")})).collect::<Vec<_>>()}));
    }
    projects.insert(
        project.display().to_string(),
        json!({"mcpServers": servers(40..70), "disabledMcpServers": ["srv-41"]}),
    );
    let claude = json!({"numStartups": 300, "mcpServers": servers(0..40), "projects": projects});
    std::fs::write(
        home.join(".claude.json"),
        serde_json::to_string_pretty(&claude).unwrap(),
    )
    .unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        serde_json::to_string_pretty(&json!({"mcpServers": servers(70..100)})).unwrap(),
    )
    .unwrap();
    let size = std::fs::metadata(home.join(".claude.json")).unwrap().len();

    let run = || {
        let started = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_mcpctl"))
            .args(["--project", project.to_str().unwrap(), "list"])
            .env("HOME", &home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("MCP_MANAGER_MANAGED_DIR", home.join("managed"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        started.elapsed()
    };
    for _ in 0..5 {
        run();
    }
    let mut times: Vec<Duration> = (0..100).map(|_| run()).collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "mcpctl list, 100 servers (~/.claude.json {} KiB), 100 runs: min {:.2} ms, median {:.2} ms, p95 {:.2} ms, max {:.2} ms (goal: 30 ms)",
        size / 1024,
        ms(times[0]),
        ms(times[50]),
        ms(times[95]),
        ms(times[99]),
    );
}
