//! Tokens and client registrations in the OS keychain, one entry each per server.
//!
//! Accounts are derived from Claude Code's server key (`name|` + 16 hex digits of SHA-256 over
//! the entry's `type`, `url` and `headers`), so editing any of those asks for a new login:
//! - `tokens:<key>` holds rmcp's [`StoredCredentials`] as JSON (access and refresh token,
//!   granted scopes, when they were received, the issuer);
//! - `registration:<key>` holds the client this app registered dynamically (id, secret,
//!   redirect URI), so the next login reuses it instead of registering again.
//!
//! Keychain calls block, so each runs on a blocking thread. A refresh takes a per-account lock
//! held from loading the old token to saving the new one: two requests that fail with the
//! same expired token refresh once, the second finds the new token. The lock is also a file
//! lock ([`RefreshFileLock`]), because the app and `mcpctl` share the keychain entry: with
//! refresh tokens that rotate, two processes refreshing with the same one would leave the
//! loser logged out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mcp_manager_core::secrets::{Secret, SecretError, SecretStore};
use rmcp::transport::auth::{
    AuthError, CredentialRefreshGuard, CredentialStore, StoredCredentials,
};
use serde::{Deserialize, Serialize};

/// The pre-registered client's secret (`oauth.clientId`).
pub const CLIENT_SECRET: &str = "client-secret";
/// The private key (PEM) of a `private_key_jwt` client.
pub const CLIENT_KEY: &str = "client-key";
/// The enterprise identity provider's ID token, for cross-app access.
pub const ID_TOKEN: &str = "id-token";

/// A client registered by dynamic client registration (RFC 7591).
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Registration {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    pub redirect_uri: String,
    /// The authorization server it was registered with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// That server's token endpoint: the registration (and its secret) is used only there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "[redacted]"),
            )
            .field("redirect_uri", &self.redirect_uri)
            .field("issuer", &self.issuer)
            .field("token_endpoint", &self.token_endpoint)
            .finish()
    }
}

/// Where a login's credentials may be used, recorded with them (RFC 8414 §3.3's issuer, the
/// token endpoint they are refreshed at, the metadata they came from, and the entry that
/// logged in). The keychain key is Claude Code's (name, type, URL, headers) and leaves out
/// `oauth`: without this, a project entry with the same name and URL and its own
/// `oauth.authServerMetadataUrl` would shadow the person's entry, reuse its tokens and send the
/// refresh token to a token endpoint of its choosing.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Binding {
    pub issuer: Option<String>,
    pub token_endpoint: String,
    /// `oauth.authServerMetadataUrl` of the entry, when it named one.
    pub metadata_url: Option<String>,
    /// SHA-256 of the entry's `oauth` block: another block never uses these credentials.
    pub oauth: String,
    /// The entry that logged in: its scope and file.
    pub origin: String,
    /// Where the server's 401 said its resource metadata is, at the login (RFC 9728
    /// `resource_metadata`): discovery starts there again when the tokens are used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_metadata: Option<String>,
}

impl Binding {
    /// Why credentials bound here may not be used by `other`, if they may not.
    pub fn refuses(&self, other: &Binding) -> Option<String> {
        if let Some(why) = self.other_entry(other) {
            return Some(why);
        }
        if self.issuer != other.issuer || self.token_endpoint != other.token_endpoint {
            return Some(format!(
                "they were issued by {} (token endpoint {}), and this entry's authorization server is {} (token endpoint {})",
                self.issuer.as_deref().unwrap_or("an authorization server without issuer"),
                self.token_endpoint,
                other.issuer.as_deref().unwrap_or("one without issuer"),
                other.token_endpoint
            ));
        }
        None
    }

    /// Why `other` is another entry than the one these credentials were obtained for.
    pub fn other_entry(&self, other: &Binding) -> Option<String> {
        if self.origin != other.origin {
            return Some(format!(
                "they were obtained for the entry in {}, not this one ({})",
                self.origin, other.origin
            ));
        }
        if self.oauth != other.oauth {
            return Some("its `oauth` settings changed since the login".into());
        }
        None
    }
}

/// Runs a keychain call on a blocking thread.
pub(crate) async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, SecretError> + Send + 'static,
) -> Result<T, SecretError> {
    tokio::task::spawn_blocking(call)
        .await
        .unwrap_or_else(|err| Err(SecretError::Failed(err.to_string())))
}

/// One server's OAuth entries in a [`SecretStore`].
#[derive(Clone)]
pub struct ServerSecrets {
    secrets: Arc<dyn SecretStore>,
    key: String,
}

impl std::fmt::Debug for ServerSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSecrets")
            .field("key", &self.key)
            .finish()
    }
}

