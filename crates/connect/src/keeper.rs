//! The login keeper: every login we hold, in one list, each refreshed some minutes before it
//! expires, so that a remote server never goes to "needs authentication" for a token that was
//! simply left to lapse (the complaint filed most often about Claude Code's logins).
//!
//! A login is refreshed once less than [`margin`] of its access token's life is left: five
//! minutes, or three fifths of the token's lifetime for tokens that live less than about eight
//! minutes (so a token of 60 s is refreshed 36 s before it ends, ahead of the refresh a live
//! connection makes when half of a short token's life is left, not at once on every look). A refresh
//! goes to the token endpoint the login came from, under the refresh locks that keep a rotating
//! refresh token from being spent twice (`mcp_manager_oauth::refresh`). One that fails for a
//! passing reason (the authorization server is down) is tried again after a backoff that
//! doubles from 15 s to 15 min; one that fails for good (`invalid_grant`, the client unknown, no
//! refresh token) marks the login *lapsed*, and [`Tick::lapsed`] names it once, so the person is
//! told once, not at every look.
//!
//! Only logins of entries that may start are refreshed: the keeper contacts no authorization
//! server for an entry the window would not run (an untrusted folder, an unapproved server, a
//! policy block).
//!
//! A login kept in Claude Code's store is refreshed in the background only when the person
//! switched it on ([`KeeperSettings::refresh_claude_code_logins`]), and then only while no
//! Claude Code process runs, holding Claude Code's own refresh lock for that login. Claude Code
//! 2.1.332 reads the file before every request and re-reads it under that lock before its own
//! refresh, so a rotation made while it is not running is simply found by the next session; but
//! a running session that gets a 401 refreshes at once, without any lock, with the refresh token
//! it read a moment before, so a rotation made beside a running session can always race it
//! (measured: docs/oauth.md, "Logins that never lapse"). While a Claude Code runs, it refreshes
//! its logins itself, five minutes before they expire.
//!
//! What the keeper remembers (the last refresh of each login, its outcome, the backoff, whether
//! the person was told) lives in `logins.json` in the app's data folder: names, times and
//! words, never a token.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::entry::Transport;
use mcp_manager_core::{ApiError, ErrorCode, Locations, Scope};
use mcp_manager_oauth::claude_store::LoginStore;
use mcp_manager_oauth::{RefreshError, Target};
use serde::{Deserialize, Serialize};

/// The most a refresh is done ahead of expiry.
pub const MARGIN: Duration = Duration::from_secs(5 * 60);
/// The first wait after a refresh that failed for a passing reason; it doubles up to
/// [`BACKOFF_MAX`].
pub const BACKOFF_FIRST: Duration = Duration::from_secs(15);
pub const BACKOFF_MAX: Duration = Duration::from_secs(15 * 60);

/// How long before its expiry a token of `lifetime` is refreshed: [`MARGIN`], or three fifths
/// of the lifetime when that is shorter.
pub fn margin(lifetime: Option<Duration>) -> Duration {
    match lifetime {
        Some(lifetime) => MARGIN.min(lifetime * 3 / 5),
        None => MARGIN,
    }
}

/// How the client of a login is known to the authorization server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum ClientRegistration {
    /// `oauth.clientId`: registered beforehand by the person.
    PreRegistered,
    /// A Client ID Metadata Document (`oauth.clientMetadataUrl`).
    MetadataDocument,
    /// Registered by this app (RFC 7591) and kept.
    Dynamic,
    /// A machine grant (client credentials, workload identity, cross-app access).
    Machine,
    /// Made elsewhere (Claude Code's own login), or not known.
    Unknown,
}

/// The last refresh of a login, as remembered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LastRefresh {
    /// When it happened, ms since the epoch.
    pub at_ms: f64,
    pub ok: bool,
    /// What happened, in words (a failure's reason).
    pub words: String,
}

/// What the keeper remembers of one login.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last: Option<LastRefresh>,
    /// Passing failures in a row (the backoff's exponent).
    #[serde(default)]
    failures: u32,
    /// Not before this (ms since the epoch): the backoff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retry_at_ms: Option<f64>,
    /// Failed for good: only a new login helps. Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lapsed: Option<String>,
    /// The person was told of `lapsed`.
    #[serde(default)]
    told: bool,
    /// The access token's expiry as last seen, and when it was first seen: a login kept in
    /// Claude Code's store records no lifetime, so this is how long its tokens live (give or
    /// take a look), and a changed expiry after a failure is a new login.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seen: Option<Seen>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Seen {
    expires_ms: f64,
    first_seen_ms: f64,
}

