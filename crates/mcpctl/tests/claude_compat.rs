//! `mcpctl` writes exactly what Claude Code writes, checked against the real Claude Code.
//!
//! Each case runs the same `mcp add`/`add-json`/`remove` through Claude Code's own CLI
//! (`@anthropic-ai/claude-code`, installed in `tests/reference` by `scripts/setup test`: since
//! 2.1.1xx a native program the package installs as `bin/claude.exe`) and through `mcpctl`, each in its own temporary home and project, and compares
//! the bytes of `.mcp.json` and the `mcpServers` objects of `~/.claude.json`.

#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::claude_cli;

use serde_json::Value;

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

/// Runs `command` with `policy` as `/etc/claude-code`, in a private mount namespace (an
/// overlay over `/etc` that only this process sees): the machine's real `/etc` is never
/// touched. Needs root, as the test machine is.
fn with_policy(policy: &Path, command: &Command) -> std::process::Output {
    let work = tempfile::tempdir().unwrap();
    let (upper, scratch) = (work.path().join("upper"), work.path().join("work"));
    std::fs::create_dir_all(&upper).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    let script = format!(
        "set -e; mount -t overlay overlay -o lowerdir=/etc,upperdir={},workdir={} /etc; \
         rm -rf /etc/claude-code; mkdir -p /etc/claude-code; cp -a {}/. /etc/claude-code/; \
         exec \"$@\"",
        upper.display(),
        scratch.display(),
        policy.display()
    );
    let mut wrapped = Command::new("unshare");
    wrapped
        .args(["-m", "sh", "-c", &script, "sh"])
        .arg(command.get_program())
        .args(command.get_args());
    if let Some(dir) = command.get_current_dir() {
        wrapped.current_dir(dir);
    }
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => wrapped.env(key, value),
            None => wrapped.env_remove(key),
        };
    }
    let out = wrapped.output().expect("unshare runs");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("unshare failed")
            && !String::from_utf8_lossy(&out.stderr).contains("mount:"),
        "the private mount namespace could not be made (the tests run as root): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `mcpctl` reading the real managed folder (`/etc/claude-code`), not the test's.
