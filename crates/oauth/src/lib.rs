//! OAuth for remote servers, on rmcp's `auth` feature: this crate owns logins, their tokens and
//! the debugger's record; it knows nothing of connections, the supervisor or the doctor (they
//! build on it, never the reverse).
//!
//! rmcp implements the protocol: RFC 9728 protected-resource discovery (from the challenge's
//! `resource_metadata`, then the path-inserted and root well-known URLs, with the `resource`
//! check), RFC 8414 and OpenID discovery, dynamic client registration, PKCE S256, `state`, the
//! RFC 8707 `resource` parameter, the RFC 9207 `iss` check, scope selection, and refresh on a
//! 401 decided by the token that was sent. This crate fills what it leaves to its user:
//! - where things are kept: tokens and registrations in the OS keychain ([`store`]);
//! - who the client is: the configured client id (secret from the keychain), else a Client ID
//!   Metadata Document when the server supports one and one is configured, else the client
//!   this app registered before for the same redirect URI and issuer, else a new registration,
//!   which is then kept;
//! - the person's part: [`browser::Browser`] shows the authorization URL and brings back the
//!   redirect. The product opens the system browser with a loopback listener; the conformance
//!   client sends a GET and reads `Location`. Nothing else differs between them;
//! - logout, with RFC 7009 revocation when the server offers it.

pub mod browser;
pub mod claude_store;
pub mod dpop;
pub mod machine;
pub mod store;
pub mod trace;

use std::sync::Arc;

use mcp_manager_core::config::entry::{OAuthConfig, ServerConfig, Transport};
use mcp_manager_core::secrets::{server_key, SecretError, SecretStore};
use rmcp::transport::auth::{
    default_oauth_http_client, AuthError, AuthorizationManager, AuthorizationMetadata,
    AuthorizationRequest, AuthorizationSession, OAuthHttpClient, OAuthHttpClientFuture,
    OAuthHttpRequest,
};

pub use browser::{Browser, Headless, Loopback, Opener};
pub use store::{Registration, ServerSecrets, TokenStore};
pub use trace::{Phase, Recorder, Trace, TraceKind};

/// The HTTP client every remote request shares, logins' and sessions' alike: building one
/// loads the system's root certificates, which costs tens of milliseconds and serialised
/// connecting to many servers.
pub fn shared_client() -> reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(reqwest::Client::new).clone()
}

/// A client that follows no redirect, for requests that carry a credential in their body or
/// a proof (a workload's token, a DPoP retry): a 307 to another origin would carry them there.
pub(crate) fn unredirected_client() -> reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap_or_default()
        })
        .clone()
}

/// The name this app registers under.
pub const CLIENT_NAME: &str = "MCP Manager";

