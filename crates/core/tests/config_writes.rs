//! Writing configuration: lossless, atomic, under Claude Code's lock, and refusing what Claude
//! Code refuses. Real files in temporary folders.

use std::fs;
use std::path::{Path, PathBuf};

use mcp_manager_core::api::{self, Written};
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::document::{self, NewFileMode};
use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use mcp_manager_core::{Approval, ConfigError, ErrorCode, Locations, Scope};
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
        let project = root.join("repo/sub");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&project).unwrap();
        fs::create_dir_all(root.join("repo/.git")).unwrap();
        World {
            _dir: dir,
            home,
            project,
        }
    }

    fn root(&self) -> PathBuf {
        self.project.parent().unwrap().to_path_buf()
    }

    fn locations(&self) -> Locations {
        let mut l = Locations::new(self.home.clone(), None, &self.project).unwrap();
        l.managed_dir = self.home.join("managed");
        l
    }

    fn claude_json(&self) -> Value {
        serde_json::from_str(&fs::read_to_string(self.home.join(".claude.json")).unwrap()).unwrap()
    }
}

fn stdio(command: &str) -> ServerConfig {
    ServerConfig::stdio(command, vec![], vec![])
}

fn add(world: &World, name: &str, scope: Scope) -> Result<Written, ConfigError> {
    api::add_server(
        &world.locations(),
        name,
        scope,
        &stdio("node"),
        &Default::default(),
    )
}

#[test]
fn new_project_servers_go_to_the_git_root_and_local_is_keyed_by_it() {
    let world = World::new();
    let written = add(&world, "p", Scope::Project).unwrap();
    assert_eq!(Path::new(&written.path), world.root().join(".mcp.json"));
    add(&world, "l", Scope::Local).unwrap();
    let key = world.root().display().to_string();
    assert!(
        world.claude_json()["projects"][&key]["mcpServers"]["l"].is_object(),
        "keyed by the git root"
    );
}

#[test]
fn unknown_keys_order_and_layout_survive_a_write() {
    let world = World::new();
    let path = world.home.join(".claude.json");
    let original = "{\n    \"zeta\": 1,\n    \"mcpServers\": {\n        \"old\": {\n            \"command\": \"x\",\n            \"custom\": {\"keep\": [1, 2]}\n        }\n    },\n    \"alpha\": {\"nested\": true}\n}\n";
    fs::write(&path, original).unwrap();
    add(&world, "new", Scope::User).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("{\n    \"zeta\": 1,\n    \"mcpServers\""),
        "key order and 4-space indent kept:\n{text}"
    );
    assert!(text.ends_with("}\n"), "the final newline is kept");
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        doc["mcpServers"]["old"]["custom"],
        json!({"keep": [1, 2]}),
        "unknown keys kept"
    );
    assert_eq!(doc["alpha"], json!({"nested": true}));
    let keys: Vec<&String> = doc["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["old", "new"], "the new server is appended");
}

#[test]
fn a_broken_file_is_never_overwritten() {
    let world = World::new();
    let path = world.home.join(".claude.json");
    let broken = "{\"mcpServers\": {\"a\": }";
    fs::write(&path, broken).unwrap();
    let err = add(&world, "new", Scope::User).unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigSyntax);
    assert!(err.to_string().contains("line 1 column 22"), "{err}");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        broken,
        "left exactly as it was"
    );
    assert!(
        !world.home.join(".claude.json.lock").exists(),
        "the lock is released"
    );
}

#[cfg(unix)]
#[test]
fn permissions_are_kept_new_claude_json_is_private_and_links_are_followed() {
    use std::os::unix::fs::PermissionsExt;
    let world = World::new();
    add(&world, "a", Scope::User).unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode(&world.home.join(".claude.json")),
        0o600,
        "a new ~/.claude.json is private"
    );

    let mcp = world.root().join(".mcp.json");
    fs::write(&mcp, "{}").unwrap();
    fs::set_permissions(&mcp, fs::Permissions::from_mode(0o640)).unwrap();
    add(&world, "p", Scope::Project).unwrap();
    assert_eq!(mode(&mcp), 0o640, "permissions survive the rename");

    let real = world.home.join("dotfiles/claude.json");
    fs::create_dir_all(real.parent().unwrap()).unwrap();
    fs::rename(world.home.join(".claude.json"), &real).unwrap();
    std::os::unix::fs::symlink(&real, world.home.join(".claude.json")).unwrap();
    add(&world, "b", Scope::User).unwrap();
    assert!(
        fs::symlink_metadata(world.home.join(".claude.json"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays"
    );
    let doc: Value = serde_json::from_str(&fs::read_to_string(&real).unwrap()).unwrap();
    assert!(
        doc["mcpServers"]["b"].is_object(),
        "written through the link"
    );
}

#[test]
fn writes_leave_no_temporary_files() {
    let world = World::new();
    for i in 0..5 {
        add(&world, &format!("s{i}"), Scope::User).unwrap();
    }
    let stray: Vec<_> = fs::read_dir(&world.home)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".claude.json")
        .collect();
    assert!(stray.is_empty(), "left behind: {stray:?}");
}

