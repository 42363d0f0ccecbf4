//! The window's server form: a draft is checked as typed, previewed as the exact diff, and
//! saved through the same locked, lossless writes as `mcpctl add`. Real files in temporary
//! folders.

use std::fs;
use std::path::PathBuf;

use mcp_manager_core::api;
use mcp_manager_core::config::draft::{self, EntryRef, KeyValue, ServerDraft};
use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use mcp_manager_core::{Locations, Scope};
use serde_json::Map;

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
        let project = root.join("repo");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(project.join(".git")).unwrap();
        World {
            _dir: dir,
            home,
            project,
        }
    }

    fn locations(&self) -> Locations {
        let mut l = Locations::new(self.home.clone(), None, &self.project).unwrap();
        l.managed_dir = self.home.join("managed");
        l
    }

    fn mcp_json(&self) -> String {
        fs::read_to_string(self.project.join(".mcp.json")).unwrap_or_default()
    }
}

fn row(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: value.into(),
        kept: false,
    }
}

fn stdio_draft(name: &str, scope: Scope) -> ServerDraft {
    ServerDraft {
        name: name.into(),
        scope,
        transport: TransportKind::Stdio,
        command: "node".into(),
        args: vec!["server.js".into(), "--port".into(), "".into()],
        env: vec![row("LEVEL", "debug")],
        url: String::new(),
        headers: Vec::new(),
        headers_helper: String::new(),
        client_id: String::new(),
        callback_port: String::new(),
        auth_server_metadata_url: String::new(),
        scopes: String::new(),
        grant: String::new(),
        assertion_file: String::new(),
        assertion_command: String::new(),
    }
}

fn http_draft(name: &str, url: &str) -> ServerDraft {
    ServerDraft {
        transport: TransportKind::Http,
        command: String::new(),
        args: Vec::new(),
        env: Vec::new(),
        url: url.into(),
        ..stdio_draft(name, Scope::Project)
    }
}

fn fields(notes: &[draft::DraftNote]) -> Vec<&str> {
    notes.iter().map(|n| n.field.as_str()).collect()
}

#[test]
fn saving_a_new_stdio_server_writes_what_mcpctl_add_writes() {
    let (ours, theirs) = (World::new(), World::new());
    let checked = draft::check(
        &ours.locations(),
        &stdio_draft("files", Scope::Project),
        None,
    );
    assert!(checked.problems.is_empty(), "{:?}", checked.problems);
    draft::save(
        &ours.locations(),
        &stdio_draft("files", Scope::Project),
        None,
    )
    .unwrap();
    let config = ServerConfig::stdio(
        "node",
        vec!["server.js".into(), "--port".into(), "".into()],
        vec![("LEVEL".into(), "debug".into())],
    );
    api::add_server(
        &theirs.locations(),
        "files",
        Scope::Project,
        &config,
        &Map::new(),
    )
    .unwrap();
    assert_eq!(
        ours.mcp_json(),
        theirs.mcp_json(),
        "the form and `mcpctl add` must write the same bytes"
    );
    let added: Vec<String> = checked
        .changes
        .iter()
        .flat_map(|c| {
            c.lines
                .iter()
                .filter(|l| l.sign == "+")
                .map(|l| l.text.clone())
        })
        .collect();
    assert_eq!(
        added.join("\n"),
        ours.mcp_json(),
        "the preview of a new file is the file that is then written"
    );
}