/// What can go wrong in a login or logout.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    #[error(transparent)]
    Keychain(#[from] SecretError),
    #[error("{0}")]
    Protocol(#[from] AuthError),
    #[error("the browser could not be opened: {0}")]
    Browser(String),
    #[error("the login redirect could not be received: {0}")]
    Callback(String),
    #[error("the login was not completed within {} s", .0.as_secs())]
    TimedOut(std::time::Duration),
    #[error("the login was cancelled")]
    Cancelled,
    #[error("the server refused the login ({0})")]
    Refused(String),
    #[error("{0}")]
    Config(String),
    /// The authorization server does not know the client registered with it earlier (it
    /// restarted, or purged the client): the registration was forgotten.
    #[error("the authorization server no longer knows the client registered with it earlier ({0}); that registration was forgotten, and the next login registers a new client")]
    StaleRegistration(String),
}

/// A remote server to log in to.
#[derive(Debug, Clone)]
pub struct Target {
    /// The server's URL, `${VAR}`-expanded.
    pub url: String,
    pub oauth: OAuthConfig,
    /// The entry this is: its scope and file ([`Target::from_entry`]). Credentials obtained
    /// for one entry are not used for another that has the same keychain key.
    pub origin: String,
    /// Where this server's tokens, registration and client secret are kept.
    pub secrets: ServerSecrets,
    /// Whose store holds the login: MCP Manager's keychain, or Claude Code's file.
    pub store: claude_store::LoginStore,
    /// In Claude Code's store: its key there (computed after `${VAR}` expansion).
    pub claude_key: Option<String>,
}

impl Target {
    /// The target of server `name`: `raw` is its entry as written (the keychain key is
    /// computed from it, as Claude Code does), `url` its expanded URL. `None` for stdio.
    pub fn of(
        name: &str,
        raw: &ServerConfig,
        url: &str,
        secrets: Arc<dyn SecretStore>,
    ) -> Option<Target> {
        matches!(raw.transport, Transport::Remote { .. }).then(|| Target {
            url: url.to_string(),
            oauth: raw.oauth.clone().unwrap_or_default(),
            origin: String::new(),
            secrets: ServerSecrets::new(secrets, server_key(name, raw)),
            store: claude_store::LoginStore::Keychain,
            claude_key: None,
        })
    }

    /// Keeps this login in `store`: Claude Code's credentials file takes the tokens and the
    /// registration, the keychain keeps the rest. `raw` and `expanded` are the entry before
    /// and after `${VAR}` expansion (Claude Code keys its store by the expanded one).
    pub fn kept_in(
        mut self,
        stores: &claude_store::LoginStores,
        store: claude_store::LoginStore,
        name: &str,
        raw: &ServerConfig,
        expanded: &ServerConfig,
    ) -> Self {
        let base = self.secrets.store();
        self.secrets = ServerSecrets::new(
            stores.secrets(store, name, raw, expanded, base),
            self.secrets.key().to_string(),
        );
        self.store = store;
        self.claude_key = (store == claude_store::LoginStore::ClaudeCode)
            .then(|| claude_store::claude_key(name, expanded));
        self
    }
}

impl Target {
    /// Names the configuration entry this target is: `scope` and the file it is written in.
    pub fn from_entry(mut self, scope: mcp_manager_core::Scope, file: &std::path::Path) -> Self {
        self.origin = format!("the {} scope ({})", scope.as_str(), file.display());
        self
    }

    /// Where credentials obtained now, from `metadata`, may be used.
    fn binding(&self, metadata: &AuthorizationMetadata) -> store::Binding {
        store::Binding {
            issuer: metadata.issuer.clone(),
            token_endpoint: metadata.token_endpoint.clone(),
            metadata_url: self.oauth.auth_server_metadata_url.clone(),
            oauth: self.oauth_fingerprint(),
            origin: self.origin.clone(),
            resource_metadata: None,
        }
    }

    /// Records that the credentials just stored were obtained from `metadata` for this entry,
    /// with where the server's `challenge` said its resource metadata is: a server may name
    /// it only in a 401 (no well-known location), which a later request with a token never
    /// sees.
    pub(crate) async fn bind(
        &self,
        metadata: &AuthorizationMetadata,
        challenge: Option<&str>,
    ) -> Result<(), OAuthError> {
        let mut binding = self.binding(metadata);
        binding.resource_metadata =
            challenge.and_then(|c| challenge_parameter(c, "resource_metadata"));
        Ok(self.secrets.save_binding(&binding).await?)
    }

    /// The challenge that discovery starts from when no 401 is at hand: the resource metadata
    /// URL remembered from the login's, if any.
    async fn remembered_challenge(&self) -> Result<Option<String>, OAuthError> {
        Ok(self
            .secrets
            .binding()
            .await?
            .and_then(|bound| bound.resource_metadata)
            .map(|url| format!("Bearer resource_metadata=\"{url}\"")))
    }

    /// Whether what the keychain holds under this key (tokens, registration, client secret)
    /// was obtained for another entry than this one, and which: such secrets are not sent.
    pub(crate) async fn foreign(&self) -> Result<Option<String>, OAuthError> {
        let probe = store::Binding {
            issuer: None,
            token_endpoint: String::new(),
            metadata_url: None,
            oauth: self.oauth_fingerprint(),
            origin: self.origin.clone(),
            resource_metadata: None,
        };
        Ok(self
            .secrets
            .binding()
            .await?
            .and_then(|bound| bound.other_entry(&probe)))
    }

    fn oauth_fingerprint(&self) -> String {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(format!("{:?}", self.oauth).as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Why the stored credentials may not be used with `metadata` for this entry, if not:
    /// refreshing, revoking or exchanging them anywhere else would hand them to whoever
    /// wrote the other entry. Credentials stored without a binding (before it was kept) are
    /// not used either: a new login binds them.
    pub(crate) async fn refusal(
        &self,
        metadata: &AuthorizationMetadata,
    ) -> Result<Option<String>, OAuthError> {
        Ok(match self.secrets.binding().await? {
            Some(bound) => bound.refuses(&self.binding(metadata)),
            // Claude Code's own login: it keeps the issuer it logged in with (else the
            // authorization server it found, see `claude_store`), and the tokens go to no
            // other authorization server. A login that records neither could be refreshed
            // anywhere: it is not used.
            None if self.store == claude_store::LoginStore::ClaudeCode => {
                let stored = self.secrets.tokens().await?.and_then(|t| t.issuer);
                let unproven = metadata.additional_fields.contains_key(UNPROVEN_ISSUER);
                match (stored, &metadata.issuer) {
                    // Metadata at the MCP server's own origin that claims Claude Code's issuer
                    // proves nothing: its token endpoint could be anyone's.
                    (Some(stored), Some(now)) if unproven && same_issuer(&stored, now) => Some(format!(
                        "Claude Code obtained them from {stored}, and this server's metadata claims that issuer without being published by it (RFC 8414 §3.3)"
                    )),
                    // And the token and revocation endpoints are the ones that issuer itself
                    // publishes: metadata found through the MCP server (its resource metadata
                    // may name any document) may claim the issuer and name endpoints of its own.
                    (Some(stored), Some(now)) if same_issuer(&stored, now) => {
                        match published_metadata(&stored).await {
                            Some(published)
                                if published.token_endpoint == metadata.token_endpoint
                                    && revocation_endpoint(metadata).is_none_or(|found| {
                                        revocation_endpoint(&published) == Some(found)
                                    }) =>
                            {
                                None
                            }
                            Some(published) => Some(format!(
                                "Claude Code obtained them from {stored}, which publishes the token endpoint {}, and this server's metadata names another",
                                published.token_endpoint
                            )),
                            None => Some(format!(
                                "Claude Code obtained them from {stored}, whose own metadata could not be read to confirm where they may be sent"
                            )),
                        }
                    }
                    (Some(stored), now) => Some(format!(
                        "Claude Code obtained them from {stored}, and this entry's authorization server is {}",
                        now.as_deref().unwrap_or("one that names no issuer")
                    )),
                    (None, _) => Some(
                        "Claude Code kept this login without the authorization server it came from, so where its tokens may go is not known; log in again"
                            .into(),
                    ),
                }
            }
            None => Some(
                "they were stored before MCP Manager recorded where they may be used; log in again"
                    .into(),
            ),
        })
    }
}

/// The metadata `issuer` publishes at its own well-known URLs (RFC 8414 §3.3 checked), if it
/// can be read within 10 s.
async fn published_metadata(issuer: &str) -> Option<AuthorizationMetadata> {
    for url in well_known_urls(issuer) {
        let request = crate::shared_client()
            .get(&url)
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(std::time::Duration::from_secs(10));
        let Ok(response) = request.send().await else {
            continue;
        };
        if !response.status().is_success() {
            continue;
        }
        let Ok(metadata) = response.json::<AuthorizationMetadata>().await else {
            continue;
        };
        if check_issuer(&url, metadata.issuer.as_deref()).is_ok() {
            return Some(metadata);
        }
    }
    None
}

fn revocation_endpoint(metadata: &AuthorizationMetadata) -> Option<&str> {
    metadata
        .additional_fields
        .get("revocation_endpoint")
        .and_then(serde_json::Value::as_str)
}

/// Whether two issuer identifiers name the same authorization server: equal as URLs (RFC 8414
/// §2 compares them as given; a URL's empty path and `/` are one), else equal as text.
fn same_issuer(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// What a completed login obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Granted {
    pub client_id: String,
    pub scopes: Vec<String>,
}

/// An authorization manager for `url` whose tokens live in `secrets`, recording each exchange
/// into `recorder`'s trace. Its HTTP client does not filter resolved addresses: the servers are
/// the person's own choice, often on localhost or a private network; rmcp still checks the
/// hosts that discovered metadata names.
pub(crate) async fn manager(
    url: &str,
    secrets: &ServerSecrets,
    recorder: &Recorder,
) -> Result<AuthorizationManager, AuthError> {
    proving_manager(url, secrets, recorder, None).await
}

/// [`manager`], whose requests to the authorization server carry a DPoP proof of `key`.
pub(crate) async fn proving_manager(
    url: &str,
    secrets: &ServerSecrets,
    recorder: &Recorder,
    key: Option<Arc<dpop::DpopKey>>,
) -> Result<AuthorizationManager, AuthError> {
    let http = match key {
        Some(key) => Arc::new(dpop::Proving {
            inner: recording(recorder)?,
            key,
            recorder: recorder.clone(),
        }),
        None => recording(recorder)?,
    };
    let mut manager = AuthorizationManager::new_with_oauth_http_client(url, http).await?;
    manager.set_credential_store(secrets.credential_store());
    Ok(manager)
}

/// The DPoP key of `target`'s login, when its tokens are DPoP-bound: every request that
/// presents them carries a proof of it.
pub async fn dpop_key(target: &Target) -> Result<Option<Arc<dpop::DpopKey>>, OAuthError> {
    match target.secrets.secret(dpop::DPOP_KEY).await? {
        Some(stored) => Ok(Some(Arc::new(dpop::DpopKey::from_stored(&stored)?))),
        None => Ok(None),
    }
}

/// The process's OAuth HTTP client, recording into `recorder`'s trace.
pub(crate) fn recording(recorder: &Recorder) -> Result<Arc<dyn OAuthHttpClient>, AuthError> {
    Ok(Arc::new(trace::Recording {
        inner: oauth_http()?,
        recorder: recorder.clone(),
    }))
}

/// The journal of `target`'s server.
pub fn journal(target: &Target) -> Arc<trace::Journal> {
    trace::journal(target.secrets.key())
}

/// One OAuth HTTP client for the process: building one loads the system's root certificates,
/// tens of milliseconds that every authorized connect would otherwise pay.
fn oauth_http() -> Result<Arc<dyn OAuthHttpClient>, AuthError> {
    static CLIENT: std::sync::OnceLock<Arc<dyn OAuthHttpClient>> = std::sync::OnceLock::new();
    if let Some(client) = CLIENT.get() {
        return Ok(Arc::clone(client));
    }
    let client: Arc<dyn OAuthHttpClient> =
        Arc::new(ErrorBodies(Arc::new(default_oauth_http_client()?)));
    Ok(Arc::clone(CLIENT.get_or_init(|| client)))
}

/// rmcp's OAuth HTTP client, but an HTTP 200 whose JSON body is an OAuth error (`error`, no
/// token) — which some providers send — is passed on as the 400 it means, so that a refused
/// refresh counts as refused (and the server needs a login) rather than as a garbled answer.
struct ErrorBodies(Arc<dyn OAuthHttpClient>);

impl OAuthHttpClient for ErrorBodies {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let mut response = self.0.execute(request).await?;
            if response.status() == http::StatusCode::OK && is_oauth_error(response.body()) {
                *response.status_mut() = http::StatusCode::BAD_REQUEST;
            }
            Ok(response)
        })
    }
}