/// Everything remembered, by the login's keychain key (`name|hash`, not a secret).
#[derive(Debug, Default)]
pub struct Records {
    path: PathBuf,
    records: BTreeMap<String, Record>,
    /// The file could not be read: it is left as it is, and nothing is remembered.
    broken: Option<String>,
}

/// Where and why a file of the keeper's does not parse: "line L, column C: words" (serde_json's
/// words without their own " at line L column C").
fn where_broke(err: &serde_json::Error) -> String {
    let text = err.to_string();
    let words = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => &text,
    };
    format!("line {}, column {}: {words}", err.line(), err.column())
}

const RECORDS_LIMIT: u64 = 1024 * 1024;

impl Records {
    pub fn load(locations: &Locations) -> Records {
        let path = locations.app_data_dir().join("logins.json");
        let (records, broken) = match mcp_manager_core::files::read(&path, RECORDS_LIMIT) {
            Ok(None) => (BTreeMap::new(), None),
            Ok(Some(bytes)) => match serde_json::from_slice(&bytes) {
                Ok(records) => (records, None),
                Err(err) => (BTreeMap::new(), Some(where_broke(&err))),
            },
            Err(err) => (BTreeMap::new(), Some(err.to_string())),
        };
        Records {
            path,
            records,
            broken,
        }
    }

    fn save(&self) {
        if let Some(why) = &self.broken {
            // Said, and the file left for the person to fix or remove: logins are still
            // refreshed, only their history is not kept.
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                eprintln!(
                    "{} cannot be read ({why}), so the logins' refreshes are not remembered; it was left as it is: fix or remove it",
                    self.path.display()
                )
            });
            return;
        }
        let Ok(bytes) = serde_json::to_vec_pretty(&self.records) else {
            return;
        };
        let how = mcp_manager_core::files::Write::private().create_folder(true);
        if let Err(err) = mcp_manager_core::files::write(&self.path, &bytes, &how) {
            eprintln!("the logins' record could not be kept: {err}");
        }
    }

    fn note(&mut self, key: &str, outcome: &Result<Option<f64>, RefreshError>, now_ms: f64) {
        let record = self.records.entry(key.to_string()).or_default();
        match outcome {
            Ok(expires) => {
                *record = Record {
                    last: Some(LastRefresh {
                        at_ms: now_ms,
                        ok: true,
                        words: "refreshed".into(),
                    }),
                    seen: expires.map(|expires_ms| Seen {
                        expires_ms,
                        first_seen_ms: now_ms,
                    }),
                    ..Record::default()
                };
            }
            Err(err) => {
                record.last = Some(LastRefresh {
                    at_ms: now_ms,
                    ok: false,
                    words: err.to_string(),
                });
                if err.lapsed() {
                    if record.lapsed.is_none() {
                        record.told = false;
                    }
                    record.lapsed = Some(err.to_string());
                    record.retry_at_ms = None;
                } else {
                    let wait = BACKOFF_FIRST
                        .saturating_mul(1u32 << record.failures.min(10))
                        .min(BACKOFF_MAX);
                    record.failures += 1;
                    record.retry_at_ms = Some(now_ms + wait.as_secs_f64() * 1000.0);
                }
            }
        }
    }

    /// A new login of `key` was made: what was remembered of the old one no longer holds.
    pub fn forget(&mut self, key: &str) {
        if self.records.remove(key).is_some() {
            self.save();
        }
    }
}

/// One login, as the Logins view and `mcpctl logins` show it. No secret's value.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Login {
    pub server: String,
    pub scope: Scope,
    /// Where the login is kept.
    pub store: LoginStore,
    pub issuer: Option<String>,
    pub scopes: Vec<String>,
    pub expires_at_ms: Option<f64>,
    pub has_refresh_token: bool,
    pub client: ClientRegistration,
    pub last_refresh: Option<LastRefresh>,
    /// Only a new login helps, and why.
    pub lapsed: Option<String>,
    /// When the keeper refreshes it next (ms since the epoch); `None` when it does not (no
    /// refresh token, lapsed, kept in Claude Code's store, or the entry may not start).
    pub refresh_at_ms: Option<f64>,
    /// Why the keeper leaves it alone, when it does.
    pub not_kept: Option<String>,
    /// The DPoP-bound tokens' key is kept beside them.
    pub dpop_bound: bool,
    /// Due, kept in Claude Code's store, and a Claude Code runs now: left to it (it refreshes
    /// the login itself when it needs the token; a rotation beside it could race it).
    pub left_for_claude_code: bool,
}

