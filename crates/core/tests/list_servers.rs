//! `list_servers` over real files in a temporary home and project.

use std::fs;
use std::path::Path;

use mcp_manager_core::{list_servers, ErrorCode, Locations, Scope, ServerList};
use serde_json::json;

struct World {
    _dir: tempfile::TempDir,
    home: std::path::PathBuf,
    project: std::path::PathBuf,
}

impl World {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("work/project");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&project).unwrap();
        World {
            home,
            project,
            _dir: dir,
        }
    }

    fn locations(&self) -> Locations {
        let mut locations = Locations::new(self.home.clone(), None, &self.project).unwrap();
        locations.managed_dir = self.home.join("managed");
        locations
    }

    fn write(&self, path: &Path, text: &str) {
        fs::write(path, text).unwrap();
    }

    fn claude_json(&self, value: serde_json::Value) {
        self.write(&self.home.join(".claude.json"), &value.to_string());
    }

    fn mcp_json(&self, value: serde_json::Value) {
        self.write(&self.project.join(".mcp.json"), &value.to_string());
    }

    fn list(&self) -> ServerList {
        list_servers(&self.locations())
    }
}

fn rows(list: &ServerList) -> Vec<(String, Scope, Option<Scope>)> {
    list.servers
        .iter()
        .map(|s| (s.name.clone(), s.scope, s.shadowed_by))
        .collect()
}

#[test]
fn missing_files_mean_no_servers_and_no_problems() {
    let world = World::new();
    let list = world.list();
    assert!(list.servers.is_empty());
    assert!(list.problems.is_empty(), "{:?}", list.problems);
}

#[test]
fn reads_all_three_scopes_in_precedence_order() {
    let world = World::new();
    let key = world.locations().project_key();
    world.claude_json(json!({
        "numStartups": 4,
        "mcpServers": {"u1": {"type": "sse", "url": "http://127.0.0.1:1/sse"}},
        "projects": {
            key: {"mcpServers": {"l1": {"command": "node", "args": ["l.js"]}}},
            "/some/other/project": {"mcpServers": {"elsewhere": {"command": "x"}}}
        }
    }));
    world
        .mcp_json(json!({"mcpServers": {"p1": {"type": "http", "url": "http://127.0.0.1:2/mcp"}}}));
    let list = world.list();
    assert_eq!(
        rows(&list),
        vec![
            ("l1".into(), Scope::Local, None),
            ("p1".into(), Scope::Project, None),
            ("u1".into(), Scope::User, None),
        ],
        "another project's local servers must not appear"
    );
    assert_eq!(list.servers[0].target, "node l.js");
    assert!(list.problems.is_empty());
}

#[test]
fn local_beats_project_beats_user_and_losers_say_who_wins() {
    let world = World::new();
    let key = world.locations().project_key();
    world.claude_json(json!({
        "mcpServers": {"same": {"command": "user"}, "pu": {"command": "user"}},
        "projects": {key.clone(): {"hasTrustDialogAccepted": true, "mcpServers": {"same": {"command": "local"}}}}
    }));
    world.mcp_json(
        json!({"mcpServers": {"same": {"command": "project"}, "pu": {"command": "project"}}}),
    );
    // Nobody approved the project's `pu`: Claude Code leaves it out before it merges the
    // scopes, so the user's `pu` is the one in use (as `claude mcp get pu` says).
    let list = world.list();
    assert_eq!(
        rows(&list),
        vec![
            ("same".into(), Scope::Local, None),
            ("same".into(), Scope::Project, Some(Scope::Local)),
            ("pu".into(), Scope::Project, Some(Scope::User)),
            ("same".into(), Scope::User, Some(Scope::Local)),
            ("pu".into(), Scope::User, None),
        ]
    );
    let catalog = mcp_manager_core::config::catalog::Catalog::load(&world.locations());
    let set_aside = catalog
        .named("pu")
        .find(|e| e.scope == Scope::Project)
        .unwrap();
    assert_eq!(catalog.effective("pu").unwrap().scope, Scope::User);
    assert_eq!(
        set_aside.why_not_started().as_deref(),
        Some("the user entry of the same name is used instead, as long as this project entry is not approved in a trusted folder")
    );
    fs::create_dir_all(world.project.join(".claude")).unwrap();
    world.write(
        &world.project.join(".claude/settings.local.json"),
        r#"{"enabledMcpjsonServers":["pu"]}"#,
    );
    assert_eq!(
        rows(&world.list()),
        vec![
            ("same".into(), Scope::Local, None),
            ("same".into(), Scope::Project, Some(Scope::Local)),
            ("pu".into(), Scope::Project, None),
            ("same".into(), Scope::User, Some(Scope::Local)),
            ("pu".into(), Scope::User, Some(Scope::Project)),
        ]
    );
}

#[test]
fn broken_project_file_is_reported_with_line_and_column_and_left_untouched() {
    let world = World::new();
    world.claude_json(json!({"mcpServers": {"u1": {"command": "x"}}}));
    let broken = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}\n";
    let path = world.project.join(".mcp.json");
    world.write(&path, broken);
    let list = world.list();
    assert_eq!(list.problems.len(), 1, "{:?}", list.problems);
    let problem = &list.problems[0];
    assert_eq!(problem.code, ErrorCode::ConfigSyntax);
    assert_eq!(problem.scope, Scope::Project);
    assert_eq!((problem.line, problem.column), (Some(4), Some(5)));
    assert!(
        problem
            .message
            .contains(".mcp.json line 4 column 5: expected `,` or `}`"),
        "the message names file, line and column: {}",
        problem.message
    );
    assert_eq!(
        rows(&list),
        vec![("u1".into(), Scope::User, None)],
        "other scopes keep working"
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        broken,
        "the broken file is never rewritten"
    );
}

