//! Logging in to a server, as both doors do it: `mcpctl login` and the window's Log in button.
//!
//! The server is asked first without a token: its 401 carries the `WWW-Authenticate`
//! challenge that seeds discovery (RFC 9728 §5.1). Then the person logs in through their own
//! browser and a loopback listener (RFC 8252 §7.3) on the entry's `oauth.callbackPort`, else
//! the port of this app's earlier registration (so the registration is reused), else any; a
//! server with a machine grant gets its token without a browser. Claude Code's needs-auth
//! cache forgets the server, so the next start asks it again.

use std::path::PathBuf;
use std::sync::Arc;

use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::entry::{ServerConfig, Transport};
use mcp_manager_core::{ApiError, ErrorCode, Locations};

use tokio_util::sync::CancellationToken;

use crate::connection::{ConnectError, Connection, Limits, ServerLogs};
use crate::supervisor::Settings;
use mcp_manager_oauth::claude_store::{LoginStore, LoginStores};
use mcp_manager_oauth::{self as oauth, Granted, Loopback, OAuthError, Opener, Target};

/// The OAuth target of a remote server of the configuration, and the unencrypted secrets
/// file when that, not the OS keychain, keeps the tokens.
pub fn oauth_target(
    locations: &Locations,
    name: &str,
) -> Result<(Target, Option<PathBuf>), ApiError> {
    let catalog = Catalog::load(locations);
    let entry = catalog.require(name)?;
    let (expanded, _) = entry.expanded();
    let Transport::Remote { url, .. } = &expanded.transport else {
        return Err(ApiError {
            code: ErrorCode::InvalidRequest,
            message: format!("\"{name}\" is a local (stdio) server: OAuth is for remote servers"),
        });
    };
    let (base, unencrypted) = mcp_manager_core::secrets::configured_store();
    let stores = LoginStores::of(locations);
    // The person's choice, else Claude Code's store when it holds a login, else the keychain.
    let store = stores.store_of(name, &entry.config, &expanded);
    let target = Target::of(name, &entry.config, url, base)
        .expect("a remote entry has a target")
        .from_entry(entry.scope, &entry.path)
        .kept_in(&stores, store, name, &entry.config, &expanded);
    let unencrypted = unencrypted.filter(|_| store == LoginStore::Keychain);
    Ok((target, unencrypted))
}

/// An OAuth failure in the IPC shape: a keychain failure keeps its own code.
pub fn oauth_failure(err: OAuthError) -> ApiError {
    ApiError {
        code: match err {
            OAuthError::Keychain(_) => ErrorCode::Keychain,
            _ => ErrorCode::InvalidRequest,
        },
        message: err.to_string(),
    }
}

/// Where `target`'s tokens are kept, in words.
pub fn where_kept(target: &Target, unencrypted: &Option<PathBuf>) -> String {
    match (target.store, unencrypted) {
        (LoginStore::ClaudeCode, _) => {
            "Claude Code's credential store (.credentials.json), shared with Claude Code".into()
        }
        (LoginStore::Keychain, Some(path)) => {
            format!("the UNENCRYPTED secrets file {}", path.display())
        }
        (LoginStore::Keychain, None) => "the OS keychain".into(),
    }
}

/// One session with `name`, with or without its stored token (the probe, and a check).
pub async fn open_once(
    name: &str,
    config: &ServerConfig,
    locations: &Locations,
    auth: Option<&Target>,
) -> Result<Connection, ConnectError> {
    Connection::open_authorized(
        name,
        config,
        &locations.project,
        Limits::connect(Settings::from_env().connect_timeout),
        ServerLogs::default(),
        Arc::new(crate::answer::Decline),
        crate::Roots::of(std::slice::from_ref(&locations.project)),
        auth,
    )
    .await
}

/// What a login got, and where it is kept.
#[derive(Debug, Clone)]
pub struct LoggedIn {
    pub target: Target,
    pub granted: Granted,
    pub unencrypted: Option<PathBuf>,
    /// The expanded entry, for a check with the new token.
    pub config: ServerConfig,
}

/// Logs in to the remote server `name`: probe, browser (or machine grant), tokens to the
/// secret store, needs-auth cache cleared. `scopes` empty: what the server asks for.
pub async fn log_in(
    locations: &Locations,
    name: &str,
    opener: Opener,
    scopes: &[String],
) -> Result<LoggedIn, ApiError> {
    log_in_until(locations, name, opener, scopes, CancellationToken::new()).await
}

/// [`log_in`], given up when `cancel` is cancelled while the browser is awaited.
pub async fn log_in_until(
    locations: &Locations,
    name: &str,
    opener: Opener,
    scopes: &[String],
    cancel: CancellationToken,
) -> Result<LoggedIn, ApiError> {
    let (target, unencrypted) = oauth_target(locations, name)?;
    let catalog = Catalog::load(locations);
    let entry = catalog.effective(name).expect("found above").clone();
    // Logging in contacts the server and its authorization server with the entry's headers:
    // not for a server that may not start.
    if let Some(why) = entry.why_not_started() {
        return Err(ApiError {
            code: ErrorCode::NotAllowed,
            message: format!("\"{name}\" may not start, so it was not contacted: {why}"),
        });
    }
    let (config, _) = entry.expanded();
    let challenge = match open_once(name, &config, locations, None).await {
        Ok(connection) => {
            connection.shutdown().await;
            None
        }
        Err(ConnectError::NeedsAuth { challenge }) => challenge,
        Err(err) => {
            return Err(ApiError {
                code: ErrorCode::InvalidRequest,
                message: format!("{name}: {err}"),
            })
        }
    };
    let remembered = target
        .secrets
        .registration()
        .await
        .ok()
        .flatten()
        .and_then(|r| url_port(&r.redirect_uri));
    let browser = match (target.oauth.callback_port, remembered) {
        (Some(port), _) => Loopback::bind(Some(port), opener).await,
        (None, Some(port)) => match Loopback::bind(Some(port), opener).await {
            Ok(browser) => Ok(browser),
            Err(_) => Loopback::bind(None, opener).await,
        },
        (None, None) => Loopback::bind(None, opener).await,
    }
    .map_err(oauth_failure)?
    .with_cancel(cancel);
    let granted = oauth::authorize(&target, &browser, challenge.as_deref(), scopes)
        .await
        .map_err(oauth_failure)?;
    crate::needs_auth::NeedsAuthCache::in_dir(&locations.claude_dir()).clear(name);
    Ok(LoggedIn {
        target,
        granted,
        unencrypted,
        config,
    })
}

/// Records where `name`'s login is to live from now on (its next login writes there).
pub fn choose_store(locations: &Locations, name: &str, store: LoginStore) -> Result<(), ApiError> {
    let catalog = Catalog::load(locations);
    let entry = catalog.require(name)?;
    if !matches!(entry.config.transport, Transport::Remote { .. }) {
        return Err(ApiError {
            code: ErrorCode::InvalidRequest,
            message: format!("\"{name}\" is a local (stdio) server: it has no login to keep"),
        });
    }
    LoginStores::of(locations)
        .choose(
            &mcp_manager_core::secrets::server_key(name, &entry.config),
            store,
        )
        .map_err(|err| oauth_failure(OAuthError::Keychain(err)))
}

fn url_port(url: &str) -> Option<u16> {
    let rest = url.split("://").nth(1)?;
    let authority = rest.split('/').next()?;
    authority.rsplit(':').next()?.parse().ok()
}
