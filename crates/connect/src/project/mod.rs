//! One open project with its servers running: what the app hosts for as long as its window is
//! open, and what `mcpctl` builds for one command.
//!
//! [`LiveProject`] ties the configuration on disk ([`Locations`], read afresh as a
//! [`Catalog`] whenever asked) to one [`Supervisor`] set up as both doors need it: tokens from
//! the configured secret store, Claude Code's needs-auth cache, Claude Code's environment
//! settings. The app and `mcpctl` call the same methods, so "restart", "why can it not
//! start" and "the stderr tail" read the same everywhere.
//!
//! Reconciling is serialized: a change on disk and a second change right after it must not
//! both see a server as stopped and start it twice.

mod browse;
mod calls;
pub mod clients;
pub mod pins;
pub mod surface;

pub use browse::{save_resource, ResourceLists};
pub use calls::{save_result, ServerTools, ToolCallView, ToolView};

use std::collections::HashMap;
use std::sync::Arc;

use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::{ApiError, ConfigError, ErrorCode, Locations};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::needs_auth::NeedsAuthCache;
use crate::protocol_log::LoggedMessage;
use crate::status::{ServerStatus, StatusEvent};
use crate::supervisor::{Reconciled, Settings, Supervisor};
use mcp_manager_oauth::{Phase, TokenState, Trace};

/// The stderr of a local server as kept: the last 64 KiB, split into lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StderrTail {
    /// Oldest first.
    pub lines: Vec<String>,
    /// Lines dropped at the front to stay within the bound.
    pub dropped_lines: u32,
}

/// How often a follower of a protocol log is handed new messages, at most.
pub const FOLLOW_BATCH: std::time::Duration = std::time::Duration::from_millis(50);

/// A live follower of a protocol log; dropping it stops the following.
#[derive(Debug)]
pub struct Following(tokio::task::AbortHandle);

impl Drop for Following {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What a login got, without any token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LoginSummary {
    pub scopes: Vec<String>,
    /// "the OS keychain", or the unencrypted file when one is configured.
    pub stored_in: String,
}

/// A project's configuration and the supervisor running its servers.
pub struct LiveProject {
    locations: Locations,
    supervisor: Arc<Supervisor>,
    reconciling: tokio::sync::Mutex<()>,
    /// The logins waiting for the person, by server, to cancel.
    logins: std::sync::Mutex<HashMap<String, CancellationToken>>,
    /// The calls made by hand that are running, by the id their caller gave them, to cancel.
    running: std::sync::Mutex<HashMap<u32, CancellationToken>>,
    /// Where calls made by hand are kept, when it could be opened.
    history: std::sync::Mutex<
        Option<Result<mcp_manager_history::History, mcp_manager_history::HistoryError>>,
    >,
    /// One surface kept at a time: two readings at once (a connection and a recount) must
    /// not both find the last one different and both keep theirs.
    surfaces: tokio::sync::Mutex<()>,
    /// Per server, how many times its surface was asked for, and how many of those asks the
    /// newest reading began after (see [`LiveProject::keep_surface`]).
    surface_asks: std::sync::Mutex<HashMap<String, (u64, u64)>>,
}

/// A remote server's login as the window shows it: where a login is, what is stored, and the
/// recorded exchanges (the OAuth debugger). No secret's value is in it.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct OAuthActivity {
    pub server: String,
    /// The newest login's phase, if there was one in this run of the app.
    pub phase: Option<Phase>,
    pub token: TokenState,
    /// Oldest first.
    pub traces: Vec<Trace>,
}

impl LiveProject {
    /// A supervisor for the project of `locations`, with tokens from the configured secret
    /// store (the OS keychain, or the unencrypted file when named) and Claude Code's
    /// needs-auth cache. Nothing starts until [`Self::start`].
    pub fn open(locations: Locations, settings: Settings) -> Arc<LiveProject> {
        let supervisor = Supervisor::new(locations.project.clone(), settings);
        supervisor.set_secrets(mcp_manager_core::secrets::configured_store().0);
        supervisor.set_login_stores(mcp_manager_oauth::claude_store::LoginStores::of(&locations));
        supervisor.set_needs_auth_cache(NeedsAuthCache::in_dir(&locations.claude_dir()));
        supervisor.set_era_cache(crate::era::EraCache::in_dir(&locations.app_data_dir()));
        supervisor.set_approvals(locations.clone());
        Arc::new(LiveProject {
            locations,
            supervisor,
            reconciling: tokio::sync::Mutex::new(()),
            logins: std::sync::Mutex::default(),
            history: std::sync::Mutex::default(),
            running: std::sync::Mutex::default(),
            surfaces: tokio::sync::Mutex::new(()),
            surface_asks: std::sync::Mutex::default(),
        })
    }

