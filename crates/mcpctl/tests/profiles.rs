//! Profiles, judged by Claude Code 2.1.332 in the same home: after `mcpctl profile apply`,
//! `claude mcp list` shows exactly the profile's servers enabled (user, local, project and
//! plugin servers alike), and `mcpctl profile undo` gives back `~/.claude.json` byte for byte.
//! A profile the project shares is applied only once the folder is trusted, and a launch file
//! carries no secret.

#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

struct Home {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    project: PathBuf,
}

fn write(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

const SECRET: &str = "ghp_profile-secret-0d9e";

/// User servers u1 and u2 (u2 with a secret in its env), local l1, project p1 (approved, the
/// folder trusted when `trusted`) and the plugin server `plugin:tools:git`.
fn home(trusted: bool) -> Home {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, project) = (root.join("home"), root.join("project"));
    let edge = support::repo("tests/fixtures/servers/edge-server.mjs");
    let stdio = json!({"type": "stdio", "command": "node", "args": [edge.display().to_string()], "env": {}});
    let mut u2 = stdio.clone();
    u2["env"] = json!({"GITHUB_TOKEN": SECRET, "DB_URL": format!("postgres://u:{SECRET}@h/${{DB}}"),
        "WITH_DEFAULT": format!("${{TOKEN:-{SECRET}}}"), "PLAIN_REF": "${HOME}"});
    u2["args"]
        .as_array_mut()
        .unwrap()
        .push(json!(format!("--api-key={SECRET}")));
    write(
        &project.join(".mcp.json"),
        &json!({"mcpServers": {"p1": stdio}}),
    );
    write(
        &project.join(".claude/settings.local.json"),
        &json!({"enabledMcpjsonServers": ["p1"]}),
    );
    let key = project.display().to_string();
    write(
        &home.join(".claude.json"),
        &json!({
            "hasCompletedOnboarding": true,
            "mcpServers": {"u1": stdio, "u2": u2},
            "projects": {key: {"hasTrustDialogAccepted": trusted, "mcpServers": {"l1": stdio}}}
        }),
    );
    // A plugin with one server, from a marketplace on disk.
    let market = root.join("market");
    write(
        &market.join(".claude-plugin/marketplace.json"),
        &json!({"name": "tools", "owner": {"name": "o"}, "plugins": [{"name": "git", "source": "./git"}]}),
    );
    write(
        &market.join("git/.claude-plugin/plugin.json"),
        &json!({"name": "git", "version": "1.0.0"}),
    );
    write(
        &market.join("git/.mcp.json"),
        // Another command line than the others': Claude Code drops a plugin server that
        // duplicates a configured one.
        &json!({"mcpServers": {"log": {"command": "node", "args": [edge.display().to_string(), "plugin"]}}}),
    );
    let plugins = home.join(".claude/plugins");
    write(
        &plugins.join("known_marketplaces.json"),
        &json!({"tools": {"source": {"source": "github", "repo": "someone/tools"}, "installLocation": market, "lastUpdated": "2026-01-01T00:00:00.000Z"}}),
    );
    write(
        &plugins.join("installed_plugins.json"),
        &json!({"version": 2, "plugins": {"git@tools": [{"scope": "user", "installPath": market.join("git"), "version": "1.0.0", "installedAt": "2026-01-01T00:00:00.000Z", "lastUpdated": "2026-01-01T00:00:00.000Z"}]}}),
    );
    write(
        &home.join(".claude/settings.json"),
        &json!({"enabledPlugins": {"git@tools": true}}),
    );
    Home {
        _dir: dir,
        root,
        home,
        project,
    }
}

fn run(mut command: Command, home: &Home) -> Output {
    command
        .current_dir(&home.project)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home.home)
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("MCP_MANAGER_MANAGED_DIR", home.root.join("managed"))
        .env("XDG_DATA_HOME", home.home.join(".local/share"))
        .output()
        .expect("runs")
}