#[test]
fn broken_claude_json_is_one_problem_and_the_project_still_lists() {
    let world = World::new();
    world.write(&world.home.join(".claude.json"), "{\"mcpServers\": ");
    world.mcp_json(json!({"mcpServers": {"p1": {"command": "x"}}}));
    let list = world.list();
    assert_eq!(
        list.problems.len(),
        1,
        "one file, one problem: {:?}",
        list.problems
    );
    assert_eq!(list.problems[0].code, ErrorCode::ConfigSyntax);
    assert_eq!(rows(&list), vec![("p1".into(), Scope::Project, None)]);
}

#[test]
fn one_bad_entry_is_reported_alone() {
    let world = World::new();
    world.mcp_json(json!({"mcpServers": {
        "good": {"command": "x"},
        "bad": {"url": "http://127.0.0.1/mcp"},
        "also-good": {"type": "ws", "url": "ws://127.0.0.1/"}
    }}));
    let list = world.list();
    assert_eq!(
        rows(&list),
        vec![
            ("good".into(), Scope::Project, None),
            ("also-good".into(), Scope::Project, None)
        ]
    );
    assert_eq!(list.problems.len(), 1);
    assert_eq!(list.problems[0].server.as_deref(), Some("bad"));
    assert_eq!(list.problems[0].code, ErrorCode::ConfigInvalid);
}

#[test]
fn mcp_servers_of_the_wrong_shape_is_a_problem() {
    let world = World::new();
    world.mcp_json(json!({"mcpServers": ["not", "an", "object"]}));
    let list = world.list();
    assert_eq!(list.problems.len(), 1);
    assert_eq!(list.problems[0].code, ErrorCode::ConfigInvalid);
    assert!(list.problems[0]
        .message
        .contains("[\"mcpServers\"] must be a JSON object"));
}

#[test]
fn claude_config_dir_holds_claude_json() {
    let world = World::new();
    let config_dir = world.home.join("elsewhere");
    fs::create_dir_all(&config_dir).unwrap();
    world.claude_json(json!({"mcpServers": {"in-home": {"command": "x"}}}));
    world.write(
        &config_dir.join(".claude.json"),
        &json!({"mcpServers": {"in-config-dir": {"command": "x"}}}).to_string(),
    );
    let locations = Locations::new(world.home.clone(), Some(config_dir), &world.project).unwrap();
    let names: Vec<_> = list_servers(&locations)
        .servers
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, vec!["in-config-dir"]);
}

#[cfg(unix)]
#[test]
fn local_scope_is_keyed_by_the_real_project_path() {
    let world = World::new();
    let link = world.home.join("link-to-project");
    std::os::unix::fs::symlink(&world.project, &link).unwrap();
    let real = world.project.canonicalize().unwrap();
    world.claude_json(json!({"projects": {
        real.to_str().unwrap(): {"mcpServers": {"local-one": {"command": "x"}}}
    }}));
    let locations = Locations::new(world.home.clone(), None, &link).unwrap();
    let list = list_servers(&locations);
    assert_eq!(
        list.servers.len(),
        1,
        "opened through a link, the real path's entry is found"
    );
    assert_eq!(list.project_dir, real.display().to_string());
}

#[test]
fn a_missing_project_folder_is_an_error_with_its_code() {
    let world = World::new();
    let err = Locations::new(world.home.clone(), None, &world.project.join("nope")).unwrap_err();
    let api: mcp_manager_core::ApiError = err.into();
    assert_eq!(api.code, ErrorCode::ProjectNotFound);
    assert_eq!(
        serde_json::to_value(&api).unwrap()["code"],
        json!("project-not-found"),
        "codes cross the boundary as kebab-case words"
    );
}

#[test]
fn recent_projects_are_the_existing_folders_claude_code_knows() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, here, there) = (root.join("home"), root.join("here"), root.join("there"));
    for folder in [&home, &here, &there] {
        std::fs::create_dir_all(folder).unwrap();
    }
    let claude = serde_json::json!({
        "projects": {
            here.to_str().unwrap(): { "mcpServers": { "a": { "command": "a" }, "b": { "command": "b" } } },
            root.join("gone").to_str().unwrap(): {},
            there.to_str().unwrap(): { "allowedTools": [] }
        }
    });
    std::fs::write(home.join(".claude.json"), claude.to_string()).unwrap();
    let locations = mcp_manager_core::Locations::new(home, None, &here).unwrap();
    let recent = mcp_manager_core::api::recent_projects(&locations);
    let seen: Vec<(String, u32, bool)> = recent
        .into_iter()
        .map(|p| (p.path, p.local_servers, p.current))
        .collect();
    assert_eq!(
        seen,
        [
            (here.display().to_string(), 2, true),
            (there.display().to_string(), 0, false),
        ],
        "a folder that no longer exists is left out"
    );
}
