//! `mcpctl login` and `logout` end to end, for real: an OAuth-protected MCP server on
//! loopback (tests/reference/oauth-server.mjs, on the MCP SDK's authorization server), the OS
//! keychain (gnome-keyring on a private D-Bus: `scripts/with-keychain`), and `$BROWSER`
//! pointing at a script that fills in the server's login page.

#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use support::OAuthServer;

use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use mcp_manager_core::secrets::{server_key, Keychain, SecretStore};
use serde_json::{json, Value};

struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    project: PathBuf,
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
            root,
            home,
            project,
        }
    }

    fn run(&self, browser: &Path, args: &[&str]) -> Output {
        self.run_with(browser, args, &[])
    }

    fn run_with(&self, browser: &Path, args: &[&str], envs: &[(&str, &Path)]) -> Output {
        self.command(browser, args)
            .envs(envs.iter().copied())
            .output()
            .unwrap()
    }

    /// `mcpctl ARGS` in this world, with `browser` as `$BROWSER`.
    fn command(&self, browser: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
        command
            .arg("--project")
            .arg(&self.project)
            .args(args)
            .env("HOME", &self.home)
            .env_remove("XDG_DATA_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove(mcp_manager_core::secrets::UNENCRYPTED_FILE_VAR)
            .env("MCP_MANAGER_MANAGED_DIR", self.home.join("managed"))
            .env("BROWSER", browser)
            .env("BROWSER_LOG", self.root.join("browser.log"));
        command
    }

    fn browser_log(&self) -> String {
        std::fs::read_to_string(self.root.join("browser.log")).unwrap_or_default()
    }

    /// Every file under the home and project folders, as text.
    fn all_files(&self) -> String {
        fn walk(dir: &Path, out: &mut String) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    out.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
                }
            }
        }
        let mut out = String::new();
        walk(&self.home, &mut out);
        walk(&self.project, &mut out);
        out
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A $BROWSER that must not be used: it leaves a mark.
fn tripwire(world: &World) -> PathBuf {
    let path = world.root.join("tripwire.sh");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\ntouch {}\nexit 1\n",
            world.root.join("browser-used").display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

#[test]
fn login_stores_tokens_in_the_keychain_reuses_and_refreshes_them_and_logout_removes_them() {
    let server = OAuthServer::start(3);
    let name = "oauth-e2e";
    let world = World::new(json!({ name: {"type": "http", "url": server.url()} }));
    let person = support::repo("tests/fixtures/browser/complete-login.mjs");
    let tripwire = tripwire(&world);

    let status = world.run(&tripwire, &["status"]);
    assert!(
        text(&status).contains("! Needs authentication"),
        "{}",
        text(&status)
    );

    let login = world.run(&person, &["login", name]);
    assert!(
        login.status.success(),
        "{}\nbrowser: {}",
        text(&login),
        world.browser_log()
    );
    let said = text(&login);
    assert!(said.contains(&format!("Logged in to {name}")), "{said}");
    assert!(said.contains("stored in the OS keychain"), "{said}");
    assert!(said.contains("connected with the new token"), "{said}");
    assert!(
        world
            .browser_log()
            .contains("callback answered 200: Logged in · MCP Manager"),
        "the loopback listener served the success page: {}",
        world.browser_log()
    );

    // The token is in the keychain, and nowhere in the files.
    let config = ServerConfig::remote(TransportKind::Http, server.url(), vec![]);
    let account = format!("tokens:{}", server_key(name, &config));
    let stored = Keychain::default()
        .get(&account)
        .unwrap()
        .expect("tokens in the keychain");
    let stored: Value = serde_json::from_str(stored.expose()).unwrap();
    let token = stored["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let refresh = stored["token_response"]["refresh_token"]
        .as_str()
        .unwrap()
        .to_string();
    let files = world.all_files();
    assert!(
        !files.contains(&token) && !files.contains(&refresh),
        "no token in a file"
    );

    // A second run uses the stored token, without a browser.
    let call = world.run(&tripwire, &["call", name, "whoami"]);
    assert!(call.status.success(), "{}", text(&call));
    assert!(text(&call).contains("client "), "{}", text(&call));
    assert!(
        !world.root.join("browser-used").exists(),
        "no browser the second time"
    );
    assert_eq!(server.stats()["logins"], 1);

    // After the access token expired, the refresh token gets a new one.
    call_after_expiry(&server, &world, &tripwire, name);

    let logout = world.run(&tripwire, &["logout", name]);
    assert!(logout.status.success(), "{}", text(&logout));
    assert!(
        text(&logout).contains(&format!("Logged out of {name}")),
        "{}",
        text(&logout)
    );
    assert!(
        text(&logout).contains("the server revoked the tokens"),
        "{}",
        text(&logout)
    );
    assert!(
        Keychain::default().get(&account).unwrap().is_none(),
        "tokens gone"
    );
    assert!(server.stats()["revocations"].as_u64().unwrap() >= 1);
    let status = world.run(&tripwire, &["status"]);
    assert!(
        text(&status).contains("! Needs authentication"),
        "{}",
        text(&status)
    );
}

/// A server whose access tokens live `ttl` seconds, a world with it as `name`, logged in
/// once; the stand-in person; and a tripwire browser for what follows.
fn logged_in(name: &str, ttl: u32) -> (OAuthServer, World, PathBuf, PathBuf) {
    logged_in_at(name, ttl, OAuthServer::url)
}

/// [`logged_in`] to the server at `url` of the OAuth server (it needed the login first).
fn logged_in_at(
    name: &str,
    ttl: u32,
    url: fn(&OAuthServer) -> String,
) -> (OAuthServer, World, PathBuf, PathBuf) {
    let server = OAuthServer::start(ttl);
    let world = World::new(json!({ name: {"type": "http", "url": url(&server)} }));
    let person = support::repo("tests/fixtures/browser/complete-login.mjs");
    let tripwire = tripwire(&world);
    let status = world.run(&tripwire, &["status"]);
    assert!(
        text(&status).contains("! Needs authentication"),
        "{}",
        text(&status)
    );
    let login = world.run(&person, &["login", name]);
    assert!(
        login.status.success(),
        "{}\nbrowser: {}",
        text(&login),
        world.browser_log()
    );
    (server, world, person, tripwire)
}

#[test]
fn a_refresh_refused_in_a_200_body_means_a_new_login_which_reuses_the_registration() {
    let name = "oauth-refused";
    let (server, world, person, tripwire) = logged_in(name, 3);
    // The provider now refuses refreshes with {"error": "invalid_grant"} in an HTTP 200.
    server.request("POST", "/quirk", r#"{"quirk": "refresh-error-as-200"}"#);
    std::thread::sleep(Duration::from_secs(4));
    let status = world.run(&tripwire, &["status"]);
    assert!(
        text(&status).contains("! Needs authentication"),
        "a refused refresh makes the server need a login, not fail: {}",
        text(&status)
    );
    assert!(server.stats()["refusedRefreshes"].as_u64().unwrap() >= 1);
    assert!(!world.root.join("browser-used").exists());

    server.request("POST", "/quirk", r#"{"quirk": null}"#);
    let login = world.run(&person, &["login", name]);
    assert!(login.status.success(), "{}", text(&login));
    let stats = server.stats();
    assert_eq!(stats["logins"], 2, "{stats}");
    assert_eq!(
        stats["registrations"], 1,
        "the registration was kept and reused: {stats}"
    );
    let status = world.run(&tripwire, &["status"]);
    assert!(text(&status).contains("✔ Connected"), "{}", text(&status));
    world.run(&tripwire, &["logout", name]);
}

#[test]
fn without_a_keychain_the_unencrypted_file_works_only_when_named_and_says_so() {
    let server = OAuthServer::start(3600);
    let name = "oauth-file";
    let world = World::new(json!({ name: {"type": "http", "url": server.url()} }));
    let person = support::repo("tests/fixtures/browser/complete-login.mjs");
    let no_bus = Path::new("unix:path=/nonexistent/bus");

    let refused = world.run_with(
        &person,
        &["login", name],
        &[("DBUS_SESSION_BUS_ADDRESS", no_bus)],
    );
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("no OS keychain is available"),
        "{}",
        text(&refused)
    );
    assert!(
        text(&refused).contains("MCP_MANAGER_UNENCRYPTED_SECRETS_FILE"),
        "{}",
        text(&refused)
    );

    let file = world.root.join("secrets.json");
    let envs = [
        ("DBUS_SESSION_BUS_ADDRESS", no_bus),
        (
            mcp_manager_core::secrets::UNENCRYPTED_FILE_VAR,
            file.as_path(),
        ),
    ];
    let login = world.run_with(&person, &["login", name], &envs);
    assert!(login.status.success(), "{}", text(&login));
    assert!(
        text(&login).contains("UNENCRYPTED secrets file"),
        "{}",
        text(&login)
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("tokens:oauth-file|"));
    let call = world.run_with(&person, &["call", name, "whoami"], &envs);
    assert!(call.status.success(), "{}", text(&call));
}

#[test]
fn no_browser_prints_the_url_for_the_person_to_open() {
    use std::io::BufRead;
    let server = OAuthServer::start(3600);
    let name = "oauth-printed";
    let world = World::new(json!({ name: {"type": "http", "url": server.url()} }));
    let tripwire = tripwire(&world);
    let mut login = Command::new(env!("CARGO_BIN_EXE_mcpctl"))
        .arg("--project")
        .arg(&world.project)
        .args(["login", name, "--no-browser"])
        .env("HOME", &world.home)
        .env_remove("XDG_DATA_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove(mcp_manager_core::secrets::UNENCRYPTED_FILE_VAR)
        .env("MCP_MANAGER_MANAGED_DIR", world.home.join("managed"))
        .env("BROWSER", &tripwire)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(login.stderr.take().unwrap());
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "no URL was printed"
        );
        if let Some(start) = line.find("http://") {
            break line[start..].trim().to_string();
        }
    };
    assert!(url.contains("/authorize?"), "{url}");
    // The person opens it.
    let person = Command::new("node")
        .arg(support::repo("tests/fixtures/browser/complete-login.mjs"))
        .arg(&url)
        .status()
        .unwrap();
    assert!(person.success());
    let out = login.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("Logged in to {name}")));
    assert!(
        !world.root.join("browser-used").exists(),
        "the browser was not opened"
    );
    world.run(&tripwire, &["logout", name]);
}

