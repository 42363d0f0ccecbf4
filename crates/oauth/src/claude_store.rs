//! Claude Code's own credential store, so that one login serves both programs.
//!
//! Claude Code keeps an MCP server's login on Linux in `~/.claude/.credentials.json`
//! (`$CLAUDE_CONFIG_DIR/.credentials.json`; mode 0600, compact JSON), under
//! `mcpOAuth["<name>|<16 hex of SHA-256 of the compact JSON {type,url,headers}>"]`, computed
//! after `${VAR}` expansion, as
//! `{serverName, serverUrl, accessToken, refreshToken, expiresAt (epoch ms), scope, clientId,
//! clientSecret?, redirectUri, issuer, discoveryState{authorizationServerUrl, …}}`.
//! (Read from Claude Code 2.1.332's own writes: its `claude mcp login` against our reference
//! authorization server.) On macOS Claude Code keeps the same JSON in the macOS keychain
//! instead, which is not shared yet: there the choice is refused and logins stay ours.
//!
//! A person chooses per server where its login lives: MCP Manager's keychain (the default) or
//! Claude Code's store. A server Claude Code already logged in to uses Claude Code's store
//! unless the person chose otherwise, so it shows as logged in here at once.
//!
//! [`ClaudeCodeStore`] is a [`SecretStore`] that keeps this server's `tokens:` and
//! `registration:` accounts in that file, translated to and from Claude Code's fields, and
//! every other account (the binding, a pre-registered client's secret) in the keychain as
//! before. Each write re-reads the file under Claude Code's lock (the `proper-lockfile`
//! directory `.storage-write.lock` beside it, which Claude Code 2.1.332 takes around every
//! write of its store), changes only this server's entry, and replaces the file atomically,
//! keeping every other key as it was.
//! The refresh lock of [`super::store`] still keeps two refreshes with one rotating refresh
//! token from both being sent by MCP Manager's processes.
//!
//! A login Claude Code made carries no binding of ours; what keeps its refresh token with the
//! authorization server that issued it is the `issuer` it recorded (else its
//! `discoveryState.authorizationServerUrl`). A login that records neither is not used here:
//! an entry of the same name and URL with an `oauth.authServerMetadataUrl` of its own could
//! otherwise have it refreshed at a token endpoint of its choosing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcp_manager_core::config::document::{self, Layout, NewFileMode};
use mcp_manager_core::config::entry::{ServerConfig, Transport};
use mcp_manager_core::secrets::{server_key, Secret, SecretError, SecretStore};
use mcp_manager_core::Locations;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Where a server's login lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum LoginStore {
    /// MCP Manager's entries in the OS keychain (or its unencrypted file when so configured).
    Keychain,
    /// Claude Code's `.credentials.json`: Claude Code uses the same login.
    ClaudeCode,
}

impl LoginStore {
    pub fn parse(word: &str) -> Option<LoginStore> {
        match word {
            "keychain" | "mcp-manager" => Some(LoginStore::Keychain),
            "claude-code" | "claude" => Some(LoginStore::ClaudeCode),
            _ => None,
        }
    }
}

/// Where the stores are for one person, and the choices made.
#[derive(Debug, Clone)]
pub struct LoginStores {
    credentials: PathBuf,
    choices: PathBuf,
}