    pub fn locations(&self) -> &Locations {
        &self.locations
    }

    pub fn supervisor(&self) -> &Arc<Supervisor> {
        &self.supervisor
    }

    /// Starts every server the configuration says should run (in Claude Code's batches) and
    /// returns when each has settled.
    pub async fn start(&self) {
        let _turn = self.reconciling.lock().await;
        self.supervisor.start(&Catalog::load(&self.locations)).await;
    }

    /// Brings what runs in line with the files as they are now: only servers whose content
    /// hash, or whether they start, changed are touched.
    pub async fn reconcile(&self) -> Reconciled {
        let _turn = self.reconciling.lock().await;
        self.supervisor
            .reconcile(&Catalog::load(&self.locations))
            .await
    }

    /// Each server's current status.
    pub fn statuses(&self) -> Vec<StatusEvent> {
        self.supervisor.statuses()
    }

    /// Starts a server again (a failed local server is restarted only this way). Fails,
    /// saying why and what to do, when the server is unknown or may not start.
    pub async fn restart(&self, server: &str) -> Result<(), ApiError> {
        let catalog = Catalog::load(&self.locations);
        let entry = catalog.require(server)?;
        if let Some(reason) = entry.why_not_started() {
            return Err(ApiError {
                code: ErrorCode::InvalidRequest,
                message: format!("\"{server}\" cannot be restarted: {reason}"),
            });
        }
        self.supervisor.restart(&catalog, server).await;
        Ok(())
    }

    /// The stderr a local server has written (kept after it exited). Empty for a server that
    /// never ran or is remote.
    pub fn stderr(&self, server: &str) -> StderrTail {
        match self.supervisor.stderr(server) {
            Some(log) => StderrTail {
                lines: log.lines(),
                dropped_lines: u32::try_from(log.dropped_lines()).unwrap_or(u32::MAX),
            },
            None => StderrTail {
                lines: Vec::new(),
                dropped_lines: 0,
            },
        }
    }

    /// A server's JSON-RPC messages after `after` (0: all kept), oldest first. Empty unless
    /// the supervisor keeps protocol logs (the app does).
    pub fn protocol_log(&self, server: &str, after: u32) -> Vec<LoggedMessage> {
        self.supervisor
            .protocol_log(server)
            .map(|log| log.entries(after))
            .unwrap_or_default()
    }

    /// Calls `deliver` with every batch of new messages of a server's protocol log, at most
    /// one batch per [`FOLLOW_BATCH`], until `deliver` returns false or the returned
    /// [`Following`] is dropped.
    pub fn follow_protocol_log(
        &self,
        server: &str,
        after: u32,
        deliver: impl Fn(Vec<LoggedMessage>) -> bool + Send + 'static,
    ) -> Result<Following, ApiError> {
        let log = self.supervisor.protocol_log(server).ok_or_else(|| {
            ApiError::from(ConfigError::ServerNotFound {
                name: server.to_string(),
                scope: None,
            })
        })?;
        let mut wake = log.follow();
        let task = tokio::spawn(async move {
            let mut seen = after;
            loop {
                let batch = log.entries(seen);
                if let Some(last) = batch.last() {
                    seen = last.seq;
                    if !deliver(batch) {
                        return;
                    }
                }
                use tokio::sync::broadcast::error::RecvError;
                match wake.recv().await {
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => return,
                }
                tokio::time::sleep(FOLLOW_BATCH).await;
                while wake.try_recv().is_ok() {}
            }
        });
        Ok(Following(task.abort_handle()))
    }

