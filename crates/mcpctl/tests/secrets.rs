//! `--client-secret` puts the secret in the real OS keychain and never in a file.
//!
//! Run through `scripts/with-keychain` (as `scripts/test` does): a private D-Bus session with
//! its own unlocked gnome-keyring.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use mcp_manager_core::config::entry::{OAuthConfig, ServerConfig, TransportKind};
use mcp_manager_core::secrets::{client_secret_account, server_key, Keychain, Secret, SecretStore};

fn mcpctl(home: &Path, args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
    command
        .args(args)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("MCP_CLIENT_SECRET")
        .env("MCP_MANAGER_MANAGED_DIR", home.join("managed"))
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("mcpctl runs");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn remote(url: &str) -> ServerConfig {
    let mut config = ServerConfig::remote(TransportKind::Http, url, vec![]);
    config.oauth = Some(OAuthConfig {
        client_id: Some("cid".into()),
        ..OAuthConfig::default()
    });
    config
}

#[test]
fn client_secret_goes_to_the_keychain_from_env_or_stdin_and_never_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let project = project.to_str().unwrap();
    let keychain = Keychain::default();
    let unique = format!("kc-{}", std::process::id());

    let by_env = format!("{unique}-env");
    let out = mcpctl(
        &home,
        &[
            "--project",
            project,
            "add",
            "-s",
            "user",
            "-t",
            "http",
            "--client-id",
            "cid",
            "--client-secret",
            &by_env,
            "https://kc.example/mcp",
        ],
        &[("MCP_CLIENT_SECRET", "secret-from-env")],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let account = client_secret_account(&by_env, &remote("https://kc.example/mcp"));
    assert_eq!(
        keychain.get(&account).unwrap().as_ref().map(Secret::expose),
        Some("secret-from-env")
    );

    let by_stdin = format!("{unique}-stdin");
    let out = mcpctl(
        &home,
        &[
            "--project",
            project,
            "add-json",
            "-s",
            "user",
            "--client-secret",
            &by_stdin,
            r#"{"type":"http","url":"https://kc.example/mcp","oauth":{"clientId":"cid"}}"#,
        ],
        &[],
        Some("secret-from-stdin\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let account_stdin = client_secret_account(&by_stdin, &remote("https://kc.example/mcp"));
    assert_eq!(
        keychain
            .get(&account_stdin)
            .unwrap()
            .as_ref()
            .map(Secret::expose),
        Some("secret-from-stdin")
    );

    let config = std::fs::read_to_string(home.join(".claude.json")).unwrap();
    assert!(
        !config.contains("secret-from"),
        "no secret in the config file:\n{config}"
    );
    assert!(
        config.contains("\"clientId\": \"cid\""),
        "the client id is in the file"
    );

    // A failed add leaves no secret behind: the name already exists.
    let out = mcpctl(
        &home,
        &[
            "--project",
            project,
            "add",
            "-s",
            "user",
            "-t",
            "http",
            "--client-id",
            "cid",
            "--client-secret",
            &by_env,
            "https://other.example/mcp",
        ],
        &[("MCP_CLIENT_SECRET", "orphan")],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let orphan = client_secret_account(&by_env, &remote("https://other.example/mcp"));
    assert_eq!(
        keychain.get(&orphan).unwrap(),
        None,
        "the secret of a failed add is removed"
    );

    keychain.delete(&account).unwrap();
    keychain.delete(&account_stdin).unwrap();
    assert_eq!(keychain.get(&account).unwrap(), None);
}

#[test]
fn no_keychain_is_a_clear_error_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let out = mcpctl(
        &home,
        &[
            "--project",
            dir.path().to_str().unwrap(),
            "--json",
            "add",
            "-t",
            "http",
            "--client-id",
            "c",
            "--client-secret",
            "nokc",
            "https://x.example/mcp",
        ],
        &[
            ("MCP_CLIENT_SECRET", "s"),
            ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(err["error"]["code"], "keychain");
    let message = err["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("no OS keychain is available") && message.contains("/nonexistent/bus"),
        "{message}"
    );
    assert!(!home.join(".claude.json").exists(), "nothing was written");
}

#[test]
fn server_key_matches_claude_codes_javascript() {
    let mut config = ServerConfig::remote(
        TransportKind::Http,
        "https://api.example.com/mcp",
        vec![
            ("X-Team".into(), "é ünïcode \"quoted\"".into()),
            ("A".into(), "b".into()),
        ],
    );
    config.oauth = None;
    let script = r#"
        const crypto = require("crypto");
        const json = JSON.stringify({type: "http", url: "https://api.example.com/mcp", headers: {"X-Team": "é ünïcode \"quoted\"", "A": "b"}});
        process.stdout.write("github|" + crypto.createHash("sha256").update(json).digest("hex").substring(0, 16));
    "#;
    let out = Command::new("node")
        .arg("-e")
        .arg(script)
        .output()
        .expect("node runs");
    assert_eq!(
        server_key("github", &config),
        String::from_utf8(out.stdout).unwrap()
    );
    assert_eq!(
        format!("{:?}", Secret::new("hunter2")),
        "Secret([redacted])"
    );
}
