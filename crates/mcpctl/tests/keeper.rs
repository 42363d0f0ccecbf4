//! The login keeper beside real Claude Code sessions, over 30 token lifetimes: the benchmark
//! of "logins that never lapse".
//!
//! A real OAuth server on loopback (tests/reference/oauth-server.mjs) issues access tokens of
//! 4 s and rotates refresh tokens (each works once; one presented again is counted). Two
//! entries name its MCP server: `ours`, whose login is in MCP Manager's keychain, and `shared`,
//! whose login is in Claude Code's store (`~/.claude/.credentials.json`). Our keeper
//! (`mcpctl keep --claude-code`) runs throughout, while Claude Code 2.1.332 sessions
//! (`claude -p` against a loopback stand-in for the model API, which this machine cannot
//! reach) call `shared`'s tool every ~1.5 s, one session after another with short gaps, for
//! at least 30 lifetimes. Then: no call failed, no "needs authentication" anywhere, no refresh
//! token was ever presented twice, and both logins still work. The figures are printed.

mod logins_world;
#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use logins_world::{text, World};
use serde_json::{json, Value};
use support::OAuthServer;

const TTL: u32 = 4;
const LIFETIMES: u32 = 30;
const CALLS_PER_SESSION: usize = 6;

/// The model stand-in, answering `calls` tool uses, each after `delay_ms`; recording to `log`.
fn model_api(calls: &[&str], delay_ms: u64, log: &Path) -> (std::process::Child, u16) {
    let mut child = Command::new("node")
        .arg(support::repo("tests/fixtures/model-api.mjs"))
        .args(calls)
        .env("MODEL_API_DELAY_MS", delay_ms.to_string())
        .env("MODEL_API_RECORD", log)
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
        .unwrap()
        .parse()
        .unwrap();
    (child, port)
}

#[test]
fn thirty_token_lifetimes_of_claude_code_sessions_beside_the_keeper_never_need_a_login() {
    let server = OAuthServer::start(TTL);
    let entry = json!({"type": "http", "url": server.url()});
    let world = World::new(json!({"ours": entry, "shared": entry}));
    for (name, store) in [("ours", "keychain"), ("shared", "claude-code")] {
        let login = world
            .mcpctl(&["login", name, "--store", store])
            .output()
            .unwrap();
        assert!(login.status.success(), "{}", text(&login));
    }

    let started = Instant::now();
    let span = Duration::from_secs(u64::from(TTL * LIFETIMES));
    let keeper = world
        .mcpctl(&[
            "keep",
            "--claude-code",
            "--json",
            "--for",
            &(span.as_secs() + 20).to_string(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    let record = world.root.join("model-api.jsonl");
    let calls = vec!["mcp__shared__whoami"; CALLS_PER_SESSION];
    let (mut sessions, mut failed_sessions) = (0, Vec::new());
    while started.elapsed() < span {
        let (mut api, port) = model_api(&calls, 1500, &record);
        let out = world
            .claude(&[
                "-p",
                "call the tool",
                "--allowedTools",
                "mcp__shared__whoami",
            ])
            .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
            .env("ANTHROPIC_API_KEY", "sk-ant-keeper-not-a-key")
            .env("ENABLE_TOOL_SEARCH", "false")
            .env("MCP_TIMEOUT", "60000")
            .output()
            .unwrap();
        let _ = api.kill();
        let _ = api.wait();
        sessions += 1;
        if !out.status.success() {
            failed_sessions.push(text(&out));
        }
        // A gap between sessions: the keeper may rotate `shared` only while no Claude Code
        // runs.
        std::thread::sleep(Duration::from_secs(2));
    }
    let elapsed = started.elapsed();
    let keeper = keeper.wait_with_output().unwrap();
    let events: Vec<Value> = String::from_utf8_lossy(&keeper.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let count = |server: &str, key: &str| {
        events
            .iter()
            .filter(|e| e["server"] == server && !e[key].is_null())
            .count()
    };
    let (ours, shared) = (count("ours", "refreshed"), count("shared", "refreshed"));
    let lapsed = events.iter().filter(|e| !e["lapsed"].is_null()).count();
    let results: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .flat_map(|line| line["results"].as_array().cloned().unwrap_or_default())
        .collect();
    let errors: Vec<&Value> = results
        .iter()
        .filter(|r| r["isError"] == true || !r["text"].as_str().unwrap_or("").contains("client "))
        .collect();
    let stats = server.stats();
    let total = stats["refreshes"].as_u64().unwrap();
    let keeper_refreshes = (ours + shared) as u64;
    println!(
        "keeper rotation, {:.0} s ({} lifetimes of {TTL} s): {sessions} Claude Code sessions, {} tool calls, {} failed; refreshes: {total} in all, {ours} by the keeper for ours (keychain), {shared} by the keeper for shared (Claude Code's store), {} by Claude Code; refused refreshes {}; reused refresh tokens {}; lapsed {lapsed}",
        elapsed.as_secs_f64(),
        elapsed.as_secs() / u64::from(TTL),
        results.len(),
        errors.len(),
        total.saturating_sub(keeper_refreshes),
        stats["refusedRefreshes"],
        stats["reusedRefreshTokens"],
    );
    assert!(failed_sessions.is_empty(), "{failed_sessions:?}");
    assert!(
        results.len() >= sessions && results.len() >= LIFETIMES as usize,
        "the sessions called the tool: {} calls in {sessions} sessions",
        results.len()
    );
    assert!(errors.is_empty(), "a call failed: {errors:?}");
    assert_eq!(stats["reusedRefreshTokens"], 0, "{stats}");
    assert_eq!(stats["refusedRefreshes"], 0, "{stats}");
    assert_eq!(lapsed, 0, "{events:?}");
    // The keeper kept our login fresh the whole time: about one refresh a lifetime less the
    // margin (a third).
    assert!(
        ours as u32 >= LIFETIMES,
        "{ours} refreshes of ours: {events:?}"
    );
    // And no login lapsed: ours, as the keeper left it, and Claude Code's list.
    let logins: Value =
        serde_json::from_slice(&world.mcpctl(&["logins", "--json"]).output().unwrap().stdout)
            .unwrap();
    for login in logins["logins"].as_array().unwrap() {
        assert!(login["lapsed"].is_null(), "{logins}");
        assert_eq!(login["lastRefresh"]["ok"], true, "{logins}");
    }
    // And both connect now, without a login: `ours` too, though the sessions, which list it
    // and hold no login of it (it is in our keychain), marked it in Claude Code's needs-auth
    // cache.
    let status = text(&world.mcpctl(&["status"]).output().unwrap());
    for name in ["ours", "shared"] {
        let line = status
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{status}"));
        assert!(line.contains("✔ Connected"), "{status}");
    }
    // (Claude Code has no login of `ours`, which is in our keychain: only `shared` is its.)
    let list = text(&world.claude(&["mcp", "list"]).output().unwrap());
    let shared_line = list
        .lines()
        .find(|l| l.starts_with("shared: "))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(shared_line.ends_with("✔ Connected"), "{list}");
}