impl LoginStores {
    /// Claude Code's store folder: `$CLAUDE_SECURESTORAGE_CONFIG_DIR` when set (empty: the
    /// home's `.claude`), else its config folder.
    pub fn of(locations: &Locations) -> LoginStores {
        let folder = match std::env::var_os("CLAUDE_SECURESTORAGE_CONFIG_DIR") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            Some(_) => locations.home.join(".claude"),
            None => locations.claude_dir(),
        };
        LoginStores {
            credentials: folder.join(".credentials.json"),
            choices: locations.app_data_dir().join("login-stores.json"),
        }
    }

    /// Claude Code's credentials file.
    pub fn credentials_file(&self) -> &Path {
        &self.credentials
    }

    /// The store chosen for the server with MCP Manager key `key`, if one was.
    pub fn chosen(&self, key: &str) -> Option<LoginStore> {
        let doc = document::read(&self.choices).ok().flatten()?;
        serde_json::from_value(doc.value.get(key)?.clone()).ok()
    }

    /// Records the person's choice for the server with MCP Manager key `key`.
    pub fn choose(&self, key: &str, store: LoginStore) -> Result<(), SecretError> {
        if store == LoginStore::ClaudeCode && cfg!(target_os = "macos") {
            // Claude Code keeps its logins in the macOS keychain there, not in this file.
            return Err(SecretError::Failed(
                "on macOS Claude Code keeps its logins in the macOS keychain, which MCP Manager does not share yet: keep this login in MCP Manager's keychain".into(),
            ));
        }
        document::update(&self.choices, NewFileMode::Private, |doc| {
            if let Some(map) = doc.as_object_mut() {
                map.insert(key.to_string(), json!(store));
            }
            Ok(())
        })
        .map_err(|err| SecretError::Failed(err.to_string()))
    }

    /// Whether Claude Code holds a login (an access or refresh token) under `claude_key`.
    pub fn claude_has_login(&self, claude_key: &str) -> bool {
        read_entry(&self.credentials, claude_key).is_some_and(|entry| {
            ["accessToken", "refreshToken"].iter().any(|k| {
                entry
                    .get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty())
            })
        })
    }

    /// The store `name`'s login lives in: the person's choice, else Claude Code's when it
    /// already holds a login for the server, else the keychain. `raw` is the entry as written,
    /// `expanded` after `${VAR}` expansion.
    pub fn store_of(&self, name: &str, raw: &ServerConfig, expanded: &ServerConfig) -> LoginStore {
        if cfg!(target_os = "macos") {
            return LoginStore::Keychain;
        }
        self.chosen(&server_key(name, raw)).unwrap_or_else(|| {
            if self.claude_has_login(&claude_key(name, expanded)) {
                LoginStore::ClaudeCode
            } else {
                LoginStore::Keychain
            }
        })
    }

    /// The secret store for `name` in `store`: `base` itself, or Claude Code's file in front
    /// of it.
    pub fn secrets(
        &self,
        store: LoginStore,
        name: &str,
        raw: &ServerConfig,
        expanded: &ServerConfig,
        base: Arc<dyn SecretStore>,
    ) -> Arc<dyn SecretStore> {
        match store {
            LoginStore::Keychain => base,
            LoginStore::ClaudeCode => Arc::new(ClaudeCodeStore {
                file: self.credentials.clone(),
                our_key: server_key(name, raw),
                claude_key: claude_key(name, expanded),
                server_name: name.to_string(),
                server_url: match &expanded.transport {
                    Transport::Remote { url, .. } => url.clone(),
                    Transport::Stdio { .. } => String::new(),
                },
                fallback: base,
            }),
        }
    }
}

/// Claude Code's key for a server: [`server_key`] of the entry after `${VAR}` expansion.
pub fn claude_key(name: &str, expanded: &ServerConfig) -> String {
    server_key(name, expanded)
}

fn read_entry(file: &Path, claude_key: &str) -> Option<Map<String, Value>> {
    let doc = document::read(file).ok().flatten()?;
    doc.value
        .get("mcpOAuth")?
        .get(claude_key)?
        .as_object()
        .cloned()
}

/// One server's `tokens:` and `registration:` in Claude Code's file; everything else in
/// `fallback`.
pub struct ClaudeCodeStore {
    file: PathBuf,
    our_key: String,
    claude_key: String,
    server_name: String,
    server_url: String,
    fallback: Arc<dyn SecretStore>,
}

enum Part {
    Tokens,
    Registration,
}

impl ClaudeCodeStore {
    fn part(&self, account: &str) -> Option<Part> {
        let (kind, key) = account.split_once(':')?;
        (key == self.our_key).then_some(())?;
        match kind {
            "tokens" => Some(Part::Tokens),
            "registration" => Some(Part::Registration),
            _ => None,
        }
    }

