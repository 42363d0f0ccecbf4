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
/// that its value is a secret: one of its words (split at `_`, `-`, `.` and camelCase) is
/// `token`, `secret`, `password`, `passwd`, `passphrase`, `credential(s)`, `cookie`,
/// `authorization`, `auth`, `apikey` or `key`, or it contains `password`, `secret` or `token`.
/// `author`, `keys` and `monkey` are not secrets. Used to mask values that no schema marks
/// secret (an API key passed as a plain argument, `?api_key=` in a URL) and to keep such
/// variables from a project's `headersHelper`.
pub fn name_says_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if ["password", "secret", "token"]
        .iter()
        .any(|w| lower.contains(w))
    {
        return true;
    }
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        let boundary =
            matches!(c, '_' | '-' | '.' | ' ') || (c.is_ascii_uppercase() && previous_lower);
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        words.push(word);
    }
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "passwd"
                | "passphrase"
                | "credential"
                | "credentials"
                | "cookie"
                | "authorization"
                | "auth"
                | "apikey"
                | "key"
        )
    })
}

/// The values of `url`'s query parameters whose names say secret (`?api_key=…`, `?token=…`):
/// the texts to conceal wherever the URL, or an error that quotes it, is shown.
pub fn url_secret_values(url: &str) -> Vec<String> {
    let Some((_, query)) = url.split_once('?') else {
        return Vec::new();
    };
    let query = query.split('#').next().unwrap_or_default();
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(name, value)| name_says_secret(name) && !value.is_empty())
        .flat_map(|(_, value)| {
            // As written, and as decoded: an error may quote either.
            let decoded = percent_decode(value);
            [value.to_string(), decoded]
        })
        .collect()
}

