//! The login keeper's doors, attacked for real: servers on loopback that try to steer a refresh
//! to their own token endpoint, echo the secrets they were sent in their error text, or take a
//! refresh and never answer (tests/fixtures/servers/hostile-refresh.mjs); a rotating real OAuth
//! server (tests/reference/oauth-server.mjs) for when Claude Code's logins are refreshed; an
//! untrusted folder that names its own server after one of the user's; and broken files of the
//! keeper's own, which are reported and never written over.

mod logins_world;
#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use logins_world::{text, World};

use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use mcp_manager_core::files;
use mcp_manager_core::secrets::server_key;
use serde_json::{json, Value};

/// What only these tests do in a world.
trait Doors {
    /// A login as Claude Code keeps it, for `name` at `url`, issued by `issuer`.
    fn claude_login(&self, name: &str, url: &str, issuer: &str, refresh: &str, secret: &str);

    /// Every file under the home folder but Claude Code's credentials, as text.
    fn files_but_credentials(&self) -> String;
}

impl Doors for World {
    fn claude_login(&self, name: &str, url: &str, issuer: &str, refresh: &str, secret: &str) {
        let key = server_key(
            name,
            &ServerConfig::remote(TransportKind::Http, url.to_string(), vec![]),
        );
        let mut store: Value = std::fs::read(self.credentials())
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_else(|| json!({"mcpOAuth": {}}));
        store["mcpOAuth"][key] = json!({
            "serverName": name, "serverUrl": url,
            "accessToken": "at-spent-long-ago", "refreshToken": refresh,
            "expiresAt": 1000, "scope": "",
            "clientId": "client-of-the-real-issuer", "clientSecret": secret,
            "redirectUri": "http://localhost:1/callback",
            "issuer": issuer, "discoveryState": {"authorizationServerUrl": issuer},
        });
        // As Claude Code keeps it: 0600, written whole.
        files::write(
            &self.credentials(),
            store.to_string().as_bytes(),
            &files::Write::private(),
        )
        .unwrap();
    }

    fn files_but_credentials(&self) -> String {
        fn walk(dir: &Path, skip: &Path, out: &mut String) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path == skip {
                    continue;
                }
                if path.is_dir() {
                    walk(&path, skip, out);
                } else if let Ok(text) = std::fs::read(&path) {
                    out.push_str(&String::from_utf8_lossy(&text));
                }
            }
        }
        let mut out = String::new();
        walk(&self.home, &self.credentials(), &mut out);
        out
    }
}

/// A server stopped when dropped, so that a failed assertion leaves no process behind.
struct Stopped(std::process::Child);