impl Login {
    /// The login needs the person: it lapsed, or its token expired with no way to refresh.
    pub fn needs_person(&self, now_ms: f64) -> bool {
        self.lapsed.is_some()
            || (!self.has_refresh_token && self.expires_at_ms.is_some_and(|at| at <= now_ms))
    }
}

pub fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
        * 1000.0
}

/// The remote entries of the configuration that hold a login, each with its target; what is
/// seen of them is noted in `records` (saved by the caller when it says so).
async fn held(
    locations: &Locations,
    settings: &KeeperSettings,
    records: &mut Records,
) -> (Vec<(Login, Target, bool)>, bool) {
    let catalog = Catalog::load(locations);
    let mut changed = false;
    let now = now_ms();
    let mut logins = Vec::new();
    for entry in catalog.entries.iter().filter(|e| e.shadowed_by.is_none()) {
        if !matches!(entry.config.transport, Transport::Remote { .. }) {
            continue;
        }
        let Ok((target, _)) = crate::login::oauth_target(locations, &entry.name) else {
            continue;
        };
        let Ok(state) = mcp_manager_oauth::token_state(&target, String::new()).await else {
            continue;
        };
        if !state.has_token {
            continue;
        }
        let (lifetime, _) = mcp_manager_oauth::token_times(&target).await;
        let before = records.records.get(target.secrets.key()).cloned();
        let mut record = before.clone().unwrap_or_default();
        // (An expiry already past is not compared: Claude Code's store gives it as "now" at
        // every look, which is no new login.)
        if let Some(expires_ms) = state.expires_at_ms.filter(|at| *at > now + 1000.0) {
            // (Within 2 s is the same token: a refresh's own figure and the store's differ by
            // the rounding of what is stored.)
            if !record
                .seen
                .is_some_and(|seen| (seen.expires_ms - expires_ms).abs() < 2000.0)
            {
                // Other tokens than when the refresh failed: a new login (here, in mcpctl, or
                // Claude Code's) or a refresh elsewhere, so what was remembered of the
                // failure no longer holds.
                if record.last.as_ref().is_some_and(|last| !last.ok) {
                    record = Record::default();
                }
                record.seen = Some(Seen {
                    expires_ms,
                    first_seen_ms: now,
                });
            }
        }
        if before.as_ref() != Some(&record) {
            records
                .records
                .insert(target.secrets.key().to_string(), record.clone());
            changed = true;
        }
        // Claude Code's store keeps only when a token expires, so its lifetime is how long
        // before that it was first seen (the keeper looks at least every 30 s).
        let lifetime = match target.store {
            LoginStore::ClaudeCode => record.seen.map(|seen| {
                Duration::from_secs_f64(((seen.expires_ms - seen.first_seen_ms) / 1000.0).max(0.0))
            }),
            LoginStore::Keychain => lifetime,
        };
        let may_start = entry.why_not_started();
        let not_kept = if let Some(why) = &may_start {
            Some(format!("not refreshed: the server may not start ({why})"))
        } else if target.store == LoginStore::ClaudeCode && !settings.refresh_claude_code_logins {
            Some("not refreshed in the background: kept in Claude Code's store (the keeper refreshes those when you switch it on in Logins, and only while no Claude Code runs)".into())
        } else if target.store == LoginStore::ClaudeCode
            && !target
                .claude_key
                .as_deref()
                .is_some_and(mcp_manager_oauth::claude_store::ClaudeRefreshLock::fits)
        {
            Some("not refreshed in the background: the server's name is too long for Claude Code's refresh lock (a file name of at most 255 bytes), so a refresh here could not keep a Claude Code starting meanwhile from refreshing it too; give the server a shorter name".into())
        } else if !state.has_refresh_token {
            Some("no refresh token: a new login is needed when it expires".into())
        } else if record.lapsed.is_some() {
            Some("lapsed: log in again".into())
        } else {
            None
        };
        let refresh_at_ms = match (&not_kept, state.expires_at_ms) {
            (None, Some(expires)) => {
                let due = expires - margin(lifetime).as_secs_f64() * 1000.0;
                Some(due.max(record.retry_at_ms.unwrap_or(0.0)).max(now.min(due)))
            }
            _ => None,
        };
        let client = if mcp_manager_oauth::machine::is_machine(&target) {
            ClientRegistration::Machine
        } else if target.oauth.client_id.is_some() {
            ClientRegistration::PreRegistered
        } else if target.oauth.client_metadata_url.is_some()
            && state.client_id.as_deref() == target.oauth.client_metadata_url.as_deref()
        {
            ClientRegistration::MetadataDocument
        } else if state.has_registration {
            ClientRegistration::Dynamic
        } else {
            ClientRegistration::Unknown
        };
        let keep = not_kept.is_none();
        logins.push((
            Login {
                server: entry.name.clone(),
                scope: entry.scope,
                store: target.store,
                issuer: state.issuer.clone(),
                scopes: state.scopes.clone(),
                expires_at_ms: state.expires_at_ms,
                has_refresh_token: state.has_refresh_token,
                client,
                last_refresh: record.last.clone(),
                lapsed: record.lapsed.clone(),
                refresh_at_ms,
                not_kept,
                dpop_bound: state.dpop_bound,
                left_for_claude_code: false,
            },
            target,
            keep,
        ));
    }
    (logins, changed)
}