fn mcpctl(home: &Home, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
    command.arg("--project").arg(&home.project).args(args);
    run(command, home)
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The servers `claude mcp list` shows, and which of them it shows disabled.
fn claude_list(home: &Home) -> (BTreeSet<String>, BTreeSet<String>) {
    let command = Command::new(support::repo(
        "tests/reference/node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    ));
    let mut command = command;
    command.args(["mcp", "list"]);
    let text = ok(run(command, home));
    let (mut all, mut disabled) = (BTreeSet::new(), BTreeSet::new());
    for line in text.lines() {
        let Some((name, rest)) = line.split_once(": ") else {
            continue;
        };
        if !rest.contains(" - ") {
            continue;
        }
        all.insert(name.to_string());
        if rest.contains("Disabled") {
            disabled.insert(name.to_string());
        }
    }
    (all, disabled)
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn an_applied_profile_is_what_claude_code_enables_and_undo_gives_the_file_back() {
    let home = home(true);
    let (all, disabled) = claude_list(&home);
    assert_eq!(all, set(&["u1", "u2", "l1", "p1", "plugin:git:log"]));
    assert!(disabled.is_empty(), "{disabled:?}");
    let before = std::fs::read(home.home.join(".claude.json")).unwrap();

    ok(mcpctl(
        &home,
        &[
            "profile",
            "save",
            "db work",
            "--servers",
            "u1,p1,plugin:git:log,gone",
        ],
    ));
    let plan: Value = serde_json::from_str(&ok(mcpctl(
        &home,
        &["profile", "apply", "db work", "--dry-run", "--json"],
    )))
    .unwrap();
    let off: BTreeSet<String> = serde_json::from_value(plan["turnOff"].clone()).unwrap();
    assert_eq!(off, set(&["u2", "l1"]));
    assert_eq!(plan["missing"], json!(["gone"]));
    assert_eq!(
        std::fs::read(home.home.join(".claude.json")).unwrap(),
        before,
        "a dry run writes nothing"
    );

    let text = ok(mcpctl(&home, &["profile", "apply", "db work"]));
    assert!(text.contains("- u2  (turned off)"), "{text}");
    let (_, disabled) = claude_list(&home);
    assert_eq!(
        disabled,
        set(&["u2", "l1"]),
        "Claude Code enables exactly the profile"
    );
    let listed: Value =
        serde_json::from_str(&ok(mcpctl(&home, &["profile", "list", "--json"]))).unwrap();
    assert_eq!(listed["profiles"][0]["active"], true);
    assert_eq!(listed["undo"], "db work");

    // Another profile on top, then undo: the state before the last apply.
    ok(mcpctl(
        &home,
        &[
            "profile",
            "save",
            "all",
            "--servers",
            "u1,u2,l1,p1,plugin:git:log",
        ],
    ));
    ok(mcpctl(&home, &["profile", "apply", "all"]));
    assert!(claude_list(&home).1.is_empty());
    let undone: Value =
        serde_json::from_str(&ok(mcpctl(&home, &["profile", "undo", "--json"]))).unwrap();
    assert_eq!(undone["profile"], "all");
    assert_eq!(claude_list(&home).1, set(&["u2", "l1"]));

    // From the first state: apply, undo, and the file is the same bytes. (Claude Code has run
    // in this home once, as in any real one: its first run adds its own keys to the file.)
    let home = self::home(true);
    claude_list(&home);
    let before = std::fs::read(home.home.join(".claude.json")).unwrap();
    let local = home.project.join(".claude/settings.local.json");
    let local_before = std::fs::read(&local).unwrap();
    ok(mcpctl(
        &home,
        &[
            "profile",
            "save",
            "one",
            "--servers",
            "u1",
            "--deny",
            "mcp__u1__huge,mcp__u1__never",
        ],
    ));
    ok(mcpctl(&home, &["profile", "apply", "one"]));
    let settings: Value = serde_json::from_slice(&std::fs::read(&local).unwrap()).unwrap();
    assert_eq!(
        settings["permissions"]["deny"],
        json!(["mcp__u1__huge", "mcp__u1__never"]),
        "Claude Code's own deny rules"
    );
    assert!(
        !mcpctl(
            &home,
            &[
                "profile",
                "save",
                "bad",
                "--servers",
                "u1",
                "--deny",
                "Bash(rm:*)"
            ]
        )
        .status
        .success(),
        "only MCP tools"
    );
    assert_eq!(
        claude_list(&home).1,
        set(&["u2", "l1", "p1", "plugin:git:log"])
    );
    let undone: Value =
        serde_json::from_str(&ok(mcpctl(&home, &["profile", "undo", "--json"]))).unwrap();
    assert_eq!(undone["identical"], true, "{undone}");
    assert_eq!(
        std::fs::read(&local).unwrap(),
        local_before,
        "the deny rules are gone"
    );
    assert_eq!(
        std::fs::read(home.home.join(".claude.json")).unwrap(),
        before
    );
    assert!(
        !mcpctl(&home, &["profile", "undo"]).status.success(),
        "nothing left to undo"
    );
}

#[test]
fn a_shared_profile_waits_for_trust_and_a_launch_file_holds_no_secret() {
    let home = home(false);
    ok(mcpctl(
        &home,
        &["profile", "save", "team", "--servers", "u1,u2", "--shared"],
    ));
    let shared: Value =
        serde_json::from_slice(&std::fs::read(home.project.join(".mcp-profiles.json")).unwrap())
            .unwrap();
    assert_eq!(shared["profiles"]["team"]["servers"], json!(["u1", "u2"]));
    let refused = mcpctl(&home, &["profile", "apply", "team"]);
    assert!(!refused.status.success());
    let words = String::from_utf8_lossy(&refused.stderr);
    assert!(words.contains("trusted"), "{words}");
    assert!(claude_list(&home).1.is_empty(), "nothing was turned off");

    // Launch: a shared profile waits for trust too; a private one leaves out the project
    // server the folder's trust holds back, and copies no secret into a file whose folder
    // keeps its mode.
    let refused = mcpctl(&home, &["profile", "launch", "team"]);
    assert!(!refused.status.success());
    ok(mcpctl(
        &home,
        &["profile", "save", "mine", "--servers", "u1,u2,p1"],
    ));
    let folder = home.root.join("shared-folder");
    std::fs::create_dir(&folder).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let out = folder.join("mine.mcp.json");
    let launch: Value = serde_json::from_str(&ok(mcpctl(
        &home,
        &[
            "profile",
            "launch",
            "mine",
            "-o",
            out.to_str().unwrap(),
            "--json",
        ],
    )))
    .unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&folder), 0o1777, "the folder is left as it was");
    assert_eq!(mode(&out), 0o600);
    let file = std::fs::read_to_string(&out).unwrap();
    assert!(!file.contains(SECRET), "{file}");
    let written: Value = serde_json::from_str(&file).unwrap();
    let env = &written["mcpServers"]["u2"]["env"];
    assert_eq!(env["GITHUB_TOKEN"], "${GITHUB_TOKEN}");
    assert_eq!(env["DB_URL"], "${DB_URL}");
    assert_eq!(env["WITH_DEFAULT"], "${WITH_DEFAULT}");
    assert_eq!(env["PLAIN_REF"], "${HOME}", "a plain reference is kept");
    assert!(written["mcpServers"].get("p1").is_none());
    let left_out = launch["leftOut"].to_string();
    assert!(left_out.contains("p1"), "{left_out}");
    assert!(launch["command"]
        .as_str()
        .unwrap()
        .ends_with("--strict-mcp-config"));
}