fn mcpctl_real_managed(side: &Side, args: &[&str]) -> Command {
    let mut command = mcpctl(side, args);
    command.env_remove("MCP_MANAGER_MANAGED_DIR");
    command
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn enterprise_policy_blocks_what_claude_code_drops_and_we_say_which_rule() {
    let side = Side::new();
    let policy = side.home.parent().unwrap().join("policy");
    write(
        &policy.join("managed-settings.json"),
        r#"{"deniedMcpServers":[{"serverName":"bad"},{"serverCommand":["/bin/false"]}],
            "allowedMcpServers":[{"serverName":"good"},{"serverName":"bad"},{"serverName":"f"},{"serverUrl":"http://127.0.0.1:9/*"}]}"#,
    );
    // Drop-ins are read in name order; hidden and non-JSON files are not read at all.
    write(
        &policy.join("managed-settings.d/10-urls.json"),
        r#"{"deniedMcpServers":[{"serverUrl":"http://127.0.0.1:9/blocked*"}]}"#,
    );
    write(
        &policy.join("managed-settings.d/.hidden.json"),
        r#"{"deniedMcpServers":[{"serverName":"good"}]}"#,
    );
    write(
        &policy.join("managed-settings.d/notes.txt"),
        r#"{"deniedMcpServers":[{"serverName":"good"}]}"#,
    );
    let before = r#"{"mcpServers":{
        "good":{"command":"/bin/true"},
        "bad":{"command":"/bin/true"},
        "f":{"command":"/bin/false"},
        "other":{"command":"/bin/echo"},
        "h":{"type":"http","url":"http://127.0.0.1:9/mcp"},
        "h-blocked":{"type":"http","url":"http://127.0.0.1:9/blocked/mcp"},
        "h2":{"type":"http","url":"http://127.0.0.1:8/mcp"}}}"#;
    write(&side.home.join(".claude.json"), before);

    let claude = with_policy(&policy, &claude_mcp(&side, &["list"]));
    let claude_text = String::from_utf8_lossy(&claude.stdout);
    let mut claude_names: Vec<String> = claude_text
        .lines()
        .filter_map(|l| l.split_once(": ").map(|(n, _)| n.to_string()))
        .collect();
    claude_names.sort();
    assert_eq!(claude_names, ["good", "h"], "Claude Code: {claude_text}");

    let ours = with_policy(&policy, &mcpctl_real_managed(&side, &["list", "--json"]));
    let list: Value = serde_json::from_slice(&ours.stdout).unwrap();
    let servers = list["servers"].as_array().unwrap();
    let mut starting: Vec<&str> = servers
        .iter()
        .filter(|s| s["willStart"] == true)
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    starting.sort();
    assert_eq!(starting, claude_names, "we start what Claude Code starts");
    let block = |name: &str| servers.iter().find(|s| s["name"] == name).unwrap()["blocked"].clone();
    let settings = "/etc/claude-code/managed-settings.json";
    assert_eq!(
        block("bad")["rule"],
        r#"deniedMcpServers {"serverName":"bad"}"#
    );
    assert_eq!(block("bad")["files"][0], settings);
    assert_eq!(
        block("f")["rule"],
        r#"deniedMcpServers {"serverCommand":["/bin/false"]}"#,
        "deny wins over an allow entry of the same server"
    );
    assert_eq!(block("other")["denied"], false);
    assert_eq!(
        block("other")["rule"],
        "allowedMcpServers (no entry matches its name)"
    );
    assert_eq!(
        block("h-blocked")["files"][0],
        "/etc/claude-code/managed-settings.d/10-urls.json"
    );
    assert_eq!(
        block("h2")["rule"],
        "allowedMcpServers (no entry matches its URL)"
    );
    assert_eq!(
        block("good"),
        Value::Null,
        "hidden and non-JSON drop-ins are not read"
    );

    // Adding a blocked server is refused with Claude Code's words, and nothing is written.
    for (args, blocked) in [
        (&["add", "x", "--", "/bin/false"][..], true),
        (&["add", "y", "--", "/bin/ls"][..], false),
    ] {
        let claude = with_policy(&policy, &claude_mcp(&side, args));
        let ours = with_policy(&policy, &mcpctl_real_managed(&side, args));
        let claude_says = String::from_utf8_lossy(&claude.stderr).trim().to_string();
        let we_say = String::from_utf8_lossy(&ours.stderr).to_string();
        assert!(!claude.status.success() && !ours.status.success());
        assert!(
            claude_says.contains(if blocked {
                "explicitly blocked"
            } else {
                "not allowed"
            }),
            "{claude_says}"
        );
        assert!(
            we_say.contains(&claude_says),
            "we say Claude Code's words {claude_says:?}, then the rule: {we_say}"
        );
    }
    assert_eq!(
        side.claude_json()["mcpServers"],
        serde_json::from_str::<Value>(before).unwrap()["mcpServers"],
        "a refused add writes no server"
    );
    assert!(
        side.claude_json()["projects"][side.project.to_str().unwrap()]["mcpServers"]
            .as_object()
            .is_none_or(|m| m.is_empty())
    );

    // `mcpctl status` shows the blocked servers with the rule, and starts none of them.
    let status = with_policy(&policy, &mcpctl_real_managed(&side, &["status"]));
    let status = String::from_utf8_lossy(&status.stdout);
    let line = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("{name} in {status}"))
            .to_string()
    };
    assert!(
        line("bad").contains("⊗ Blocked by enterprise policy: deniedMcpServers"),
        "{status}"
    );
    assert!(
        line("other").contains("⊗ Not allowed by enterprise policy"),
        "{status}"
    );
    assert!(line("good").contains("✘ Failed to connect — "), "{status}");
}

#[test]
fn managed_mcp_json_takes_exclusive_control_as_in_claude_code() {
    let side = Side::new();
    let policy = side.home.parent().unwrap().join("policy");
    write(
        &policy.join("managed-mcp.json"),
        r#"{"mcpServers":{"corp":{"type":"http","url":"http://127.0.0.1:7/mcp"}}}"#,
    );
    write(
        &side.home.join(".claude.json"),
        r#"{"mcpServers":{"mine":{"command":"/bin/true"}}}"#,
    );
    let claude = with_policy(&policy, &claude_mcp(&side, &["add", "x", "--", "/bin/ls"]));
    let ours = with_policy(
        &policy,
        &mcpctl_real_managed(&side, &["add", "x", "--", "/bin/ls"]),
    );
    let claude_says = String::from_utf8_lossy(&claude.stderr).trim().to_string();
    assert!(
        claude_says.starts_with("Cannot add MCP server: enterprise MCP configuration is active")
    );
    assert!(
        String::from_utf8_lossy(&ours.stderr).contains(&claude_says),
        "{}",
        String::from_utf8_lossy(&ours.stderr)
    );
    let claude = with_policy(&policy, &claude_mcp(&side, &["list"]));
    assert!(!String::from_utf8_lossy(&claude.stdout).contains("mine:"));
    let ours = with_policy(&policy, &mcpctl_real_managed(&side, &["list", "--json"]));
    let list: Value = serde_json::from_slice(&ours.stdout).unwrap();
    let mine = list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "mine")
        .expect("we still show it")
        .clone();
    assert_eq!(mine["willStart"], false);
    assert_eq!(mine["standing"], "set-aside-by-managed");
}