/// Every login held for the servers of `locations`' configuration.
pub async fn logins(locations: &Locations) -> Vec<Login> {
    let mut records = Records::load(locations);
    let (held, changed) = held(locations, &KeeperSettings::load(locations), &mut records).await;
    if changed {
        records.save();
    }
    let running = mcp_manager_oauth::claude_store::claude_code_running();
    let now = now_ms();
    held.into_iter()
        .map(|(mut login, _, keep)| {
            login.left_for_claude_code = left_for_claude_code(&login, keep, running, now);
            login
        })
        .collect()
}

/// Whether the keeper leaves `login` to a running Claude Code at its next look (as
/// [`tick`] does): it is kept, due, and in Claude Code's store while one runs.
fn left_for_claude_code(login: &Login, keep: bool, claude_code_runs: bool, now_ms: f64) -> bool {
    keep && claude_code_runs
        && login.store == LoginStore::ClaudeCode
        && login.refresh_at_ms.is_some_and(|at| at <= now_ms)
}

/// What one look of the keeper did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Tick {
    /// The servers refreshed.
    pub refreshed: Vec<String>,
    /// The servers whose refresh failed for a passing reason (tried again later), with why.
    pub failed: Vec<(String, String)>,
    /// The servers whose login lapsed and the person was not yet told, with why: tell them
    /// once, they are marked told.
    pub lapsed: Vec<(String, String)>,
    /// The logins kept in Claude Code's store that were due and were left for now, because a
    /// Claude Code runs (or holds its refresh lock for the login).
    pub waiting: Vec<String>,
    /// When to look next, at the latest.
    pub next: Duration,
}

/// How soon a login left for a running Claude Code is looked at again.
const CLAUDE_CODE_RECHECK: Duration = Duration::from_secs(5);

/// The longest the keeper sleeps between looks (a new login, or a change of configuration, is
/// seen at the next look).
pub const LOOK_AT_LEAST_EVERY: Duration = Duration::from_secs(30);

/// How many due logins one look refreshes at the same time.
pub const REFRESHES_AT_ONCE: usize = 8;