/// The values to conceal wherever a server's entry, once its `${VAR}`s are put in, or an error
/// that quotes it is shown (a status failure, the doctor's evidence): `variables` (a plugin's
/// sensitive options, `pluginSecrets`), the secret query values of its URL, and the values of
/// its environment variables, headers and `--flag value` / `--flag=value` arguments whose
/// names say secret ([`name_says_secret`]). A header's value is concealed whole and without
/// its scheme word (`Bearer …`), since an error may quote either.
pub fn config_secret_values(config: &ServerConfig, variables: &[(String, Secret)]) -> Vec<String> {
    let mut values: Vec<String> = variables.iter().map(|(_, v)| v.0.clone()).collect();
    let mut named = |name: &str, value: &str| {
        if name_says_secret(name) && !value.is_empty() {
            values.push(value.to_string());
            if let Some((_, credential)) = value.split_once(' ') {
                values.push(credential.trim().to_string());
            }
        }
    };
    match &config.transport {
        Transport::Stdio { args, env, .. } => {
            for (name, value) in env {
                named(name, value);
            }
            for (i, arg) in args.iter().enumerate() {
                let Some(flag) = arg.strip_prefix('-') else {
                    continue;
                };
                match flag.split_once('=') {
                    Some((name, value)) => named(name, value),
                    None => {
                        if let Some(value) = args.get(i + 1).filter(|v| !v.starts_with('-')) {
                            named(flag, value);
                        }
                    }
                }
            }
        }
        Transport::Remote { url, headers, .. } => {
            for (name, value) in headers {
                named(name, value);
            }
            values.extend(url_secret_values(url));
        }
    }
    values.sort();
    values.dedup();
    values
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                out.push(high * 16 + low);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` with every one of `secrets` (of 4 characters or more) replaced by `••••`.
pub fn conceal_values(text: &str, secrets: &[String]) -> String {
    let mut text = text.to_string();
    for secret in secrets.iter().filter(|s| s.chars().count() >= 4) {
        text = text.replace(secret.as_str(), "••••");
    }
    text
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

/// The keychain entry of the person's model API key (Anthropic's), used only to count tokens
/// exactly (`mcpctl cost --exact`); `ANTHROPIC_API_KEY` in the environment comes first.
pub const MODEL_API_KEY_ACCOUNT: &str = "model-api-key:anthropic";

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
        match crate::files::read_text(&self.path, crate::files::READ_LIMIT)
            .map_err(crate::files::FileError::into_io)
        {
            Ok(None) => Ok(Map::new()),
            Ok(Some(text)) => serde_json::from_str(&text).map_err(|err| {
                SecretError::Failed(format!(
                    "the unencrypted secrets file {} is not a JSON object: {err}",
                    self.path.display()
                ))
            }),
            Err(err) => Err(SecretError::Failed(format!(
                "the unencrypted secrets file {}: {err}",
                self.path.display()
            ))),
        }
    }

    fn write(&self, map: &Map<String, Value>) -> Result<(), SecretError> {
        let text = serde_json::to_string_pretty(map).expect("a map serializes");
        crate::private::write(&self.path, text.as_bytes()).map_err(|err| {
            SecretError::Failed(format!(
                "the unencrypted secrets file {}: {err}",
                self.path.display()
            ))
        })
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
    fn an_entrys_secret_values_are_its_variables_and_its_secret_named_parts() {
        let stdio = ServerConfig::stdio(
            "tool",
            vec![
                "--api-key".into(),
                "arg-key-value".into(),
                "--token=inline-token".into(),
                "--region".into(),
                "eu-west".into(),
                "--keys".into(),
                "not-a-secret".into(),
            ],
            vec![
                ("GITHUB_TOKEN".into(), "ghp_env_value".into()),
                ("DEBUG".into(), "verbose-mode".into()),
            ],
        );
        let plugin = [(
            "user_config.token".to_string(),
            Secret::new("plugin-secret"),
        )];
        let values = config_secret_values(&stdio, &plugin);
        for secret in [
            "plugin-secret",
            "arg-key-value",
            "inline-token",
            "ghp_env_value",
        ] {
            assert!(values.iter().any(|v| v == secret), "{secret} in {values:?}");
        }
        for plain in ["eu-west", "not-a-secret", "verbose-mode"] {
            assert!(!values.iter().any(|v| v == plain), "{plain} in {values:?}");
        }
        let remote = ServerConfig::remote(
            crate::config::entry::TransportKind::Http,
            "https://h/mcp?api_key=query-secret",
            vec![
                ("Authorization".into(), "Bearer header-credential".into()),
                ("X-Region".into(), "eu-west".into()),
            ],
        );
        let values = config_secret_values(&remote, &[]);
        for secret in [
            "Bearer header-credential",
            "header-credential",
            "query-secret",
        ] {
            assert!(values.iter().any(|v| v == secret), "{secret} in {values:?}");
        }
        assert!(!values.iter().any(|v| v == "eu-west"), "{values:?}");
    }

    #[test]
    fn secret_query_values_are_found_and_concealed() {
        let url = "https://api.example/mcp?api_key=sk%2Dlive%2D1234&region=eu&token=&x";
        let secrets = url_secret_values(url);
        assert_eq!(
            secrets,
            vec!["sk%2Dlive%2D1234".to_string(), "sk-live-1234".to_string()]
        );
        assert_eq!(
            conceal_values(
                "GET https://api.example/mcp?api_key=sk%2Dlive%2D1234 failed: sk-live-1234",
                &secrets
            ),
            "GET https://api.example/mcp?api_key=•••• failed: ••••"
        );
    }

    #[test]
    fn names_that_say_secret() {
        for name in [
            "api_key",
            "apiKey",
            "API_KEY",
            "key",
            "X-Api-Key",
            "access_token",
            "refreshToken",
            "client_secret",
            "password",
            "DB_PASSWD",
            "Authorization",
            "auth",
            "x-auth",
            "credentials",
            "cookie",
            "GITHUB_TOKEN",
        ] {
            assert!(name_says_secret(name), "{name}");
        }
        for name in [
            "author",
            "keys",
            "monkey",
            "query",
            "path",
            "keyboard_layout",
            "name",
            "HOME",
        ] {
            assert!(!name_says_secret(name), "{name}");
        }
    }

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