#[test]
fn add_refuses_bad_names_and_duplicates_in_the_same_scope() {
    let world = World::new();
    let err = add(&world, "bad name", Scope::User).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidName);
    add(&world, "dup", Scope::User).unwrap();
    let err = add(&world, "dup", Scope::User).unwrap_err();
    assert_eq!(err.code(), ErrorCode::ServerExists);
    assert!(
        err.to_string().contains("already exists in the user scope"),
        "{err}"
    );
    add(&world, "dup", Scope::Project).expect("another scope may hold the same name");
}

#[test]
fn remove_needs_a_scope_when_the_name_is_in_several() {
    let world = World::new();
    add(&world, "twice", Scope::User).unwrap();
    add(&world, "twice", Scope::Local).unwrap();
    let err = api::remove_server(&world.locations(), "twice", None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::AmbiguousScope);
    assert!(err.to_string().contains("local, user"), "{err}");
    let written = api::remove_server(&world.locations(), "twice", Some(Scope::User)).unwrap();
    assert_eq!(written.scope, Scope::User);
    api::remove_server(&world.locations(), "twice", None).expect("now only local has it");
    let err = api::remove_server(&world.locations(), "twice", None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::ServerNotFound);
}

#[test]
fn disable_and_enable_keep_the_entry_and_use_disabled_mcp_servers() {
    let world = World::new();
    add(&world, "srv", Scope::User).unwrap();
    api::set_enabled(&world.locations(), "srv", false).unwrap();
    let key = world.root().display().to_string();
    assert_eq!(
        world.claude_json()["projects"][&key]["disabledMcpServers"],
        json!(["srv"])
    );
    let catalog = Catalog::load(&world.locations());
    let entry = catalog.effective("srv").unwrap();
    assert!(
        entry.disabled && !entry.will_start(),
        "a disabled server does not start"
    );
    api::set_enabled(&world.locations(), "srv", false).unwrap();
    assert_eq!(
        world.claude_json()["projects"][&key]["disabledMcpServers"],
        json!(["srv"]),
        "no duplicate"
    );
    api::set_enabled(&world.locations(), "srv", true).unwrap();
    assert_eq!(
        world.claude_json()["projects"][&key]["disabledMcpServers"],
        json!([])
    );
    assert!(
        world.claude_json()["mcpServers"]["srv"].is_object(),
        "the entry was never deleted"
    );
    assert_eq!(
        api::set_enabled(&world.locations(), "ghost", false)
            .unwrap_err()
            .code(),
        ErrorCode::ServerNotFound
    );
}