#[test]
fn status_words_are_claude_codes() {
    let sides = [Side::new(), Side::new()];
    for side in &sides {
        let key = side.project.to_str().unwrap();
        write(
            &side.project.join(".mcp.json"),
            r#"{"mcpServers":{"p1":{"command":"/bin/true"},"p2":{"command":"/bin/true","args":["x"]}}}"#,
        );
        write(
            &side.project.join(".claude/settings.local.json"),
            r#"{"disabledMcpjsonServers":["p2"]}"#,
        );
        write(
            &side.home.join(".claude.json"),
            &serde_json::json!({
                "mcpServers": {"off": {"command": "/bin/true"}, "broken": {"command": "/bin/false"}},
                "projects": {key: {"hasTrustDialogAccepted": true, "disabledMcpServers": ["off", "p1"]}}
            })
            .to_string(),
        );
    }
    let status_of = |text: &str, name: &str| -> String {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}: ")))
            .and_then(|rest| rest.split_once(" - ").map(|(_, s)| s.to_string()))
            .unwrap_or_default()
    };
    let claude =
        String::from_utf8_lossy(&claude_mcp(&sides[0], &["list"]).output().unwrap().stdout)
            .into_owned();
    let ours = String::from_utf8_lossy(&mcpctl(&sides[1], &["status"]).output().unwrap().stdout)
        .into_owned();
    for (name, words) in [
        // Pending approval is told before "disabled for this project", as Claude Code tells it.
        ("p1", "⏸ Pending approval"),
        ("off", "⊘ Disabled for this project"),
        ("broken", "✘ Failed to connect — "),
    ] {
        assert!(
            status_of(&claude, name).starts_with(words),
            "Claude Code, {name}: {claude}"
        );
        assert!(
            status_of(&ours, name).starts_with(words),
            "ours, {name}: {ours}"
        );
    }
    // Claude Code's list leaves a rejected server out; its `get` says why. We say it in both.
    let get = String::from_utf8_lossy(
        &claude_mcp(&sides[0], &["get", "p2"])
            .output()
            .unwrap()
            .stdout,
    )
    .into_owned();
    let rejected = "✘ Rejected (see disabledMcpjsonServers in settings)";
    assert!(get.contains(&format!("Status: {rejected}")), "{get}");
    assert_eq!(status_of(&ours, "p2"), rejected, "{ours}");
    let ours_get =
        String::from_utf8_lossy(&mcpctl(&sides[1], &["get", "p2"]).output().unwrap().stdout)
            .into_owned();
    assert!(
        ours_get.contains(&format!("Status: {rejected}")),
        "{ours_get}"
    );
}

/// The command line `text` (a `claude mcp list` or `mcpctl status`) gives for `name`.
fn listed_target(text: &str, name: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix(&format!("{name}: ")))
        .filter_map(|rest| rest.split_once(" - ").map(|(target, _)| target.to_string()))
        .collect()
}