fn is_oauth_error(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|value| {
        value.get("error").is_some_and(serde_json::Value::is_string)
            && value.get("access_token").is_none()
    })
}

/// `oauth.authServerMetadataUrl`: fetched as given (HTTPS only) instead of discovered.
async fn configured_metadata(
    url: &str,
    recorder: &Recorder,
) -> Result<AuthorizationMetadata, OAuthError> {
    if !url.starts_with("https://") {
        return Err(OAuthError::Config(
            "`oauth.authServerMetadataUrl` must be an https:// URL".into(),
        ));
    }
    let request = crate::shared_client()
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json");
    let (status, _, body) = recorder
        .send(request)
        .await
        .map_err(|err| OAuthError::Config(format!("{url}: {err}")))?;
    if !status.is_success() {
        return Err(OAuthError::Config(format!("{url}: HTTP {status}")));
    }
    let metadata: AuthorizationMetadata = serde_json::from_slice(&body).map_err(|err| {
        OAuthError::Config(format!("{url} is not authorization server metadata: {err}"))
    })?;
    check_issuer(url, metadata.issuer.as_deref())?;
    Ok(metadata)
}

/// RFC 8414 §3.3: the metadata's `issuer` must be the one whose well-known URL it was read
/// from. A document anywhere that claims someone else's issuer (to borrow their tokens) is
/// refused. The well-known URL is the issuer with `/.well-known/oauth-authorization-server`
/// or `/.well-known/openid-configuration` inserted after its host, or (OpenID Connect
/// Discovery) appended to its path.
pub(crate) fn check_issuer(url: &str, issuer: Option<&str>) -> Result<(), OAuthError> {
    let Some(issuer) = issuer else {
        return Err(OAuthError::Config(format!(
            "{url} names no issuer: its metadata cannot be checked (RFC 8414 §3.3), so it is not used"
        )));
    };
    let wanted = well_known_urls(issuer);
    if wanted.iter().any(|w| w == url.trim_end_matches('/')) {
        return Ok(());
    }
    Err(OAuthError::Config(format!(
        "{url} claims the issuer {issuer}, whose metadata is not published there (RFC 8414 §3.3): it is not used, and no credential is sent to it"
    )))
}

fn well_known_urls(issuer: &str) -> Vec<String> {
    let Ok(parsed) = url::Url::parse(issuer) else {
        return Vec::new();
    };
    let origin = parsed.origin().ascii_serialization();
    let path = parsed.path().trim_end_matches('/');
    [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ]
    .iter()
    .map(|suffix| format!("{origin}{suffix}{path}"))
    .chain(std::iter::once(format!(
        "{origin}{path}/.well-known/openid-configuration"
    )))
    .collect()
}

/// Where the authorization server's metadata comes from: `oauth.authServerMetadataUrl` when
/// configured; else rmcp's discovery (RFC 9728, then RFC 8414 and OpenID, path-aware, then the
/// 2025-03-26 default endpoints).
///
/// One 2025-03-26 case rmcp refuses: a server with no protected-resource metadata whose
/// root `/.well-known/oauth-authorization-server` names an issuer other than its origin (the
/// suite's "oauth-metadata-backcompat"). That spec told clients to use exactly that document,
/// so it is used, but only when the server publishes no resource metadata at all: with
/// RFC 9728 in play, an issuer mismatch stays an error.
pub(crate) async fn discover(
    manager: &AuthorizationManager,
    oauth: &OAuthConfig,
    url: &str,
    challenge: Option<&str>,
    recorder: &Recorder,
) -> Result<AuthorizationMetadata, OAuthError> {
    if let Some(configured) = &oauth.auth_server_metadata_url {
        return configured_metadata(configured, recorder).await;
    }
    match manager.resolve_metadata_from_challenge(challenge).await {
        Ok(resolution) => Ok(resolution.metadata),
        Err(err @ AuthError::AuthorizationServerMismatch { .. }) => {
            let advertised = challenge.is_some_and(|c| c.contains("resource_metadata"));
            if advertised || publishes_resource_metadata(url, recorder).await {
                return Err(err.into());
            }
            legacy_root_metadata(url, recorder)
                .await
                .ok_or_else(|| err.into())
        }
        Err(err) => Err(err.into()),
    }
}

/// The value of `key` in a `WWW-Authenticate` challenge: `resource_metadata="…"`, `scope=…`.
pub fn challenge_parameter(challenge: &str, key: &str) -> Option<String> {
    let at = challenge.find(&format!("{key}="))? + key.len() + 1;
    let rest = &challenge[at..];
    Some(match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?.to_string(),
        None => rest.split([',', ' ']).next()?.to_string(),
    })
}

/// Whether the server answers at either RFC 9728 well-known location.
async fn publishes_resource_metadata(url: &str, recorder: &Recorder) -> bool {
    let Ok(parsed) = url::Url::parse(url) else {
        return false;
    };
    let path = parsed.path().trim_end_matches('/');
    let mut candidates = vec![format!("/.well-known/oauth-protected-resource{path}")];
    candidates.push("/.well-known/oauth-protected-resource".into());
    for candidate in candidates {
        let mut probe = parsed.clone();
        probe.set_path(&candidate);
        probe.set_query(None);
        if let Ok((status, _, _)) = recorder.send(crate::shared_client().get(probe)).await {
            if status.is_success() {
                return true;
            }
        }
    }
    false
}

