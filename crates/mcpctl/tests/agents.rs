//! Servers scoped to a subagent, judged by Claude Code 2.1.332: a real `claude -p` session
//! runs subagent `helper` (its model is the stand-in `tests/fixtures/model-api.mjs`, which
//! records the MCP tools each request offers). The subagent's request must offer exactly the
//! servers `mcpctl agents` says it gets: the configured one it names, its own inline server
//! (only in a trusted folder), never the name that matches nothing.

#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

struct Home {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    project: PathBuf,
}

fn home(trusted: bool) -> Home {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, project) = (root.join("home"), root.join("project"));
    std::fs::create_dir_all(home.join(".claude/agents")).unwrap();
    std::fs::create_dir_all(project.join(".claude/agents")).unwrap();
    let edge = support::repo("tests/fixtures/servers/edge-server.mjs");
    let tools = root.join("tools.json");
    std::fs::write(
        &tools,
        json!({"tools": [{"name": "echo", "description": "e", "inputSchema": {"type": "object"}}]})
            .to_string(),
    )
    .unwrap();
    let config = json!({
        "hasCompletedOnboarding": true,
        "mcpServers": {"alpha": {"command": "node", "args": [edge.display().to_string()],
            "env": {"EDGE_TOOLS_FROM": tools.display().to_string()}}},
        "projects": {project.display().to_string(): {"hasTrustDialogAccepted": trusted}}
    });
    std::fs::write(home.join(".claude.json"), config.to_string()).unwrap();
    std::fs::write(
        project.join(".claude/agents/helper.md"),
        format!(
            "---\nname: helper\ndescription: Helps\nmcpServers:\n  - alpha\n  - missing\n  - inline1:\n      command: node\n      args: [\"{}\", \"inline\"]\n      env:\n        EDGE_TOOLS_FROM: {}\n---\nYou help.\n",
            edge.display(),
            tools.display()
        ),
    )
    .unwrap();
    // The person's agent of the same name: Claude Code runs the project's instead.
    std::fs::write(
        home.join(".claude/agents/helper.md"),
        format!(
            "---\nname: helper\ndescription: Mine\nmcpServers:\n  - fromuser:\n      command: node\n      args: [\"{}\", \"user\"]\n      env:\n        EDGE_TOOLS_FROM: {}\n---\nYou help too.\n",
            edge.display(),
            tools.display()
        ),
    )
    .unwrap();
    Home {
        _dir: dir,
        root,
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
        .env("MCP_MANAGER_MANAGED_DIR", home.root.join("managed"))
        .env("XDG_DATA_HOME", home.home.join(".local/share"));
}