impl ServerSecrets {
    /// `key` is [`mcp_manager_core::secrets::server_key`] of the server.
    pub fn new(secrets: Arc<dyn SecretStore>, key: impl Into<String>) -> Self {
        ServerSecrets {
            secrets,
            key: key.into(),
        }
    }

    /// The store these entries are in.
    pub fn store(&self) -> Arc<dyn SecretStore> {
        Arc::clone(&self.secrets)
    }

    /// Claude Code's server key these entries are kept under.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The keychain account of the tokens.
    pub fn tokens_account(&self) -> String {
        format!("tokens:{}", self.key)
    }

    fn registration_account(&self) -> String {
        format!("registration:{}", self.key)
    }

    fn binding_account(&self) -> String {
        format!("binding:{}", self.key)
    }

    /// Where the stored tokens may be used.
    pub async fn binding(&self) -> Result<Option<Binding>, SecretError> {
        self.get_json(self.binding_account()).await
    }

    pub async fn save_binding(&self, binding: &Binding) -> Result<(), SecretError> {
        self.set_json(self.binding_account(), binding).await
    }

    async fn get_json<T: serde::de::DeserializeOwned + Send + 'static>(
        &self,
        account: String,
    ) -> Result<Option<T>, SecretError> {
        let secrets = Arc::clone(&self.secrets);
        let found = blocking(move || secrets.get(&account)).await?;
        // An entry that no longer parses (another version wrote it) is as good as none.
        Ok(found.and_then(|secret| serde_json::from_str(secret.expose()).ok()))
    }

    async fn set_json<T: Serialize>(&self, account: String, value: &T) -> Result<(), SecretError> {
        let secret = Secret::new(serde_json::to_string(value).expect("plain data serializes"));
        let secrets = Arc::clone(&self.secrets);
        blocking(move || secrets.set(&account, &secret)).await
    }

    async fn delete(&self, account: String) -> Result<(), SecretError> {
        let secrets = Arc::clone(&self.secrets);
        blocking(move || secrets.delete(&account)).await
    }

    /// The secret of the pre-registered client (`oauth.clientId`), stored by `mcpctl add
    /// --client-secret` under Claude Code's account name.
    pub async fn client_secret(&self) -> Result<Option<Secret>, SecretError> {
        self.secret(CLIENT_SECRET).await
    }

    /// A secret of this server by kind ([`CLIENT_SECRET`], [`CLIENT_KEY`], [`ID_TOKEN`]).
    pub async fn secret(&self, kind: &str) -> Result<Option<Secret>, SecretError> {
        let secrets = Arc::clone(&self.secrets);
        let account = format!("{kind}:{}", self.key);
        blocking(move || secrets.get(&account)).await
    }

    /// Removes a secret of this server by kind.
    pub async fn forget_secret(&self, kind: &str) -> Result<(), SecretError> {
        self.delete(format!("{kind}:{}", self.key)).await
    }

    pub async fn set_secret(&self, kind: &str, secret: Secret) -> Result<(), SecretError> {
        let secrets = Arc::clone(&self.secrets);
        let account = format!("{kind}:{}", self.key);
        blocking(move || secrets.set(&account, &secret)).await
    }

    pub async fn tokens(&self) -> Result<Option<StoredCredentials>, SecretError> {
        self.get_json(self.tokens_account()).await
    }

    /// Whether an access token is stored (expired or not).
    pub async fn has_tokens(&self) -> Result<bool, SecretError> {
        Ok(self
            .tokens()
            .await?
            .is_some_and(|stored| stored.token_response.is_some()))
    }

    pub async fn registration(&self) -> Result<Option<Registration>, SecretError> {
        self.get_json(self.registration_account()).await
    }

    pub async fn save_registration(&self, registration: &Registration) -> Result<(), SecretError> {
        self.set_json(self.registration_account(), registration)
            .await
    }

    /// Forgets the client registration (the authorization server no longer knows it, or a
    /// login with it failed): the next login registers a new client.
    pub async fn forget_registration(&self) -> Result<(), SecretError> {
        self.delete(self.registration_account()).await
    }

    /// Removes the tokens, their DPoP key, the registration and where they were bound.
    pub async fn clear(&self) -> Result<(), SecretError> {
        self.forget_secret(crate::dpop::DPOP_KEY).await?;
        self.delete(self.tokens_account()).await?;
        self.delete(self.binding_account()).await?;
        self.delete(self.registration_account()).await
    }

    /// Forgets the tokens and the registration, keeping the binding: the login moved to another
    /// store, which holds them now.
    pub async fn forget_tokens_and_registration(&self) -> Result<(), SecretError> {
        self.delete(self.tokens_account()).await?;
        self.delete(self.registration_account()).await
    }

    /// Stores `tokens` as this server's.
    pub async fn save_tokens(&self, tokens: &StoredCredentials) -> Result<(), SecretError> {
        self.set_json(self.tokens_account(), tokens).await
    }

    /// The tokens as rmcp's credential store.
    pub fn credential_store(&self) -> TokenStore {
        TokenStore(self.clone())
    }
}