    /// Changes this server's entry under Claude Code's lock; an entry left without a token
    /// and without a client is removed, as Claude Code's logout removes it.
    fn change(&self, edit: impl FnOnce(&mut Map<String, Value>)) -> Result<(), SecretError> {
        let compact = Layout {
            indent: String::new(),
            final_newline: false,
        };
        // Claude Code's own lock around writes of its store: `.storage-write.lock` beside it.
        let lock_for = self
            .file
            .parent()
            .map(|folder| folder.join(".storage-write"))
            .unwrap_or_else(|| PathBuf::from(".storage-write"));
        document::update_under(
            &lock_for,
            &self.file,
            // Tokens: never in a file others may read, whatever mode it had.
            NewFileMode::Secret,
            Some(compact),
            |doc| {
                let Some(root) = doc.as_object_mut() else {
                    return Err(mcp_manager_core::ConfigError::Shape {
                        path: self.file.clone(),
                        message: "Claude Code's credentials file is not a JSON object".into(),
                    });
                };
                let servers = root
                    .entry("mcpOAuth")
                    .or_insert_with(|| Value::Object(Map::new()));
                let Some(servers) = servers.as_object_mut() else {
                    return Err(mcp_manager_core::ConfigError::Shape {
                        path: self.file.clone(),
                        message: "\"mcpOAuth\" is not an object".into(),
                    });
                };
                let mut entry = servers
                    .get(&self.claude_key)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                edit(&mut entry);
                let empty = ["accessToken", "refreshToken", "clientId"].iter().all(|k| {
                    entry
                        .get(*k)
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty)
                });
                if empty {
                    servers.remove(&self.claude_key);
                } else {
                    servers.insert(self.claude_key.clone(), Value::Object(entry));
                }
                Ok(())
            },
        )
        .map_err(|err| SecretError::Failed(err.to_string()))
    }

    fn named(&self, entry: &mut Map<String, Value>) {
        if !entry.contains_key("serverName") {
            // A new entry starts as Claude Code's do.
            let mut fresh = Map::new();
            fresh.insert("serverName".into(), json!(self.server_name));
            fresh.insert("serverUrl".into(), json!(self.server_url));
            fresh.append(entry);
            *entry = fresh;
        }
        entry.insert("serverName".into(), json!(self.server_name));
        entry.insert("serverUrl".into(), json!(self.server_url));
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

/// Claude Code's entry as rmcp's stored credentials (JSON).
fn tokens_from(entry: &Map<String, Value>) -> Option<Value> {
    let text = |k: &str| {
        entry
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let access = text("accessToken");
    let refresh = text("refreshToken");
    if access.is_none() && refresh.is_none() {
        return None;
    }
    let now = now_ms();
    let mut token = json!({
        "access_token": access.unwrap_or(""),
        "token_type": "bearer",
    });
    if let Some(refresh) = refresh {
        token["refresh_token"] = json!(refresh);
    }
    if let Some(expires_at) = entry.get("expiresAt").and_then(Value::as_u64) {
        token["expires_in"] = json!(expires_at.saturating_sub(now) / 1000);
    }
    if let Some(scope) = text("scope") {
        token["scope"] = json!(scope);
    }
    Some(json!({
        "client_id": text("clientId").unwrap_or(""),
        "token_response": token,
        "granted_scopes": text("scope").map(|s| s.split_whitespace().collect::<Vec<_>>()).unwrap_or_default(),
        "token_received_at": now / 1000,
        "issuer": recorded_issuer(entry),
    }))
}

/// The authorization server a Claude Code login came from: its `issuer`, else (as Claude
/// Code kept some logins) `discoveryState.authorizationServerUrl`. With neither, the login is
/// not used (`Target::refusal`): its tokens could otherwise be refreshed anywhere.
fn recorded_issuer(entry: &Map<String, Value>) -> Option<&str> {
    fn text(value: Option<&Value>) -> Option<&str> {
        value.and_then(Value::as_str).filter(|s| !s.is_empty())
    }
    text(entry.get("issuer")).or_else(|| {
        text(
            entry
                .get("discoveryState")
                .and_then(|d| d.get("authorizationServerUrl")),
        )
    })
}

/// rmcp's stored credentials written into Claude Code's entry.
fn tokens_into(entry: &mut Map<String, Value>, stored: &Value) {
    let token = &stored["token_response"];
    let text = |v: &Value| v.as_str().map(str::to_string);
    if let Some(access) = text(&token["access_token"]) {
        entry.insert("accessToken".into(), json!(access));
    }
    if let Some(refresh) = text(&token["refresh_token"]) {
        entry.insert("refreshToken".into(), json!(refresh));
    }
    match (
        token["expires_in"].as_u64(),
        stored["token_received_at"].as_u64(),
    ) {
        (Some(lifetime), Some(received)) => {
            entry.insert("expiresAt".into(), json!((received + lifetime) * 1000));
        }
        (Some(lifetime), None) => {
            entry.insert("expiresAt".into(), json!(now_ms() + lifetime * 1000));
        }
        _ => {}
    }
    let scope = text(&token["scope"]).or_else(|| {
        stored["granted_scopes"].as_array().map(|s| {
            s.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" ")
        })
    });
    if let Some(scope) = scope.filter(|s| !s.is_empty()) {
        entry.insert("scope".into(), json!(scope));
    }
    if let Some(client) = text(&stored["client_id"]).filter(|c| !c.is_empty()) {
        entry.insert("clientId".into(), json!(client));
    }
    if let Some(issuer) = text(&stored["issuer"]) {
        entry.insert("issuer".into(), json!(issuer));
        if !entry.contains_key("discoveryState") {
            entry.insert(
                "discoveryState".into(),
                json!({"authorizationServerUrl": issuer, "oauthMetadataFound": true, "authServerMetadataUrl": null}),
            );
        }
    }
}

impl SecretStore for ClaudeCodeStore {
    fn get(&self, account: &str) -> Result<Option<Secret>, SecretError> {
        let Some(part) = self.part(account) else {
            return self.fallback.get(account);
        };
        let Some(entry) = read_entry(&self.file, &self.claude_key) else {
            return Ok(None);
        };
        let value = match part {
            Part::Tokens => tokens_from(&entry),
            Part::Registration => {
                let text = |k: &str| entry.get(k).and_then(Value::as_str).map(str::to_string);
                match (text("clientId"), text("redirectUri")) {
                    (Some(client_id), Some(redirect_uri)) => Some(json!({
                        "client_id": client_id,
                        "client_secret": text("clientSecret"),
                        "redirect_uri": redirect_uri,
                        "issuer": text("issuer"),
                    })),
                    _ => None,
                }
            }
        };
        Ok(value.map(|v| Secret::new(v.to_string())))
    }

    fn set(&self, account: &str, secret: &Secret) -> Result<(), SecretError> {
        let Some(part) = self.part(account) else {
            return self.fallback.set(account, secret);
        };
        let value: Value = serde_json::from_str(secret.expose())
            .map_err(|err| SecretError::Failed(format!("not JSON: {err}")))?;
        self.change(|entry| {
            self.named(entry);
            match part {
                Part::Tokens => tokens_into(entry, &value),
                Part::Registration => {
                    for (from, to) in [
                        ("client_id", "clientId"),
                        ("client_secret", "clientSecret"),
                        ("redirect_uri", "redirectUri"),
                        ("issuer", "issuer"),
                    ] {
                        match value[from].as_str() {
                            Some(text) => {
                                entry.insert(to.into(), json!(text));
                            }
                            None if from == "client_secret" => {
                                entry.remove(to);
                            }
                            None => {}
                        }
                    }
                }
            }
        })
    }

    fn delete(&self, account: &str) -> Result<(), SecretError> {
        let Some(part) = self.part(account) else {
            return self.fallback.delete(account);
        };
        if read_entry(&self.file, &self.claude_key).is_none() {
            return Ok(());
        }
        self.change(|entry| {
            let keys: &[&str] = match part {
                Part::Tokens => &["accessToken", "refreshToken", "expiresAt", "scope"],
                Part::Registration => &["clientId", "clientSecret", "redirectUri"],
            };
            for key in keys {
                entry.remove(*key);
            }
        })
    }
}

/// Claude Code's own lock around refreshing one server's login: the `proper-lockfile` folder
/// `mcp-refresh-<key, every character but letters and digits as _>.lock.lock` in its config
/// folder (Claude Code 2.1.332: taken with `stale: 60000, update: 5000` around its re-read of
/// the file, the refresh request and the save; while another holds it, it waits up to five
/// times 1–2 s, then goes on with the tokens the file holds). Held by MCP Manager while it
/// refreshes a login kept in Claude Code's store, so that a Claude Code starting meanwhile
/// does not refresh the same one. Released (removed) when dropped.
#[derive(Debug)]
pub struct ClaudeRefreshLock {
    dir: PathBuf,
}

/// How old Claude Code's refresh lock is before it is stale (`proper-lockfile`'s `stale`).
const CLAUDE_LOCK_STALE: std::time::Duration = std::time::Duration::from_secs(60);

impl ClaudeRefreshLock {
    /// The lock's folder name for `claude_key`.
    fn name(claude_key: &str) -> String {
        let safe: String = claude_key
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        format!("mcp-refresh-{safe}.lock.lock")
    }

    /// Whether the lock for `claude_key` can exist at all: its name is a file name (at most
    /// 255 bytes), which a server name of 220 or so characters makes it not.
    pub fn fits(claude_key: &str) -> bool {
        Self::name(claude_key).len() <= 255
    }

    /// Takes the lock for `claude_key` in the folder of `stores`' credentials file, now or
    /// never: `None` when Claude Code holds it (and it is not stale), or it cannot be made.
    pub fn take(stores: &LoginStores, claude_key: &str) -> Option<ClaudeRefreshLock> {
        let dir = stores.credentials.parent()?.join(Self::name(claude_key));
        for _ in 0..2 {
            match std::fs::create_dir(&dir) {
                Ok(()) => return Some(ClaudeRefreshLock { dir }),
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                    let meta = std::fs::symlink_metadata(&dir).ok()?;
                    let stale = meta.is_dir()
                        && meta
                            .modified()
                            .ok()
                            .and_then(|m| m.elapsed().ok())
                            .is_some_and(|age| age > CLAUDE_LOCK_STALE);
                    if !(stale && std::fs::remove_dir(&dir).is_ok()) {
                        return None;
                    }
                }
                Err(_) => return None,
            }
        }
        None
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for ClaudeRefreshLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Whether a Claude Code process of this user runs now (its program is named `claude`, as
/// the native build from npm and its installer name it): while one runs, a login kept in its
/// store is not rotated by anyone else. A Claude Code 2.1.332 session refreshes on a 401 with
/// the refresh token it read from the file a moment before and takes no lock for it, so a
/// rotation made beside it can always race it.
#[cfg(target_os = "linux")]
pub fn claude_code_running() -> bool {
    let me = std::fs::metadata("/proc/self").ok().map(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid()
    });
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return false;
    };
    processes.flatten().any(|process| {
        use std::os::unix::fs::MetadataExt;
        let path = process.path();
        let ours = std::fs::metadata(&path).ok().map(|m| m.uid()) == me;
        ours && std::fs::read_link(path.join("exe"))
            .ok()
            .is_some_and(|exe| {
                exe.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n == "claude" || n == "claude.exe" || n.starts_with("claude "))
            })
    })
}