#[test]
fn an_edit_keeps_unknown_keys_and_the_entry_s_place_and_only_changes_its_lines() {
    let world = World::new();
    let original = "{\n    \"mcpServers\": {\n        \"a\": { \"command\": \"a\" },\n        \"web\": { \"type\": \"http\", \"url\": \"https://old.example/mcp\", \"x-note\": \"mine\" },\n        \"z\": { \"command\": \"z\" }\n    }\n}\n";
    fs::write(world.project.join(".mcp.json"), original).unwrap();
    let entry = EntryRef {
        name: "web".into(),
        scope: Scope::Project,
    };
    let mut edit = draft::draft_of(&world.locations(), &entry).unwrap();
    assert_eq!(edit.url, "https://old.example/mcp");
    edit.url = "https://new.example/mcp".into();
    let checked = draft::check(&world.locations(), &edit, Some(&entry));
    assert!(checked.problems.is_empty(), "{:?}", checked.problems);
    assert!(
        checked
            .warnings
            .iter()
            .any(|w| w.message.contains("login key")),
        "a new URL means a new login: {:?}",
        checked.warnings
    );
    let changed: Vec<_> = checked.changes[0]
        .lines
        .iter()
        .filter(|l| l.sign != " ")
        .collect();
    assert!(
        changed
            .iter()
            .any(|l| l.sign == "-" && l.text.contains("old.example")),
        "{changed:?}"
    );
    assert!(
        changed
            .iter()
            .any(|l| l.sign == "+" && l.text.contains("new.example")),
        "{changed:?}"
    );
    draft::save(&world.locations(), &edit, Some(&entry)).unwrap();
    let written: serde_json::Value = serde_json::from_str(&world.mcp_json()).unwrap();
    let names: Vec<&String> = written["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["a", "web", "z"], "the edited entry keeps its place");
    assert_eq!(
        written["mcpServers"]["web"]["x-note"], "mine",
        "unknown keys survive an edit"
    );
    assert_eq!(
        written["mcpServers"]["web"]["url"],
        "https://new.example/mcp"
    );
    assert!(
        world.mcp_json().starts_with("{\n    \"mcpServers\""),
        "the file keeps its indentation"
    );
}

#[test]
fn a_secret_in_the_file_never_reaches_the_form_and_survives_an_edit() {
    let world = World::new();
    fs::write(
        world.project.join(".mcp.json"),
        r#"{"mcpServers":{"gh":{"command":"gh-mcp","env":{"GITHUB_TOKEN":"ghp_abcdefghijklmnop1234","LEVEL":"info"}}}}"#,
    )
    .unwrap();
    let entry = EntryRef {
        name: "gh".into(),
        scope: Scope::Project,
    };
    let mut edit = draft::draft_of(&world.locations(), &entry).unwrap();
    let form = serde_json::to_string(&edit).unwrap();
    assert!(
        !form.contains("ghp_"),
        "the secret must not be sent to the window: {form}"
    );
    assert!(edit.env[0].kept && edit.env[0].value.is_empty());
    edit.env[1].value = "debug".into();
    let checked = draft::check(&world.locations(), &edit, Some(&entry));
    let preview = serde_json::to_string(&checked).unwrap();
    assert!(!preview.contains("ghp_"), "nor in the preview: {preview}");
    draft::save(&world.locations(), &edit, Some(&entry)).unwrap();
    assert!(
        world
            .mcp_json()
            .contains("\"GITHUB_TOKEN\": \"ghp_abcdefghijklmnop1234\""),
        "{}",
        world.mcp_json()
    );
    assert!(world.mcp_json().contains("\"LEVEL\": \"debug\""));
}

#[test]
fn problems_are_named_by_field_and_block_the_save() {
    let world = World::new();
    draft::save(
        &world.locations(),
        &stdio_draft("taken", Scope::Project),
        None,
    )
    .unwrap();
    let before = world.mcp_json();
    let cases = [
        (
            ServerDraft {
                name: "has space".into(),
                ..stdio_draft("x", Scope::Project)
            },
            "name",
        ),
        (stdio_draft("taken", Scope::Project), "name"),
        (
            ServerDraft {
                command: " ".into(),
                ..stdio_draft("x", Scope::Project)
            },
            "command",
        ),
        (http_draft("x", "example.com/mcp"), "url"),
        (
            ServerDraft {
                callback_port: "70000".into(),
                ..http_draft("x", "https://e.example/mcp")
            },
            "callbackPort",
        ),
        (
            ServerDraft {
                env: vec![row("A", "1"), row("A", "2")],
                ..stdio_draft("x", Scope::Project)
            },
            "env.1.key",
        ),
        (
            ServerDraft {
                scope: Scope::Managed,
                ..stdio_draft("x", Scope::Project)
            },
            "scope",
        ),
    ];
    for (case, field) in cases {
        let checked = draft::check(&world.locations(), &case, None);
        assert_eq!(fields(&checked.problems), [field], "{case:?}");
        assert!(
            checked.changes.is_empty(),
            "no preview while a problem stands"
        );
        assert!(
            draft::save(&world.locations(), &case, None).is_err(),
            "{case:?} must not save"
        );
    }
    assert_eq!(world.mcp_json(), before, "nothing was written");
    let same_name_other_scope =
        draft::check(&world.locations(), &stdio_draft("taken", Scope::User), None);
    assert!(
        same_name_other_scope.problems.is_empty(),
        "a name may exist in another scope"
    );
}

#[test]
fn secrets_and_unset_variables_are_warned_about_with_a_suggestion() {
    let world = World::new();
    let mut remote = http_draft("git-hub", "https://api.example/mcp");
    remote.headers = vec![
        row("Authorization", "Bearer ghp_abcdefghijklmnop1234"),
        row("X-Team", "${MCP_MANAGER_TEST_UNSET_TEAM}"),
    ];
    let checked = draft::check(&world.locations(), &remote, None);
    assert!(
        checked.problems.is_empty(),
        "warnings do not block: {:?}",
        checked.problems
    );
    let secret = checked
        .warnings
        .iter()
        .find(|w| w.field == "headers.0.value")
        .expect("the token is noticed");
    assert_eq!(
        secret.suggestion.as_deref(),
        Some("Bearer ${GIT_HUB_TOKEN}")
    );
    assert!(
        secret.message.contains("shared"),
        "a project file is shared: {}",
        secret.message
    );
    let unset = checked
        .warnings
        .iter()
        .find(|w| w.field == "headers.1.value")
        .expect("the unset variable");
    assert!(
        unset.message.contains("MCP_MANAGER_TEST_UNSET_TEAM"),
        "{}",
        unset.message
    );
}

#[test]
fn moving_to_another_scope_adds_there_and_removes_here() {
    let world = World::new();
    draft::save(
        &world.locations(),
        &stdio_draft("mover", Scope::Project),
        None,
    )
    .unwrap();
    let entry = EntryRef {
        name: "mover".into(),
        scope: Scope::Project,
    };
    let moved = ServerDraft {
        scope: Scope::Local,
        ..draft::draft_of(&world.locations(), &entry).unwrap()
    };
    let checked = draft::check(&world.locations(), &moved, Some(&entry));
    assert_eq!(
        checked.changes.len(),
        2,
        "two files change: {:?}",
        checked.changes
    );
    draft::save(&world.locations(), &moved, Some(&entry)).unwrap();
    assert!(!world.mcp_json().contains("mover"));
    let claude: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(world.home.join(".claude.json")).unwrap())
            .unwrap();
    let key = world.locations().project_key();
    assert_eq!(
        claude["projects"][&key]["mcpServers"]["mover"]["command"],
        "node"
    );
}

