//! Marketplaces that call themselves Anthropic's, judged by Claude Code 2.1.332 in the same home.
//!
//! One home holds a plugin (with one stdio server) from each of many marketplaces: reserved
//! names from other sources and from `anthropics`, look-alikes, other spellings, non-ASCII
//! names and ordinary ones. `claude plugin list --json` says which it loads (those it lists
//! with `mcpServers`) and why it refuses the rest; `mcpctl plugin --json` must agree on every
//! one, in the same words, and `mcpctl list` may hold no server of a refused plugin.

#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::collections::BTreeMap;
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

/// A home where plugin `p<i>` of each marketplace `(name, source)` is installed and turned on.
fn home(marketplaces: &[(&str, Value)]) -> Home {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, project) = (root.join("home"), root.join("project"));
    std::fs::create_dir_all(&project).unwrap();
    let (mut known, mut installed, mut enabled) = (json!({}), json!({}), json!({}));
    for (i, (name, source)) in marketplaces.iter().enumerate() {
        let location = root.join(format!("marketplace{i}"));
        let plugin = format!("p{i}");
        write(
            &location.join(".claude-plugin/marketplace.json"),
            &json!({"name": name, "owner": {"name": "o"}, "plugins": [{"name": plugin, "source": "./p"}]}),
        );
        write(
            &location.join("p/.claude-plugin/plugin.json"),
            &json!({"name": plugin, "version": "1.0.0"}),
        );
        write(
            &location.join("p/.mcp.json"),
            &json!({"mcpServers": {"s": {"command": "true"}}}),
        );
        known[name] = json!({"source": source, "installLocation": location, "lastUpdated": "2026-01-01T00:00:00.000Z"});
        let id = format!("{plugin}@{name}");
        installed[&id] = json!([{
            "scope": "user", "installPath": location.join("p"), "version": "1.0.0",
            "installedAt": "2026-01-01T00:00:00.000Z", "lastUpdated": "2026-01-01T00:00:00.000Z"
        }]);
        enabled[&id] = json!(true);
    }
    let plugins = home.join(".claude/plugins");
    write(&plugins.join("known_marketplaces.json"), &known);
    write(
        &plugins.join("installed_plugins.json"),
        &json!({"version": 2, "plugins": installed}),
    );
    write(
        &home.join(".claude/settings.json"),
        &json!({"enabledPlugins": enabled}),
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
        .env("HOME", &home.home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_PLUGIN_CACHE_DIR")
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

/// Claude Code's refusal of a marketplace whose git address it will not use: "not found" for
/// a record it drops, "Its git URL can't be used" for one it ignores.
fn git_unusable(theirs: &Value) -> bool {
    let words = theirs["errors"][0].as_str().unwrap_or("");
    words.contains("Its git URL can't be used")
        || (words.starts_with("Marketplace ") && words.ends_with(" not found"))
}

fn parse(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "JSON expected: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn marketplaces_are_refused_as_claude_code_refuses_them_and_start_no_server() {
    let github = |repo: &str| json!({"source": "github", "repo": repo});
    let git = |url: &str| json!({"source": "git", "url": url});
    let marketplaces = [
        ("good", github("someone/good")),
        ("claude-code-tools", github("x/y")),
        ("Anthropic_Directory", github("x/y")),
        ("my-claude-plugins", github("x/y")),
        ("agent-skills", github("anthropics/skills")),
        (
            "CLAUDE-PLUGINS-OFFICIAL",
            github("anthropics/claude-plugins-official"),
        ),
        (
            "knowledge-work-plugins",
            git("https://github.com/anthropics/knowledge-work-plugins.git"),
        ),
        (
            "life-sciences",
            git("git@github.com:anthropics/life-sciences.git"),
        ),
        // Reserved, from elsewhere.
        (
            "claude-plugins-official",
            github("someone/claude-plugins-official"),
        ),
        ("Claude-For-Legal", github("x/y")),
        ("claude-tag-plugins", github("anthropics/x/../../evil/y")),
        (
            "first-party-plugins",
            git("https://gitlab.com/anthropics/x.git"),
        ),
        (
            "healthcare",
            git("https://github.com/anthropics-evil/x.git"),
        ),
        (
            "anthropic-marketplace",
            json!({"source": "directory", "path": "/tmp"}),
        ),
        ("anthropic-plugin-directory", github("x/y")),
        // Passing for Anthropic's.
        ("official-claude-tools", github("x/y")),
        ("claude_official", github("x/y")),
        ("CLAUDE-MARKETPLACE", github("x/y")),
        ("claude-plugins-officia1", github("x/y")),
        ("claude.plugins.official", github("x/y")),
        // Reserved, from addresses that only look like anthropics' on GitHub.
        ("life-sciences.", github("o/r")),
        ("claude-for-financial-services", github("anthropics/x?y")),
        ("financial-services-plugins", github("anthropics/x/evil")),
        (
            "claude-code-marketplace",
            git("https://evil.com#@github.com/anthropics/x"),
        ),
        (
            "anthropic-agent-skills",
            git("evil@x@github.com:anthropics/x"),
        ),
        (
            "claude-plugins-community",
            git("https://github.com/anthropics/x/tree/main"),
        ),
        ("Anthropic-Plugin-Directory", github("anthropics/x")),
        // Reserved, and really anthropics'.
        (
            "claude-code-plugins",
            git("https://www.github.com/anthropics/x"),
        ),
        (
            "anthropic-plugins",
            git("ssh://git@ssh.github.com:443/anthropics/x"),
        ),
        ("CLAUDE-PLUGIN-DIRECTORY", github("anthropics/x")),
        ("agent-skills-", github("o/r")),
        // Git addresses Claude Code will not give git, whatever the name.
        ("m-gitproto", git("git://github.com/o/r")),
        ("m-gitplus", git("git+https://github.com/o/r")),
        ("m-backslash", git("https://evil.com\\@github.com/o/r")),
        ("m-garbage", git("not a url")),
        ("m-fileurl", git("file:///tmp/repo")),
        ("m-github-odd", github("o/r?x")),
        // Not plugin ids: non-ASCII look-alikes and other signs.
        ("\u{ff43}laude-plugins-official", github("x/y")),
        ("anthropic\u{200b}-marketplace", github("x/y")),
        ("cl\u{0430}ude-tools", github("x/y")),
        ("-claude-plugins", github("x/y")),
    ];
    let home = home(&marketplaces);

    let claude = run(
        {
            let mut c = support::claude_cli();
            c.args(["plugin", "list", "--json"]);
            c
        },
        &home,
    );
    let claude: BTreeMap<String, Value> = parse(&claude)
        .as_array()
        .expect("a list")
        .iter()
        .filter(|p| !p["id"].as_str().unwrap_or("").ends_with("@builtin"))
        .map(|p| (p["id"].as_str().unwrap().to_string(), p.clone()))
        .collect();
    let ours: BTreeMap<String, Value> = parse(&mcpctl(&home, &["--json", "plugin"]))
        .as_array()
        .expect("a list")
        .iter()
        .map(|p| (p["id"].as_str().unwrap().to_string(), p.clone()))
        .collect();

    let (mut loaded, mut refused) = (0, 0);
    for (i, (name, _)) in marketplaces.iter().enumerate() {
        let id = format!("p{i}@{name}");
        let mine = ours.get(&id).unwrap_or_else(|| panic!("{id} is listed"));
        match claude.get(&id) {
            Some(theirs) if theirs.get("mcpServers").is_some() => {
                loaded += 1;
                assert_eq!(mine["enabled"], true, "{id} loads in Claude Code: {mine}");
                assert_eq!(mine["refused"], false, "{id}");
            }
            Some(theirs) if git_unusable(theirs) => {
                // Claude Code drops some such records ("not found") and ignores others; either
                // way none of it loads, and we say why in our words.
                refused += 1;
                assert_eq!(mine["refused"], true, "{id}: {mine}");
                assert!(
                    mine["why"]
                        .as_str()
                        .unwrap()
                        .contains("Its git URL can't be used"),
                    "{id}: {mine}"
                );
            }
            Some(theirs) => {
                refused += 1;
                assert_eq!(mine["enabled"], false, "{id}");
                assert_eq!(mine["refused"], true, "{id}");
                // Claude Code puts the detail of an ignored name in its debug log; we say it.
                let words = theirs["errors"][0]
                    .as_str()
                    .unwrap()
                    .trim_end_matches(" (see the debug log)");
                assert!(
                    mine["why"].as_str().unwrap().starts_with(words),
                    "{id}: Claude Code says {words:?}, we say {}",
                    mine["why"]
                );
            }
            None => {
                // Claude Code sets the record aside and does not list it.
                refused += 1;
                assert_eq!(mine["refused"], true, "{id}: {mine}");
                assert!(
                    mine["why"]
                        .as_str()
                        .unwrap()
                        .contains("not a valid plugin id"),
                    "{id}: {mine}"
                );
            }
        }
    }
    assert_eq!(
        (loaded, refused),
        (14, 27),
        "the cases are what they were written for"
    );
    // The one marketplace whose catalog Claude Code fetches itself is named as it names it.
    assert!(ours["p14@anthropic-plugin-directory"]["why"]
        .as_str()
        .unwrap()
        .contains("the Anthropic Directory's catalog is not on this machine yet"));

    // No refused plugin's server is configured, and turning one on is refused with the reason.
    let list = parse(&mcpctl(&home, &["--json", "list"]));
    let configured: Vec<&str> = list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    for (i, (name, _)) in marketplaces.iter().enumerate() {
        let server = format!("plugin:p{i}:s");
        let on = ours[&format!("p{i}@{name}")]["enabled"] == true;
        assert_eq!(
            configured.contains(&server.as_str()),
            on,
            "{server} in mcpctl list: {configured:?}"
        );
    }
    let enable = mcpctl(&home, &["plugin", "enable", "p8@claude-plugins-official"]);
    assert!(!enable.status.success());
    assert!(
        String::from_utf8_lossy(&enable.stderr).contains("stays off whatever the settings say"),
        "{}",
        String::from_utf8_lossy(&enable.stderr)
    );
}
