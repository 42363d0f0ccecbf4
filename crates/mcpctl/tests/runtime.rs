//! The runtime verbs as whole processes against the real reference server: their output,
//! exit statuses, and that no server process outlives `mcpctl`.

#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

fn everything() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        path.exists(),
        "server-everything is not installed: run `scripts/setup test`"
    );
    path.canonicalize().unwrap().display().to_string()
}

impl World {
    fn new(servers: Value) -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            home.join(".claude.json"),
            json!({ "mcpServers": servers }).to_string(),
        )
        .unwrap();
        World {
            _dir: dir,
            home,
            project,
        }
    }

    /// A world whose one server, "everything", is server-everything over stdio.
    fn with_everything() -> World {
        World::new(json!({"everything": {"command": "node", "args": [everything(), "stdio"]}}))
    }

    /// `mcpctl ARGS` in this world, not yet started.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
        command
            .arg("--project")
            .arg(&self.project)
            .args(args)
            .env("HOME", &self.home)
            .env_remove("XDG_DATA_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("MCP_MANAGER_MANAGED_DIR", self.home.join("managed"))
            .env("MCP_TIMEOUT", "30000");
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }
}

fn processes_with(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            std::fs::read(e.path().join("cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains(marker) && !stat.contains(") Z "))
                .unwrap_or(false)
        })
        .count()
}