#[test]
fn a_broken_file_is_reported_and_left_alone() {
    let world = World::new();
    let broken = "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"a\" }\n  \n";
    fs::write(world.project.join(".mcp.json"), broken).unwrap();
    let checked = draft::check(
        &world.locations(),
        &stdio_draft("new", Scope::Project),
        None,
    );
    let problem = checked
        .problems
        .iter()
        .find(|p| p.field == "entry")
        .expect("the syntax error is a problem");
    assert!(
        problem.message.contains("line"),
        "with its line: {}",
        problem.message
    );
    assert!(draft::save(
        &world.locations(),
        &stdio_draft("new", Scope::Project),
        None
    )
    .is_err());
    assert_eq!(
        world.mcp_json(),
        broken,
        "a file that does not parse is never written"
    );
}

#[test]
fn copying_to_another_scope_keeps_the_entry_as_written_and_approves_a_project_copy() {
    let world = World::new();
    let key = world.locations().project_key();
    fs::write(
        world.home.join(".claude.json"),
        serde_json::json!({ "projects": { key: { "mcpServers": {
            "mine": { "type": "stdio", "command": "node", "args": ["s.js"], "env": {}, "x-note": "kept" }
        } } } })
        .to_string(),
    )
    .unwrap();
    mcp_manager_core::config::trust::trust(&world.locations()).unwrap();
    api::copy_server(&world.locations(), "mine", Scope::Local, Scope::Project).unwrap();
    let written: serde_json::Value = serde_json::from_str(&world.mcp_json()).unwrap();
    assert_eq!(written["mcpServers"]["mine"]["x-note"], "kept");
    let catalog = mcp_manager_core::config::catalog::Catalog::load(&world.locations());
    let copy = catalog
        .named("mine")
        .find(|e| e.scope == Scope::Project)
        .expect("copied");
    assert_eq!(copy.approval, Some(mcp_manager_core::Approval::Approved));
    assert!(
        api::copy_server(&world.locations(), "mine", Scope::Local, Scope::Project).is_err(),
        "a second copy finds the name taken"
    );
}