/// One look: refreshes every login that is due, and says when to look again. `settings`: the
/// person's (`KeeperSettings::load`), or `mcpctl keep`'s.
pub async fn tick(locations: &Locations, settings: &KeeperSettings) -> Tick {
    let mut tick = Tick {
        next: LOOK_AT_LEAST_EVERY,
        ..Tick::default()
    };
    let now = now_ms();
    let mut records = Records::load(locations);
    let (held, mut changed) = held(locations, settings, &mut records).await;
    let mut due_now = Vec::new();
    for (login, target, keep) in &held {
        let Some(due) = login.refresh_at_ms.filter(|_| *keep) else {
            continue;
        };
        if due > now {
            let wait = Duration::from_secs_f64(((due - now) / 1000.0).max(0.0));
            tick.next = tick.next.min(wait);
            continue;
        }
        due_now.push((login, target));
    }
    // Side by side: an authorization server that never answers costs its own login the
    // refresh deadline (30 s), not every login after it; a look takes at most that long for
    // up to REFRESHES_AT_ONCE due logins.
    let mut outcomes = Vec::new();
    let mut due_now = due_now.into_iter().peekable();
    while due_now.peek().is_some() {
        let batch: Vec<_> = due_now
            .by_ref()
            .take(REFRESHES_AT_ONCE)
            .map(|(login, target)| refresh_due(locations, login, target))
            .collect();
        outcomes.extend(futures::future::join_all(batch).await);
    }
    for (login, target, done) in outcomes {
        let Some((outcome, after)) = done else {
            tick.waiting.push(login.server.clone());
            tick.next = tick.next.min(CLAUDE_CODE_RECHECK);
            continue;
        };
        records.note(target.secrets.key(), &outcome, after);
        changed = true;
        match outcome {
            Ok(_) => tick.refreshed.push(login.server.clone()),
            Err(err) if !err.lapsed() => tick.failed.push((login.server.clone(), err.to_string())),
            Err(_) => {}
        }
    }
    for (login, target, _) in &held {
        if let Some(record) = records.records.get_mut(target.secrets.key()) {
            if let (Some(why), false) = (&record.lapsed, record.told) {
                tick.lapsed.push((login.server.clone(), why.clone()));
                record.told = true;
                changed = true;
            }
        }
    }
    if changed {
        records.save();
    }
    // A refresh just made changes the expiry: look again soon to plan the next one.
    if !tick.refreshed.is_empty() || !tick.failed.is_empty() {
        tick.next = tick.next.min(Duration::from_secs(1));
    }
    tick.next = tick.next.max(Duration::from_millis(500));
    tick
}

/// One due login's refresh, and when it ended; `None` when it is left for now. A login in
/// Claude Code's store is rotated only while no Claude Code runs, under Claude Code's own
/// refresh lock for it, taken here so that it is held only as long as this one refresh (well
/// under the 60 s after which Claude Code takes it for stale), whatever waits beside it.
async fn refresh_due<'a>(
    locations: &Locations,
    login: &'a Login,
    target: &'a Target,
) -> (
    &'a Login,
    &'a Target,
    Option<(Result<Option<f64>, RefreshError>, f64)>,
) {
    use mcp_manager_oauth::claude_store::{claude_code_running, ClaudeRefreshLock, LoginStores};
    let _claude_lock = if login.store == LoginStore::ClaudeCode {
        let lock = if claude_code_running() {
            None
        } else {
            target
                .claude_key
                .as_deref()
                .and_then(|key| ClaudeRefreshLock::take(&LoginStores::of(locations), key))
        };
        if lock.is_none() {
            return (login, target, None);
        }
        lock
    } else {
        None
    };
    let outcome = mcp_manager_oauth::refresh(target).await;
    (login, target, Some((outcome, now_ms())))
}

/// Refreshes `name`'s login now, whatever the keeper would do (the person asked: Refresh now,
/// `mcpctl refresh NAME`); Claude Code's store too. The outcome is remembered as the keeper's.
pub async fn refresh_one(locations: &Locations, name: &str) -> Result<Login, ApiError> {
    let catalog = Catalog::load(locations);
    let entry = catalog.require(name)?;
    if let Some(why) = entry.why_not_started() {
        return Err(ApiError {
            code: ErrorCode::NotAllowed,
            message: format!(
                "\"{name}\" may not start, so its authorization server was not contacted: {why}"
            ),
        });
    }
    let (target, _) = crate::login::oauth_target(locations, name)?;
    if !target.secrets.has_tokens().await.unwrap_or(false) {
        return Err(ApiError {
            code: ErrorCode::InvalidRequest,
            message: format!("\"{name}\" holds no login to refresh: log in first"),
        });
    }
    let outcome = mcp_manager_oauth::refresh(&target).await;
    let mut records = Records::load(locations);
    records.note(target.secrets.key(), &outcome, now_ms());
    if let Err(err) = &outcome {
        // Said here, to the person who asked: not again by the keeper.
        if let Some(record) = records.records.get_mut(target.secrets.key()) {
            record.told = record.lapsed.is_some();
        }
        records.save();
        return Err(ApiError {
            code: ErrorCode::InvalidRequest,
            message: format!("{name}: {err}"),
        });
    }
    records.save();
    logins(locations)
        .await
        .into_iter()
        .find(|login| login.server == name)
        .ok_or_else(|| ApiError {
            code: ErrorCode::InvalidRequest,
            message: format!("{name}: refreshed, and then no login was found"),
        })
}

