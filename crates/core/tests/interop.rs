//! Import from and export to other clients' files: one case per client and rule.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use mcp_manager_core::api::apply_import;
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::interop::{export, plan_import, strip_jsonc, Client};
use mcp_manager_core::{Locations, Scope};
use serde_json::{json, Value};

struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    locations: Locations,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join("home")).unwrap();
        fs::create_dir_all(root.join("project/.git")).unwrap();
        let mut locations = Locations::new(root.join("home"), None, &root.join("project")).unwrap();
        locations.managed_dir = root.join("managed");
        World {
            _dir: dir,
            root,
            locations,
        }
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.root.join(name);
        fs::write(&path, text).unwrap();
        path
    }
}

/// (name, transport, target) of what a plan adds; (name) of what it skips.
fn plan_rows(
    world: &World,
    client: Client,
    text: &str,
) -> (Vec<(String, String, String)>, Vec<String>) {
    let path = world.write(&format!("source-{}", client.as_str()), text);
    let plan = plan_import(&world.locations, client, Some(&path), Scope::User).unwrap();
    (
        plan.add
            .iter()
            .map(|i| {
                (
                    i.name.clone(),
                    i.transport.as_str().to_string(),
                    i.target.clone(),
                )
            })
            .collect(),
        plan.skipped.iter().map(|s| s.name.clone()).collect(),
    )
}

fn row(name: &str, transport: &str, target: &str) -> (String, String, String) {
    (name.into(), transport.into(), target.into())
}

#[test]
fn each_client_shape_is_read() {
    let world = World::new();
    /// (rule, client, file text, what is added, what is skipped)
    type Case<'a> = (
        &'a str,
        Client,
        String,
        Vec<(String, String, String)>,
        Vec<&'a str>,
    );
    let cases: Vec<Case> = vec![
        (
            "claude_desktop_stdio",
            Client::ClaudeDesktop,
            json!({"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs", "/tmp"], "env": {"A": "1"}}}}).to_string(),
            vec![row("fs", "stdio", "npx -y server-fs /tmp")],
            vec![],
        ),
        (
            "cursor_url_without_type_is_streamable_http",
            Client::Cursor,
            json!({"mcpServers": {"remote": {"url": "https://c.example/mcp", "headers": {"X": "y"}}, "legacy": {"type": "sse", "url": "https://c.example/sse"}}}).to_string(),
            vec![row("remote", "http", "https://c.example/mcp"), row("legacy", "sse", "https://c.example/sse")],
            vec![],
        ),
        (
            "windsurf_server_url",
            Client::Windsurf,
            json!({"mcpServers": {"w": {"serverUrl": "https://w.example/mcp"}}}).to_string(),
            vec![row("w", "http", "https://w.example/mcp")],
            vec![],
        ),
        (
            "gemini_http_url_is_http_and_url_is_sse",
            Client::Gemini,
            json!({"mcpServers": {"h": {"httpUrl": "https://g.example/mcp"}, "s": {"url": "https://g.example/sse"}, "c": {"command": "node", "args": ["x.js"], "cwd": "/srv"}}}).to_string(),
            vec![row("h", "http", "https://g.example/mcp"), row("s", "sse", "https://g.example/sse")],
            vec!["c"],
        ),
        (
            "zed_both_command_shapes_remote_and_extensions_skipped",
            Client::Zed,
            "{\n  // Zed settings allow comments\n  \"theme\": \"One\",\n  \"context_servers\": {\n    \"new\": {\"command\": \"node\", \"args\": [\"a.js\"],},\n    \"old\": {\"command\": {\"path\": \"python\", \"args\": [\"-m\", \"srv\"], \"env\": {}}, \"settings\": {}},\n    \"remote\": {\"url\": \"https://z.example/mcp\"},\n    \"ext\": {\"source\": \"extension\", \"settings\": {}}\n  }\n}".to_string(),
            vec![row("new", "stdio", "node a.js"), row("old", "stdio", "python -m srv"), row("remote", "http", "https://z.example/mcp")],
            vec!["ext"],
        ),
        (
            "codex_toml_command_and_url_with_bearer_token_variable",
            Client::Codex,
            "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\nenv = { KEY = \"v\" }\n\n[mcp_servers.remote]\nurl = \"https://x.example/mcp\"\nbearer_token_env_var = \"X_TOKEN\"\n".to_string(),
            vec![row("docs", "stdio", "npx -y docs-mcp"), row("remote", "http", "https://x.example/mcp")],
            vec![],
        ),
        (
            "invalid_names_are_skipped_with_the_rule",
            Client::Cursor,
            json!({"mcpServers": {"has space": {"command": "x"}, "ok": {"command": "y"}}}).to_string(),
            vec![row("ok", "stdio", "y")],
            vec!["has space"],
        ),
    ];
    for (rule, client, text, add, skipped) in cases {
        let (got_add, got_skipped) = plan_rows(&world, client, &text);
        assert_eq!(got_add, add, "{rule}: added");
        assert_eq!(got_skipped, skipped, "{rule}: skipped");
    }
}