#[test]
fn status_reports_each_server_and_exits_1_when_one_failed() {
    let marker = format!("mcpctl-status-{}", std::process::id());
    let world = World::new(json!({
        "everything": {"command": "node", "args": [everything(), "stdio", marker]},
        "broken": {"command": "sh", "args": ["-c", "echo 'token expired' >&2; exit 4"]}
    }));
    let out = world.run(&["--json", "status"]);
    assert_eq!(out.status.code(), Some(1), "one server failed");
    let statuses: Value = serde_json::from_slice(&out.stdout).unwrap();
    let by_name = |name: &str| {
        statuses
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["server"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("everything")["status"]["state"], "connected");
    assert_eq!(
        by_name("everything")["status"]["serverName"],
        "mcp-servers/everything"
    );
    assert_eq!(by_name("broken")["status"]["state"], "failed");
    assert!(by_name("broken")["status"]["error"]
        .as_str()
        .unwrap()
        .contains("status 4; stderr = token expired"));
    assert_eq!(
        processes_with(&marker),
        0,
        "no server process outlives mcpctl"
    );

    let text = String::from_utf8(world.run(&["status"]).stdout).unwrap();
    assert!(
        text.contains("everything: node ") && text.contains("✔ Connected"),
        "{text}"
    );
    assert!(
        text.contains("broken: sh -c") && text.contains("✘ Failed to connect — "),
        "{text}"
    );
}

#[test]
fn call_prints_the_result_and_tools_lists() {
    let world = World::with_everything();
    let out = world.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message": "hi there"}"#,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "Echo: hi there"
    );

    let out = world.run(&[
        "--json",
        "call",
        "everything",
        "get-sum",
        "--args",
        r#"{"a": 1, "b": 2}"#,
    ]);
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["isError"], false);
    assert!(outcome["elapsedMs"].is_u64());

    let out = world.run(&["--json", "tools", "everything"]);
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(tools["everything"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "echo"));

    let bad = world.run(&["call", "everything", "echo", "--args", "[1, 2]"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--args must be a JSON object"));
}

#[test]
fn unapproved_or_disabled_servers_are_not_started_by_runtime_verbs() {
    let world = World::with_everything();
    world.run(&["disable", "everything"]);
    let out = world.run(&["tools", "everything"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("mcpctl enable everything"));
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn resources_are_listed_and_read_and_blobs_land_in_files() {
    let world = World::with_everything();
    let listed = stdout(&world.run(&["resources", "everything"]));
    assert!(
        listed.contains("demo://resource/static/document/startup.md"),
        "{listed}"
    );
    assert!(
        listed.contains(
            "demo://resource/dynamic/blob/{resourceId}  Dynamic Blob Resource (template)"
        ),
        "templates are listed too: {listed}"
    );

    // Text goes to stdout.
    let text = stdout(&world.run(&[
        "read",
        "everything",
        "demo://resource/static/document/startup.md",
    ]));
    assert!(text.starts_with("# Everything Server"), "{text}");

    // A blob is decoded into a new temporary file whose path is printed...
    let read = world.run(&[
        "--json",
        "read",
        "everything",
        "demo://resource/dynamic/blob/7",
    ]);
    let answer: Value = serde_json::from_str(&stdout(&read)).unwrap();
    let file = PathBuf::from(answer["files"][0].as_str().unwrap());
    let bytes = std::fs::read(&file).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "only the person can read it");
    }
    std::fs::remove_file(&file).unwrap();
    assert!(
        String::from_utf8_lossy(&bytes).starts_with("Resource 7: This is a base64 blob"),
        "decoded, not base64: {bytes:?}"
    );
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("mcpctl-resource-") && name.ends_with(".txt"),
        "a fresh name with the MIME type's extension: {name}"
    );
    // ...or into the file -o names.
    let chosen = world.project.join("blob.bin");
    let read = world.run(&[
        "read",
        "everything",
        "demo://resource/dynamic/blob/7",
        "-o",
        chosen.to_str().unwrap(),
    ]);
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    assert!(
        String::from_utf8_lossy(&read.stderr).contains(&format!("written: {}", chosen.display()))
    );
    // The server stamps each read with the time: compare what comes before.
    let chosen = String::from_utf8(std::fs::read(&chosen).unwrap()).unwrap();
    assert!(
        chosen.starts_with("Resource 7: This is a base64 blob"),
        "{chosen}"
    );

    // An unknown resource is the server's error, and exit status 1.
    let missing = world.run(&["read", "everything", "demo://nothing/here"]);
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn prompts_are_listed_with_their_arguments_and_got_with_values() {
    let world = World::with_everything();
    let listed = stdout(&world.run(&["prompts", "everything"]));
    assert!(listed.contains("args-prompt  city [state]"), "{listed}");
    let prompt = stdout(&world.run(&[
        "prompt",
        "everything",
        "args-prompt",
        "--args",
        r#"{"city": "Lyon", "state": "Rhône"}"#,
    ]));
    assert!(prompt.contains("[user]"), "{prompt}");
    assert!(
        prompt.contains("Lyon") && prompt.contains("Rhône"),
        "{prompt}"
    );
    let got: Value = serde_json::from_str(&stdout(&world.run(&[
        "--json",
        "prompt",
        "everything",
        "args-prompt",
        "--args",
        r#"{"city": "Lyon"}"#,
    ])))
    .unwrap();
    assert_eq!(got["messages"][0]["role"], "user");
    // A required argument left out is the server's error.
    let missing = world.run(&["prompt", "everything", "args-prompt"]);
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn logs_show_the_servers_stderr() {
    let world = World::with_everything();
    let logs = stdout(&world.run(&["logs", "everything"]));
    assert!(logs.contains("Starting default (STDIO) server"), "{logs}");
}

#[test]
fn call_draws_a_progress_bar_on_a_terminal_and_not_in_a_pipe() {
    let world = World::with_everything();
    let args = r#"{"duration": 1, "steps": 4}"#;
    // `script` gives mcpctl a pseudo-terminal, as a person's shell would.
    let command = format!(
        "'{}' --project '{}' call everything trigger-long-running-operation --args '{args}'",
        env!("CARGO_BIN_EXE_mcpctl"),
        world.project.display()
    );
    let on_terminal = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("HOME", &world.home)
        .env_remove("XDG_DATA_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("MCP_MANAGER_MANAGED_DIR", world.home.join("managed"))
        .output()
        .expect("script (util-linux) runs");
    let seen = String::from_utf8_lossy(&on_terminal.stdout);
    for step in ["]  25%", "]  50%", "]  75%", "] 100%"] {
        assert!(seen.contains(step), "{step} in {seen:?}");
    }
    assert!(
        seen.contains("Long running operation completed"),
        "{seen:?}"
    );

    let in_a_pipe = world.run(&[
        "call",
        "everything",
        "trigger-long-running-operation",
        "--args",
        args,
    ]);
    let text = String::from_utf8_lossy(&in_a_pipe.stderr);
    assert!(!text.contains('%') && !text.contains('\r'), "{text:?}");
}

#[test]
fn tools_of_a_server_that_is_not_connected_fails_and_says_why() {
    let world = World::new(json!({
        "everything": {"command": "node", "args": [everything(), "stdio"]},
        "broken": {"command": "sh", "args": ["-c", "echo 'token expired' >&2; exit 4"]}
    }));
    // Named: its state is the answer, in `status`'s words, and the command fails.
    let out = world.run(&["tools", "broken"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"broken\" is not connected: failed: ")
            && stderr.contains("status 4; stderr = token expired"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    // All servers: what connected is listed, the rest is warned about, and it is a failure.
    let out = world.run(&["tools"]);
    assert_eq!(out.status.code(), Some(1));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("everything  echo  "), "{listed}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: \"broken\" is not connected: failed: "),
        "{stderr}"
    );
}

fn edge(fault: &str) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/servers/edge-server.mjs")
        .canonicalize()
        .unwrap();
    json!({"command": "node", "args": [script.display().to_string()], "env": {"EDGE_FAULT": fault}})
}

#[test]
fn a_call_that_times_out_or_whose_server_dies_says_so_in_plain_words() {
    let world = World::new(json!({"edge": edge(""), "fragile": edge("die-on-call")}));
    let out = world.run(&["call", "edge", "never", "--timeout", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"edge\": no answer within 1 s"),
        "{stderr}"
    );
    assert!(!stderr.contains("PT1S"), "{stderr}");

    let out = world.run(&["call", "fragile", "whole"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "\"fragile\": the server exited (status 7; stderr = edge-server: fatal: out of memory"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("Transport closed"), "{stderr}");
}

#[test]
fn calls_are_kept_in_the_history_without_their_secrets_and_replayed() {
    let pydantic = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/schemas/fastmcp-pydantic.tools.json")
        .canonicalize()
        .unwrap();
    let mut corpus = edge("");
    corpus["env"]["EDGE_TOOLS_FROM"] = json!(pydantic.display().to_string());
    let world = World::new(
        json!({"everything": {"command": "node", "args": [everything(), "stdio"]}, "corpus": corpus}),
    );
    let secret = "sk-history-secret-81f2";
    let out = world.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message": "kept"}"#,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let args = format!(r#"{{"payload": {{"a": 1}}, "api_key": "{secret}"}}"#);
    let out = world.run(&["call", "corpus", "raw_payload", "--args", &args]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = world.run(&["--json", "history"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let calls: Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = calls.as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["tool"], "raw_payload", "newest first");
    let kept: Value = serde_json::from_str(calls[0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(
        kept,
        json!({"payload": {"a": 1}, "api_key": "[not stored]"})
    );
    assert_eq!(calls[1]["status"], "ok");

    // The file itself holds no trace of the secret (the WAL included).
    let data = world.home.join(".local/share/dev.mcp-manager.app");
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(&data).unwrap().flatten() {
        bytes.extend(std::fs::read(entry.path()).unwrap());
    }
    assert!(!bytes.is_empty());
    assert!(!String::from_utf8_lossy(&bytes).contains(secret));

    let filtered = world.run(&["history", "--tool", "echo"]);
    let text = String::from_utf8_lossy(&filtered.stdout);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains("everything  echo") && text.contains(r#"{"message":"kept"}"#),
        "{text}"
    );

    let id = calls[1]["id"].as_u64().unwrap().to_string();
    let replay = world.run(&["history", "replay", &id]);
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    assert!(String::from_utf8_lossy(&replay.stdout).contains("Echo: kept"));
    let secret_id = calls[0]["id"].as_u64().unwrap().to_string();
    let refused = world.run(&["history", "replay", &secret_id]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr)
        .contains("secret fields, which the history does not keep"));
    let out = world.run(&["--json", "history"]);
    let calls: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(calls.as_array().unwrap().len(), 3, "the replay is kept too");
}

#[test]
fn tools_says_which_tools_are_not_offered_for_their_header_annotations() {
    let server = support::ModernHttp::start(&[]);
    let world = World::new(json!({"modern": {"type": "http", "url": server.url}}));
    let out = world.run(&["tools", "modern"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("modern  regional  "), "{stdout}");
    assert!(!stdout.contains("misheaded"), "{stdout}");
    assert!(
        stderr.contains(
            "warning: modern lists misheaded but it is not offered: property `zone`: \
             x-mcp-header `Bad Zone` is not a valid HTTP token"
        ),
        "{stderr}"
    );
    let out = world.run(&["--json", "tools", "modern"]);
    let tools: Value = serde_json::from_slice(&out.stdout).expect("stdout stays one JSON document");
    assert!(tools["modern"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["name"] != "misheaded"));
}

#[test]
fn call_with_task_follows_the_servers_task_and_ctrl_c_cancels_it() {
    let world = World::new(json!({"tasks": {"command": support::task_server_program()}}));
    // The task server speaks both eras: mcpctl opens it with `initialize`, as Claude Code does,
    // and says why --task cannot make a task there.
    let out = world.run(&[
        "call",
        "tasks",
        "build",
        "--args",
        r#"{"steps": 1}"#,
        "--task",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "built in 1 steps (no task)"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "note: tasks's session was opened with initialize, whose era has no tasks: the call \
             runs as a plain one. To find out whether it speaks 2026-07-28, run `mcpctl status \
             --find-eras` once"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --find-eras asks server/discover beside the session, waits, and remembers: the session
    // in 2026-07-28 takes the first one's place, and the next command opens in it.
    let out = world.run(&["status", "--find-eras"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "waiting for server/discover, asked beside tasks: which protocol era each speaks…"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).contains(
            "protocol 2026-07-28: server/discover → 2026-07-28; this session took the place of \
             the one opened with initialize)"
        ),
        "{}",
        stdout(&out)
    );
    let out = world.run(&["status"]);
    assert!(
        stdout(&out).contains("protocol 2026-07-28: remembered: server/discover → 2026-07-28)"),
        "{}",
        stdout(&out)
    );
    let out = world.run(&[
        "--json",
        "call",
        "tasks",
        "build",
        "--args",
        r#"{"steps": 2}"#,
        "--task",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["result"]["content"][0]["text"], "built in 2 steps");
    assert_eq!(outcome["task"]["status"], "completed");
    assert!(outcome["task"]["polls"].as_u64().unwrap() >= 1, "{outcome}");

    // Without --task the same tool answers at once.
    let out = world.run(&["call", "tasks", "build", "--args", r#"{"steps": 1}"#]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "built in 1 steps (no task)"
    );

    // The person answers the task's input request with --elicit.
    let out = world.run(&[
        "call",
        "tasks",
        "approve",
        "--args",
        r#"{"change": "v2"}"#,
        "--task",
        "--elicit",
        r#"{"name": "Lin"}"#,
    ]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "v2 approved by Lin"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains(": completed, polled "));

    // Ctrl-C while the task works: it is cancelled at the server, and the call fails.
    let child = world
        .command(&["call", "tasks", "forever", "--task"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let interrupted = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the task was cancelled; the server was told (tasks/cancel)"),
        "{stderr}"
    );
}