/// A new login of `name` was made (or it logged out): the keeper forgets its old record.
pub fn forget(locations: &Locations, target: &Target) {
    Records::load(locations).forget(target.secrets.key());
}

/// Moves `name`'s login to the other store (MCP Manager's keychain, or Claude Code's store):
/// its tokens and registration are written there first, then forgotten where they were, and the
/// store chosen for its next login too. A DPoP-bound login stays in the keychain: Claude Code's
/// store has no place for its key.
pub async fn move_login(locations: &Locations, name: &str, to: LoginStore) -> Result<(), ApiError> {
    let keychain = |err: mcp_manager_core::secrets::SecretError| {
        crate::login::oauth_failure(mcp_manager_oauth::OAuthError::Keychain(err))
    };
    let (from, _) = crate::login::oauth_target(locations, name)?;
    if from.store == to {
        return Ok(());
    }
    let Some(tokens) = from.secrets.tokens().await.map_err(keychain)? else {
        return Err(ApiError {
            code: ErrorCode::InvalidRequest,
            message: format!("\"{name}\" holds no login to move: log in first"),
        });
    };
    if to == LoginStore::ClaudeCode
        && from
            .secrets
            .secret(mcp_manager_oauth::dpop::DPOP_KEY)
            .await
            .map_err(keychain)?
            .is_some()
    {
        return Err(ApiError {
            code: ErrorCode::InvalidRequest,
            message: format!("\"{name}\"'s tokens are DPoP-bound, and Claude Code's store has no place for the key they are bound to: the login stays in MCP Manager's keychain"),
        });
    }
    let registration = from.secrets.registration().await.map_err(keychain)?;
    let binding = from.secrets.binding().await.map_err(keychain)?;
    if to == LoginStore::Keychain && binding.is_none() {
        // A login Claude Code made records only its issuer, not where its tokens may be
        // sent: in the keychain it could never be used (and moved, it would be gone from
        // Claude Code too).
        return Err(ApiError {
            code: ErrorCode::InvalidRequest,
            message: format!("\"{name}\"'s login was made by Claude Code, which does not record where its tokens may be sent, so MCP Manager cannot take it over: it stays in Claude Code's store. To keep a login in MCP Manager's keychain, log in to \"{name}\" here with the keychain chosen"),
        });
    }
    crate::login::choose_store(locations, name, to)?;
    let (dest, _) = crate::login::oauth_target(locations, name)?;
    let written = async {
        dest.secrets.save_tokens(&tokens).await?;
        if let Some(registration) = &registration {
            dest.secrets.save_registration(registration).await?;
        }
        Ok::<_, mcp_manager_core::secrets::SecretError>(())
    }
    .await;
    if let Err(err) = written {
        // Nothing was lost: the login is where it was, and stays chosen there.
        let _ = crate::login::choose_store(locations, name, from.store);
        return Err(keychain(err));
    }
    from.secrets
        .forget_tokens_and_registration()
        .await
        .map_err(keychain)?;
    if let Some(binding) = binding {
        dest.secrets
            .save_binding(&binding)
            .await
            .map_err(keychain)?;
    }
    mcp_manager_oauth::journal(&dest).changed();
    Ok(())
}

/// What the person chose for the keeper in the window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeeperSettings {
    /// Closing the window leaves the keeper running in the tray (`true`) or quits (`false`);
    /// `None` until asked, at the first close.
    #[serde(default)]
    pub keep_running_when_closed: Option<bool>,
    /// The keeper refreshes the logins kept in Claude Code's store too (only while no Claude
    /// Code runs, under Claude Code's refresh lock).
    #[serde(default)]
    pub refresh_claude_code_logins: bool,
}

impl KeeperSettings {
    fn path(locations: &Locations) -> PathBuf {
        locations.app_data_dir().join("keeper.json")
    }

    /// The settings; the defaults when the file is missing or broken (see [`Self::read`]).
    pub fn load(locations: &Locations) -> KeeperSettings {
        Self::read(locations).unwrap_or_default()
    }