    /// Logs in to a remote server through the person's browser (`$BROWSER` when set), keeps
    /// the tokens in the secret store, and starts the server again with them.
    pub async fn log_in(&self, server: &str) -> Result<LoginSummary, ApiError> {
        let cancel = CancellationToken::new();
        let earlier = self
            .logins
            .lock()
            .expect("logins lock")
            .insert(server.to_string(), cancel.clone());
        // A second Log in replaces the first, which is given up.
        if let Some(earlier) = earlier {
            earlier.cancel();
        }
        let result = crate::login::log_in_until(
            &self.locations,
            server,
            mcp_manager_oauth::Opener::System,
            &[],
            cancel.clone(),
        )
        .await;
        {
            let mut logins = self.logins.lock().expect("logins lock");
            if logins
                .get(server)
                .is_some_and(|c| c.is_cancelled() || !cancel.is_cancelled())
            {
                logins.remove(server);
            }
        }
        let logged_in = result?;
        self.restart(server).await?;
        let journal = mcp_manager_oauth::journal(&logged_in.target);
        let status = self
            .statuses()
            .into_iter()
            .find(|event| event.server == server)
            .map(|event| event.status);
        journal.set_login_phase(match status {
            Some(ServerStatus::Connected(_)) => Phase::Connected,
            Some(ServerStatus::Failed { error }) => Phase::Failed {
                message: format!("logged in, but the server still fails: {error}"),
            },
            Some(ServerStatus::NeedsAuth) => Phase::Failed {
                message: "logged in, but the server still refuses the token".into(),
            },
            _ => Phase::Connecting,
        });
        Ok(LoginSummary {
            scopes: logged_in.granted.scopes,
            stored_in: crate::login::where_kept(&logged_in.target, &logged_in.unencrypted),
        })
    }

    /// Gives up a login that waits for the browser. Whether one was waiting.
    pub fn cancel_login(&self, server: &str) -> bool {
        match self.logins.lock().expect("logins lock").remove(server) {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// A remote server's login phase, stored token (without its value) and OAuth exchanges.
    pub async fn oauth_activity(&self, server: &str) -> Result<OAuthActivity, ApiError> {
        let (target, unencrypted) = crate::login::oauth_target(&self.locations, server)?;
        let journal = mcp_manager_oauth::journal(&target);
        let token = mcp_manager_oauth::token_state(
            &target,
            crate::login::where_kept(&target, &unencrypted),
        )
        .await
        .map_err(crate::login::oauth_failure)?;
        Ok(OAuthActivity {
            server: server.to_string(),
            phase: journal.login_phase(),
            token,
            traces: journal.traces(),
        })
    }

    /// The remote servers of this project whose OAuth journal is the one under `key`.
    pub fn servers_with_journal(&self, key: &str) -> Vec<String> {
        let catalog = Catalog::load(&self.locations);
        catalog
            .entries
            .iter()
            .filter(|entry| entry.shadowed_by.is_none())
            .filter(|entry| {
                matches!(
                    entry.config.transport,
                    mcp_manager_core::config::entry::Transport::Remote { .. }
                ) && mcp_manager_core::secrets::server_key(&entry.name, &entry.config) == key
            })
            .map(|entry| entry.name.clone())
            .collect()
    }

    /// Keeps `server`'s login in `store` from now on, and starts it again with what that
    /// store holds (Claude Code's login, when it has one).
    pub async fn set_login_store(
        &self,
        server: &str,
        store: mcp_manager_oauth::claude_store::LoginStore,
    ) -> Result<(), ApiError> {
        crate::login::choose_store(&self.locations, server, store)?;
        let (target, _) = crate::login::oauth_target(&self.locations, server)?;
        mcp_manager_oauth::journal(&target).changed();
        self.restart(server).await
    }

    /// Forgets the client registered with `server`'s authorization server: its next login
    /// registers a new one (the old one may be unknown there now).
    pub async fn forget_registration(&self, server: &str) -> Result<(), ApiError> {
        let (target, _) = crate::login::oauth_target(&self.locations, server)?;
        target.secrets.forget_registration().await.map_err(|err| {
            crate::login::oauth_failure(mcp_manager_oauth::OAuthError::Keychain(err))
        })?;
        mcp_manager_oauth::journal(&target).changed();
        Ok(())
    }

    /// Forgets a server's tokens (revoked first where the server offers revocation) and
    /// starts it again without them. Returns whether the server revoked them.
    pub async fn log_out(&self, server: &str) -> Result<bool, ApiError> {
        let (target, _) = crate::login::oauth_target(&self.locations, server)?;
        let revoked = mcp_manager_oauth::logout(&target)
            .await
            .map_err(crate::login::oauth_failure)?;
        self.restart(server).await?;
        Ok(revoked)
    }

    /// Ends every server (no process outlives this) and starts none afterwards.
    pub async fn shutdown(&self) {
        self.supervisor.shutdown().await;
    }
}

/// A request refused for what it asked, in words for the person.
pub(crate) fn refused(message: String) -> ApiError {
    ApiError {
        code: ErrorCode::InvalidRequest,
        message,
    }
}
