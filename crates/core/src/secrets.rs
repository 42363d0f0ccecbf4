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
         gnome-keyring in your desktop session"
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