#[test]
fn the_persons_own_edit_of_an_approved_project_server_is_still_approved() {
    let world = World::new();
    let locations = world.locations();
    mcp_manager_core::config::trust::trust(&locations).unwrap();
    draft::save(&locations, &stdio_draft("mine", Scope::Project), None).unwrap();
    let starts = || {
        mcp_manager_core::config::catalog::Catalog::load(&locations)
            .effective("mine")
            .unwrap()
            .will_start()
    };
    assert!(starts(), "written here, so approved here");
    let entry = EntryRef {
        name: "mine".into(),
        scope: Scope::Project,
    };
    let mut edit = draft::draft_of(&locations, &entry).unwrap();
    edit.command = "deno".into();
    draft::save(&locations, &edit, Some(&entry)).unwrap();
    assert!(
        starts(),
        "the person's own edit is not a change behind their back"
    );
    // The same change made on disk by someone else is held.
    let text = world.mcp_json().replace("\"deno\"", "\"sh\"");
    fs::write(world.project.join(".mcp.json"), text).unwrap();
    assert!(
        !starts(),
        "a change on disk since the approval waits for a new one"
    );
}

#[test]
fn a_workload_identity_login_is_written_and_read_back_and_an_edit_keeps_what_the_form_does_not_show(
) {
    let world = World::new();
    let draft = ServerDraft {
        scope: Scope::User,
        grant: "workload".into(),
        assertion_file: "/var/run/secrets/tokens/mcp".into(),
        client_id: "ci".into(),
        ..http_draft("wif", "https://mcp.example.com/mcp")
    };
    let checked = draft::check(&world.locations(), &draft, None);
    assert!(checked.problems.is_empty(), "{:?}", checked.problems);
    draft::save(&world.locations(), &draft, None).unwrap();
    let claude_json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(world.home.join(".claude.json")).unwrap())
            .unwrap();
    let entry = &claude_json["mcpServers"]["wif"];
    assert_eq!(
        entry["oauth"]["grantType"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(
        entry["oauth"]["assertionFile"],
        "/var/run/secrets/tokens/mcp"
    );
    let back = draft::draft_of(
        &world.locations(),
        &draft::EntryRef {
            name: "wif".into(),
            scope: Scope::User,
        },
    )
    .unwrap();
    assert_eq!(
        (back.grant.as_str(), back.assertion_file.as_str()),
        ("workload", "/var/run/secrets/tokens/mcp")
    );

    // Neither source, or both: said at the field.
    for (file, command) in [("", ""), ("/t", "print-token")] {
        let draft = ServerDraft {
            assertion_file: file.into(),
            assertion_command: command.into(),
            ..draft.clone()
        };
        let original = draft::EntryRef {
            name: "wif".into(),
            scope: Scope::User,
        };
        let checked = draft::check(&world.locations(), &draft, Some(&original));
        assert_eq!(fields(&checked.problems), ["assertionFile"]);
    }

    // Cross-app access, with the identity provider written by hand: an edit of the scopes in
    // the form keeps it.
    let path = world.home.join(".claude.json");
    let mut written: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    written["mcpServers"]["xaa"] = serde_json::json!({
        "type": "http",
        "url": "https://mcp.example.com/mcp",
        "oauth": {
            "clientId": "app",
            "grantType": "urn:ietf:params:oauth:grant-type:jwt-bearer",
            "idpIssuer": "https://idp.example.com",
            "clientMetadataUrl": "https://app.example.com/client.json",
            "dpop": true
        }
    });
    fs::write(&path, serde_json::to_string_pretty(&written).unwrap()).unwrap();
    let original = draft::EntryRef {
        name: "xaa".into(),
        scope: Scope::User,
    };
    let mut edited = draft::draft_of(&world.locations(), &original).unwrap();
    assert_eq!(edited.grant, "cross-app");
    edited.scopes = "mcp:read".into();
    draft::save(&world.locations(), &edited, Some(&original)).unwrap();
    let after: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let oauth = &after["mcpServers"]["xaa"]["oauth"];
    assert_eq!(oauth["idpIssuer"], "https://idp.example.com", "{oauth}");
    assert_eq!(
        oauth["clientMetadataUrl"],
        "https://app.example.com/client.json"
    );
    assert_eq!(oauth["scopes"], "mcp:read");
    assert_eq!(oauth["dpop"], true);
}