/// The 2025-03-26 location: RFC 8414 metadata at the root of the server's origin.
async fn legacy_root_metadata(url: &str, recorder: &Recorder) -> Option<AuthorizationMetadata> {
    let mut root = url::Url::parse(url).ok()?;
    root.set_path("/.well-known/oauth-authorization-server");
    root.set_query(None);
    let (status, _, body) = recorder
        .send(crate::shared_client().get(root.clone()))
        .await
        .ok()?;
    if !status.is_success() {
        return None;
    }
    let mut metadata: AuthorizationMetadata = serde_json::from_slice(&body).ok()?;
    // The document may name an issuer other than its origin (that era allowed it), but such a
    // claim is not proven: it may not vouch for a login some other program got from that
    // issuer (see `Target::refusal`).
    if check_issuer(root.as_str(), metadata.issuer.as_deref()).is_err() {
        metadata
            .additional_fields
            .insert(UNPROVEN_ISSUER.into(), serde_json::Value::Bool(true));
    }
    Some(metadata)
}

/// Marks metadata whose `issuer` was not read from that issuer's own well-known URL.
const UNPROVEN_ISSUER: &str = "x-mcp-manager-unproven-issuer";

/// `http://localhost`, `127.0.0.1` or `[::1]`, any port.
fn is_loopback_redirect(uri: &str) -> bool {
    url::Url::parse(uri).is_ok_and(|url| {
        url.scheme() == "http"
            && matches!(url.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"))
    })
}

fn supports_client_metadata_documents(metadata: &AuthorizationMetadata) -> bool {
    metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

/// Logs in to `target` through `browser`: discovery (seeded by `challenge`, the
/// `WWW-Authenticate` of the 401 or 403 that asked for it), the client's identity, the
/// authorization code with PKCE, and the token exchange. The tokens land in the keychain.
///
/// `scopes`, when given, are asked for on top of what discovery selects (a step-up after a
/// 403 `insufficient_scope`).
pub async fn login(
    target: &Target,
    browser: &dyn Browser,
    challenge: Option<&str>,
    scopes: &[String],
) -> Result<Granted, OAuthError> {
    let recorder = journal(target).begin(TraceKind::Login);
    recorder.set_phase(Phase::Discovering);
    if let Some(challenge) = challenge {
        recorder.record(trace::challenged(&target.url, challenge));
    }
    let mut granted = login_recorded(target, browser, challenge, scopes, &recorder).await;
    if let Err(OAuthError::StaleRegistration(_)) = &granted {
        // Once: the dead registration is gone, so this attempt registers a new client.
        granted = login_recorded(target, browser, challenge, scopes, &recorder).await;
    }
    recorder.set_phase(match &granted {
        Ok(_) => Phase::Connecting,
        Err(OAuthError::Cancelled) => Phase::Cancelled,
        Err(err) => Phase::Failed {
            message: err.to_string(),
        },
    });
    granted
}

async fn login_recorded(
    target: &Target,
    browser: &dyn Browser,
    challenge: Option<&str>,
    scopes: &[String],
    recorder: &Recorder,
) -> Result<Granted, OAuthError> {
    let mut manager = manager(&target.url, &target.secrets, recorder).await?;
    let metadata = discover(&manager, &target.oauth, &target.url, challenge, recorder).await?;
    let key = dpop_for_login(target, &metadata, challenge)?;
    if key.is_some() {
        manager = proving_manager(&target.url, &target.secrets, recorder, key.clone()).await?;
    }
    manager.set_metadata(metadata.clone());

    let redirect_uri = browser.redirect_uri();
    if !is_loopback_redirect(&redirect_uri) {
        return Err(OAuthError::Config(format!(
            "the redirect URI must be http on localhost (RFC 8252), not {redirect_uri}"
        )));
    }
    let mut wanted: Vec<String> = target.oauth.scopes.clone().unwrap_or_default();
    if !scopes.is_empty() {
        // A step-up: what is held already, plus what the server asked for (SEP-2350: the
        // union, so a scope granted before is not dropped by asking for a new one).
        wanted = granted_scopes(target).await;
        for scope in manager.select_scopes(Some(&scopes.join(" ")), &[]) {
            if !wanted.contains(&scope) {
                wanted.push(scope);
            }
        }
    }
    let mut reused = false;
    let mut request = AuthorizationRequest::new(redirect_uri.clone()).with_client_name(CLIENT_NAME);
    if !wanted.is_empty() {
        request = request.with_scopes(wanted.clone());
    }
    // What the keychain holds for another entry with the same key is not sent for this one:
    // this login registers its own client (and its success binds the new credentials here).
    let foreign = target.foreign().await?.is_some();
    if let Some(client_id) = &target.oauth.client_id {
        request = request.with_preregistered_client(client_id);
        if let Some(secret) = target.secrets.client_secret().await?.filter(|_| !foreign) {
            request = request.with_client_secret(secret.expose());
        }
    } else if let Some(url) = target
        .oauth
        .client_metadata_url
        .as_ref()
        .filter(|_| supports_client_metadata_documents(&metadata))
    {
        request = request.with_client_metadata_url(url);
    } else {
        let kept = target.secrets.registration().await?.filter(|registration| {
            !foreign
                && registration.redirect_uri == redirect_uri
                && registration.issuer == metadata.issuer
                && registration.token_endpoint.as_deref() == Some(metadata.token_endpoint.as_str())
        });
        reused = kept.is_some();
        let registration = match kept {
            Some(registration) => registration,
            None => {
                let scopes = if wanted.is_empty() {
                    manager.select_scopes(None, &[])
                } else {
                    wanted.clone()
                };
                let refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
                let config = manager
                    .register_client(CLIENT_NAME, &redirect_uri, &refs)
                    .await?;
                let registration = Registration {
                    client_id: config.client_id,
                    client_secret: config.client_secret,
                    redirect_uri: redirect_uri.clone(),
                    issuer: metadata.issuer.clone(),
                    token_endpoint: Some(metadata.token_endpoint.clone()),
                };
                target.secrets.save_registration(&registration).await?;
                registration
            }
        };
        request = request.with_preregistered_client(&registration.client_id);
        if let Some(secret) = &registration.client_secret {
            request = request.with_client_secret(secret);
        }
    }

    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, err)| err)?;
    let authorization_url = session.get_authorization_url().to_string();
    recorder.record(trace::shown(
        trace::Step::Authorization,
        "GET",
        &authorization_url,
        trace::StepOutcome::Ok,
        None,
    ));
    if reused {
        if let Some(why) = unknown_client(&authorization_url).await {
            recorder.record(trace::shown(
                trace::Step::Authorization,
                "GET",
                &authorization_url,
                trace::StepOutcome::Failed,
                Some(format!(
                    "the client registered earlier is no longer known ({why}): it is forgotten and a new one registered"
                )),
            ));
            target.secrets.forget_registration().await?;
            return Err(OAuthError::StaleRegistration(why));
        }
    }
    let callback = match browser.authorize(&authorization_url, recorder).await {
        Ok(callback) => callback,
        Err(err) => {
            if reused {
                // A login with a kept registration that did not complete may have failed
                // because of it (the browser showed `invalid_client`): the next one registers
                // anew rather than meeting the same dead client again.
                target.secrets.forget_registration().await?;
            }
            recorder.record(trace::shown(
                trace::Step::Callback,
                "GET",
                &browser.redirect_uri(),
                trace::StepOutcome::Failed,
                Some(err.to_string()),
            ));
            return Err(err);
        }
    };
    // Recorded before it is handled, so that it comes before the token request it leads to;
    // a callback refused before any request (state or issuer mismatch) is marked afterwards.
    recorder.record(trace::shown(
        trace::Step::Callback,
        "GET",
        &callback,
        trace::StepOutcome::Ok,
        None,
    ));
    if let Err(err) = session.handle_callback_url(&callback).await {
        recorder.fail_last(trace::Step::Callback, err.to_string());
        if reused {
            target.secrets.forget_registration().await?;
        }
        return Err(err.into());
    }
    target.bind(&metadata, challenge).await?;
    keep_dpop_key(target, key.as_deref()).await?;
    use oauth2::TokenResponse;
    let (client_id, token) = session.get_credentials().await?;
    let scopes = token
        .as_ref()
        .and_then(|token| token.scopes())
        .map(|scopes| scopes.iter().map(|s| s.to_string()).collect())
        .unwrap_or(wanted);
    Ok(Granted { client_id, scopes })
}