/// Runs subagent `helper` in a `claude -p` session; each request: whether it is the
/// subagent's, and the MCP tools it offers.
fn subagent_session(home: &Home) -> Vec<(bool, Vec<String>)> {
    let record = home.root.join("requests.jsonl");
    let mut api = Command::new("node")
        .arg(support::repo("tests/fixtures/model-api.mjs"))
        .arg("Agent:helper")
        .env("MODEL_API_RECORD", &record)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(api.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().strip_prefix("listening ").unwrap().to_string();
    let mut command = Command::new(support::repo(
        "tests/reference/node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    ));
    env(&mut command, home);
    let out = command
        .args(["-p", "hi", "--allowedTools", "Agent"])
        .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("ANTHROPIC_API_KEY", "sk-ant-agents-not-a-key")
        .env("ENABLE_TOOL_SEARCH", "false")
        .env("MCP_TIMEOUT", "60000")
        .env("CLAUDE_CODE_MCP_STARTUP_WAIT_MS", "60000")
        .output()
        .unwrap();
    let _ = api.kill();
    let _ = api.wait();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["path"].as_str().unwrap_or("").starts_with("/v1/messages"))
        .map(|r| {
            (
                r["subagent"] == true,
                serde_json::from_value(r["mcpTools"].clone()).unwrap(),
            )
        })
        .collect()
}

fn agents(home: &Home) -> Value {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
    env(&mut command, home);
    let out = command
        .arg("--project")
        .arg(&home.project)
        .args(["agents", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The project's agent `helper` in a report (the person's has the same name).
fn project_helper(report: &Value) -> &Value {
    report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "helper" && a["source"] == "project")
        .unwrap()
}

/// The servers `mcpctl agents` says the helper gets (no problem), as MCP tool names.
fn ours(report: &Value) -> Vec<String> {
    let helper = project_helper(report);
    let mut tools: Vec<String> = helper["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["problem"].is_null())
        .map(|s| format!("mcp__{}__echo", s["name"].as_str().unwrap()))
        .collect();
    tools.sort();
    tools
}

#[test]
fn a_subagent_gets_the_servers_mcpctl_agents_says_it_gets() {
    for trusted in [true, false] {
        let home = home(trusted);
        let requests = subagent_session(&home);
        let main: Vec<String> = vec!["mcp__alpha__echo".into()];
        assert_eq!(
            requests[0],
            (false, main),
            "the main thread offers the configured server only"
        );
        let subagent: Vec<&Vec<String>> = requests.iter().filter(|r| r.0).map(|r| &r.1).collect();
        assert_eq!(
            subagent.len(),
            1,
            "the subagent ran once (trusted: {trusted}): {requests:?}"
        );
        let mut sub = subagent[0].clone();
        sub.sort();
        let report = agents(&home);
        assert_eq!(ours(&report), sub, "trusted: {trusted}: {report:#}");
        let users = report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == "helper" && a["source"] == "user")
            .unwrap();
        assert!(
            users["servers"][0]["problem"]
                .as_str()
                .unwrap()
                .contains("Claude Code runs that one"),
            "{users}"
        );
        let problem = |name: &str| {
            project_helper(&report)["servers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == name)
                .unwrap()["problem"]
                .clone()
        };
        assert!(problem("missing")
            .as_str()
            .unwrap()
            .contains("no configured server"));
        if trusted {
            assert_eq!(sub, ["mcp__alpha__echo", "mcp__inline1__echo"]);
        } else {
            assert!(problem("inline1").as_str().unwrap().contains("not trusted"));
        }
    }
}

fn mcpctl(home: &Home, args: &[&str]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
    env(&mut command, home);
    command
        .arg("--project")
        .arg(&home.project)
        .args(args)
        .output()
        .unwrap()
}

/// A user's subagent's own server is tried here once approved, like any other; a project's
/// waits for the folder's trust; approving touches none of Claude Code's files; no setting of
/// Claude Code's turns one on or off.
#[test]
fn a_subagents_own_server_is_tried_once_approved() {
    let home = home(false);
    let edge = support::repo("tests/fixtures/servers/edge-server.mjs");
    std::fs::write(
        home.home.join(".claude/agents/writer.md"),
        format!(
            "---\nname: writer\nmcpServers:\n  - notes:\n      command: node\n      args: [\"{}\", \"notes\"]\n---\nYou write.\n",
            edge.display()
        ),
    )
    .unwrap();
    let claude_json = std::fs::read(home.home.join(".claude.json")).unwrap();
    let list = String::from_utf8(mcpctl(&home, &["list"]).stdout).unwrap();
    assert!(
        list.contains("agent:writer:notes") && list.contains("(pending)"),
        "{list}"
    );
    assert!(
        !list.contains("agent:helper:fromuser"),
        "the person's helper never runs: {list}"
    );

    // The project's agent's server waits for the folder's trust.
    let refused = mcpctl(&home, &["approve", "agent:helper:inline1"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("trust"));

    let early = mcpctl(&home, &["tools", "agent:writer:notes"]);
    assert!(!early.status.success());
    assert!(
        String::from_utf8_lossy(&early.stderr).contains("subagent's own server nobody approved"),
        "{}",
        String::from_utf8_lossy(&early.stderr)
    );

    let approved = mcpctl(&home, &["approve", "agent:writer:notes"]);
    assert!(
        approved.status.success(),
        "{}",
        String::from_utf8_lossy(&approved.stderr)
    );
    assert!(
        String::from_utf8_lossy(&approved.stdout).contains("agent-approvals.json"),
        "it names the file it wrote: {}",
        String::from_utf8_lossy(&approved.stdout)
    );
    let tools = mcpctl(&home, &["tools", "agent:writer:notes"]);
    assert!(
        tools.status.success(),
        "{}",
        String::from_utf8_lossy(&tools.stderr)
    );
    assert!(String::from_utf8_lossy(&tools.stdout).contains("huge"));
    assert_eq!(
        std::fs::read(home.home.join(".claude.json")).unwrap(),
        claude_json
    );
    assert!(!home.project.join(".claude/settings.local.json").exists());

    // Nor can it be moved out into a scope, where it would run without approval.
    let moved = mcpctl(
        &home,
        &["agents", "move", "agent:helper:inline1", "--to", "local"],
    );
    assert!(!moved.status.success());
    assert!(String::from_utf8_lossy(&moved.stderr).contains("not approved"));

    // Two names Claude Code's normalisation would make one are two approvals here, even for
    // the same entry.
    for (agent, server) in [("a", "b_c"), ("a_b", "c")] {
        std::fs::write(
            home.home.join(format!(".claude/agents/{agent}.md")),
            format!(
                "---\nname: {agent}\nmcpServers:\n  - {server}:\n      command: node\n      args: [\"{}\"]\n---\n",
                edge.display()
            ),
        )
        .unwrap();
    }
    assert!(mcpctl(&home, &["approve", "agent:a:b_c"]).status.success());
    let list = String::from_utf8(mcpctl(&home, &["list"]).stdout).unwrap();
    let line = |name: &str| {
        list.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name}: {list}"))
            .to_string()
    };
    assert!(!line("agent:a:b_c").contains("(pending)"), "{list}");
    assert!(line("agent:a_b:c").contains("(pending)"), "{list}");

    let toggled = mcpctl(&home, &["disable", "agent:writer:notes"]);
    assert!(!toggled.status.success());
    assert!(String::from_utf8_lossy(&toggled.stderr).contains("subagent's own server"));

    // Its entry changes: the approval lapses.
    std::fs::write(
        home.home.join(".claude/agents/writer.md"),
        format!(
            "---\nname: writer\nmcpServers:\n  - notes:\n      command: node\n      args: [\"{}\", \"other\"]\n---\nYou write.\n",
            edge.display()
        ),
    )
    .unwrap();
    let list = String::from_utf8(mcpctl(&home, &["list"]).stdout).unwrap();
    let line = list
        .lines()
        .find(|l| l.starts_with("agent:writer:notes"))
        .unwrap();
    assert!(line.contains("(pending)"), "{line}");
}

fn claude_mcp_list(home: &Home) -> String {
    let mut command = Command::new(support::repo(
        "tests/reference/node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    ));
    env(&mut command, home);
    let out = command.args(["mcp", "list"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A server moved into a subagent leaves Claude Code's list and becomes the subagent's own;
/// moved back, the agent file is the same bytes. A secret never goes into a project's agent.
#[test]
fn a_server_moved_into_an_agent_and_back_leaves_the_agent_file_as_it_was() {
    let home = home(true);
    let writer = home.home.join(".claude/agents/writer.md");
    let original = "---\nname: writer # mine\ndescription: >\n  Writes things.\nmcpServers:\n  # what it uses\n  - missing\ntools: Read\n---\nWrite well.\n---\nThe end.\n";
    std::fs::write(&writer, original).unwrap();
    assert!(claude_mcp_list(&home).contains("alpha:"));

    let out = mcpctl(&home, &["agents", "move", "alpha", "--into", "writer"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !claude_mcp_list(&home).contains("alpha:"),
        "no longer configured"
    );
    let report = agents(&home);
    let mine = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "writer")
        .unwrap();
    let alpha = mine["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "alpha")
        .unwrap();
    assert_eq!(
        (alpha["inline"].clone(), alpha["problem"].clone()),
        (json!(true), Value::Null)
    );
    // The project's helper named alpha: now nothing configured is called that.
    let helper = project_helper(&report);
    assert!(helper["servers"][0]["problem"].is_string(), "{helper}");

    let out = mcpctl(
        &home,
        &["agents", "move", "agent:writer:alpha", "--to", "user"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&writer).unwrap(),
        original,
        "byte for byte"
    );
    assert!(claude_mcp_list(&home).contains("alpha:"));

    // A secret-looking value never goes into the project's agent file.
    let add = mcpctl(
        &home,
        &[
            "add",
            "-s",
            "user",
            "-e",
            "API_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ",
            "keyed",
            "--",
            "node",
            "x.js",
        ],
    );
    assert!(
        add.status.success(),
        "{}",
        String::from_utf8_lossy(&add.stderr)
    );
    let helper_file = home.project.join(".claude/agents/helper.md");
    let before = std::fs::read(&helper_file).unwrap();
    let refused = mcpctl(&home, &["agents", "move", "keyed", "--into", "helper"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("env.API_TOKEN"));
    assert_eq!(std::fs::read(&helper_file).unwrap(), before);
    // Nor one written as an argument, or in a URL's query.
    for (name, args) in [
        (
            "argued",
            vec!["node", "x.js", "--token", "abcdefgh12345678"],
        ),
        (
            "queried",
            vec![
                "--transport",
                "http",
                "https://mcp.example/mcp?api_key=abcdef123456",
            ],
        ),
    ] {
        let mut command = vec!["add", "-s", "user", name];
        if name == "queried" {
            command = vec!["add", "-s", "user", args[0], args[1], name, args[2]];
        } else {
            command.push("--");
            command.extend(&args);
        }
        let add = mcpctl(&home, &command);
        assert!(
            add.status.success(),
            "{}",
            String::from_utf8_lossy(&add.stderr)
        );
        let refused = mcpctl(&home, &["agents", "move", name, "--into", "helper"]);
        assert!(!refused.status.success(), "{name}");
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("looks like a credential"),
            "{}",
            String::from_utf8_lossy(&refused.stderr)
        );
        assert_eq!(std::fs::read(&helper_file).unwrap(), before);
    }
    // A user agent's server with a credential does not go into .mcp.json either.
    let out = mcpctl(&home, &["agents", "move", "argued", "--into", "writer"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let refused = mcpctl(
        &home,
        &["agents", "move", "agent:writer:argued", "--to", "project"],
    );
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("args[2]"));
    assert!(!home.project.join(".mcp.json").exists());
}

/// A project's `.mcp.json` may name a server `agent:helper:inline1`, like the helper's own
/// server here: approving that one (even with the same entry, even all of them) lends the
/// agent's server nothing, neither to start nor to be moved out where it would run unasked.
#[test]
fn a_configured_server_named_like_an_agents_lends_it_no_approval() {
    let home = home(true);
    let helper = std::fs::read_to_string(home.project.join(".claude/agents/helper.md")).unwrap();
    let front = mcp_manager_core::config::agents::frontmatter(&helper)
        .unwrap()
        .unwrap();
    let same = front["mcpServers"][2]["inline1"].clone();
    std::fs::write(
        home.project.join(".mcp.json"),
        json!({"mcpServers": {"agent:helper:inline1": same}}).to_string(),
    )
    .unwrap();
    let approved = mcpctl(&home, &["approve", "--all"]);
    assert!(
        approved.status.success(),
        "{}",
        String::from_utf8_lossy(&approved.stderr)
    );
    let moved = mcpctl(
        &home,
        &["agents", "move", "agent:helper:inline1", "--to", "user"],
    );
    assert!(!moved.status.success(), "moved on a borrowed approval");
    assert!(String::from_utf8_lossy(&moved.stderr).contains("not approved"));
    std::fs::remove_file(home.project.join(".mcp.json")).unwrap();
    let list = String::from_utf8(mcpctl(&home, &["list"]).stdout).unwrap();
    let line = list
        .lines()
        .find(|l| l.starts_with("agent:helper:inline1"))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(line.contains("(pending)"), "{list}");
}

/// A project's agent file Claude Code reads through a link inside the project is read here
/// too, and overrides the person's agent of its name; one that cannot be read here (a link
/// out of the project) still keeps the person's agent of its file's name from counting.
#[test]
fn a_linked_or_unreadable_project_agent_still_overrides_the_persons() {
    let home = home(true);
    let folder = home.project.join(".claude/agents");
    std::fs::create_dir_all(home.project.join("docs")).unwrap();
    std::fs::rename(
        folder.join("helper.md"),
        home.project.join("docs/helper.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../../docs/helper.md", folder.join("helper.md")).unwrap();
    let list = String::from_utf8(mcpctl(&home, &["list"]).stdout).unwrap();
    assert!(list.contains("agent:helper:inline1"), "{list}");
    assert!(!list.contains("agent:helper:fromuser"), "{list}");

    // Now a link out of the project: not read, and the person's helper still does not count.
    std::fs::remove_file(folder.join("helper.md")).unwrap();
    std::fs::rename(
        home.project.join("docs/helper.md"),
        home.root.join("outside.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(home.root.join("outside.md"), folder.join("helper.md")).unwrap();
    let out = mcpctl(&home, &["list"]);
    let list = String::from_utf8(out.stdout).unwrap();
    assert!(!list.contains("agent:helper:inline1"), "{list}");
    assert!(!list.contains("agent:helper:fromuser"), "{list}");
    let report = agents(&home);
    let users = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["source"] == "user")
        .unwrap();
    assert!(users["servers"][0]["problem"]
        .as_str()
        .unwrap()
        .contains("may define"));
}