#[test]
fn processes_that_find_the_token_expired_at_once_take_turns_refreshing_it() {
    // Refresh tokens rotate on this server: two processes refreshing with the same one would
    // leave the second with a refused refresh (needs authentication).
    let name = "oauth-race";
    let (server, world, _, tripwire) = logged_in(name, 2);
    std::thread::sleep(Duration::from_millis(2500));

    let calls: Vec<_> = (0..4)
        .map(|_| {
            world
                .command(&tripwire, &["call", name, "whoami"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for call in calls {
        let output = call.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", text(&output));
        assert!(text(&output).contains("client "), "{}", text(&output));
    }
    let stats = server.stats();
    assert!(stats["refreshes"].as_u64().unwrap() >= 1, "{stats}");
    assert_eq!(stats["logins"], 1, "{stats}");
    assert!(!world.root.join("browser-used").exists());
    world.run(&tripwire, &["logout", name]);
}

#[test]
fn login_verbose_prints_every_oauth_step_with_its_rfc_and_no_secret() {
    let server = OAuthServer::start(3600);
    let name = "verbose";
    let world = World::new(json!({ name: {"type": "http", "url": server.url()} }));
    let person = support::repo("tests/fixtures/browser/complete-login.mjs");
    let login = world.run(&person, &["login", "--verbose", name]);
    let said = text(&login);
    assert!(login.status.success(), "{said}");
    for step in [
        "ok   Request without a token (RFC 9728 §5.1)",
        "ok   Protected resource metadata (RFC 9728 §3)",
        "ok   Authorization server metadata (RFC 8414 §3)",
        "ok   Dynamic client registration (RFC 7591 §3)",
        "ok   Authorization request (browser) (RFC 7636 (PKCE), RFC 8707 (resource))",
        "ok   Authorization response (redirect) (RFC 9207 (iss))",
        "ok   Token request (RFC 7636 (verifier), RFC 8707 (resource))",
    ] {
        assert!(said.contains(step), "{step:?} in:\n{said}");
    }
    assert!(said.contains("< www-authenticate: Bearer"), "{said}");
    assert!(said.contains("code_verifier=[secret: "), "{said}");
    let issued: Vec<String> = serde_json::from_value(server.request("GET", "/issued", "")).unwrap();
    assert!(!issued.is_empty());
    for token in issued {
        assert!(!said.contains(&token), "a token printed");
    }
    let _ = world.run(&person, &["logout", name]);
}

#[test]
fn doctor_ends_a_protected_server_at_the_login_and_passes_it_after_one() {
    let server = OAuthServer::start(3600);
    let name = "checked";
    let world = World::new(json!({ name: {"type": "http", "url": server.url()} }));
    let person = support::repo("tests/fixtures/browser/complete-login.mjs");
    let tripwire = tripwire(&world);

    let before = world.run(&tripwire, &["doctor", name]);
    let said = text(&before);
    assert_eq!(before.status.code(), Some(1), "{said}");
    assert!(said.contains("  FAIL A token is stored"), "{said}");
    assert!(
        said.contains(&format!(
            "→ Log in: press Log in, or run `mcpctl login {name}`."
        )),
        "{said}"
    );

    let json_run = world.run(&tripwire, &["doctor", name, "--json"]);
    let checkup: Value = serde_json::from_slice(&json_run.stdout).unwrap();
    assert_eq!(checkup["server"], name);
    assert_eq!(checkup["healthy"], false);
    let last = checkup["checks"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["id"], "token");
    assert_eq!(last["verdict"], "failed");

    assert!(world.run(&person, &["login", name]).status.success());
    let after = world.run(&tripwire, &["doctor", name, "--json"]);
    let checkup: Value = serde_json::from_slice(&after.stdout).unwrap();
    assert_eq!(after.status.code(), Some(0), "{checkup:#}");
    assert_eq!(checkup["healthy"], true);
    let ids: Vec<&str> = checkup["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        &ids[ids.len() - 5..],
        ["token", "protocol", "capabilities", "tools", "schemas"]
    );
    let _ = world.run(&person, &["logout", name]);
}

#[test]
fn a_server_of_2026_07_28_behind_oauth_is_logged_in_to_and_every_request_carries_the_token() {
    let name = "oauth-modern";
    let (server, world, _person, tripwire) = logged_in_at(name, 3, OAuthServer::modern_url);
    let status = world.run(&tripwire, &["--json", "status"]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    let entry = status
        .as_array()
        .and_then(|all| all.iter().find(|s| s["name"] == name))
        .cloned()
        .unwrap_or(status.clone());
    assert!(
        entry.to_string().contains("\"era\":\"modern\""),
        "the session is of the 2026-07-28 protocol: {entry}"
    );
    let call = world.run(&tripwire, &["call", name, "whoami"]);
    assert!(call.status.success(), "{}", text(&call));
    assert!(text(&call).starts_with("client "), "{}", text(&call));

    // After the access token expired, the stateless request that fails gets a refreshed one.
    call_after_expiry(&server, &world, &tripwire, name);
    assert_eq!(server.stats()["calls"], 2);
}

/// Calls `whoami` once the 3 s access token expired: it works with a refreshed token, without
/// a new login or a browser.
fn call_after_expiry(server: &OAuthServer, world: &World, tripwire: &Path, name: &str) {
    std::thread::sleep(Duration::from_secs(4));
    let call = world.run(tripwire, &["call", name, "whoami"]);
    assert!(call.status.success(), "{}", text(&call));
    let stats = server.stats();
    assert!(stats["refreshes"].as_u64().unwrap() >= 1, "{stats}");
    assert_eq!(stats["logins"], 1, "refreshed, not logged in again");
    assert!(!world.root.join("browser-used").exists());
}

/// A process killed on drop.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Puts a project entry beside the person's logged-in user entry `name`: the same name and
/// URL (so the same keychain key, which Claude Code's format leaves `oauth` out of), its own
/// `oauth` block, approved in a trusted folder so that it is the entry used.
fn shadow_with_project_entry(world: &World, name: &str, url: &str, oauth: Value) {
    std::fs::write(
        world.project.join(".mcp.json"),
        json!({"mcpServers": {name: {"type": "http", "url": url, "oauth": oauth}}}).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(world.project.join(".claude")).unwrap();
    std::fs::write(
        world.project.join(".claude/settings.local.json"),
        json!({"enabledMcpjsonServers": [name]}).to_string(),
    )
    .unwrap();
    let trust = world.run(Path::new("/bin/false"), &["trust"]);
    assert!(trust.status.success(), "{}", text(&trust));
}

#[test]
fn a_project_entry_with_another_oauth_block_does_not_use_the_persons_tokens() {
    let name = "borrowed";
    let (server, world, _person, tripwire) = logged_in(name, 3);
    let before = server.stats();
    shadow_with_project_entry(&world, name, &server.url(), json!({"scopes": "mcp:tools"}));
    let call = world.run(&tripwire, &["call", name, "whoami"]);
    assert!(
        !call.status.success(),
        "the project entry called the server with the person's token: {}",
        text(&call)
    );
    let status = world.run(&tripwire, &["status"]);
    assert!(
        text(&status).contains("! Needs authentication"),
        "it needs a login of its own: {}",
        text(&status)
    );
    assert_eq!(
        server.stats()["refreshes"],
        before["refreshes"],
        "nor was the person's refresh token spent for it"
    );
}

/// An attacker's authorization-server metadata over HTTPS on loopback
/// (`evil-metadata.mjs` with `extra` arguments), trusted by the process through
/// SSL_CERT_FILE as a real certificate would be: the process, its port, the log of what it
/// received, and the certificate.
fn evil_metadata(
    world: &World,
    server: &OAuthServer,
    extra: &[&str],
) -> (Killed, u16, PathBuf, PathBuf) {
    let cert = world.root.join("cert.pem");
    let key = world.root.join("key.pem");
    let made = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made));
    let log = world.root.join("evil.log");
    let real = format!(
        "http://localhost:{}/.well-known/oauth-authorization-server",
        server.port
    );
    let mut args = vec![
        real.as_str(),
        log.to_str().unwrap(),
        cert.to_str().unwrap(),
        key.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (child, port) = support::listening("tests/fixtures/servers/evil-metadata.mjs", &args);
    (Killed(child), port, log, cert)
}

#[test]
fn a_metadata_document_claiming_the_real_issuer_never_gets_the_refresh_token() {
    let name = "phished";
    let (server, world, _person, tripwire) = logged_in(name, 3);
    let (_evil, port, log, cert) = evil_metadata(&world, &server, &[]);
    shadow_with_project_entry(
        &world,
        name,
        &server.url(),
        json!({"authServerMetadataUrl": format!("https://localhost:{port}/.well-known/oauth-authorization-server")}),
    );
    std::thread::sleep(Duration::from_secs(4));
    let status = world.run_with(&tripwire, &["status"], &[("SSL_CERT_FILE", &cert)]);
    let call = world.run_with(
        &tripwire,
        &["call", name, "whoami"],
        &[("SSL_CERT_FILE", &cert)],
    );
    let logout = world.run_with(&tripwire, &["logout", name], &[("SSL_CERT_FILE", &cert)]);
    let seen = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        seen.contains("GET /.well-known/oauth-authorization-server"),
        "the attacker's document was read (the attack was tried): {seen}\n{}",
        text(&status)
    );
    assert!(
        !seen.contains("refresh_token") && !seen.contains("POST"),
        "a credential reached the attacker's endpoints: {seen}"
    );
    assert!(!call.status.success(), "{}", text(&call));
    assert!(
        text(&status).contains("RFC 8414") || text(&status).contains("! Needs authentication"),
        "the person is told: {}",
        text(&status)
    );
    let _ = logout;
}

#[test]
fn a_login_page_that_is_not_a_web_page_is_never_opened() {
    let server = OAuthServer::start(3600);
    let name = "file-page";
    let world = World::new(json!({ name: {"type": "http", "url": server.url()} }));
    let tripwire = tripwire(&world);
    server.request("POST", "/quirk", r#"{"quirk": "authorize-file-scheme"}"#);
    for args in [&["login", name][..], &["login", name, "--no-browser"]] {
        let login = world.run(&tripwire, args);
        assert!(!login.status.success(), "{}", text(&login));
        assert!(
            text(&login).contains("file: address") && !text(&login).contains("file:///etc/passwd?"),
            "refused, and the URL is not offered to open: {}",
            text(&login)
        );
    }
    assert!(
        !world.root.join("browser-used").exists(),
        "the system opener was never handed the file: URL"
    );
}

/// `claude ARGS` in `world`'s home and project, offline; `BROWSER` is `browser`.
fn claude(world: &World, browser: &Path, args: &[&str]) -> Command {
    let mut command = support::claude_cli();
    command
        .args(args)
        .current_dir(&world.project)
        .env("HOME", &world.home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("BROWSER", browser)
        .env("BROWSER_LOG", world.root.join("browser.log"));
    command
}

/// What `claude mcp list` says of `name` in `world`.
fn claude_status(world: &World, name: &str) -> String {
    let out = claude(world, Path::new("/bin/false"), &["mcp", "list"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .find(|l| l.starts_with(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("{name} is not in claude mcp list: {text}"))
        .to_string()
}

#[test]
fn a_login_kept_in_claude_codes_store_serves_claude_code_and_a_logout_takes_it_back() {
    let server = OAuthServer::start(3600);
    let name = "shared-login";
    let world = World::new(json!({ name: {"type": "http", "url": server.url()} }));
    let person = support::repo("tests/fixtures/browser/complete-login.mjs");
    let credentials = world.home.join(".claude/.credentials.json");
    // What Claude Code keeps there of its own must survive byte for byte.
    // (Not a claude.ai login: Claude Code would try to reach claude.ai with one, and wait.)
    let own =
        r#"{"pluginSecrets":{"fakeplug@fake-mkt":{"apiKey":"keep-me","expiresAt":1796145333026}}"#;
    std::fs::create_dir_all(credentials.parent().unwrap()).unwrap();
    std::fs::write(&credentials, format!("{own}}}")).unwrap();
    assert!(claude_status(&world, name).ends_with("! Needs authentication"));

    let login = world.run(&person, &["login", name, "--store", "claude-code"]);
    assert!(
        login.status.success(),
        "{}\n{}",
        text(&login),
        world.browser_log()
    );
    assert!(
        text(&login).contains("Claude Code's credential store"),
        "{}",
        text(&login)
    );
    assert!(
        text(&login).contains("connected with the new token"),
        "{}",
        text(&login)
    );
    let written = std::fs::read_to_string(&credentials).unwrap();
    assert!(
        written.starts_with(&format!("{own},\"mcpOAuth\":{{")),
        "{written}"
    );
    let config = ServerConfig::remote(TransportKind::Http, server.url(), vec![]);
    let key = server_key(name, &config);
    let entry = &serde_json::from_str::<Value>(&written).unwrap()["mcpOAuth"][&key];
    for field in [
        "serverName",
        "serverUrl",
        "accessToken",
        "refreshToken",
        "expiresAt",
        "scope",
        "clientId",
        "redirectUri",
        "issuer",
        "discoveryState",
    ] {
        assert!(!entry[field].is_null(), "{field} in {entry}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&credentials)
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert!(
        Keychain::default()
            .get(&format!("tokens:{key}"))
            .unwrap()
            .is_none(),
        "not in MCP Manager's keychain entries"
    );

    // Claude Code uses that login with no login of its own; so do we.
    assert!(
        claude_status(&world, name).ends_with("✔ Connected"),
        "{}",
        claude_status(&world, name)
    );
    let tripwire = tripwire(&world);
    let status = world.run(&tripwire, &["status"]);
    assert!(text(&status).contains("✔ Connected"), "{}", text(&status));
    assert_eq!(server.stats()["logins"], 1);

    let logout = world.run(&tripwire, &["logout", name]);
    assert!(logout.status.success(), "{}", text(&logout));
    assert_eq!(
        std::fs::read_to_string(&credentials).unwrap(),
        format!("{own},\"mcpOAuth\":{{}}}}"),
        "the entry is gone, Claude Code's own keys are as they were"
    );
    assert!(claude_status(&world, name).ends_with("! Needs authentication"));
}

/// `claude mcp login NAME` in `world`, the person completing the login in the browser.
fn claude_login(world: &World, name: &str) {
    let person = support::repo("tests/fixtures/browser/complete-login.mjs");
    // `claude mcp login` wants a terminal: `script` gives it one.
    let claude_program = support::claude_cli().get_program().to_owned();
    let login = Command::new("script")
        .args(["-q", "-e", "-c"])
        .arg(format!(
            "{} mcp login {name}",
            claude_program.to_string_lossy()
        ))
        .arg("/dev/null")
        .current_dir(&world.project)
        .env("HOME", &world.home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("BROWSER", &person)
        .env("BROWSER_LOG", world.root.join("browser.log"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&login.stdout);
    assert!(
        said.contains(&format!("Authenticated with \"{name}\"")),
        "{said}\n{}",
        world.browser_log()
    );
}

#[test]
fn a_login_claude_code_made_is_used_here_without_one_of_our_own() {
    let server = OAuthServer::start(3600);
    let name = "claude-made";
    let world = World::new(json!({ name: {"type": "http", "url": server.url()} }));
    claude_login(&world, name);

    let tripwire = tripwire(&world);
    let status = world.run(&tripwire, &["status"]);
    assert!(text(&status).contains("✔ Connected"), "{}", text(&status));
    let call = world.run(&tripwire, &["call", name, "whoami"]);
    assert!(call.status.success(), "{}", text(&call));
    assert!(
        !world.root.join("browser-used").exists(),
        "no login of our own"
    );
    assert_eq!(server.stats()["logins"], 1, "one login, Claude Code's");
}

#[test]
fn a_registration_the_server_forgot_is_replaced_and_a_cancelled_login_forgets_its_own() {
    let (server, world, person, _) = logged_in("forgotten-client", 3600);
    let config = ServerConfig::remote(TransportKind::Http, server.url(), vec![]);
    let registration = format!("registration:{}", server_key("forgotten-client", &config));
    let first = Keychain::default()
        .get(&registration)
        .unwrap()
        .expect("registered");
    server.request("POST", "/quirk", r#"{"quirk":"forget-clients"}"#);

    // The next login would meet `invalid_client` in the browser with the kept registration:
    // it is seen before the browser opens, and a new client is registered at once.
    let again = world.run(&person, &["login", "forgotten-client", "--verbose"]);
    assert!(
        again.status.success(),
        "{}\n{}",
        text(&again),
        world.browser_log()
    );
    assert!(text(&again).contains("no longer known"), "{}", text(&again));
    assert_eq!(server.stats()["registrations"], 2);
    let second = Keychain::default()
        .get(&registration)
        .unwrap()
        .expect("registered anew");
    assert_ne!(first.expose(), second.expose());

    // A login that reused it and is given up (Ctrl-C) forgets it too: the person may have
    // given up because the browser showed an error.
    let away = world.root.join("away");
    std::fs::write(&away, "").unwrap();
    let waiting = world
        .command(&person, &["login", "forgotten-client"])
        .env("BROWSER_AWAY", &away)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !world.browser_log().contains("walked away") {
        assert!(
            std::time::Instant::now() < deadline,
            "the browser was opened"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let interrupted = Command::new("kill")
        .args(["-INT", &waiting.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let out = waiting.wait_with_output().unwrap();
    let said = text(&out);
    assert!(!out.status.success());
    assert!(
        said.contains("Waiting for the authorization in your browser"),
        "{said}"
    );
    assert!(said.contains("/authorize?"), "the URL is shown: {said}");
    assert!(said.contains("cancelled"), "{said}");
    assert!(
        Keychain::default().get(&registration).unwrap().is_none(),
        "the registration is forgotten"
    );
    world.run(&person, &["logout", "forgotten-client"]);
}

/// Removes `keys` from every login in Claude Code's credentials file.
fn forget_in_claude_logins(world: &World, keys: &[&str]) {
    let path = world.home.join(".claude/.credentials.json");
    let mut stored: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    for login in stored["mcpOAuth"].as_object_mut().unwrap().values_mut() {
        for key in keys {
            login.as_object_mut().unwrap().remove(*key);
        }
    }
    std::fs::write(&path, stored.to_string()).unwrap();
}

/// A login Claude Code keeps with no `issuer` (and then without its discovery state either)
/// must not be refreshed at whatever authorization server an entry of the same name and URL
/// names: here one that names itself as issuer, so that only the recorded issuer can refuse.
#[test]
fn a_claude_code_login_without_its_issuer_is_never_refreshed_elsewhere() {
    let server = OAuthServer::start(3);
    let name = "claude-no-issuer";
    let world = World::new(json!({ name: {"type": "http", "url": server.url()} }));
    claude_login(&world, name);
    let (_evil, port, log, cert) = evil_metadata(&world, &server, &["own-issuer"]);
    let evil = json!({"authServerMetadataUrl": format!("https://localhost:{port}/.well-known/oauth-authorization-server")});
    let tripwire = tripwire(&world);
    let attack = |forgotten: &[&str]| {
        forget_in_claude_logins(&world, forgotten);
        shadow_with_project_entry(&world, name, &server.url(), evil.clone());
        std::thread::sleep(Duration::from_secs(4));
        let call = world.run_with(
            &tripwire,
            &["call", name, "whoami"],
            &[("SSL_CERT_FILE", &cert)],
        );
        let seen = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            seen.contains("GET /.well-known/oauth-authorization-server"),
            "the attacker's document was read (the attack was tried): {seen}\n{}",
            text(&call)
        );
        assert!(
            !seen.contains("refresh_token") && !seen.contains("POST"),
            "without {forgotten:?}, the refresh token reached the attacker: {seen}"
        );
        assert!(!call.status.success(), "{}", text(&call));
    };

    attack(&["issuer"]);
    // The person's own entry still refreshes where Claude Code logged in (once the
    // needs-auth mark the refused call left, which Claude Code also honours, is gone).
    std::fs::remove_file(world.project.join(".mcp.json")).unwrap();
    std::fs::remove_file(world.home.join(".claude/mcp-needs-auth-cache.json")).unwrap();
    let before = server.stats()["refreshes"].as_u64().unwrap();
    let call = world.run(&tripwire, &["call", name, "whoami"]);
    assert!(call.status.success(), "{}", text(&call));
    assert!(server.stats()["refreshes"].as_u64().unwrap() > before);

    attack(&["issuer", "discoveryState"]);
}

/// `mcpctl logins --json`, parsed, and the one login of `name` in it.
fn login_row(world: &World, tripwire: &Path, name: &str) -> Value {
    let out = world.run(tripwire, &["logins", "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    let all: Value = serde_json::from_slice(&out.stdout).unwrap();
    all["logins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["server"] == name)
        .unwrap_or_else(|| panic!("{name} is not in mcpctl logins: {all}"))
        .clone()
}

#[test]
fn logins_lists_each_login_refresh_renews_it_where_it_came_from_and_a_refused_one_lapses() {
    let name = "kept-login";
    let (server, world, _person, tripwire) = logged_in(name, 60);
    let row = login_row(&world, &tripwire, name);
    assert_eq!(row["store"], "keychain", "{row}");
    assert_eq!(row["hasRefreshToken"], true, "{row}");
    assert_eq!(row["client"], "dynamic", "{row}");
    assert!(
        row["issuer"]
            .as_str()
            .unwrap()
            .starts_with("http://localhost:"),
        "{row}"
    );
    assert!(row["lastRefresh"].is_null(), "{row}");
    // A token of 60 s is refreshed three fifths of its life (36 s) before it expires.
    let (expires, due) = (
        row["expiresAtMs"].as_f64().unwrap(),
        row["refreshAtMs"].as_f64().unwrap(),
    );
    assert!((expires - due - 36_000.0).abs() < 1.0, "{row}");

    let refresh = world.run(&tripwire, &["refresh", name]);
    assert!(refresh.status.success(), "{}", text(&refresh));
    assert!(
        text(&refresh).contains("refreshed; the new token expires in"),
        "{}",
        text(&refresh)
    );
    let stats = server.stats();
    assert_eq!(stats["refreshes"], 1, "{stats}");
    let row = login_row(&world, &tripwire, name);
    assert_eq!(row["lastRefresh"]["ok"], true, "{row}");
    assert!(
        row["expiresAtMs"].as_f64().unwrap() > expires,
        "a new token: {row}"
    );
    // The refreshed token is the one the server now takes.
    let call = world.run(&tripwire, &["call", name, "whoami"]);
    assert!(call.status.success(), "{}", text(&call));

    // Every refresh without a name: the keeper's logins, this one.
    let all = world.run(&tripwire, &["refresh"]);
    assert!(all.status.success(), "{}", text(&all));
    assert_eq!(server.stats()["refreshes"], 2);

    // The authorization server forgets every token: the refresh token is refused for good.
    server.request("POST", "/quirk", r#"{"quirk": "forget-tokens"}"#);
    server.request("POST", "/quirk", r#"{"quirk": null}"#);
    let refused = world.run(&tripwire, &["refresh", name]);
    assert!(!refused.status.success(), "{}", text(&refused));
    assert!(
        text(&refused).contains("log in again"),
        "{}",
        text(&refused)
    );
    let row = login_row(&world, &tripwire, name);
    assert_eq!(row["lastRefresh"]["ok"], false, "{row}");
    assert!(
        row["lapsed"]
            .as_str()
            .unwrap()
            .contains("refused the refresh token"),
        "{row}"
    );
    assert!(
        row["refreshAtMs"].is_null(),
        "a lapsed login is not tried again: {row}"
    );
    let words = text(&world.run(&tripwire, &["logins"]));
    assert!(words.contains("! Needs a new login"), "{words}");
    assert!(words.contains(&format!("(mcpctl login {name})")), "{words}");
    assert!(
        !words.contains("::") && !words.contains("AuthError"),
        "{words}"
    );
    // No rotated refresh token was ever sent twice; no token is in any file but the keychain's.
    assert_eq!(server.stats()["reusedRefreshTokens"], 0);
    let files = world.all_files();
    for token in server.request("GET", "/issued", "").as_array().unwrap() {
        assert!(
            !files.contains(token.as_str().unwrap()),
            "a token in a file"
        );
    }
    assert!(!world.root.join("browser-used").exists());
}
