//! Secrets (OAuth client secrets now, tokens later) in the OS keychain, never in a file.
//!
//! [`SecretStore`] is the small seam; [`Keychain`] is the real implementation on the `keyring`
//! crate (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows). Keychain
//! calls block, so async callers run them on a blocking thread. [`Secret`] wraps a value so
//! that `Debug` prints `[redacted]` and nothing serializes it by accident.
//!
//! Entries are keyed as Claude Code keys them: the server name, `|`, and the first 16 hex
//! digits of SHA-256 over `{"type","url","headers"}` as compact JSON — so changing a remote
//! server's type, URL or headers needs a new login.

use std::fmt;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::config::entry::{pairs, ServerConfig, Transport};

/// A secret value. `Debug` never shows it and it has no `Serialize`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// What can go wrong with the keychain.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SecretError {
    #[error(
        "no OS keychain is available ({0}); on Linux start a Secret Service such as \
         gnome-keyring in your desktop session, or set MCP_MANAGER_UNENCRYPTED_SECRETS_FILE \
         to a path to keep secrets in an unencrypted file there"
    )]
    Unavailable(String),
    #[error("the OS keychain refused the request: {0}")]
    Failed(String),
}

/// Where secrets are kept.
pub trait SecretStore: Send + Sync {
    fn get(&self, account: &str) -> Result<Option<Secret>, SecretError>;
    fn set(&self, account: &str, secret: &Secret) -> Result<(), SecretError>;
    /// Removes the entry; removing a missing entry is not an error.
    fn delete(&self, account: &str) -> Result<(), SecretError>;
}

/// The OS keychain, under the service name `MCP Manager`.
#[derive(Debug, Clone)]
pub struct Keychain {
    service: String,
}

impl Default for Keychain {
    fn default() -> Self {
        Keychain {
            service: "MCP Manager".into(),
        }
    }
}

impl Keychain {
    /// A keychain under another service name (tests use their own).
    pub fn with_service(service: impl Into<String>) -> Self {
        Keychain {
            service: service.into(),
        }
    }

    fn entry(&self, account: &str) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(&self.service, account).map_err(map_keyring_error)
    }
}

fn map_keyring_error(err: keyring::Error) -> SecretError {
    match err {
        keyring::Error::PlatformFailure(inner) | keyring::Error::NoStorageAccess(inner) => {
            SecretError::Unavailable(inner.to_string())
        }
        other => SecretError::Failed(other.to_string()),
    }
}

impl SecretStore for Keychain {
    fn get(&self, account: &str) -> Result<Option<Secret>, SecretError> {
        match self.entry(account)?.get_password() {
            Ok(value) => Ok(Some(Secret(value))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(err) => Err(map_keyring_error(err)),
        }
    }

    fn set(&self, account: &str, secret: &Secret) -> Result<(), SecretError> {
        self.entry(account)?
            .set_password(secret.expose())
            .map_err(map_keyring_error)
    }

    fn delete(&self, account: &str) -> Result<(), SecretError> {
        match self.entry(account)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(err) => Err(map_keyring_error(err)),
        }
    }
}

/// Whether a name (an argument, a header, a query parameter, an environment variable) says
/// that its value is a secret: it holds `token`, `key`, `secret`, `password`, `passwd`,
/// `auth` (`authorization`), `credential`, `cookie`, `session` or `private`, in any case.
/// Used to mask values that no schema marks secret (an API key passed as a plain argument,
/// `?api_key=` in a URL) and to keep such variables from a project's `headersHelper`.
pub fn name_says_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [
        "token",
        "key",
        "secret",
        "password",
        "passwd",
        "auth",
        "credential",
        "cookie",
        "session",
        "private",
    ]
    .iter()
    .any(|word| lower.contains(word))
}

