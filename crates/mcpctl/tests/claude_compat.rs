//! `mcpctl` writes exactly what Claude Code writes, checked against the real Claude Code.
//!
//! Each case runs the same `mcp add`/`add-json`/`remove` through Claude Code's own CLI
//! (`@anthropic-ai/claude-code`, installed in `tests/reference` by `scripts/setup test`: since
//! 2.1.1xx a native program the package installs as `bin/claude.exe`) and through `mcpctl`, each in its own temporary home and project, and compares
//! the bytes of `.mcp.json` and the `mcpServers` objects of `~/.claude.json`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Claude Code's own program: the native one its package installs, or, for the releases
/// before it, `cli.js` run with node.
fn claude_cli() -> Command {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/reference/node_modules/@anthropic-ai/claude-code");
    let native = package.join("bin/claude.exe");
    let script = package.join("cli.js");
    if native.exists() {
        Command::new(native)
    } else {
        assert!(
            script.exists(),
            "Claude Code is not installed in {}: run `scripts/setup test` (npm ci in tests/reference)",
            package.display()
        );
        let mut node = Command::new("node");
        node.arg(script);
        node
    }
}

struct Side {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl Side {
    fn new() -> Side {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        Side {
            _dir: dir,
            home,
            project,
        }
    }

    fn mcp_json(&self) -> String {
        std::fs::read_to_string(self.project.join(".mcp.json")).unwrap_or_default()
    }

    fn claude_json(&self) -> Value {
        std::fs::read_to_string(self.home.join(".claude.json"))
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap_or(Value::Null)
    }

