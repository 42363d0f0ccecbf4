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
//! same expired token refresh once, the second finds the new token.

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
            .finish()
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

    fn tokens_account(&self) -> String {
        format!("tokens:{}", self.key)
    }

    fn registration_account(&self) -> String {
        format!("registration:{}", self.key)
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

    /// Removes the tokens and the registration.
    pub async fn clear(&self) -> Result<(), SecretError> {
        self.delete(self.tokens_account()).await?;
        self.delete(self.registration_account()).await
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
        let guard = refresh_lock(&self.0.tokens_account()).lock_owned().await;
        Ok(Some(CredentialRefreshGuard::new(guard)))
    }
}