#[test]
fn approve_and_reject_write_settings_local_and_rejection_elsewhere_wins() {
    let world = World::new();
    add(&world, "proj", Scope::Project).unwrap();
    let status = |w: &World| {
        Catalog::load(&w.locations())
            .effective("proj")
            .unwrap()
            .approval
    };
    assert_eq!(status(&world), Some(Approval::Pending));
    assert!(
        !Catalog::load(&world.locations())
            .effective("proj")
            .unwrap()
            .will_start(),
        "pending never starts"
    );
    assert_eq!(
        api::set_approval(&world.locations(), "proj", true)
            .unwrap_err()
            .code(),
        ErrorCode::Untrusted,
        "an approval in a folder not trusted would not count: trust comes first"
    );
    mcp_manager_core::config::trust::trust(&world.locations()).unwrap();
    assert_eq!(
        api::set_approval(&world.locations(), "proj", true).unwrap(),
        Approval::Approved
    );
    let local: Value = serde_json::from_str(
        &fs::read_to_string(world.root().join(".claude/settings.local.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(local["enabledMcpjsonServers"], json!(["proj"]));
    assert_eq!(
        api::set_approval(&world.locations(), "proj", false).unwrap(),
        Approval::Rejected
    );
    let local: Value = serde_json::from_str(
        &fs::read_to_string(world.root().join(".claude/settings.local.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(local["enabledMcpjsonServers"], json!([]), "out of one list");
    assert_eq!(
        local["disabledMcpjsonServers"],
        json!(["proj"]),
        "into the other"
    );

    fs::write(
        world.root().join(".claude/settings.json"),
        json!({"disabledMcpjsonServers": ["proj"]}).to_string(),
    )
    .unwrap();
    let err = api::set_approval(&world.locations(), "proj", true).unwrap_err();
    assert!(
        err.to_string().contains("settings.json") && err.to_string().contains("rejection wins"),
        "{err}"
    );
    assert_eq!(
        api::set_approval(&world.locations(), "not-project", true)
            .unwrap_err()
            .code(),
        ErrorCode::ServerNotFound
    );
}

#[test]
fn closer_project_files_win_and_every_level_is_read() {
    let world = World::new();
    let deeper = world.project.join("deeper");
    fs::create_dir_all(&deeper).unwrap();
    fs::write(
        world.root().join(".mcp.json"),
        json!({"mcpServers": {"both": {"command": "far"}, "far-only": {"command": "x"}}})
            .to_string(),
    )
    .unwrap();
    fs::write(
        world.project.join(".mcp.json"),
        json!({"mcpServers": {"both": {"command": "near"}}}).to_string(),
    )
    .unwrap();
    let mut locations = Locations::new(world.home.clone(), None, &world.project).unwrap();
    locations.managed_dir = world.home.join("managed");
    let catalog = Catalog::load(&locations);
    let both: Vec<_> = catalog
        .named("both")
        .map(|e| (e.config.target(), e.shadowed_by))
        .collect();
    assert_eq!(
        both,
        vec![("near".into(), None), ("far".into(), Some(Scope::Project))]
    );
    assert!(
        catalog.effective("far-only").is_some(),
        "a parent's .mcp.json is read too"
    );
}

#[test]
fn managed_configuration_takes_exclusive_control() {
    let world = World::new();
    add(&world, "mine", Scope::User).unwrap();
    let managed = world.home.join("managed");
    fs::create_dir_all(&managed).unwrap();
    fs::write(
        managed.join("managed-mcp.json"),
        json!({"mcpServers": {"corp": {"type": "http", "url": "https://corp.example/mcp"}}})
            .to_string(),
    )
    .unwrap();
    let list = api::list_servers(&world.locations());
    assert!(list.managed.is_some());
    let rows: Vec<_> = list
        .servers
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.scope,
                s.shadowed_by,
                s.read_only,
                s.will_start,
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            ("corp", Scope::Managed, None, true, true),
            ("mine", Scope::User, Some(Scope::Managed), false, false)
        ]
    );
    let err = add(&world, "another", Scope::User).unwrap_err();
    assert_eq!(err.code(), ErrorCode::ManagedExclusive, "{err}");
    assert_eq!(
        api::remove_server(&world.locations(), "mine", None)
            .unwrap_err()
            .code(),
        ErrorCode::ManagedExclusive
    );
}

#[test]
fn add_json_keeps_unknown_keys_after_the_known_ones() {
    let world = World::new();
    let (written, config) = api::add_json(
        &world.locations(),
        "j",
        Scope::User,
        r#"{"vendorThing": {"a": 1}, "url": "https://x/mcp", "type": "streamable-http", "oauth": {"callbackPort": 9, "clientId": "c"}}"#,
    )
    .unwrap();
    assert_eq!(written.scope, Scope::User);
    assert_eq!(config.kind(), TransportKind::Http);
    let entry = &world.claude_json()["mcpServers"]["j"];
    let keys: Vec<&String> = entry.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["type", "url", "oauth", "vendorThing"]);
    let oauth_keys: Vec<&String> = entry["oauth"].as_object().unwrap().keys().collect();
    assert_eq!(oauth_keys, ["clientId", "callbackPort"]);
    let err = api::add_json(
        &world.locations(),
        "k",
        Scope::User,
        r#"{"url": "https://x"}"#,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("no `type`"),
        "validated like a file entry: {err}"
    );
}

#[test]
fn update_creates_missing_files_and_folders() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/settings.json");
    document::update(&path, NewFileMode::Shared, |v| {
        document::object_at(&path, v, &["x"])?.insert("y".into(), json!(1));
        Ok(())
    })
    .unwrap();
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{\n  \"x\": {\n    \"y\": 1\n  }\n}",
        "Claude Code's layout for new files"
    );
}

#[test]
fn an_approved_server_whose_entry_changed_waits_for_a_new_approval() {
    let world = World::new();
    // The approval record lives in the app's data folder, under this world's home.
    let locations = world.locations();
    add(&world, "proj", Scope::Project).unwrap();
    mcp_manager_core::config::trust::trust(&locations).unwrap();
    api::set_approval(&locations, "proj", true).unwrap();
    let entry = |l: &Locations| Catalog::load(l).effective("proj").unwrap().clone();
    assert!(entry(&locations).will_start());
    // Someone changes the command in the committed file.
    let path = world.root().join(".mcp.json");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("\"node\"", "\"sh\"");
    fs::write(&path, text).unwrap();
    let changed = entry(&locations);
    assert_eq!(
        changed.approval,
        Some(Approval::Approved),
        "still approved by name, as in Claude Code"
    );
    assert!(
        changed.changed_since_approval && !changed.will_start(),
        "but held until approved again"
    );
    api::set_approval(&locations, "proj", true).unwrap();
    assert!(
        entry(&locations).will_start(),
        "approving the new entry lets it start"
    );
}

#[test]
fn a_project_server_nobody_approved_cannot_be_copied_out_of_its_scope() {
    let world = World::new();
    add(&world, "proj", Scope::Project).unwrap();
    let err =
        api::copy_server(&world.locations(), "proj", Scope::Project, Scope::User).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAllowed, "{err}");
    assert!(
        !fs::read_to_string(world.home.join(".claude.json"))
            .unwrap_or_default()
            .contains("proj"),
        "nothing was written"
    );
}

#[test]
fn a_server_of_a_folder_not_trusted_cannot_be_copied_out_even_when_the_person_approves_it() {
    let world = World::new();
    add(&world, "proj", Scope::Project).unwrap();
    // The person approves every project server in their own settings, by habit.
    fs::create_dir_all(world.home.join(".claude")).unwrap();
    fs::write(
        world.home.join(".claude/settings.json"),
        r#"{"enableAllProjectMcpServers": true}"#,
    )
    .unwrap();
    let err =
        api::copy_server(&world.locations(), "proj", Scope::Project, Scope::User).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAllowed, "{err}");
    assert!(
        err.to_string().contains("trust the folder"),
        "it says what to do: {err}"
    );
    assert!(
        !fs::read_to_string(world.home.join(".claude.json"))
            .unwrap_or_default()
            .contains("proj"),
        "a copy in the user scope would start in every folder, without trust"
    );
}