/// Claude Code's key for a server's credentials: `name|` + 16 hex digits of SHA-256 over
/// `{"type":…,"url":…,"headers":{…}}`. Stdio servers have no URL and use an empty one.
pub fn server_key(name: &str, config: &ServerConfig) -> String {
    let (url, headers) = match &config.transport {
        Transport::Remote { url, headers, .. } => (url.as_str(), headers.as_slice()),
        Transport::Stdio { .. } => ("", &[][..]),
    };
    let mut object = Map::new();
    object.insert("type".into(), config.kind().as_str().into());
    object.insert("url".into(), url.into());
    object.insert("headers".into(), pairs(headers));
    let json = serde_json::to_string(&Value::Object(object)).expect("a Value serializes");
    let digest = Sha256::digest(json.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{name}|{}", &hex[..16])
}

/// The keychain account of a server's OAuth client secret.
pub fn client_secret_account(name: &str, config: &ServerConfig) -> String {
    format!("client-secret:{}", server_key(name, config))
}

/// Secrets in this process's memory only: for tests, and for the conformance client, whose
/// tokens must not outlive a run.
#[derive(Debug, Default)]
pub struct InMemory(std::sync::Mutex<std::collections::HashMap<String, Secret>>);

impl SecretStore for InMemory {
    fn get(&self, account: &str) -> Result<Option<Secret>, SecretError> {
        Ok(self.0.lock().expect("secrets lock").get(account).cloned())
    }

    fn set(&self, account: &str, secret: &Secret) -> Result<(), SecretError> {
        self.0
            .lock()
            .expect("secrets lock")
            .insert(account.into(), secret.clone());
        Ok(())
    }

    fn delete(&self, account: &str) -> Result<(), SecretError> {
        self.0.lock().expect("secrets lock").remove(account);
        Ok(())
    }
}

/// The environment variable that turns on [`UnencryptedFile`] in place of the keychain.
pub const UNENCRYPTED_FILE_VAR: &str = "MCP_MANAGER_UNENCRYPTED_SECRETS_FILE";

/// Secrets in a plain JSON file readable only by its owner (mode 0600): **unencrypted**, for
/// machines without a keychain, and only when the person names the file in
/// [`UNENCRYPTED_FILE_VAR`]. Every message that mentions it says "unencrypted".
#[derive(Debug, Clone)]
pub struct UnencryptedFile {
    path: std::path::PathBuf,
}

impl UnencryptedFile {
    pub fn new(path: impl Into<std::path::PathBuf>) -> Self {
        UnencryptedFile { path: path.into() }
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    fn read(&self) -> Result<Map<String, Value>, SecretError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|err| {
                SecretError::Failed(format!(
                    "the unencrypted secrets file {} is not a JSON object: {err}",
                    self.path.display()
                ))
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Map::new()),
            Err(err) => Err(SecretError::Failed(format!(
                "the unencrypted secrets file {}: {err}",
                self.path.display()
            ))),
        }
    }

    fn write(&self, map: &Map<String, Value>) -> Result<(), SecretError> {
        use std::io::Write;
        let fail = |err: std::io::Error| {
            SecretError::Failed(format!(
                "the unencrypted secrets file {}: {err}",
                self.path.display()
            ))
        };
        let temporary = self.path.with_extension("tmp");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&temporary).map_err(fail)?;
        file.write_all(
            serde_json::to_string_pretty(map)
                .expect("a map serializes")
                .as_bytes(),
        )
        .map_err(fail)?;
        file.sync_all().map_err(fail)?;
        std::fs::rename(&temporary, &self.path).map_err(fail)
    }
}

impl SecretStore for UnencryptedFile {
    fn get(&self, account: &str) -> Result<Option<Secret>, SecretError> {
        Ok(self
            .read()?
            .get(account)
            .and_then(Value::as_str)
            .map(Secret::new))
    }

    fn set(&self, account: &str, secret: &Secret) -> Result<(), SecretError> {
        let mut map = self.read()?;
        map.insert(account.into(), secret.expose().into());
        self.write(&map)
    }

    fn delete(&self, account: &str) -> Result<(), SecretError> {
        let mut map = self.read()?;
        if map.remove(account).is_some() {
            self.write(&map)?;
        }
        Ok(())
    }
}

/// Where this process keeps secrets: the OS keychain, or the unencrypted file when the person
/// turned it on with [`UNENCRYPTED_FILE_VAR`] (then also its path, to say so).
pub fn configured_store() -> (std::sync::Arc<dyn SecretStore>, Option<std::path::PathBuf>) {
    match std::env::var_os(UNENCRYPTED_FILE_VAR).filter(|v| !v.is_empty()) {
        Some(path) => {
            let file = UnencryptedFile::new(path);
            let path = file.path().to_path_buf();
            (std::sync::Arc::new(file), Some(path))
        }
        None => (std::sync::Arc::new(Keychain::default()), None),
    }
}

#[cfg(test)]
mod unencrypted_file_tests {
    use super::*;

    #[test]
    fn keeps_secrets_in_an_owner_only_file_and_forgets_them() {
        let dir = tempfile::tempdir().unwrap();
        let file = UnencryptedFile::new(dir.path().join("secrets.json"));
        assert_eq!(file.get("a").unwrap(), None);
        file.set("a", &Secret::new("one")).unwrap();
        file.set("b", &Secret::new("two")).unwrap();
        assert_eq!(file.get("a").unwrap(), Some(Secret::new("one")));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        file.delete("a").unwrap();
        assert_eq!(file.get("a").unwrap(), None);
        assert_eq!(file.get("b").unwrap(), Some(Secret::new("two")));
    }
}