/// rmcp's [`CredentialStore`] over the `tokens:` entry of one server.
#[derive(Debug, Clone)]
pub struct TokenStore(ServerSecrets);

fn store_error(err: SecretError) -> AuthError {
    AuthError::CredentialStoreError(err.to_string())
}

/// One lock per account, shared by every session of this process.
fn refresh_lock(account: &str) -> Arc<tokio::sync::Mutex<()>> {
    static LOCKS: Mutex<Option<HashMap<String, Arc<tokio::sync::Mutex<()>>>>> = Mutex::new(None);
    let mut locks = LOCKS.lock().expect("refresh locks");
    Arc::clone(
        locks
            .get_or_insert_with(HashMap::new)
            .entry(account.to_string())
            .or_default(),
    )
}

/// How long a refresh waits for another process's before going ahead anyway (a process that
/// hangs mid-refresh must not stop this one for good).
const FILE_LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

/// A lock on a file per keychain account, shared by every process of this user: in
/// `$XDG_RUNTIME_DIR/mcp-manager/`, else in a folder of the temporary directory named after
/// the user id (mode 0700). Released when dropped (the OS releases it if the process dies).
#[derive(Debug)]
pub struct RefreshFileLock {
    _file: std::fs::File,
}

impl RefreshFileLock {
    /// Waits (up to `patience`) for the lock on `account`; `None` when the folder cannot be
    /// made or the wait ran out, and the refresh goes on unlocked.
    pub async fn acquire(account: &str, patience: std::time::Duration) -> Option<Self> {
        let path = lock_dir()?.join(lock_file_name(account));
        let file = mcp_manager_core::files::open_lock(&path).ok()?;
        let deadline = tokio::time::Instant::now() + patience;
        loop {
            match file.try_lock() {
                Ok(()) => return Some(RefreshFileLock { _file: file }),
                Err(std::fs::TryLockError::WouldBlock)
                    if tokio::time::Instant::now() < deadline =>
                {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                Err(_) => return None,
            }
        }
    }
}

fn lock_dir() -> Option<std::path::PathBuf> {
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(runtime) => std::path::PathBuf::from(runtime).join("mcp-manager"),
        None => std::env::temp_dir().join(format!("mcp-manager-{}", user_id())),
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(&dir).ok()?;
    Some(dir)
}

#[cfg(unix)]
fn user_id() -> String {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }.to_string()
}

#[cfg(not(unix))]
fn user_id() -> String {
    std::env::var("USERNAME").unwrap_or_default()
}

/// `tokens:name|0123…` → `tokens_name_0123….lock`: server names and keys stay readable.
fn lock_file_name(account: &str) -> String {
    let safe: String = account
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.lock")
}

#[async_trait]
impl CredentialStore for TokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        self.0.tokens().await.map_err(store_error)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.0
            .set_json(self.0.tokens_account(), &credentials)
            .await
            .map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.0
            .delete(self.0.tokens_account())
            .await
            .map_err(store_error)
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let account = self.0.tokens_account();
        // This process's sessions queue on the mutex; one of them at a time on the file.
        let in_process = refresh_lock(&account).lock_owned().await;
        let across_processes = RefreshFileLock::acquire(&account, FILE_LOCK_PATIENCE).await;
        Ok(Some(CredentialRefreshGuard::new((
            in_process,
            across_processes,
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn the_refresh_file_lock_is_held_by_one_holder_at_a_time() {
        let account = format!("tokens:lock-test-{}|0123456789abcdef", std::process::id());
        let first = RefreshFileLock::acquire(&account, Duration::ZERO)
            .await
            .expect("a free lock is taken at once");
        // A second open of the file (as another process would) does not get it...
        assert!(
            RefreshFileLock::acquire(&account, Duration::from_millis(100))
                .await
                .is_none()
        );
        // ...until the first lets go, and then it gets it while waiting.
        let waiting = tokio::spawn({
            let account = account.clone();
            async move { RefreshFileLock::acquire(&account, Duration::from_secs(5)).await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        drop(first);
        assert!(waiting.await.unwrap().is_some());
        // Another account is another lock.
        assert!(RefreshFileLock::acquire("tokens:other|1", Duration::ZERO)
            .await
            .is_some());
    }

    #[test]
    fn lock_files_are_named_after_the_account_without_path_characters() {
        assert_eq!(
            lock_file_name("tokens:my server/../x|0a1b"),
            "tokens_my_server____x_0a1b.lock"
        );
    }
}
