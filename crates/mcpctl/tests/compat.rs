//! `mcpctl compat` as a whole process: Claude Code's view of a live server's tools, its
//! `--json` shape and exit status, and no server started that `mcpctl tools` would not start.
//! Whether the view is Claude Code's own is judged in `crates/clients/tests/judge.rs`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        World {
            _dir: dir,
            home,
            project,
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_mcpctl"))
            .arg("--project")
            .arg(&self.project)
            .args(args)
            .env("HOME", &self.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("ENABLE_TOOL_SEARCH")
            .env_remove("CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH")
            .env("MCP_MANAGER_MANAGED_DIR", self.home.join("managed"))
            .output()
            .unwrap()
    }

    /// A user-scope edge server serving `tools`, started by `node` with `marker` as an
    /// argument (to find its process).
    fn edge_serving(&self, name: &str, tools: Value, marker: &str, scope: &str) {
        let file = self.home.join(format!("{name}.tools.json"));
        std::fs::write(&file, json!({ "tools": tools }).to_string()).unwrap();
        let edge = repo("tests/fixtures/servers/edge-server.mjs");
        let entry = json!({"type": "stdio", "command": "node",
            "args": [edge.display().to_string(), marker],
            "env": {"EDGE_TOOLS_FROM": file.display().to_string()}});
        let out = self.run(&["add-json", "-s", scope, name, &entry.to_string()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
        .canonicalize()
        .unwrap()
}

#[test]
fn compat_shows_what_claude_code_sends_and_fails_when_it_drops_a_tool() {
    let w = World::new();
    let tools = json!([
        {"name": "fine", "description": "A tool", "inputSchema": {"type": "object"}},
        {"name": "spaced.key", "description": "Bad key", "inputSchema":
            {"type": "object", "properties": {"has space": {"type": "string"}}}},
        {"name": "long", "description": "x".repeat(5000), "inputSchema": {"type": "object"}},
    ]);
    w.edge_serving("edge", tools.clone(), "compat-marker-user", "user");

    let out = w.run(&["--json", "compat", "edge", "--client", "claude-code"]);
    assert_eq!(out.status.code(), Some(1), "a dropped tool is a failure");
    let view: Value = serde_json::from_slice(&out.stdout).unwrap();
    let edge = &view["servers"]["edge"];
    let expected = mcp_manager_clients::claude_code::view(
        &mcp_manager_clients::claude_code::Server::named("edge"),
        &json!({ "tools": tools }),
        &mcp_manager_clients::claude_code::Knobs::defaults(),
    );
    assert_eq!(edge["sent"], serde_json::to_value(&expected.sent).unwrap());
    assert_eq!(
        edge["deferred"],
        json!(["mcp__edge__fine", "mcp__edge__long"]),
        "with ENABLE_TOOL_SEARCH unset every tool is deferred"
    );
    assert_eq!(edge["dropped"][0]["tool"], "spaced.key");
    assert_eq!(
        edge["dropped"][0]["words"],
        "Skipping tool \"spaced.key\": its input schema would be rejected by the Anthropic API \
         (property key \"has space\" does not match /^[a-zA-Z0-9_.-]{1,64}$/). Other tools from \
         this server remain available."
    );

    let text = w.run(&["compat", "edge"]);
    let said = String::from_utf8_lossy(&text.stdout);
    assert!(said.contains("dropped spaced.key: Skipping tool"), "{said}");
    assert!(said.contains("cut mcp__edge__long: description of 5000 characters cut at 4096 upfront, 16384 through ToolSearch"), "{said}");
}

#[test]
fn compat_starts_no_server_that_would_not_start() {
    let w = World::new();
    let marker = format!("compat-unapproved-{}", std::process::id());
    let tools = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    w.edge_serving("pending", tools, &marker, "project");
    let out = w.run(&["--json", "compat", "pending"]);
    assert_eq!(out.status.code(), Some(1));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("approve"),
        "a project server nobody approved is not started: {answer}"
    );
    // Nor among all servers.
    let all = w.run(&["--json", "compat"]);
    let all: Value = serde_json::from_slice(&all.stdout).unwrap();
    assert_eq!(all["servers"], json!({}), "{all}");
    let ps = Command::new("pgrep")
        .args(["-f", &marker])
        .output()
        .unwrap();
    assert!(ps.stdout.is_empty(), "the unapproved server never ran");
}