/// Whether the authorization endpoint refuses this authorization request's client outright
/// (`invalid_client`, or an unknown `client_id`), before any person is sent there: asked with
/// one GET that follows no redirect, as a browser's first request. `None` when it shows a
/// login page, redirects, or cannot be asked.
async fn unknown_client(authorization_url: &str) -> Option<String> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(10))
        .build()
        .ok()?;
    let response = client.get(authorization_url).send().await.ok()?;
    let status = response.status();
    if !(status.is_client_error()) {
        return None;
    }
    let body = response.text().await.unwrap_or_default();
    let lower = body.to_ascii_lowercase();
    (lower.contains("invalid_client") || lower.contains("client_id")).then(|| {
        format!(
            "HTTP {}: {}",
            status.as_u16(),
            body.chars().take(200).collect::<String>()
        )
    })
}

/// Authorizes `target` the way its config says: by its machine grant when it has one (no
/// browser), else by [`login`] through `browser`.
pub async fn authorize(
    target: &Target,
    browser: &dyn Browser,
    challenge: Option<&str>,
    scopes: &[String],
) -> Result<Granted, OAuthError> {
    if machine::is_machine(target) {
        let recorder = journal(target).begin(TraceKind::Login);
        let granted = machine::obtain(target, &recorder).await;
        recorder.set_phase(match &granted {
            Ok(_) => Phase::Connecting,
            Err(err) => Phase::Failed {
                message: err.to_string(),
            },
        });
        granted
    } else {
        login(target, browser, challenge, scopes).await
    }
}

/// An rmcp HTTP client that sends `target`'s stored token (refreshing it when it expires or a
/// request comes back 401), or `None` when no token is stored.
pub async fn authorized<C>(
    target: &Target,
    client: C,
) -> Result<Option<rmcp::transport::AuthClient<C>>, OAuthError> {
    let recorder = journal(target).begin(TraceKind::Connect);
    Ok(restored(target, &recorder)
        .await?
        .map(|manager| rmcp::transport::AuthClient::new(client, manager)))
}

/// An authorization manager holding `target`'s stored login, ready to present or refresh it:
/// `None` when nothing is stored, or the stored login may not be used for this entry.
async fn restored(
    target: &Target,
    recorder: &Recorder,
) -> Result<Option<AuthorizationManager>, OAuthError> {
    Ok(restored_or_why(target, recorder).await?.ok())
}

/// [`restored`], saying why no login could be restored.
async fn restored_or_why(
    target: &Target,
    recorder: &Recorder,
) -> Result<Result<AuthorizationManager, String>, OAuthError> {
    const NONE: &str = "no login of this entry is stored: log in";
    // No keychain: nothing can be stored there either. The server's 401 then makes it
    // needs-auth, and the login reports the keychain's own error.
    if !target.secrets.has_tokens().await.unwrap_or(false) {
        return Ok(Err(NONE.into()));
    }
    let mut manager = proving_manager(
        &target.url,
        &target.secrets,
        recorder,
        dpop_key(target).await?,
    )
    .await?;
    let remembered = target.remembered_challenge().await?;
    let metadata = discover(
        &manager,
        &target.oauth,
        &target.url,
        remembered.as_deref(),
        recorder,
    )
    .await?;
    if let Some(why) = target.refusal(&metadata).await? {
        // Not sent, not refreshed: the server's 401 then asks for a login of this entry.
        let why = format!("the stored login was not used: {why}");
        recorder.set_phase(Phase::Failed {
            message: why.clone(),
        });
        return Ok(Err(why));
    }
    manager.set_metadata(metadata);
    if !manager.initialize_from_store().await? {
        return Ok(Err(NONE.into()));
    }
    // rmcp restores only the client id; a confidential client needs its secret to refresh.
    let secret = client_secret(target).await?;
    if let Some(secret) = secret {
        let (client_id, _) = manager.get_credentials().await?;
        let redirect = target
            .secrets
            .registration()
            .await?
            .map(|registration| registration.redirect_uri)
            .unwrap_or_else(|| "http://localhost/callback".into());
        manager.configure_client(
            rmcp::transport::auth::OAuthClientConfig::new(client_id, redirect)
                .with_client_secret(secret),
        )?;
    }
    Ok(Ok(manager))
}

/// Why a refresh did not happen.
#[derive(Debug, thiserror::Error)]
pub enum RefreshError {
    /// Only a new login helps: no refresh token, the authorization server refused it
    /// (`invalid_grant`: revoked, expired, spent) or no longer knows the client, or the stored
    /// login is not this entry's.
    #[error("{0}")]
    Lapsed(String),
    /// Worth trying again later: the authorization server could not be reached, or failed.
    #[error("{0}")]
    Transient(String),
}

impl RefreshError {
    pub fn lapsed(&self) -> bool {
        matches!(self, RefreshError::Lapsed(_))
    }
}