#[cfg(not(target_os = "linux"))]
pub fn claude_code_running() -> bool {
    // Claude Code's logins are shared on Linux only (see the module's text).
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_manager_core::config::entry::TransportKind;
    use mcp_manager_core::secrets::InMemory;

    fn store(dir: &Path) -> (LoginStores, Arc<dyn SecretStore>, ServerConfig) {
        let stores = LoginStores {
            credentials: dir.join(".credentials.json"),
            choices: dir.join("choices.json"),
        };
        let config = ServerConfig::remote(TransportKind::Http, "http://localhost:9/mcp", vec![]);
        let secrets = stores.secrets(
            LoginStore::ClaudeCode,
            "demo",
            &config,
            &config,
            Arc::new(InMemory::default()),
        );
        (stores, secrets, config)
    }

    #[test]
    fn tokens_are_written_as_claude_code_writes_them_and_other_keys_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let other = r#"{"claudeAiOauth":{"accessToken":"keep-me","expiresAt":1796145333026},"mcpOAuth":{"other|0123456789abcdef":{"serverName":"other","accessToken":"a"}}}"#;
        std::fs::write(dir.path().join(".credentials.json"), other).unwrap();
        let (_, secrets, config) = store(dir.path());
        let key = server_key("demo", &config);
        secrets
            .set(
                &format!("registration:{key}"),
                &Secret::new(r#"{"client_id":"c1","redirect_uri":"http://127.0.0.1:5/callback","issuer":"http://localhost:9/"}"#),
            )
            .unwrap();
        secrets
            .set(
                &format!("tokens:{key}"),
                &Secret::new(r#"{"client_id":"c1","token_response":{"access_token":"AT","token_type":"bearer","expires_in":3600,"refresh_token":"RT","scope":"mcp:tools"},"granted_scopes":[],"token_received_at":1000,"issuer":"http://localhost:9/"}"#),
            )
            .unwrap();
        let text = std::fs::read_to_string(dir.path().join(".credentials.json")).unwrap();
        assert!(text.starts_with(r#"{"claudeAiOauth":{"accessToken":"keep-me","expiresAt":1796145333026},"mcpOAuth":{"other|0123456789abcdef":{"serverName":"other","accessToken":"a"},"#), "{text}");
        let doc: Value = serde_json::from_str(&text).unwrap();
        let entry = &doc["mcpOAuth"][&key];
        assert_eq!(entry["serverName"], "demo");
        assert_eq!(entry["serverUrl"], "http://localhost:9/mcp");
        assert_eq!(entry["accessToken"], "AT");
        assert_eq!(entry["refreshToken"], "RT");
        assert_eq!(entry["expiresAt"], 4_600_000);
        assert_eq!(entry["scope"], "mcp:tools");
        assert_eq!(entry["clientId"], "c1");
        assert_eq!(entry["redirectUri"], "http://127.0.0.1:5/callback");
        assert_eq!(
            entry["discoveryState"]["authorizationServerUrl"],
            "http://localhost:9/"
        );
        // Read back as rmcp's credentials.
        let read: Value = serde_json::from_str(
            secrets
                .get(&format!("tokens:{key}"))
                .unwrap()
                .unwrap()
                .expose(),
        )
        .unwrap();
        assert_eq!(read["token_response"]["refresh_token"], "RT");
        assert_eq!(read["token_response"]["expires_in"], 0, "long expired");
        // Accounts that are not this server's tokens or registration stay in the keychain.
        secrets.set("binding:x", &Secret::new("b")).unwrap();
        assert!(
            !std::fs::read_to_string(dir.path().join(".credentials.json"))
                .unwrap()
                .contains("binding")
        );
        // Logout removes the entry, and nothing else.
        secrets.delete(&format!("tokens:{key}")).unwrap();
        secrets.delete(&format!("registration:{key}")).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".credentials.json")).unwrap(),
            other
        );
    }

    #[test]
    fn a_refresh_lock_whose_name_is_no_file_name_is_known_beforehand() {
        let dir = tempfile::tempdir().unwrap();
        let (stores, _, config) = store(dir.path());
        let short = server_key("demo", &config);
        assert!(ClaudeRefreshLock::fits(&short));
        assert!(ClaudeRefreshLock::take(&stores, &short).is_some());
        let long = server_key(&"n".repeat(230), &config);
        assert!(!ClaudeRefreshLock::fits(&long));
        assert!(
            ClaudeRefreshLock::take(&stores, &long).is_none(),
            "the file system agrees: no such lock can be made"
        );
    }

    #[test]
    fn a_write_waits_for_claude_codes_store_lock() {
        let dir = tempfile::tempdir().unwrap();
        let (_, secrets, config) = store(dir.path());
        let lock = dir.path().join(".storage-write.lock");
        std::fs::create_dir(&lock).unwrap();
        let release = std::thread::spawn({
            let lock = lock.clone();
            move || {
                std::thread::sleep(std::time::Duration::from_millis(400));
                std::fs::remove_dir(&lock).unwrap();
            }
        });
        let started = std::time::Instant::now();
        secrets
            .set(
                &format!("registration:{}", server_key("demo", &config)),
                &Secret::new(r#"{"client_id":"c1","redirect_uri":"http://127.0.0.1:5/callback"}"#),
            )
            .unwrap();
        assert!(
            started.elapsed() >= std::time::Duration::from_millis(350),
            "the write waited for the lock Claude Code holds"
        );
        release.join().unwrap();
        assert!(!lock.exists(), "and let it go");
    }

    #[cfg(unix)]
    #[test]
    fn a_new_credentials_file_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (_, secrets, config) = store(dir.path());
        let key = server_key("demo", &config);
        secrets
            .set(
                &format!("registration:{key}"),
                &Secret::new(r#"{"client_id":"c1","redirect_uri":"http://127.0.0.1:5/callback"}"#),
            )
            .unwrap();
        let mode = std::fs::metadata(dir.path().join(".credentials.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