    /// `mcpServers` of the user scope and of this project's local scope, as text (so that
    /// key order counts).
    fn claude_json_servers(&self) -> (String, String) {
        let doc = self.claude_json();
        let key = self.project.to_str().unwrap();
        (
            serde_json::to_string_pretty(&doc["mcpServers"]).unwrap(),
            serde_json::to_string_pretty(&doc["projects"][key]["mcpServers"]).unwrap(),
        )
    }
}

/// `claude mcp ARGS` in `side`'s project and home, offline.
fn claude_mcp(side: &Side, args: &[&str]) -> Command {
    let mut command = claude_cli();
    command
        .arg("mcp")
        .args(args)
        .current_dir(&side.project)
        .env("HOME", &side.home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    command
}

/// `mcpctl ARGS` in `side`'s project and home.
fn mcpctl(side: &Side, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
    command
        .arg("--project")
        .arg(&side.project)
        .args(args)
        .env("HOME", &side.home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("MCP_MANAGER_MANAGED_DIR", side.home.join("managed"));
    command
}

fn run_claude(side: &Side, args: &[&str]) {
    let out = claude_mcp(side, args).output().expect("Claude Code runs");
    assert!(
        out.status.success(),
        "claude mcp {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run_mcpctl(side: &Side, args: &[&str]) {
    let out = mcpctl(side, args).output().expect("mcpctl runs");
    assert!(
        out.status.success(),
        "mcpctl {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs each command on both sides, then compares what they wrote.
fn compare(case: &str, commands: &[&[&str]]) {
    let claude = Side::new();
    let ours = Side::new();
    for command in commands {
        run_claude(&claude, command);
        run_mcpctl(&ours, command);
    }
    assert_eq!(
        ours.mcp_json(),
        claude.mcp_json(),
        "{case}: .mcp.json bytes differ"
    );
    assert_eq!(
        ours.claude_json_servers(),
        claude.claude_json_servers(),
        "{case}: mcpServers in ~/.claude.json differ"
    );
}

#[test]
fn project_stdio_with_env_and_dashed_args() {
    compare(
        "project stdio",
        &[&[
            "add",
            "-e",
            "API_KEY=abc",
            "-e",
            "URL=x=y",
            "-s",
            "project",
            "files",
            "--",
            "npx",
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/tmp",
        ]],
    );
}

#[test]
fn project_http_with_headers_client_id_and_callback_port() {
    compare(
        "project http",
        &[&[
            "add",
            "-s",
            "project",
            "-t",
            "http",
            "-H",
            "Authorization: Bearer tok",
            "-H",
            "X-Custom:  spaced ",
            "--client-id",
            "abc",
            "--callback-port",
            "8765",
            "web",
            "https://mcp.example.com/mcp",
        ]],
    );
}

#[test]
fn user_sse_and_local_stdio_without_env() {
    compare(
        "user and local",
        &[
            &[
                "add",
                "-s",
                "user",
                "-t",
                "sse",
                "legacy",
                "http://127.0.0.1:9/sse",
            ],
            &["add", "plain", "--", "node", "server.js"],
        ],
    );
}

#[test]
fn several_adds_then_a_remove_in_one_project_file() {
    compare(
        "add, add, remove",
        &[
            &["add", "-s", "project", "a", "--", "node", "a.js"],
            &[
                "add",
                "-s",
                "project",
                "-t",
                "http",
                "b",
                "http://127.0.0.1:1/mcp",
            ],
            &["add", "-s", "project", "c", "--", "c"],
            &["remove", "b", "-s", "project"],
        ],
    );
}

#[test]
fn add_json_stdio_and_http() {
    compare(
        "add-json",
        &[
            &[
                "add-json",
                "-s",
                "project",
                "j1",
                r#"{"command":"node","args":["x.js"],"env":{"K":"v"}}"#,
            ],
            &[
                "add-json",
                "-s",
                "user",
                "j2",
                r#"{"type":"http","url":"https://h.example/mcp","headers":{"A":"b"}}"#,
            ],
        ],
    );
}

/// Both sides' stdout of one command, run in their own sandbox.
fn output_of(side: &Side, claude: bool, args: &[&str]) -> String {
    let out = if claude {
        claude_mcp(side, args)
    } else {
        mcpctl(side, args)
    }
    .output()
    .expect("it runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn reset_project_choices_forgets_what_claude_code_forgets_and_says_what_it_says() {
    let sides = [Side::new(), Side::new()];
    for side in &sides {
        let key = side.project.to_str().unwrap();
        std::fs::create_dir_all(side.project.join(".claude")).unwrap();
        std::fs::create_dir_all(side.home.join(".claude")).unwrap();
        std::fs::write(
            side.project.join(".mcp.json"),
            r#"{"mcpServers":{"a":{"command":"true"},"b":{"command":"true"},"c":{"command":"true"},"d":{"command":"true"}}}"#,
        )
        .unwrap();
        std::fs::write(
            side.project.join(".claude/settings.local.json"),
            r#"{"enabledMcpjsonServers":["a"],"disabledMcpjsonServers":["b"],"enableAllProjectMcpServers":false,"other":1}"#,
        )
        .unwrap();
        std::fs::write(
            side.project.join(".claude/settings.json"),
            r#"{"enabledMcpjsonServers":["c"],"disabledMcpjsonServers":["d"]}"#,
        )
        .unwrap();
        std::fs::write(
            side.home.join(".claude/settings.json"),
            r#"{"enabledMcpjsonServers":["b"]}"#,
        )
        .unwrap();
        std::fs::write(
            side.home.join(".claude.json"),
            serde_json::json!({"projects": {key: {"hasTrustDialogAccepted": true, "enabledMcpjsonServers": ["a"], "disabledMcpjsonServers": ["c"], "enableAllProjectMcpServers": true, "allowedTools": []}}})
                .to_string(),
        )
        .unwrap();
    }
    let claude = output_of(&sides[0], true, &["reset-project-choices"]);
    let ours = output_of(&sides[1], false, &["reset-project-choices"]);
    let lines = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("You will be prompted"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(lines(&ours), lines(&claude), "the same words");
    let file = |side: &Side, path: &str| std::fs::read_to_string(side.project.join(path)).unwrap();
    assert_eq!(
        file(&sides[1], ".claude/settings.local.json"),
        file(&sides[0], ".claude/settings.local.json"),
        "settings.local.json byte for byte"
    );
    assert_eq!(
        file(&sides[1], ".claude/settings.json"),
        file(&sides[0], ".claude/settings.json"),
        "the shared settings are not touched"
    );
    let project =
        |side: &Side| side.claude_json()["projects"][side.project.to_str().unwrap()].clone();
    assert_eq!(
        project(&sides[1]),
        project(&sides[0]),
        "the project's entry in ~/.claude.json"
    );
}
