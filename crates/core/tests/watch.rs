//! Changes on disk are noticed and reported once, naming only the servers whose hash (or
//! whether they start) changed. Real files, the real OS file-notification API.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_manager_core::config::watch::{ConfigChange, ConfigWatcher};
use mcp_manager_core::Locations;
use serde_json::json;

/// Generous, so a loaded CI machine does not fail the test; the latency is printed.
const WAIT: Duration = Duration::from_secs(5);

fn next(events: &mpsc::Receiver<ConfigChange>, what: &str) -> ConfigChange {
    let started = Instant::now();
    let change = events
        .recv_timeout(WAIT)
        .unwrap_or_else(|_| panic!("no change event for: {what}"));
    eprintln!("watch: {what}: noticed in {:?}", started.elapsed());
    change
}

#[test]
fn edits_on_disk_produce_one_event_naming_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = root.join("home");
    let project = root.join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let claude_json = home.join(".claude.json");
    // The folder is trusted (as Claude Code records it), so that its own approvals count.
    let key = project.to_str().unwrap().to_string();
    let trusted = move |mut value: serde_json::Value| {
        value["projects"][&key]["hasTrustDialogAccepted"] = json!(true);
        value.to_string()
    };
    std::fs::write(&claude_json, trusted(json!({"numStartups": 1, "mcpServers": {"u": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}))).unwrap();
    let mut locations = Locations::new(home.clone(), None, &project).unwrap();
    locations.managed_dir = home.join("managed");

    let (tx, events) = mpsc::channel();
    let _watcher = ConfigWatcher::start(locations, move |change| {
        let _ = tx.send(change);
    })
    .unwrap();

    // A new project file with two servers, written the way editors do (temp file, rename).
    let mcp_json = project.join(".mcp.json");
    let temp = project.join(".mcp.json.swp");
    std::fs::write(
        &temp,
        json!({"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}).to_string(),
    )
    .unwrap();
    std::fs::rename(&temp, &mcp_json).unwrap();
    assert_eq!(next(&events, "new .mcp.json").servers, ["a", "b"]);

    // Claude Code bumping a counter changes no server: no event.
    std::fs::write(&claude_json, trusted(json!({"numStartups": 2, "mcpServers": {"u": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}))).unwrap();
    // Changing one URL names that server alone (and is the next event, so the previous write
    // produced none).
    std::fs::write(&claude_json, trusted(json!({"numStartups": 2, "mcpServers": {"u": {"type": "http", "url": "http://127.0.0.1:2/mcp"}}}))).unwrap();
    assert_eq!(next(&events, "a URL in ~/.claude.json").servers, ["u"]);

    // Approving a project server makes it start: that is a change too, seen in a .claude
    // folder that did not exist when watching began.
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.local.json"),
        json!({"enabledMcpjsonServers": ["a"]}).to_string(),
    )
    .unwrap();
    let change = next(&events, "approval in .claude/settings.local.json");
    assert_eq!(change.servers, ["a"]);

    // A user entry that the approved project one shadows runs nothing new, but the window
    // lists it: an event naming no server.
    std::fs::write(&claude_json, trusted(json!({"numStartups": 2, "mcpServers": {"u": {"type": "http", "url": "http://127.0.0.1:2/mcp"}, "a": {"command": "shadowed"}}}))).unwrap();
    assert_eq!(
        next(&events, "a shadowed user entry").servers,
        Vec::<String>::new()
    );

    // A broken file is a change of problems, with no server named.
    std::fs::write(&mcp_json, "{ broken").unwrap();
    let change = next(&events, "a broken .mcp.json");
    assert_eq!(
        change.servers,
        ["a", "b"],
        "its servers are gone until it is fixed"
    );
    assert!(
        events.recv_timeout(Duration::from_millis(500)).is_err(),
        "one burst, one event"
    );
}