#[test]
fn a_new_claude_json_is_private_from_its_first_byte() {
    use std::os::unix::fs::PermissionsExt;
    let world = World::new();
    mcp_manager_core::config::trust::trust(&world.locations()).unwrap();
    let mode = fs::metadata(world.home.join(".claude.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    // A rewrite of an existing private file keeps it private, and leaves no temporary file.
    add(&world, "mine", Scope::User).unwrap();
    let mode = fs::metadata(world.home.join(".claude.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let leftovers: Vec<_> = fs::read_dir(&world.home)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp."))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn the_approve_review_shows_the_whole_entry_and_names_its_risks() {
    let world = World::new();
    fs::write(
        world.root().join(".mcp.json"),
        json!({"mcpServers": {
            "npx-tool": {"command": "npx", "args": ["-y", "harmless"], "env": {"NODE_OPTIONS": "--require ./x.js", "API_KEY": "sk-live-abcdefghijklmnop1234", "TOKEN": "${MY_TOKEN}"}},
            "remote": {"type": "http", "url": "https://mcp.example/mcp", "headersHelper": "./bin/helper", "oauth": {"authServerMetadataUrl": "https://elsewhere.example/.well-known/oauth-authorization-server"}}
        }})
        .to_string(),
    )
    .unwrap();
    let review = mcp_manager_core::config::review::review(&world.locations(), "npx-tool").unwrap();
    assert!(
        review
            .entry
            .contains("\"NODE_OPTIONS\": \"--require ./x.js\""),
        "{}",
        review.entry
    );
    assert!(
        !review.entry.contains("sk-live-abcdefghijklmnop1234"),
        "a secret is masked: {}",
        review.entry
    );
    assert_eq!(review.variables, vec!["MY_TOKEN".to_string()]);
    assert!(
        review.warnings.iter().any(
            |w| w.contains("NODE_OPTIONS") && w.contains("which program or code actually runs")
        ),
        "{:?}",
        review.warnings
    );
    let review = mcp_manager_core::config::review::review(&world.locations(), "remote").unwrap();
    assert!(
        review
            .warnings
            .iter()
            .any(|w| w.contains("headersHelper runs this shell command")
                && w.contains("./bin/helper")),
        "{:?}",
        review.warnings
    );
    assert!(
        review
            .warnings
            .iter()
            .any(|w| w.contains("elsewhere.example")),
        "{:?}",
        review.warnings
    );
}