/// Refreshes `target`'s stored login now, at the token endpoint it came from (the stored
/// login's issuer binding is checked first, as for any use of it), under the refresh locks that
/// keep a rotating refresh token from being spent twice; the new tokens are stored where the
/// old ones were. Returns when the new access token expires (ms since the epoch), when known.
/// Nothing of the tokens stays in memory once it returns.
pub async fn refresh(target: &Target) -> Result<Option<f64>, RefreshError> {
    use oauth2::TokenResponse;
    let recorder = journal(target).begin(TraceKind::Refresh);
    // What this request carries: the authorization server's words may echo it, and they are
    // shown and kept.
    let carried = carried_secrets(target).await;
    let plain = |text: &str| plain_oauth(&conceal(text, &carried));
    let outcome = async {
        let manager = restored_or_why(target, &recorder)
            .await
            .map_err(|err| match err {
                OAuthError::Keychain(err) => RefreshError::Transient(err.to_string()),
                other => RefreshError::Transient(other.to_string()),
            })?
            .map_err(RefreshError::Lapsed)?;
        match manager.refresh_token().await {
            Ok(tokens) => Ok(tokens.expires_in().map(|lifetime| {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default();
                (now + lifetime).as_secs_f64() * 1000.0
            })),
            Err(AuthError::AuthorizationRequired) => Err(RefreshError::Lapsed(
                "no refresh token is stored for this login (or it belongs to another client): log in again".into(),
            )),
            Err(AuthError::TokenRefreshRejected(why)) => Err(RefreshError::Lapsed(format!(
                "the authorization server refused the refresh token ({}): log in again",
                plain(&why)
            ))),
            Err(AuthError::TokenRefreshFailed(why))
                if why.contains("invalid_client") || why.contains("unauthorized_client") =>
            {
                Err(RefreshError::Lapsed(format!(
                    "the authorization server no longer accepts this client ({}): log in again",
                    plain(&why)
                )))
            }
            Err(other) => Err(RefreshError::Transient(format!(
                "the refresh did not go through ({}); it is tried again later",
                plain(&other.to_string())
            ))),
        }
    };
    // A server that takes the request and never answers holds no one up: the keeper goes on
    // to the next login, and Claude Code's refresh lock is let go well before it turns stale.
    let outcome = match tokio::time::timeout(REFRESH_DEADLINE, outcome).await {
        Ok(outcome) => outcome,
        Err(_) => Err(RefreshError::Transient(format!(
            "the authorization server did not answer within {} s; it is tried again later",
            REFRESH_DEADLINE.as_secs()
        ))),
    };
    recorder.set_phase(match &outcome {
        Ok(_) => Phase::Connected,
        Err(err) => Phase::Failed {
            message: err.to_string(),
        },
    });
    outcome
}

/// How long one refresh may take, discovery included: well under the 60 s after which Claude
/// Code takes a refresh lock as stale.
pub const REFRESH_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

/// The stored tokens and client secret a refresh of `target` presents.
async fn carried_secrets(target: &Target) -> Vec<String> {
    use oauth2::TokenResponse;
    let mut carried = Vec::new();
    if let Ok(Some(stored)) = target.secrets.tokens().await {
        if let Some(response) = &stored.token_response {
            carried.push(response.access_token().secret().clone());
            if let Some(refresh) = response.refresh_token() {
                carried.push(refresh.secret().clone());
            }
        }
    }
    if let Ok(Some(secret)) = client_secret(target).await {
        carried.push(secret);
    }
    carried.retain(|value| value.len() >= 4);
    // As a form body carries them, too.
    let encoded: Vec<String> = carried
        .iter()
        .map(|value| url::form_urlencoded::byte_serialize(value.as_bytes()).collect())
        .filter(|encoded: &String| !carried.contains(encoded))
        .collect();
    carried.extend(encoded);
    carried
}

/// `text` with every one of `secrets` in it replaced by `…`.
fn conceal(text: &str, secrets: &[String]) -> String {
    secrets.iter().fold(text.to_string(), |text, secret| {
        text.replace(secret.as_str(), "…")
    })
}

/// An oauth2/rmcp error's words without the library's framing, and without anything that
/// looks like a credential: `conceal` cuts out the values the request carried, as they are and
/// form-encoded; a server may echo them otherwise too (base64 in a Basic header, lower-cased),
/// so every run of 20 or more token characters with a letter and a digit in it is cut as well.
/// RFC 6749 error codes, words and the paths of an `error_uri` have no digit, or are shorter.
/// A credential echoed in pieces shorter than that is not recognised.
fn plain_oauth(text: &str) -> String {
    let text = text
        .trim_start_matches("Token refresh failed: ")
        .trim_start_matches("Token refresh rejected: ")
        .trim_start_matches("Server returned error response: ");
    without_credentials(text).chars().take(300).collect()
}