    /// The settings, or why the file cannot be read (with the line and column where it
    /// broke): a broken file is reported, and never written over.
    pub fn read(locations: &Locations) -> Result<KeeperSettings, ApiError> {
        let path = Self::path(locations);
        let broken = |message: String| ApiError {
            code: ErrorCode::ConfigInvalid,
            message: format!(
                "{}: {message}. The keeper's settings were not changed; fix or remove the file",
                path.display()
            ),
        };
        match mcp_manager_core::files::read(&path, 64 * 1024) {
            Ok(None) => Ok(KeeperSettings::default()),
            Ok(Some(bytes)) => {
                serde_json::from_slice(&bytes).map_err(|err| broken(where_broke(&err)))
            }
            Err(err) => Err(broken(err.to_string())),
        }
    }

    /// Changes the settings with `change` and saves them; a broken file is left as it is.
    pub fn change(
        locations: &Locations,
        change: impl FnOnce(&mut KeeperSettings),
    ) -> Result<(), ApiError> {
        let mut settings = Self::read(locations)?;
        change(&mut settings);
        settings.save(locations)
    }

    fn save(&self, locations: &Locations) -> Result<(), ApiError> {
        let bytes = serde_json::to_vec_pretty(self).expect("settings serialize");
        let how = mcp_manager_core::files::Write::private().create_folder(true);
        mcp_manager_core::files::write(&Self::path(locations), &bytes, &how).map_err(|err| {
            ApiError {
                code: ErrorCode::ConfigUnwritable,
                message: format!("the keeper's settings could not be saved: {err}"),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_due_login_of_claude_codes_store_is_left_to_a_running_claude_code_and_said_so() {
        let login = |store: LoginStore, refresh_at_ms: Option<f64>| Login {
            server: "s".into(),
            scope: Scope::User,
            store,
            issuer: None,
            scopes: vec![],
            expires_at_ms: None,
            has_refresh_token: true,
            client: ClientRegistration::Dynamic,
            last_refresh: None,
            lapsed: None,
            refresh_at_ms,
            not_kept: None,
            dpop_bound: false,
            left_for_claude_code: false,
        };
        let due = login(LoginStore::ClaudeCode, Some(10.0));
        assert!(left_for_claude_code(&due, true, true, 20.0));
        assert!(!left_for_claude_code(&due, true, false, 20.0), "none runs");
        assert!(!left_for_claude_code(&due, false, true, 20.0), "not kept");
        assert!(!left_for_claude_code(&due, true, true, 5.0), "not due yet");
        let ours = login(LoginStore::Keychain, Some(10.0));
        assert!(
            !left_for_claude_code(&ours, true, true, 20.0),
            "ours is refreshed"
        );
    }

    #[test]
    fn the_margin_is_five_minutes_or_three_fifths_of_a_short_life() {
        assert_eq!(margin(Some(Duration::from_secs(3600))), MARGIN);
        assert_eq!(
            margin(Some(Duration::from_secs(60))),
            Duration::from_secs(36)
        );
        assert_eq!(margin(None), MARGIN);
    }

    #[test]
    fn passing_failures_back_off_and_a_lapse_is_told_once() {
        let mut records = Records::default();
        let transient = Err(RefreshError::Transient("down".into()));
        records.note("k", &transient, 0.0);
        assert_eq!(records.records["k"].retry_at_ms, Some(15_000.0));
        records.note("k", &transient, 0.0);
        assert_eq!(records.records["k"].retry_at_ms, Some(30_000.0));
        for _ in 0..20 {
            records.note("k", &transient, 0.0);
        }
        assert_eq!(records.records["k"].retry_at_ms, Some(900_000.0));
        records.note("k", &Err(RefreshError::Lapsed("gone".into())), 1.0);
        let record = &records.records["k"];
        assert_eq!(record.lapsed.as_deref(), Some("gone"));
        assert!(!record.told);
        records.note("k", &Ok(Some(5.0)), 2.0);
        assert_eq!(
            records.records["k"],
            Record {
                last: Some(LastRefresh {
                    at_ms: 2.0,
                    ok: true,
                    words: "refreshed".into()
                }),
                seen: Some(Seen {
                    expires_ms: 5.0,
                    first_seen_ms: 2.0
                }),
                ..Record::default()
            }
        );
    }
}