#[test]
fn codex_bearer_token_becomes_an_authorization_header_with_a_variable() {
    let world = World::new();
    let path = world.write("config.toml", "[mcp_servers.remote]\nurl = \"https://x.example/mcp\"\nbearer_token_env_var = \"X_TOKEN\"\n");
    let plan = plan_import(&world.locations, Client::Codex, Some(&path), Scope::User).unwrap();
    assert_eq!(
        plan.add[0].entry["headers"],
        json!({"Authorization": "Bearer ${X_TOKEN}"})
    );
}

#[test]
fn vscode_inputs_variables_and_the_supplied_values() {
    let world = World::new();
    let path = world.write(
        "mcp.json",
        &json!({
            "inputs": [
                {"type": "promptString", "id": "token", "description": "GitHub token", "password": true},
                {"type": "promptString", "id": "unused"}
            ],
            "servers": {
                "gh": {"type": "http", "url": "https://api.example/mcp", "headers": {"Authorization": "Bearer ${input:token}"}},
                "local": {"type": "stdio", "command": "${workspaceFolder}/bin/srv", "args": ["--home", "${env:HOME}"]}
            }
        })
        .to_string(),
    );
    let plan = plan_import(
        &world.locations,
        Client::Vscode,
        Some(&path),
        Scope::Project,
    )
    .unwrap();
    assert_eq!(
        plan.inputs.len(),
        1,
        "only inputs a server uses are asked for"
    );
    assert_eq!(plan.inputs[0].id, "token");
    assert!(plan.inputs[0].password);
    let local = plan.add.iter().find(|i| i.name == "local").unwrap();
    let root = world.root.join("project");
    assert_eq!(
        local.target,
        format!("{}/bin/srv --home ${{HOME}}", root.display()),
        "workspaceFolder and env: translated"
    );

    let err = apply_import(&world.locations, &plan, &BTreeMap::new()).unwrap_err();
    assert!(
        err.to_string().contains("token"),
        "a missing input is named: {err}"
    );
    assert!(
        !root.join(".mcp.json").exists(),
        "nothing written when an input is missing"
    );

    let values = BTreeMap::from([("token".to_string(), "ghp_123".to_string())]);
    let added = apply_import(&world.locations, &plan, &values).unwrap();
    assert_eq!(added, ["gh", "local"]);
    let written: Value =
        serde_json::from_str(&fs::read_to_string(root.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(
        written["mcpServers"]["gh"]["headers"]["Authorization"],
        "Bearer ghp_123"
    );
}

#[test]
fn conflicts_and_identical_servers_are_not_written() {
    let world = World::new();
    fs::write(
        world.locations.claude_json(),
        json!({"mcpServers": {"same": {"type": "stdio", "command": "x", "args": [], "env": {}}, "differs": {"command": "old"}}}).to_string(),
    )
    .unwrap();
    let path = world.write("cursor.json", &json!({"mcpServers": {"same": {"command": "x"}, "differs": {"command": "new"}, "fresh": {"command": "f"}}}).to_string());
    let plan = plan_import(&world.locations, Client::Cursor, Some(&path), Scope::User).unwrap();
    assert_eq!(
        plan.add.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(),
        ["fresh"]
    );
    assert_eq!(plan.skipped[0].name, "same");
    assert!(plan.skipped[0].reason.contains("same settings"));
    assert_eq!(plan.conflicts[0].name, "differs");
    apply_import(&world.locations, &plan, &BTreeMap::new()).unwrap();
    let catalog = Catalog::load(&world.locations);
    assert_eq!(
        catalog.effective("differs").unwrap().config.target(),
        "old",
        "a conflict is never overwritten"
    );
    assert!(catalog.effective("fresh").is_some());
}

#[test]
fn export_keeps_the_target_file_and_lists_what_it_cannot_express() {
    let world = World::new();
    fs::write(
        world.locations.claude_json(),
        json!({"mcpServers": {
            "local-tool": {"type": "stdio", "command": "node", "args": ["t.js"], "env": {"K": "v"}},
            "api": {"type": "http", "url": "https://a.example/mcp", "headers": {"X": "1"}, "oauth": {"clientId": "c"}},
            "socket": {"type": "ws", "url": "ws://127.0.0.1:1"}
        }})
        .to_string(),
    )
    .unwrap();
    let target = world.write(
        "cursor-mcp.json",
        &json!({"other": true, "mcpServers": {"theirs": {"command": "t"}}}).to_string(),
    );
    let report = export(&world.locations, Client::Cursor, Some(&target)).unwrap();
    assert_eq!(report.written, ["local-tool", "api"]);
    assert_eq!(
        report.not_expressible,
        [
            "api: oauth settings",
            "socket: cursor has no WebSocket transport (not exported)"
        ]
    );
    let written: Value = serde_json::from_str(&fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(written["other"], true, "other content is kept");
    assert!(
        written["mcpServers"]["theirs"].is_object(),
        "their servers are kept"
    );
    assert_eq!(
        written["mcpServers"]["api"],
        json!({"url": "https://a.example/mcp", "headers": {"X": "1"}})
    );

    let desktop = world.root.join("desktop.json");
    let report = export(&world.locations, Client::ClaudeDesktop, Some(&desktop)).unwrap();
    assert_eq!(report.written, ["local-tool"]);
    assert_eq!(
        report.not_expressible.len(),
        2,
        "remote servers cannot go to Claude Desktop"
    );

    let codex = world.write("config.toml", "# my settings\nmodel = \"o3\"\n");
    let report = export(&world.locations, Client::Codex, Some(&codex)).unwrap();
    assert_eq!(report.written, ["local-tool", "api"]);
    let text = fs::read_to_string(&codex).unwrap();
    assert!(
        text.starts_with("# my settings\nmodel = \"o3\"\n"),
        "TOML comments and keys kept:\n{text}"
    );
    let back = plan_import(&world.locations, Client::Codex, Some(&codex), Scope::Local).unwrap();
    let names: Vec<_> = back
        .add
        .iter()
        .map(|i| (i.name.as_str(), i.target.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("local-tool", "node t.js"),
            ("api", "https://a.example/mcp")
        ],
        "round trip"
    );
}

#[test]
fn a_target_with_comments_is_printed_not_rewritten() {
    let world = World::new();
    fs::write(
        world.locations.claude_json(),
        json!({"mcpServers": {"t": {"command": "x"}}}).to_string(),
    )
    .unwrap();
    let original = "{\n  // my Zed settings\n  \"theme\": \"One\"\n}\n";
    let target = world.write("zed.json", original);
    let report = export(&world.locations, Client::Zed, Some(&target)).unwrap();
    assert!(report.written.is_empty());
    assert!(report
        .printed
        .as_deref()
        .unwrap()
        .contains("\"context_servers\""));
    assert_eq!(
        fs::read_to_string(&target).unwrap(),
        original,
        "never rewritten"
    );
}

#[test]
fn jsonc_rules() {
    let cases = [
        (
            "plain_json_is_unchanged",
            "{\"a\": [1, 2]}",
            "{\"a\": [1, 2]}",
        ),
        ("line_comments_go", "{\"a\": 1 // c\n}", "{\"a\": 1 \n}"),
        ("block_comments_go", "{/* x */\"a\": 1}", "{\"a\": 1}"),
        (
            "trailing_commas_go",
            "{\"a\": [1, 2,], }",
            "{\"a\": [1, 2] }",
        ),
        (
            "slashes_in_strings_stay",
            "{\"u\": \"http://x//y/*z*/\"}",
            "{\"u\": \"http://x//y/*z*/\"}",
        ),
        (
            "escaped_quotes_in_strings",
            "{\"q\": \"a\\\"//b\"}",
            "{\"q\": \"a\\\"//b\"}",
        ),
    ];
    for (rule, input, want) in cases {
        assert_eq!(strip_jsonc(input), want, "{rule}");
    }
}

/// A repository commits `.vscode -> ~/.config/Code/User`: exporting to the project's VS Code
/// file must not write the person's own VS Code configuration (whose servers VS Code starts).
#[test]
fn export_to_a_project_file_never_follows_a_link_out_of_the_project() {
    let world = World::new();
    fs::write(
        world.locations.claude_json(),
        json!({"mcpServers": {"mine": {"type": "stdio", "command": "node"}}}).to_string(),
    )
    .unwrap();
    let user_code = world.root.join("home/.config/Code/User");
    fs::create_dir_all(&user_code).unwrap();
    std::os::unix::fs::symlink(&user_code, world.root.join("project/.vscode")).unwrap();
    let err = export(&world.locations, Client::Vscode, None).unwrap_err();
    assert!(err.to_string().contains("outside the project"), "{err}");
    assert!(!user_code.join("mcp.json").exists());
    // The same for Cursor's project file, a link planted at the file itself.
    fs::create_dir_all(world.root.join("project/.cursor")).unwrap();
    fs::write(world.root.join("home/cursor.json"), "{}").unwrap();
    std::os::unix::fs::symlink(
        world.root.join("home/cursor.json"),
        world.root.join("project/.cursor/mcp.json"),
    )
    .unwrap();
    assert!(export(&world.locations, Client::CursorProject, None).is_err());
    assert_eq!(
        fs::read_to_string(world.root.join("home/cursor.json")).unwrap(),
        "{}"
    );
}

/// A repository commits `.vscode/mcp.json` whose server loads its own code through
/// `NODE_OPTIONS`: importing it into another scope would start that server with no approval.
/// Not before the folder is trusted; once it is, the plan says what deserves a look.
#[test]
fn importing_a_project_s_client_file_waits_for_trust_and_shows_what_it_runs() {
    let world = World::new();
    let vscode = world.root.join("project/.vscode");
    fs::create_dir_all(&vscode).unwrap();
    fs::write(
        vscode.join("mcp.json"),
        json!({"servers": {"everything": {"type": "stdio", "command": "node", "args": ["x.js"],
            "env": {"NODE_OPTIONS": "--require ./.vscode/x.js"}}}})
        .to_string(),
    )
    .unwrap();
    let err = plan_import(&world.locations, Client::Vscode, None, Scope::Local).unwrap_err();
    assert!(
        err.to_string().contains("is not trusted")
            && err.to_string().contains("without your approval"),
        "{err}"
    );
    // The same file named by its path.
    let named = vscode.join("mcp.json");
    assert!(plan_import(&world.locations, Client::Vscode, Some(&named), Scope::User).is_err());
    mcp_manager_core::config::trust::trust(&world.locations).unwrap();
    let plan = plan_import(&world.locations, Client::Vscode, None, Scope::Local).unwrap();
    assert_eq!(plan.add.len(), 1);
    assert!(
        plan.add[0]
            .warnings
            .iter()
            .any(|w| w.contains("NODE_OPTIONS")),
        "{:?}",
        plan.add[0].warnings
    );
}