#[test]
fn a_project_entry_takes_a_name_from_the_user_s_only_once_approved_in_a_trusted_folder() {
    // (trusted, the project's settings.local.json, the scope Claude Code uses)
    let cases = [
        (true, None, "user"),
        (
            true,
            Some(r#"{"enabledMcpjsonServers":["dup"]}"#),
            "project",
        ),
        (true, Some(r#"{"disabledMcpjsonServers":["dup"]}"#), "user"),
        (false, Some(r#"{"enabledMcpjsonServers":["dup"]}"#), "user"),
    ];
    for (trusted, settings, used) in cases {
        let sides = [Side::new(), Side::new()];
        for side in &sides {
            write(
                &side.project.join(".mcp.json"),
                r#"{"mcpServers":{"dup":{"command":"/bin/echo","args":["from-project"]}}}"#,
            );
            if let Some(settings) = settings {
                write(&side.project.join(".claude/settings.local.json"), settings);
            }
            write(
                &side.home.join(".claude.json"),
                &serde_json::json!({
                    "mcpServers": {"dup": {"command": "/bin/echo", "args": ["from-user"]}},
                    "projects": {side.project.to_str().unwrap(): {"hasTrustDialogAccepted": trusted}}
                })
                .to_string(),
            );
        }
        let case = format!("trusted {trusted}, settings {settings:?}");
        // Both say a server that fails to connect (echo answers nothing) and exit non-zero.
        let stdout = |mut command: Command| {
            String::from_utf8_lossy(&command.output().expect("it runs").stdout).into_owned()
        };
        let claude = stdout(claude_mcp(&sides[0], &["list"]));
        let ours = stdout(mcpctl(&sides[1], &["status"]));
        let expected = vec![format!("/bin/echo from-{used}")];
        assert_eq!(
            listed_target(&claude, "dup"),
            expected,
            "Claude Code, {case}: {claude}"
        );
        assert_eq!(
            listed_target(&ours, "dup"),
            expected,
            "ours, {case}: {ours}"
        );
        let claude_get = stdout(claude_mcp(&sides[0], &["get", "dup"]));
        let ours_get = stdout(mcpctl(&sides[1], &["get", "dup"]));
        let scope_word = if used == "user" {
            "User config"
        } else {
            "Project config"
        };
        assert!(
            claude_get.contains(&format!("Scope: {scope_word}")),
            "Claude Code, {case}: {claude_get}"
        );
        assert!(
            ours_get.contains(&format!("Scope: {used}")),
            "ours, {case}: {ours_get}"
        );
    }
}

/// A marketplace folder with plugin `fakeplug` (servers in its `.mcp.json` and in
/// `plugin.json`), installed and turned on for `side`'s person; plugin `other` of an unknown
/// marketplace; a skills folder plugin of the person and one of the project.
fn install_fixture_plugins(side: &Side) -> PathBuf {
    let root = side.home.parent().unwrap().to_path_buf();
    let market = root.join("market");
    let plugin = market.join("plugins/fakeplug");
    write(
        &market.join(".claude-plugin/marketplace.json"),
        r#"{"name":"fake-mkt","owner":{"name":"tests"},"plugins":[{"name":"fakeplug","source":"./plugins/fakeplug","version":"1.0.0"}]}"#,
    );
    write(
        &plugin.join(".claude-plugin/plugin.json"),
        r#"{"name":"fakeplug","version":"1.0.0","mcpServers":{"inline-srv":{"command":"/bin/true","args":["${CLAUDE_PLUGIN_ROOT}/x","${CLAUDE_PLUGIN_DATA}"]}}}"#,
    );
    write(
        &plugin.join(".mcp.json"),
        r#"{"mcpServers":{"file-srv":{"type":"http","url":"http://127.0.0.1:9/mcp"},"inline-srv":{"command":"/bin/false"}}}"#,
    );
    let plugins = side.home.join(".claude/plugins");
    write(
        &plugins.join("known_marketplaces.json"),
        &serde_json::json!({"fake-mkt": {"source": {"source": "directory", "path": market}, "installLocation": market, "lastUpdated": "2026-11-01T00:00:00.000Z"}}).to_string(),
    );
    let install = serde_json::json!([{"scope": "user", "installPath": plugin, "version": "1.0.0", "installedAt": "2026-11-01T00:00:00.000Z", "lastUpdated": "2026-11-01T00:00:00.000Z"}]);
    write(
        &plugins.join("installed_plugins.json"),
        &serde_json::json!({"version": 2, "plugins": {"fakeplug@fake-mkt": install, "other@nope": install}}).to_string(),
    );
    write(
        &side.home.join(".claude/settings.json"),
        r#"{"enabledPlugins":{"fakeplug@fake-mkt":true,"other@nope":true}}"#,
    );
    write(
        &side
            .home
            .join(".claude/skills/sk/.claude-plugin/plugin.json"),
        r#"{"name":"sk","mcpServers":{"s1":{"command":"/bin/echo","args":["sk"]}}}"#,
    );
    write(
        &side
            .project
            .join(".claude/skills/psk/.claude-plugin/plugin.json"),
        r#"{"name":"psk","mcpServers":{"p1":{"command":"/bin/echo","args":["psk"]}}}"#,
    );
    market
}

#[test]
fn plugin_servers_are_the_ones_claude_code_runs_with_its_names_targets_and_words() {
    let side = Side::new();
    install_fixture_plugins(&side);
    let key = side.project.to_str().unwrap();
    write(
        &side.home.join(".claude.json"),
        &serde_json::json!({
            "mcpServers": {"mine": {"command": "/bin/true"}, "dup": {"type": "http", "url": "http://127.0.0.1:9/mcp"}},
            "projects": {key: {"hasTrustDialogAccepted": true}}
        })
        .to_string(),
    );
    let rows = |text: &str| -> Vec<(String, String, String)> {
        let mut rows: Vec<_> = text
            .lines()
            .filter_map(|l| {
                let (name, rest) = l.split_once(": ")?;
                let (target, status) = rest.rsplit_once(" - ")?;
                let target = target.trim_end_matches(" (HTTP)").trim().to_string();
                let word: String = status
                    .chars()
                    .take_while(|c| *c != '(' && *c != '—')
                    .collect();
                Some((name.to_string(), target, word.trim().to_string()))
            })
            .filter(|(name, ..)| name.starts_with("plugin:"))
            .collect();
        rows.sort();
        rows
    };
    let claude = String::from_utf8_lossy(&claude_mcp(&side, &["list"]).output().unwrap().stdout)
        .into_owned();
    let ours =
        String::from_utf8_lossy(&mcpctl(&side, &["status"]).output().unwrap().stdout).into_owned();
    let theirs = rows(&claude);
    assert_eq!(
        theirs.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        [
            "plugin:fakeplug:inline-srv",
            "plugin:psk:p1",
            "plugin:sk:s1"
        ],
        "Claude Code: {claude}"
    );
    let mut ours_rows = rows(&ours);
    // We also show what Claude Code skips, with its words.
    let skipped = ours_rows
        .iter()
        .position(|r| r.0 == "plugin:fakeplug:file-srv")
        .expect("the duplicate is listed");
    assert!(ours.contains(r#"↷ MCP server "plugin:fakeplug:file-srv" skipped — same server as already-configured "dup""#), "{ours}");
    ours_rows.remove(skipped);
    assert_eq!(
        ours_rows, theirs,
        "names, command lines (plugin variables put in) and status words"
    );

    // The plugin whose marketplace is unknown is off, with Claude Code's words.
    let plugins =
        String::from_utf8_lossy(&mcpctl(&side, &["plugin"]).output().unwrap().stdout).into_owned();
    assert!(
        plugins.contains("other@nope: off — Marketplace nope not found"),
        "{plugins}"
    );

    // Disabling a plugin server for this project, and turning the plugin off, as Claude Code
    // then sees it.
    run_mcpctl(&side, &["disable", "plugin:sk:s1"]);
    run_mcpctl(&side, &["plugin", "disable", "fakeplug@fake-mkt"]);
    let settings = std::fs::read_to_string(side.home.join(".claude/settings.json")).unwrap();
    assert_eq!(
        settings,
        "{\n  \"enabledPlugins\": {\n    \"fakeplug@fake-mkt\": false,\n    \"other@nope\": true\n  }\n}\n",
        "one key changed, in Claude Code's layout"
    );
    let claude = String::from_utf8_lossy(&claude_mcp(&side, &["list"]).output().unwrap().stdout)
        .into_owned();
    assert!(!claude.contains("plugin:fakeplug:"), "{claude}");
    assert!(
        claude.contains("plugin:sk:s1: /bin/echo sk - ⊘ Disabled for this project"),
        "{claude}"
    );
    let ours =
        String::from_utf8_lossy(&mcpctl(&side, &["status"]).output().unwrap().stdout).into_owned();
    assert!(!ours.contains("plugin:fakeplug:"), "{ours}");
    assert!(
        ours.contains("plugin:sk:s1: /bin/echo sk - ⊘ Disabled for this project"),
        "{ours}"
    );
}

#[test]
fn entry_fields_claude_code_knows_are_kept_and_shown_as_it_shows_them() {
    let side = Side::new();
    let entry = r#"{"type":"http","url":"http://127.0.0.1:9/mcp","timeout":500,"tools":[{"name":"a","permission_policy":"always_ask"}],"toolPermissions":{"b":"blocked"},"oauth":{"xaa":true}}"#;
    write(
        &side.home.join(".claude.json"),
        &format!(
            r#"{{"mcpServers":{{"t":{entry},"s":{{"type":"streamable-http","url":"http://127.0.0.1:9/x"}}}}}}"#
        ),
    );
    let claude =
        String::from_utf8_lossy(&claude_mcp(&side, &["get", "t"]).output().unwrap().stdout)
            .into_owned();
    let ours = output_of(&side, false, &["get", "t"]);
    let timeout = "  Timeout: 500ms (ignored: below 1000ms minimum)";
    assert!(claude.contains(timeout), "{claude}");
    assert!(ours.contains(timeout), "{ours}");
    // Claude Code hides these; we show them.
    assert!(ours.contains(r#"Tool policies (tools[].permission_policy): [{"name":"a","permission_policy":"always_ask"}]"#), "{ours}");
    assert!(
        ours.contains(r#"Tool permissions (toolPermissions): {"b":"blocked"}"#),
        "{ours}"
    );
    assert!(
        ours.contains("OAuth cross-app access (oauth.xaa): true"),
        "{ours}"
    );
    // `streamable-http` is read as `http`.
    assert!(output_of(&side, false, &["get", "s"]).contains("  Type: http"));
    // An edit elsewhere keeps every key of the entry.
    run_mcpctl(&side, &["add", "-s", "user", "other", "--", "/bin/true"]);
    assert_eq!(
        side.claude_json()["mcpServers"]["t"],
        serde_json::from_str::<Value>(entry).unwrap()
    );
}

#[test]
fn approvals_older_claude_code_kept_in_claude_json_count_as_they_do_for_claude_code() {
    let sides = [Side::new(), Side::new()];
    for side in &sides {
        write(
            &side.project.join(".mcp.json"),
            r#"{"mcpServers":{"p1":{"command":"/bin/true"},"p2":{"command":"/bin/true","args":["2"]},"p3":{"command":"/bin/true","args":["3"]}}}"#,
        );
        write(
            &side.home.join(".claude.json"),
            &serde_json::json!({"projects": {side.project.to_str().unwrap(): {
                "hasTrustDialogAccepted": true,
                "enabledMcpjsonServers": ["p1"],
                "disabledMcpjsonServers": ["p2"]
            }}})
            .to_string(),
        );
    }
    // Ours first: Claude Code moves the keys into .claude/settings.local.json when it runs.
    let ours = String::from_utf8_lossy(&mcpctl(&sides[1], &["status"]).output().unwrap().stdout)
        .into_owned();
    let claude =
        String::from_utf8_lossy(&claude_mcp(&sides[0], &["list"]).output().unwrap().stdout)
            .into_owned();
    let word = |text: &str, name: &str| -> Option<String> {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}: ")))
            .and_then(|rest| {
                rest.rsplit_once(" - ")
                    .map(|(_, s)| s.chars().take(12).collect())
            })
    };
    assert!(
        word(&claude, "p1").unwrap().starts_with("✘ Failed"),
        "{claude}"
    );
    assert!(
        word(&ours, "p1").unwrap().starts_with("✘ Failed"),
        "approved: it ran. {ours}"
    );
    assert!(
        word(&claude, "p3").unwrap().starts_with("⏸ Pending"),
        "{claude}"
    );
    assert!(
        word(&ours, "p3").unwrap().starts_with("⏸ Pending"),
        "{ours}"
    );
    assert!(
        word(&ours, "p2").unwrap().starts_with("✘ Rejected"),
        "{ours}"
    );
    assert!(
        word(&claude, "p2").is_none(),
        "Claude Code's list leaves the rejected one out"
    );
    // We read them where they are and do not move them.
    assert!(
        sides[1].claude_json()["projects"][sides[1].project.to_str().unwrap()]
            ["enabledMcpjsonServers"]
            .is_array()
    );
}

#[test]
fn in_a_subfolder_the_settings_of_the_folder_and_of_the_root_both_count_as_in_claude_code() {
    let side = Side::new();
    let root = &side.project;
    std::fs::create_dir_all(root.join(".git")).unwrap();
    write(
        &root.join(".mcp.json"),
        r#"{"mcpServers":{"p1":{"command":"/bin/true"},"p2":{"command":"/bin/true","args":["2"]}}}"#,
    );
    write(
        &root.join("sub/.claude/settings.local.json"),
        r#"{"enabledMcpjsonServers":["p1"]}"#,
    );
    write(
        &root.join(".claude/settings.local.json"),
        r#"{"enabledMcpjsonServers":["p2"]}"#,
    );
    write(
        &side.home.join(".claude.json"),
        &serde_json::json!({"projects": {root.to_str().unwrap(): {"hasTrustDialogAccepted": true}}}).to_string(),
    );
    for (folder, p1_approved) in [("sub", true), ("sub/deeper", false)] {
        let cwd = root.join(folder);
        std::fs::create_dir_all(&cwd).unwrap();
        let claude = claude_mcp(&side, &["list"])
            .current_dir(&cwd)
            .output()
            .unwrap();
        let claude = String::from_utf8_lossy(&claude.stdout).into_owned();
        let ours = Command::new(env!("CARGO_BIN_EXE_mcpctl"))
            .arg("--project")
            .arg(&cwd)
            .arg("status")
            .env("HOME", &side.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("MCP_MANAGER_MANAGED_DIR", side.home.join("managed"))
            .output()
            .unwrap();
        let ours = String::from_utf8_lossy(&ours.stdout).into_owned();
        for text in [&claude, &ours] {
            let p1 = text
                .lines()
                .find(|l| l.starts_with("p1: "))
                .unwrap_or_default();
            let p2 = text
                .lines()
                .find(|l| l.starts_with("p2: "))
                .unwrap_or_default();
            assert_eq!(
                p1.contains("Pending approval"),
                !p1_approved,
                "{folder}: {text}"
            );
            assert!(
                p2.contains("Failed to connect"),
                "the root's approval counts: {text}"
            );
        }
    }
}

#[test]
fn a_plugin_server_is_listed_called_and_examined_like_any_other_with_its_plugin_variables() {
    let side = Side::new();
    write(
        &side.home.join(".claude/skills/ev/.claude-plugin/plugin.json"),
        &serde_json::json!({"name": "ev", "mcpServers": {"everything": {"command": "node", "args": [support::everything(), "stdio"]}}}).to_string(),
    );
    let tools = output_of(&side, false, &["tools", "plugin:ev:everything"]);
    assert!(tools.contains("plugin:ev:everything  echo"), "{tools}");
    let env = output_of(&side, false, &["call", "plugin:ev:everything", "get-env"]);
    let root = side.home.join(".claude/skills/ev");
    // Named after its id, `ev@skills-dir`, as Claude Code 2.1.332 names it.
    let data = side.home.join(".claude/plugins/data/ev-skills-dir");
    assert!(
        env.contains(&format!("\"CLAUDE_PLUGIN_ROOT\": \"{}\"", root.display())),
        "{env}"
    );
    assert!(
        env.contains(&format!("\"CLAUDE_PLUGIN_DATA\": \"{}\"", data.display())),
        "{env}"
    );
    let doctor = output_of(&side, false, &["doctor", "plugin:ev:everything"]);
    assert!(
        doctor.contains("plugin:ev:everything is healthy"),
        "{doctor}"
    );
}

/// The servers of `side` Claude Code's `mcp list` shows under `policy` (the rest it dropped),
/// with the words after each name; and `mcpctl list --json`'s servers under the same files.
fn both_views_under(policy: &Path, side: &Side) -> (Vec<(String, String)>, Vec<Value>) {
    let claude = with_policy(policy, &claude_mcp(side, &["list"]));
    let shown = String::from_utf8_lossy(&claude.stdout)
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(name, rest)| (name.to_string(), rest.to_string()))
        .collect();
    let ours = with_policy(policy, &mcpctl_real_managed(side, &["list", "--json"]));
    let list: Value = serde_json::from_slice(&ours.stdout).unwrap_or_else(|_| {
        panic!("mcpctl list: {}", String::from_utf8_lossy(&ours.stderr));
    });
    (shown, list["servers"].as_array().unwrap().clone())
}

/// One hostile spelling per server, with whether Claude Code 2.1.332 blocks it under the
/// rules of its case (it is the judge: the test fails when it disagrees with this table or
/// with us). `None`: the address is not a URL at all; Claude Code lists it and fails to
/// connect, we block it, so neither ever reaches it.
type Spellings = [(&'static str, &'static str, Option<bool>)];

/// Plants `rules` as the managed settings and the spellings as servers of the person and of
/// the (trusted, approved) project; returns our list.
fn policy_urls_agree_with_claude_code(
    rules: &str,
    user: &Spellings,
    project: &Spellings,
) -> Vec<Value> {
    let side = Side::new();
    let policy = side.home.parent().unwrap().join("policy");
    write(&policy.join("managed-settings.json"), rules);
    let servers = |spellings: &Spellings| -> Value {
        spellings
            .iter()
            .map(|(name, url, _)| {
                (
                    name.to_string(),
                    serde_json::json!({"type": "http", "url": url}),
                )
            })
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let key = side.project.to_str().unwrap();
    write(
        &side.home.join(".claude.json"),
        &serde_json::json!({
            "mcpServers": servers(user),
            "projects": {key: {"hasTrustDialogAccepted": true, "enableAllProjectMcpServers": true}}
        })
        .to_string(),
    );
    write(
        &side.project.join(".mcp.json"),
        &serde_json::json!({"mcpServers": servers(project)}).to_string(),
    );
    let (claude, ours) = both_views_under(&policy, &side);
    let mut wrong = Vec::new();
    for (name, url, blocked) in user.iter().chain(project) {
        let theirs = claude.iter().find(|(n, _)| n == name).map(|(_, s)| s);
        let mine = ours
            .iter()
            .find(|s| s["name"] == *name)
            .unwrap_or_else(|| panic!("{name} is missing from our list"));
        let rule = mine["blocked"]["rule"].as_str().unwrap_or("");
        match blocked {
            Some(blocked) => {
                if theirs.is_none() != *blocked {
                    wrong.push(format!(
                        "Claude Code disagrees with the table on {name} ({url}): {theirs:?}"
                    ));
                }
                if mine["blocked"].is_null() == *blocked || mine["willStart"] == *blocked {
                    wrong.push(format!(
                        "we disagree with Claude Code on {name} ({url}): {mine}"
                    ));
                }
            }
            None => {
                if !theirs.is_some_and(|t| t.contains("is not a valid URL")) {
                    wrong.push(format!("Claude Code lists {name} as not a URL: {theirs:?}"));
                }
                if !rule.contains("not a valid URL") {
                    wrong.push(format!("we block {name} ({url}) and say why: {mine}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    ours
}

#[test]
fn a_denied_server_url_blocks_every_spelling_of_its_address_as_in_claude_code() {
    let ours = policy_urls_agree_with_claude_code(
        r#"{"deniedMcpServers":[
            {"serverUrl":"http://127.0.0.1:8765/*"},
            {"serverUrl":"https://internal.example.com/mcp"},
            {"serverUrl":"http://[::ffff:127.0.0.1]:8766/*"}]}"#,
        &[
            ("plain", "http://127.0.0.1:8765/mcp", Some(true)),
            ("userinfo", "http://x@127.0.0.1:8765/mcp", Some(true)),
            ("short", "http://127.1:8765/mcp", Some(true)),
            ("hex", "http://0x7f000001:8765/mcp", Some(true)),
            ("octal", "http://0177.0.0.1:8765/mcp", Some(true)),
            ("decimal", "http://2130706433:8765/mcp", Some(true)),
            ("dot", "http://127.0.0.1.:8765/mcp", Some(true)),
            ("pct-host", "http://%31%32%37.0.0.1:8765/mcp", Some(true)),
            (
                "default-port",
                "https://internal.example.com:443/mcp",
                Some(true),
            ),
            ("host-dot", "https://internal.example.com./mcp", Some(true)),
            (
                "pct-letter",
                "https://%69nternal.example.com/mcp",
                Some(true),
            ),
            ("case", "HTTPS://INTERNAL.Example.COM/mcp", Some(true)),
            (
                "idna",
                "https://ＩＮＴＥＲＮＡＬ.example.com/mcp",
                Some(true),
            ),
            (
                "password",
                "https://a:b@internal.example.com/mcp",
                Some(true),
            ),
            (
                "dot-segment",
                "https://internal.example.com/x/../mcp",
                Some(true),
            ),
            (
                "backslash",
                "https:\\\\internal.example.com\\mcp",
                Some(true),
            ),
            (
                "query",
                "https://internal.example.com/mcp?x=1#f",
                Some(true),
            ),
            ("slash", "https://internal.example.com/mcp/", Some(true)),
            (
                "v6-canonical",
                "http://[::ffff:7f00:1]:8766/mcp",
                Some(true),
            ),
            (
                "v6-long",
                "http://[0:0:0:0:0:ffff:7f00:1]:8766/mcp",
                Some(true),
            ),
            // Claude Code compares paths as WHATWG writes them, and IPv6 apart from IPv4.
            (
                "pct-path",
                "https://internal.example.com/%6dcp",
                Some(false),
            ),
            (
                "v4-mapped",
                "http://[::ffff:127.0.0.1]:8765/mcp",
                Some(false),
            ),
            ("other-host", "http://127.0.0.2:8765/mcp", Some(false)),
            (
                "other-port",
                "https://internal.example.com:444/mcp",
                Some(false),
            ),
            ("bad-port", "http://127.0.0.1:99999/mcp", None),
        ],
        &[
            ("p-short", "http://127.1:8765/mcp", Some(true)),
            (
                "p-userinfo",
                "https://x@internal.example.com:443/mcp",
                Some(true),
            ),
            ("p-fine", "https://internal.example.com/other", Some(false)),
        ],
    );
    // Each block names the rule as written and its file.
    let block = |name: &str| ours.iter().find(|s| s["name"] == name).unwrap()["blocked"].clone();
    for (name, rule) in [
        (
            "hex",
            r#"deniedMcpServers {"serverUrl":"http://127.0.0.1:8765/*"}"#,
        ),
        (
            "p-userinfo",
            r#"deniedMcpServers {"serverUrl":"https://internal.example.com/mcp"}"#,
        ),
        (
            "v6-long",
            r#"deniedMcpServers {"serverUrl":"http://[::ffff:127.0.0.1]:8766/*"}"#,
        ),
    ] {
        assert_eq!(block(name)["rule"], rule);
        assert_eq!(
            block(name)["files"][0],
            "/etc/claude-code/managed-settings.json"
        );
    }
}

#[test]
fn an_allowed_server_url_admits_only_its_hosts_as_in_claude_code() {
    policy_urls_agree_with_claude_code(
        r#"{"allowedMcpServers":[
            {"serverUrl":"http://*.example.com/*"},
            {"serverUrl":"https://api-*.corp.test/mcp"},
            {"serverUrl":"http://127.0.0.1:*/ok/*"}]}"#,
        &[
            (
                "path-trick",
                "http://127.0.0.1:8765/.example.com/mcp",
                Some(true),
            ),
            (
                "userinfo-trick",
                "http://a.example.com@127.0.0.1/mcp",
                Some(true),
            ),
            (
                "query-trick",
                "http://127.0.0.1/mcp?.example.com/",
                Some(true),
            ),
            ("bare", "http://example.com/mcp", Some(true)),
            ("suffix", "http://evilexample.com/mcp", Some(true)),
            ("https", "https://a.example.com/mcp", Some(true)),
            ("sub", "http://a.example.com/mcp", Some(false)),
            ("subsub", "http://a.b.example.com/x/y", Some(false)),
            ("any-port", "http://a.example.com:8080/mcp", Some(false)),
            ("upper-dot", "HTTP://A.EXAMPLE.COM./mcp", Some(false)),
            ("partial", "https://api-x.corp.test/mcp", Some(false)),
            (
                "partial-query",
                "https://api-x.corp.test/mcp?q=1",
                Some(true),
            ),
            ("port-glob", "http://127.0.0.1:9999/ok/mcp", Some(false)),
            ("port-glob-no", "http://127.0.0.1:9999/no/mcp", Some(true)),
        ],
        &[(
            "p-path-trick",
            "http://127.0.0.1:1/x.example.com/",
            Some(true),
        )],
    );
}
