//! `mcpctl list` as a whole process over a temporary home and project.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

/// `mcpctl ARGS` over the temporary `home`.
fn command(home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
    command
        .args(args)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("MCP_MANAGER_MANAGED_DIR", home.join("managed"));
    command
}

fn mcpctl(home: &Path, args: &[&str]) -> Output {
    command(home, args).output().expect("mcpctl runs")
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        json!({"mcpServers": {
            "everything": {"command": "node", "args": ["index.js"], "env": {"KEY": "s3cret"}},
            "web": {"type": "http", "url": "http://127.0.0.1:9/mcp"}
        }})
        .to_string(),
    )
    .unwrap();
    // The project's `web` is approved in a trusted folder, so it takes the name from the
    // user's `web` (an entry not approved would give way, as in Claude Code).
    let key = project
        .canonicalize()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    std::fs::write(
        home.join(".claude.json"),
        json!({
            "mcpServers": {"web": {"type": "sse", "url": "http://127.0.0.1:9/sse"}},
            "projects": {key: {"hasTrustDialogAccepted": true, "enabledMcpjsonServers": ["web"]}}
        })
        .to_string(),
    )
    .unwrap();
    (dir, home, project)
}

#[test]
fn list_json_has_the_documented_shape() {
    let (_dir, home, project) = setup();
    let out = mcpctl(
        &home,
        &["--json", "--project", project.to_str().unwrap(), "list"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let rows: Vec<_> = list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].clone(),
                s["scope"].clone(),
                s["transport"].clone(),
                s["shadowedBy"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                json!("everything"),
                json!("project"),
                json!("stdio"),
                json!(null)
            ),
            (json!("web"), json!("project"), json!("http"), json!(null)),
            (json!("web"), json!("user"), json!("sse"), json!("project")),
        ]
    );
    assert_eq!(list["problems"], json!([]));
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("s3cret"),
        "env values never printed"
    );
}

#[test]
fn list_text_names_scope_transport_and_target() {
    let (_dir, home, project) = setup();
    let out = mcpctl(&home, &["list", "--project", project.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        lines[0],
        [
            "everything",
            "project",
            "stdio",
            "node",
            "index.js",
            "(pending)"
        ],
        "a project server nobody approved says so"
    );
    assert_eq!(
        lines[2],
        [
            "web",
            "user",
            "sse",
            "http://127.0.0.1:9/sse",
            "(shadowed",
            "by",
            "project)"
        ]
    );
}

#[test]
fn broken_file_warns_on_stderr_and_still_lists_the_rest() {
    let (_dir, home, project) = setup();
    std::fs::write(home.join(".claude.json"), "{\n  \"mcpServers\": {,}\n}").unwrap();
    let out = mcpctl(&home, &["list", "--project", project.to_str().unwrap()]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(".claude.json line 2 column 18"),
        "file, line, column: {stderr}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
}

#[test]
fn exit_status_is_1_on_failure_and_2_on_usage_error() {
    let (_dir, home, project) = setup();
    let missing = project.join("nope");
    let out = mcpctl(
        &home,
        &["--json", "--project", missing.to_str().unwrap(), "list"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(err["error"]["code"], json!("project-not-found"));
    let usage = mcpctl(&home, &["frobnicate"]);
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    // `mcpctl list | head -1`: more lines than a pipe holds, and a reader that reads none.
    let (_dir, home, project) = setup();
    let servers: serde_json::Map<String, Value> = (0..3000)
        .map(|i| {
            (
                format!("server-{i:04}"),
                json!({"command": "node", "args": ["index.js"]}),
            )
        })
        .collect();
    std::fs::write(
        project.join(".mcp.json"),
        json!({ "mcpServers": servers }).to_string(),
    )
    .unwrap();
    // Trusted, so that the only thing it could say is about the reader.
    assert!(
        mcpctl(&home, &["--project", project.to_str().unwrap(), "trust"])
            .status
            .success()
    );
    for json in [false, true] {
        let mut args = vec!["--project", project.to_str().unwrap(), "list"];
        if json {
            args.insert(0, "--json");
        }
        let mut child = command(&home, &args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("mcpctl runs");
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr, "", "nothing said about a reader that has gone");
    }
}