/// `text` with every run of 20 or more characters of a token's alphabet (base64, base64url, a
/// JWT's dots, a form's `%`) that holds both a letter and a digit replaced by `…`. In a word
/// that is a URL, `/` ends a run: its path's segments are judged one by one.
fn without_credentials(text: &str) -> String {
    const LONGEST_PLAIN: usize = 19;
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        let looks_like_credential = run.chars().count() > LONGEST_PLAIN
            && run.chars().any(|c| c.is_ascii_alphabetic())
            && run.chars().any(|c| c.is_ascii_digit());
        out.push_str(if looks_like_credential { "…" } else { run });
        run.clear();
    };
    for word in text.split_inclusive(char::is_whitespace) {
        let in_url = word.contains("://");
        for c in word.chars() {
            if c.is_ascii_alphanumeric() || "-._~+=%".contains(c) || (c == '/' && !in_url) {
                run.push(c);
            } else {
                flush(&mut run, &mut out);
                out.push(c);
            }
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The DPoP key a login makes, when its authorization server offers DPoP with ES256 and the
/// tokens go to our keychain: Claude Code's store keeps no key, so a login there stays
/// bearer, unless the server asks for DPoP (its challenge's scheme), which is then said.
fn dpop_for_login(
    target: &Target,
    metadata: &AuthorizationMetadata,
    challenge: Option<&str>,
) -> Result<Option<Arc<dpop::DpopKey>>, OAuthError> {
    let challenged =
        challenge.is_some_and(|c| c.trim_start().to_ascii_lowercase().starts_with("dpop"));
    let offered = dpop::offered(metadata);
    let server = metadata
        .issuer
        .as_deref()
        .unwrap_or(&metadata.token_endpoint);
    match (target.oauth.dpop, offered, challenged, target.store) {
        (Some(false), _, false, _) => Ok(None),
        (Some(false), _, true, _) => Err(OAuthError::Config(
            "this server asks for DPoP-bound tokens, and the entry sets `oauth.dpop` to false: remove the key, or set it to true".into(),
        )),
        (_, true, _, claude_store::LoginStore::Keychain) => {
            Ok(Some(Arc::new(dpop::DpopKey::generate()?)))
        }
        (asked, true, challenged, claude_store::LoginStore::ClaudeCode)
            if challenged || asked == Some(true) =>
        {
            Err(OAuthError::Config(
                "DPoP-bound tokens are asked for, and Claude Code's store has no place for the key they are bound to: keep this login in MCP Manager's keychain instead".into(),
            ))
        }
        (_, false, true, _) => Err(OAuthError::Config(format!(
            "this server asks for DPoP-bound tokens, and its authorization server ({server}) offers no DPoP with ES256 (dpop_signing_alg_values_supported): a login there cannot give what the server wants; tell the server's operator"
        ))),
        (Some(true), false, false, _) => Err(OAuthError::Config(format!(
            "the entry sets `oauth.dpop` to true, and the authorization server ({server}) offers no DPoP with ES256 (dpop_signing_alg_values_supported): remove the key to log in with bearer tokens"
        ))),
        _ => Ok(None),
    }
}

/// Keeps `key` beside the tokens just stored, or forgets a key of an earlier login.
async fn keep_dpop_key(target: &Target, key: Option<&dpop::DpopKey>) -> Result<(), OAuthError> {
    match key {
        Some(key) => {
            target
                .secrets
                .set_secret(dpop::DPOP_KEY, key.stored())
                .await?
        }
        None => target.secrets.forget_secret(dpop::DPOP_KEY).await?,
    }
    Ok(())
}

/// The secret of the client the tokens were issued to: the pre-registered client's (from the
/// keychain), or that of this app's own registration.
async fn client_secret(target: &Target) -> Result<Option<String>, OAuthError> {
    Ok(match &target.oauth.client_id {
        Some(_) => target
            .secrets
            .client_secret()
            .await?
            .map(|secret| secret.expose().to_string()),
        None => target
            .secrets
            .registration()
            .await?
            .and_then(|registration| registration.client_secret),
    })
}

/// Forgets `target`'s login: revokes the refresh and access tokens where the authorization
/// server offers RFC 7009 revocation (best effort), then removes tokens and registration from
/// the keychain. Returns whether the server confirmed a revocation.
pub async fn logout(target: &Target) -> Result<bool, OAuthError> {
    let revoked = match target.secrets.tokens().await? {
        Some(stored) => {
            let recorder = journal(target).begin(TraceKind::Logout);
            revoke(target, &stored, &recorder).await.unwrap_or(false)
        }
        None => false,
    };
    target.secrets.clear().await?;
    Ok(revoked)
}

async fn revoke(
    target: &Target,
    stored: &rmcp::transport::auth::StoredCredentials,
    recorder: &Recorder,
) -> Result<bool, OAuthError> {
    use oauth2::TokenResponse;
    let Some(token) = &stored.token_response else {
        return Ok(false);
    };
    let manager = manager(&target.url, &target.secrets, recorder).await?;
    let remembered = target.remembered_challenge().await?;
    let metadata = discover(
        &manager,
        &target.oauth,
        &target.url,
        remembered.as_deref(),
        recorder,
    )
    .await?;
    if target.refusal(&metadata).await?.is_some() {
        // Revoking sends the tokens themselves: only where they were issued.
        return Ok(false);
    }
    let Some(endpoint) = metadata
        .additional_fields
        .get("revocation_endpoint")
        .and_then(serde_json::Value::as_str)
    else {
        return Ok(false);
    };
    let secret = client_secret(target).await?;
    let mut confirmed = false;
    let tokens = [
        token
            .refresh_token()
            .map(|t| (t.secret().clone(), "refresh_token")),
        Some((token.access_token().secret().clone(), "access_token")),
    ];
    for (value, hint) in tokens.into_iter().flatten() {
        let mut form = vec![("token", value), ("token_type_hint", hint.to_string())];
        let mut request = crate::shared_client().post(endpoint);
        match &secret {
            Some(secret) => request = request.basic_auth(&stored.client_id, Some(secret)),
            None => form.push(("client_id", stored.client_id.clone())),
        }
        let (status, _, _) = recorder
            .send(request.form(&form))
            .await
            .map_err(|err| OAuthError::Config(err.to_string()))?;
        confirmed |= status.is_success();
    }
    Ok(confirmed)
}

/// A server's login as it stands, without any secret's value.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TokenState {
    /// An access token is stored.
    pub has_token: bool,
    pub has_refresh_token: bool,
    pub scopes: Vec<String>,
    /// When the access token expires, in milliseconds since the Unix epoch, when known.
    pub expires_at_ms: Option<f64>,
    pub client_id: Option<String>,
    pub issuer: Option<String>,
    /// Where the tokens are kept: the secret store and the account in it.
    pub kept_in: String,
    /// Whose store: MCP Manager's keychain, or Claude Code's (shared with it).
    pub store: claude_store::LoginStore,
    /// A client registered by this app is kept (the next login reuses it).
    pub has_registration: bool,
    pub account: String,
    /// The tokens are DPoP-bound (RFC 9449): useless without this login's key, which the
    /// keychain keeps beside them.
    pub dpop_bound: bool,
}

/// The scopes of the token stored for `target` (none when none is stored).
async fn granted_scopes(target: &Target) -> Vec<String> {
    use oauth2::TokenResponse;
    let Ok(Some(stored)) = target.secrets.tokens().await else {
        return Vec::new();
    };
    match stored.token_response.as_ref().and_then(|t| t.scopes()) {
        Some(scopes) => scopes.iter().map(|s| s.to_string()).collect(),
        None => stored.granted_scopes.clone(),
    }
}

/// What is stored for `target`: scopes, expiry, refresh token, client — never a value.
/// `kept_in` names the store ("the OS keychain" or the unencrypted file).
pub async fn token_state(target: &Target, kept_in: String) -> Result<TokenState, OAuthError> {
    use oauth2::TokenResponse;
    let stored = target.secrets.tokens().await?;
    let token = stored.as_ref().and_then(|s| s.token_response.as_ref());
    let scopes = match (token.and_then(|t| t.scopes()), &stored) {
        (Some(scopes), _) => scopes.iter().map(|s| s.to_string()).collect(),
        (None, Some(stored)) => stored.granted_scopes.clone(),
        (None, None) => Vec::new(),
    };
    let expires_at_ms = match (token.and_then(|t| t.expires_in()), &stored) {
        (Some(lifetime), Some(stored)) => stored
            .token_received_at
            .map(|received| (received as f64 + lifetime.as_secs_f64()) * 1000.0),
        _ => None,
    };
    Ok(TokenState {
        has_token: token.is_some(),
        has_refresh_token: token.and_then(|t| t.refresh_token()).is_some(),
        scopes,
        expires_at_ms,
        client_id: stored.as_ref().map(|s| s.client_id.clone()),
        issuer: stored.as_ref().and_then(|s| s.issuer.clone()),
        kept_in,
        store: target.store,
        has_registration: target.secrets.registration().await?.is_some(),
        account: match &target.claude_key {
            Some(key) => format!("mcpOAuth[\"{key}\"]"),
            None => target.secrets.tokens_account(),
        },
        dpop_bound: token.is_some_and(|t| t.token_type().as_ref().eq_ignore_ascii_case("dpop")),
    })
}

/// How long `target`'s stored access token was issued to live, when the token said, and when
/// it was received (seconds since the epoch).
pub async fn token_times(target: &Target) -> (Option<std::time::Duration>, Option<u64>) {
    use oauth2::TokenResponse;
    let Some(stored) = target.secrets.tokens().await.ok().flatten() else {
        return (None, None);
    };
    (
        stored.token_response.as_ref().and_then(|t| t.expires_in()),
        stored.token_received_at,
    )
}

/// A shared handle to a keychain, for targets.
pub fn keychain() -> Arc<dyn mcp_manager_core::secrets::SecretStore> {
    Arc::new(mcp_manager_core::secrets::Keychain::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_echoing_a_credential_in_any_form_keeps_none_of_it_in_its_words() {
        use base64::Engine;
        let refresh = "rt_7fK2mQ9xLp4vN8sD1wZ3";
        let basic = base64::engine::general_purpose::STANDARD
            .encode("client-3f9a:s3cr3t-Value-0f-the-client");
        let said = format!(
            "Server returned error response: invalid_grant: refresh token {} is spent; header Basic {basic}; see https://as.example:8443/errors/invalid-grant",
            refresh.to_lowercase(),
        );
        let plain = plain_oauth(&said);
        assert!(!plain.contains(&refresh.to_lowercase()), "{plain}");
        assert!(!plain.contains(&basic[..20]), "{plain}");
        // What a person needs of it stays.
        assert!(
            plain.starts_with("invalid_grant: refresh token … is spent"),
            "{plain}"
        );
        assert!(
            plain.ends_with("see https://as.example:8443/errors/invalid-grant"),
            "{plain}"
        );
        assert_eq!(
            plain_oauth("invalid_client: Client authentication failed (unknown client)"),
            "invalid_client: Client authentication failed (unknown client)"
        );
    }

    #[tokio::test]
    async fn a_configured_metadata_url_must_be_https() {
        let recorder = trace::journal("configured-metadata-test").begin(TraceKind::Login);
        let err = configured_metadata(
            "http://as.example/.well-known/oauth-authorization-server",
            &recorder,
        )
        .await
        .unwrap_err();
        assert!(err.to_string().contains("must be an https:// URL"), "{err}");
    }

    #[test]
    fn redirects_are_loopback_only() {
        assert!(is_loopback_redirect("http://localhost:4567/callback"));
        assert!(is_loopback_redirect("http://127.0.0.1:1/callback"));
        assert!(is_loopback_redirect("http://[::1]:80/callback"));
        assert!(!is_loopback_redirect("https://app.example.com/callback"));
        assert!(!is_loopback_redirect(
            "http://localhost.example.com/callback"
        ));
        assert!(!is_loopback_redirect("http://192.168.1.2/callback"));
    }

    #[test]
    fn only_an_error_without_a_token_is_an_oauth_error() {
        assert!(is_oauth_error(br#"{"error":"invalid_grant"}"#));
        assert!(!is_oauth_error(br#"{"access_token":"x","error":"odd"}"#));
        assert!(!is_oauth_error(br#"{"access_token":"x"}"#));
        assert!(!is_oauth_error(b"not json"));
    }

    #[test]
    fn configured_metadata_must_name_the_issuer_it_was_published_for() {
        let ok = [
            (
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example",
            ),
            (
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/",
            ),
            (
                "https://as.example/.well-known/oauth-authorization-server/t1",
                "https://as.example/t1",
            ),
            (
                "https://as.example/.well-known/openid-configuration/t1",
                "https://as.example/t1",
            ),
            (
                "https://as.example/t1/.well-known/openid-configuration",
                "https://as.example/t1",
            ),
        ];
        for (url, issuer) in ok {
            assert!(
                check_issuer(url, Some(issuer)).is_ok(),
                "{url} for {issuer}"
            );
        }
        let refused = [
            // Someone else's issuer, claimed from the attacker's host.
            (
                "https://evil.example/.well-known/oauth-authorization-server",
                Some("https://as.example"),
            ),
            // The right host, another tenant.
            (
                "https://as.example/.well-known/oauth-authorization-server/t2",
                Some("https://as.example/t1"),
            ),
            // Not a well-known URL at all.
            (
                "https://as.example/metadata.json",
                Some("https://as.example"),
            ),
            (
                "https://as.example/.well-known/oauth-authorization-server",
                None,
            ),
        ];
        for (url, issuer) in refused {
            assert!(check_issuer(url, issuer).is_err(), "{url} for {issuer:?}");
        }
    }

    #[test]
    fn debug_never_shows_a_registration_secret() {
        let registration = Registration {
            client_id: "id-1".into(),
            client_secret: Some("s3cret-value".into()),
            redirect_uri: "http://localhost:1/callback".into(),
            issuer: None,
            token_endpoint: None,
        };
        let shown = format!("{registration:?}");
        assert!(
            shown.contains("id-1") && !shown.contains("s3cret-value"),
            "{shown}"
        );
    }
}

#[cfg(test)]
mod dpop_choice {
    use super::*;
    use mcp_manager_core::config::entry::{ServerConfig, TransportKind};

    fn target(dpop: Option<bool>, store: claude_store::LoginStore) -> Target {
        let mut config =
            ServerConfig::remote(TransportKind::Http, "https://mcp.example/mcp", vec![]);
        config.oauth = Some(mcp_manager_core::config::entry::OAuthConfig {
            dpop,
            ..Default::default()
        });
        let secrets: Arc<dyn mcp_manager_core::secrets::SecretStore> =
            Arc::new(mcp_manager_core::secrets::InMemory::default());
        let mut target = Target::of("s", &config, "https://mcp.example/mcp", secrets).unwrap();
        target.store = store;
        target
    }

    fn metadata(offers: bool) -> AuthorizationMetadata {
        let mut metadata = AuthorizationMetadata::default();
        metadata.issuer = Some("https://as.example".into());
        metadata.token_endpoint = "https://as.example/token".into();
        if offers {
            metadata.additional_fields.insert(
                "dpop_signing_alg_values_supported".into(),
                serde_json::json!(["ES256"]),
            );
        }
        metadata
    }

    #[test]
    fn dpop_is_used_when_offered_and_a_demand_that_cannot_be_met_is_said() {
        use claude_store::LoginStore::{ClaudeCode, Keychain};
        let dpop_challenge = Some("DPoP resource_metadata=\"https://mcp.example/prm\"");
        // Offered: bound, in our keychain; not in Claude Code's store unless asked for.
        assert!(
            dpop_for_login(&target(None, Keychain), &metadata(true), None)
                .unwrap()
                .is_some()
        );
        assert!(
            dpop_for_login(&target(None, ClaudeCode), &metadata(true), None)
                .unwrap()
                .is_none()
        );
        let err =
            dpop_for_login(&target(Some(true), ClaudeCode), &metadata(true), None).unwrap_err();
        assert!(err.to_string().contains("Claude Code's store"), "{err}");
        // Not offered: bearer, unless the server or the entry asks for DPoP.
        assert!(
            dpop_for_login(&target(None, Keychain), &metadata(false), None)
                .unwrap()
                .is_none()
        );
        let err =
            dpop_for_login(&target(None, Keychain), &metadata(false), dpop_challenge).unwrap_err();
        assert!(err.to_string().contains("offers no DPoP"), "{err}");
        let err =
            dpop_for_login(&target(Some(true), Keychain), &metadata(false), None).unwrap_err();
        assert!(err.to_string().contains("`oauth.dpop` to true"), "{err}");
        // Turned off by the entry.
        assert!(
            dpop_for_login(&target(Some(false), Keychain), &metadata(true), None)
                .unwrap()
                .is_none()
        );
        assert!(dpop_for_login(
            &target(Some(false), Keychain),
            &metadata(true),
            dpop_challenge
        )
        .is_err());
    }
}