impl Stopped {
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The hostile server in `mode`, its log, and its MCP URL.
fn hostile(world: &World, mode: &str, claimed: &str) -> (Stopped, PathBuf, String) {
    static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let log = world.root.join(format!("{mode}-{n}.log"));
    let (child, port) = support::listening(
        "tests/fixtures/servers/hostile-refresh.mjs",
        &[log.to_str().unwrap(), mode, claimed],
    );
    (Stopped(child), log, format!("http://localhost:{port}/mcp"))
}

/// For each of `names`, a server whose authorization server takes a refresh and never answers
/// (`hang`), as one of the user's servers, with a login in Claude Code's store: the servers,
/// their logs and their MCP URLs, in that order.
fn hung_claude_logins(world: &World, names: &[&str]) -> Vec<(Stopped, PathBuf, String)> {
    let hung: Vec<_> = names.iter().map(|_| hostile(world, "hang", "")).collect();
    world.servers(Value::Object(
        names
            .iter()
            .zip(&hung)
            .map(|(name, (_, _, url))| (name.to_string(), json!({"type": "http", "url": url})))
            .collect(),
    ));
    for (name, (_, _, url)) in names.iter().zip(&hung) {
        let issuer = url.trim_end_matches("/mcp");
        world.claude_login(
            name,
            url,
            issuer,
            &format!("rt-{name}"),
            &format!("cs-{name}"),
        );
    }
    hung
}

#[test]
fn a_login_claude_code_made_is_never_refreshed_at_a_token_endpoint_its_issuer_did_not_publish() {
    // The MCP server publishes no resource metadata, and at its root metadata that claims the
    // issuer of Claude Code's login while naming its own token endpoint.
    steered("steer", "claims that issuer without being published by it");
    // Its resource metadata names a document of its own that claims the issuer: the issuer's
    // own metadata (here it cannot be read at all) decides where the tokens may go.
    steered(
        "steer-prm",
        "whose own metadata could not be read to confirm where they may be sent",
    );
}

/// A Claude Code login refreshed against the hostile server in `mode`: refused, saying `why`.
fn steered(mode: &str, why: &str) {
    let issuer = "https://auth.real-issuer.example/";
    let world = World::new(json!({}));
    let (mut server, log, url) = hostile(&world, mode, issuer);
    world.servers(json!({"victim": {"type": "http", "url": url}}));
    world.claude_login(
        "victim",
        &url,
        issuer,
        "rt-issued-by-the-real-issuer",
        "cs-of-the-real-issuer",
    );
    let listed = text(&world.run(&["logins"]));
    assert!(
        listed.contains("victim") && listed.contains("Claude Code"),
        "{listed}"
    );

    let refresh = world.run(&["refresh", "victim"]);
    let said = text(&refresh);
    assert!(!refresh.status.success(), "{said}");
    assert!(said.contains(why), "the refusal says why: {said}");
    // Asked to keep Claude Code's logins too, the keeper does not send it either.
    let keep = world.run(&["keep", "--claude-code", "--for", "3"]);
    let seen = std::fs::read_to_string(&log).unwrap();
    server.kill();
    assert!(
        seen.contains("/.well-known/oauth-authorization-server")
            || seen.contains("/.well-known/as-metadata"),
        "the metadata was read: {seen}"
    );
    assert!(
        !seen.contains("/steal") && !seen.contains("rt-issued-by-the-real-issuer"),
        "no refresh token went to the server's own token endpoint: {seen}\n{}",
        text(&keep)
    );
    assert!(!seen.contains("cs-of-the-real-issuer"), "{seen}");
}

#[test]
fn secrets_an_authorization_server_echoes_are_neither_kept_nor_shown() {
    let world = World::new(json!({}));
    let (mut server, log, url) = hostile(&world, "echo", "");
    world.servers(json!({"echo": {"type": "http", "url": url}}));
    let issuer = url.trim_end_matches("/mcp").to_string();
    let (refresh_token, secret) = ("rt-echoed-back-1234567890", "cs-echoed-back-0987654321");
    world.claude_login("echo", &url, &issuer, refresh_token, secret);

    let plain = world.run(&["refresh", "echo"]);
    let as_json = world.run(&["refresh", "echo", "--json"]);
    let listed = world.run(&["logins", "--json"]);
    let seen = std::fs::read_to_string(&log).unwrap();
    server.kill();
    // The server did get them, and did echo them.
    assert!(seen.contains(refresh_token), "{seen}");
    let said = format!("{}{}{}", text(&plain), text(&as_json), text(&listed));
    assert!(said.contains("is unknown"), "its words are kept: {said}");
    for value in [refresh_token, secret] {
        assert!(!said.contains(value), "{value} in what mcpctl said: {said}");
        assert!(
            !world.files_but_credentials().contains(value),
            "{value} in a file of ours"
        );
    }
}

#[test]
fn a_refresh_that_is_never_answered_ends_in_time_and_says_so() {
    let world = World::new(json!({}));
    let (mut server, log, url) = hostile(&world, "hang", "");
    world.servers(json!({"hung": {"type": "http", "url": url}}));
    let issuer = url.trim_end_matches("/mcp").to_string();
    world.claude_login(
        "hung",
        &url,
        &issuer,
        "rt-never-answered",
        "cs-never-answered",
    );

    let started = Instant::now();
    let refresh = world.run(&["refresh", "hung"]);
    let took = started.elapsed();
    let seen = std::fs::read_to_string(&log).unwrap();
    server.kill();
    assert!(
        seen.contains("\"path\":\"/token\""),
        "the refresh was sent: {seen}"
    );
    let said = text(&refresh);
    assert!(!refresh.status.success(), "{said}");
    assert!(
        said.contains("did not answer within 30 s; it is tried again later"),
        "{said}"
    );
    assert!(took < Duration::from_secs(50), "took {took:?}");
}

#[test]
fn authorization_servers_that_never_answer_hold_a_look_up_for_one_deadline_not_one_each() {
    let world = World::new(json!({}));
    let names = ["hung-a", "hung-b", "hung-c"];
    let hung = hung_claude_logins(&world, &names);

    // One look (`--for 1`): every login is due, and none of their servers ever answers.
    let started = Instant::now();
    let keep = world.run(&["keep", "--claude-code", "--json", "--for", "1"]);
    let took = started.elapsed();
    let failed = String::from_utf8_lossy(&keep.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["refreshed"] == false)
        .count();
    for (name, (_, log, _)) in names.iter().zip(&hung) {
        let seen = std::fs::read_to_string(log).unwrap_or_default();
        assert!(
            seen.contains("\"path\":\"/token\""),
            "{name}'s refresh was sent: {seen}"
        );
    }
    drop(hung);
    assert_eq!(failed, 3, "each said: {}", text(&keep));
    // One after another, the look took 3 × 30 s; side by side, about 30 s.
    assert!(took < Duration::from_secs(60), "the look took {took:?}");
}

#[test]
fn logins_in_claude_codes_store_are_refreshed_well_before_they_expire_into_a_private_file() {
    // 10 s tokens, rotated at every refresh: the keeper refreshes three fifths of a lifetime
    // ahead (6 s), so about every 4 s, and never lets one run out.
    let server = support::OAuthServer::start(10);
    let world = World::new(json!({"kept": {"type": "http", "url": server.url()}}));
    // A credentials file someone left readable by all: ours are written 0600.
    std::fs::write(world.credentials(), "{}").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(world.credentials(), std::fs::Permissions::from_mode(0o644))
            .unwrap();
    }
    let login = world.run(&["login", "kept", "--store", "claude-code"]);
    assert!(login.status.success(), "{}", text(&login));
    let keep = world.run(&["keep", "--claude-code", "--json", "--for", "24"]);
    let refreshed: Vec<f64> = String::from_utf8_lossy(&keep.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["server"] == "kept" && event["refreshed"] == true)
        .filter_map(|event| event["at"].as_f64())
        .collect();
    let stats = server.stats();
    assert!(
        refreshed.len() >= 4,
        "refreshed {} times in 24 s of 10 s tokens: {}",
        refreshed.len(),
        text(&keep)
    );
    for gap in refreshed.windows(2).map(|w| w[1] - w[0]) {
        assert!(
            gap < 7000.0,
            "a refresh came {gap} ms after the one before: {refreshed:?}"
        );
    }
    assert_eq!(stats["reusedRefreshTokens"], 0, "{stats}");
    assert_eq!(stats["refusedRefreshes"], 0, "{stats}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(world.credentials())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
}

#[test]
fn broken_files_of_the_keeper_are_reported_where_they_broke_and_left_as_they_are() {
    let world = World::new(json!({}));
    std::fs::create_dir_all(world.app_data()).unwrap();
    let settings = world.app_data().join("keeper.json");
    let broken = "{\n  \"keepRunningWhenClosed\": true,\n  \"refreshClaudeCodeLogins\": yes\n}\n";
    std::fs::write(&settings, broken).unwrap();
    let keep = world.run(&["keep", "--for", "1"]);
    let said = text(&keep);
    assert!(!keep.status.success(), "{said}");
    assert!(said.contains("keeper.json: line 3, column"), "{said}");
    assert!(said.contains("fix or remove the file"), "{said}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), broken);

    // A broken record of the logins is left too, while a refresh goes on.
    let (mut server, _log, url) = hostile(&world, "echo", "");
    world.servers(json!({"echo": {"type": "http", "url": url}}));
    let issuer = url.trim_end_matches("/mcp").to_string();
    world.claude_login("echo", &url, &issuer, "rt-of-echo", "cs-of-echo");
    let records = world.app_data().join("logins.json");
    std::fs::write(&records, "{\"broken\":").unwrap();
    let refresh = world.run(&["refresh", "echo"]);
    server.kill();
    assert!(text(&refresh).contains("is unknown"), "{}", text(&refresh));
    assert!(
        text(&refresh).contains("logins.json cannot be read (line 1, column"),
        "{}",
        text(&refresh)
    );
    assert_eq!(std::fs::read_to_string(&records).unwrap(), "{\"broken\":");
}

#[test]
fn a_lapsed_login_in_claude_codes_store_is_told_once_however_often_the_keeper_looks() {
    // Expired long ago, and refused for good: the keeper looks at once and 30 s later.
    let world = World::new(json!({}));
    let (mut server, log, url) = hostile(&world, "echo", "");
    world.servers(json!({"gone": {"type": "http", "url": url}}));
    let issuer = url.trim_end_matches("/mcp").to_string();
    world.claude_login("gone", &url, &issuer, "rt-refused-for-good", "cs-of-gone");
    let keep = world.run(&["keep", "--claude-code", "--json", "--for", "34"]);
    let seen = std::fs::read_to_string(&log).unwrap();
    server.kill();
    let told = String::from_utf8_lossy(&keep.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["server"] == "gone" && !event["lapsed"].is_null())
        .count();
    assert_eq!(told, 1, "{}", text(&keep));
    assert_eq!(
        seen.matches("\"path\":\"/token\"").count(),
        1,
        "the spent refresh token was presented once: {seen}"
    );
}

#[test]
fn an_untrusted_project_entry_of_a_users_name_takes_nothing_from_the_users_login() {
    let server = support::OAuthServer::start(3600);
    let world = World::new(json!({"shared": {"type": "http", "url": server.url()}}));
    let login = world.run(&["login", "shared"]);
    assert!(login.status.success(), "{}", text(&login));
    // The folder (never trusted) names a server of its own under the same name.
    let (mut hostile, log, url) = hostile(&world, "echo", "");
    std::fs::write(
        world.project.join(".mcp.json"),
        json!({"mcpServers": {"shared": {"type": "http", "url": url}}}).to_string(),
    )
    .unwrap();

    let listed = world.run(&["logins", "--json"]);
    let refresh = world.run(&["refresh", "shared"]);
    let status = world.run(&["status"]);
    let seen = std::fs::read_to_string(&log).unwrap_or_default();
    hostile.kill();
    // Claude Code leaves an entry nobody approved out, so the user's login is the one listed,
    // refreshed and used; before, the folder's entry took the name and the login was not kept.
    let logins: Value = serde_json::from_slice(&listed.stdout).unwrap_or(Value::Null);
    let names: Vec<(&str, &str)> = logins["logins"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|login| Some((login["server"].as_str()?, login["scope"].as_str()?)))
        .collect();
    assert_eq!(names, [("shared", "user")], "{}", text(&listed));
    assert!(refresh.status.success(), "{}", text(&refresh));
    assert_eq!(server.stats()["refreshes"], 1, "{}", server.stats());
    assert!(
        text(&status).contains(&format!("shared: {} - ✔ Connected", server.url())),
        "{}",
        text(&status)
    );
    assert_eq!(seen, "", "the folder's server heard nothing");
}

/// Claude Code's refresh lock for `name`'s login at `url`, as Claude Code 2.1.332 names it.
fn claude_refresh_lock(world: &World, name: &str, url: &str) -> PathBuf {
    let key = server_key(
        name,
        &ServerConfig::remote(TransportKind::Http, url.to_string(), vec![]),
    );
    let safe: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    world
        .home
        .join(format!(".claude/mcp-refresh-{safe}.lock.lock"))
}

#[test]
fn claude_codes_refresh_lock_is_held_through_a_refresh_and_a_held_one_is_waited_for() {
    let world = World::new(json!({}));
    let mut servers = hung_claude_logins(&world, &["hung", "held"]);
    let (held, held_log, held_url) = servers.pop().unwrap();
    let (hung, hung_log, hung_url) = servers.pop().unwrap();
    // A Claude Code refreshing `held` right now holds its lock.
    let theirs = claude_refresh_lock(&world, "held", &held_url);
    std::fs::create_dir(&theirs).unwrap();
    let ours = claude_refresh_lock(&world, "hung", &hung_url);

    let keep = world
        .mcpctl(&["keep", "--claude-code", "--json", "--for", "1"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ours.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let held_while_refreshing = ours.exists();
    let out = keep.wait_with_output().unwrap();
    let (hung_seen, held_seen) = (
        std::fs::read_to_string(&hung_log).unwrap_or_default(),
        std::fs::read_to_string(&held_log).unwrap_or_default(),
    );
    drop((hung, held));
    assert!(
        held_while_refreshing,
        "our refresh of `hung` holds Claude Code's lock for it"
    );
    assert!(!ours.exists(), "and lets it go when the refresh ends");
    assert!(hung_seen.contains("\"path\":\"/token\""), "{hung_seen}");
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    assert!(
        events
            .iter()
            .any(|e| e["server"] == "held" && e["waiting"] == true),
        "{events:?}"
    );
    assert!(
        !held_seen.contains("/token"),
        "nothing was sent for `held`: {held_seen}"
    );
    assert!(theirs.exists(), "Claude Code's own lock is left as it was");
}
