//! One state machine per server, and the pools that start them.
//!
//! The private [`State`] holds each state with its data (the live [`Connection`] when
//! connected); the public [`ServerStatus`] is what leaves this module. Every change goes
//! through [`Supervisor::transition`], which stores the new state and emits exactly one
//! [`StatusEvent`], so a subscriber sees the whole sequence a server went through.
//!
//! Start-up follows Claude Code: local (stdio) servers connect 3 at a time and remote ones 20
//! at a time, both pools at once (`MCP_SERVER_CONNECTION_BATCH_SIZE`,
//! `MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE`); every server is announced as pending first,
//! and each status is emitted the moment it is known. Disabled servers, and project servers
//! nobody approved, never spawn. The connect timeout is `MCP_TIMEOUT` (default 30 s).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_manager_core::config::catalog::{Catalog, CatalogEntry};
use mcp_manager_core::config::entry::{ServerConfig, Transport, TransportKind};
use mcp_manager_core::secrets::SecretStore;
use tokio::sync::{broadcast, Semaphore};

use crate::answer::{Answerer, Decline};
use crate::connection::{ConnectError, Connection, ServerLogs};
use crate::handler::Roots;
use crate::needs_auth::NeedsAuthCache;
use crate::protocol_log::ProtocolLog;
use crate::status::{ConnectedInfo, ListChanged, ListCounts, ListKind, ServerStatus, StatusEvent};
use crate::stderr::StderrLog;

/// How often a lost remote server is tried again before it is reported failed.
pub const RECONNECT_ATTEMPTS: u32 = 5;

/// Timeouts and pool sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub connect_timeout: Duration,
    /// `None`: wait as long as the server takes (Claude Code's default is very long).
    pub tool_timeout: Option<Duration>,
    pub local_batch: usize,
    pub remote_batch: usize,
    /// How often a connected remote server is pinged to notice a wedged session.
    pub heartbeat: Duration,
    /// Each POST of a streamable HTTP session, up to its answer; the GET stream has none.
    pub http_post_timeout: Duration,
    /// On a local server's first start, which `initialize` answered: ask `server/discover` in
    /// a second process beside the session and remember the answer for the next start
    /// (`connection/open/first_start.rs`). Off in `mcpctl`, whose commands end before the answer.
    pub ask_era_beside: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            connect_timeout: Duration::from_secs(30),
            tool_timeout: None,
            local_batch: 3,
            remote_batch: 20,
            heartbeat: Duration::from_secs(30),
            http_post_timeout: crate::http_client::POST_TIMEOUT,
            ask_era_beside: true,
        }
    }
}

impl Settings {
    /// Claude Code's environment variables, where set: `MCP_TIMEOUT` and `MCP_TOOL_TIMEOUT`
    /// in milliseconds, and the two batch sizes.
    pub fn from_env() -> Settings {
        let number = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        let defaults = Settings::default();
        Settings {
            connect_timeout: number("MCP_TIMEOUT")
                .map(Duration::from_millis)
                .unwrap_or(defaults.connect_timeout),
            tool_timeout: number("MCP_TOOL_TIMEOUT").map(Duration::from_millis),
            local_batch: number("MCP_SERVER_CONNECTION_BATCH_SIZE")
                .map(|n| n.max(1) as usize)
                .unwrap_or(defaults.local_batch),
            remote_batch: number("MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE")
                .map(|n| n.max(1) as usize)
                .unwrap_or(defaults.remote_batch),
            heartbeat: defaults.heartbeat,
            http_post_timeout: defaults.http_post_timeout,
            ask_era_beside: defaults.ask_era_beside,
        }
    }
}

/// The line in a server's stderr before its session moves to 2026-07-28.
pub const SWITCHED: &str = "── MCP Manager: this server speaks 2026-07-28 too (server/discover, asked beside its first session, found it): a session in that era takes that one's place ──";

/// A server's state with its data.
enum State {
    Pending {
        attempt: u32,
    },
    Connected {
        connection: Arc<Connection>,
        counts: ListCounts,
    },
    Failed {
        error: String,
    },
    NeedsAuth,
    Disabled,
}

impl State {
    fn status(&self) -> ServerStatus {
        match self {
            State::Pending { attempt } => ServerStatus::Pending { attempt: *attempt },
            State::Connected { connection, counts } => {
                ServerStatus::Connected(Box::new(ConnectedInfo {
                    counts: *counts,
                    listening: connection.listening(),
                    ..connection.info().clone()
                }))
            }
            State::Failed { error } => ServerStatus::Failed {
                error: error.clone(),
            },
            State::NeedsAuth => ServerStatus::NeedsAuth,
            State::Disabled => ServerStatus::Disabled,
        }
    }
}

struct Slot {
    state: State,
    stderr: StderrLog,
    /// Every message of its sessions, when the supervisor keeps protocol logs.
    protocol: ProtocolLog,
    /// The content hash of the configuration it was started with.
    hash: Option<String>,
    /// Which start of the server is the current one: every start and every stop counts one
    /// more, and only the current start may set the state. A restart asked for while an
    /// earlier start is still connecting (a login finished during a store change) must not
    /// see that earlier start's late "needs a login" overwrite its own "connected".
    start: u64,
}

impl Slot {
    fn new() -> Slot {
        Slot {
            state: State::Disabled,
            stderr: StderrLog::default(),
            protocol: ProtocolLog::default(),
            hash: None,
            start: 0,
        }
    }
}

/// What [`Supervisor::reconcile`] did, by server name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reconciled {
    pub started: Vec<String>,
    pub stopped: Vec<String>,
    pub restarted: Vec<String>,
}

/// Owns every server's state machine for one project.
pub struct Supervisor {
    project: PathBuf,
    settings: Settings,
    slots: Mutex<BTreeMap<String, Slot>>,
    events: broadcast::Sender<StatusEvent>,
    lists: broadcast::Sender<ListChanged>,
    answerer: Mutex<Arc<dyn Answerer>>,
    /// Where OAuth tokens are kept; `None`: remote servers get no token.
    secrets: Mutex<Option<Arc<dyn SecretStore>>>,
    /// Claude Code's credential store and the person's choice of store per server; `None`:
    /// every login is in `secrets`.
    login_stores: Mutex<Option<mcp_manager_oauth::claude_store::LoginStores>>,
    /// Claude Code's needs-auth cache; `None`: every start asks every server.
    needs_auth: Mutex<Option<NeedsAuthCache>>,
    /// The protocol era found for each entry, by content hash; `None`: every start probes.
    eras: Mutex<Option<crate::era::EraCache>>,
    /// The servers whose answer to `server/discover` asked beside their session is awaited.
    settling: tokio::sync::watch::Sender<std::collections::BTreeSet<String>>,
    /// What every session answers to `roots/list`: the project folder unless set.
    roots: Roots,
    /// Cancelled by [`Supervisor::shutdown`]: starts under way are dropped, none begin.
    closing: tokio_util::sync::CancellationToken,
    /// Whether sessions record their messages (the app does; `mcpctl` does not).
    keep_protocol: std::sync::atomic::AtomicBool,
    /// Per server, the secret values of its expanded entry (its plugin's secrets, secret query
    /// values, secret-named environment, headers and arguments), concealed in failures.
    concealed: Mutex<std::collections::HashMap<String, Vec<String>>>,
    /// Where approvals are kept: the first start of a project server approved elsewhere
    /// records its hash there. `None`: nothing is recorded.
    approvals: Mutex<Option<mcp_manager_core::Locations>>,
}

impl Supervisor {
    pub fn new(project: PathBuf, settings: Settings) -> Arc<Supervisor> {
        let (events, _) = broadcast::channel(4096);
        let (lists, _) = broadcast::channel(1024);
        Arc::new(Supervisor {
            roots: Roots::of(std::slice::from_ref(&project)),
            project,
            settings,
            slots: Mutex::new(BTreeMap::new()),
            concealed: Mutex::default(),
            events,
            lists,
            answerer: Mutex::new(Arc::new(Decline)),
            secrets: Mutex::new(None),
            login_stores: Mutex::new(None),
            needs_auth: Mutex::new(None),
            eras: Mutex::new(None),
            settling: tokio::sync::watch::Sender::new(Default::default()),
            closing: tokio_util::sync::CancellationToken::new(),
            keep_protocol: std::sync::atomic::AtomicBool::new(false),
            approvals: Mutex::new(None),
        })
    }

    /// Records, at the first start of each project server approved elsewhere (by Claude
    /// Code), the hash of its entry beside the approvals made here, so that a later change of
    /// the entry is caught (see [`mcp_manager_core::config::approval::record_first_starts`]).
    pub fn set_approvals(&self, locations: mcp_manager_core::Locations) {
        *self.approvals.lock().expect("approvals lock") = Some(locations);
    }

    fn record_first_starts(&self, entries: &[CatalogEntry]) {
        let Some(locations) = self.approvals.lock().expect("approvals lock").clone() else {
            return;
        };
        let approved = entries
            .iter()
            .filter(|e| e.approval == Some(mcp_manager_core::config::approval::Approval::Approved))
            .map(|e| (e.name.as_str(), e.hash.as_str()));
        // Not recorded (an unwritable data folder): the server still starts, as one approved
        // before this record existed did; the next start tries again.
        let _ = mcp_manager_core::config::approval::record_first_starts(&locations, approved);
    }

    /// Uses Claude Code's needs-auth cache: a remote server that asked for authorization in
    /// the last 15 minutes is not asked again at start-up (a restart still asks).
    pub fn set_needs_auth_cache(&self, cache: NeedsAuthCache) {
        *self.needs_auth.lock().expect("needs-auth lock") = Some(cache);
    }

    fn needs_auth_cache(&self) -> Option<NeedsAuthCache> {
        self.needs_auth.lock().expect("needs-auth lock").clone()
    }

    /// Remembers the protocol era found for each entry in `cache`, and opens an entry in its
    /// remembered era without probing (see [`crate::era`]).
    pub fn set_era_cache(&self, cache: crate::era::EraCache) {
        *self.eras.lock().expect("eras lock") = Some(cache);
    }

    /// The limits for opening `entry`, with the era remembered for it.
    fn limits_for(&self, entry: &CatalogEntry) -> (crate::Limits, Option<crate::era::Verdict>) {
        let (remembered, kept) = {
            let eras = self.eras.lock().expect("eras lock");
            let remembered = eras
                .as_ref()
                .and_then(|cache| cache.get(&entry.config.program_hash()));
            (remembered, eras.is_some())
        };
        let limits = crate::Limits {
            remembered: remembered.as_ref().map(|v| v.era),
            ask_beside: self.settings.ask_era_beside && kept && remembered.is_none(),
            ..self.limits()
        };
        (limits, remembered)
    }

    /// Keeps the era `connection` was opened in for `entry`; says what was remembered. Returns
    /// the answer still to come of `server/discover` asked beside it ([`Self::settle_era`]).
    fn note_era(
        &self,
        entry: &CatalogEntry,
        connection: &mut Connection,
        remembered: Option<&crate::era::Verdict>,
    ) -> Option<tokio::sync::oneshot::Receiver<crate::era::Verdict>> {
        let cache = self.eras.lock().expect("eras lock").clone()?;
        let info = connection.info().clone();
        match remembered {
            Some(verdict)
                if verdict.era == info.era && info.era_evidence.starts_with("remembered") =>
            {
                connection.set_era_evidence(format!("remembered: {}", verdict.evidence));
            }
            _ if info.era_evidence.starts_with("set in the entry") => {}
            _ => {
                // `initialize` answered: what `server/discover` asked beside says is remembered,
                // once it is said (nothing is, when it was not asked).
                if let Some(late) = connection.take_late_verdict() {
                    return Some(late);
                }
                if connection.era_settled() {
                    cache.put(
                        &entry.config.program_hash(),
                        &crate::era::Verdict {
                            era: info.era,
                            evidence: info.era_evidence.clone(),
                        },
                    );
                }
            }
        }
        None
    }

    /// The servers whose era is still being found out beside their first session (see
    /// [`Self::settle_era`]).
    pub fn finding_eras(&self) -> Vec<String> {
        self.settling.borrow().iter().cloned().collect()
    }

    /// Returns once every era being found out beside a first session is found, remembered, and
    /// (for a server that speaks 2026-07-28 too) its session in that era has taken the place of
    /// the first.
    pub async fn eras_found(&self) {
        let _ = self
            .settling
            .subscribe()
            .wait_for(|names| names.is_empty())
            .await;
    }

    /// Remembers what `server/discover` asked beside `connection` (opened with `initialize`)
    /// answered. A server that speaks 2026-07-28 too then gets a session in that era, opened
    /// beside the first, which takes its place in one transition; the first ends once no call
    /// runs on it. Should the new session not open (a server that cannot run twice at once),
    /// the first stays.
    async fn settle_era(
        self: Arc<Self>,
        entry: CatalogEntry,
        connection: Arc<Connection>,
        late: tokio::sync::oneshot::Receiver<crate::era::Verdict>,
    ) {
        let verdict = tokio::select! {
            verdict = late => verdict,
            _ = self.closing.cancelled() => return,
        };
        let Ok(verdict) = verdict else { return };
        let Some(cache) = self.eras.lock().expect("eras lock").clone() else {
            return;
        };
        cache.put(&entry.config.program_hash(), &verdict);
        if verdict.era != crate::era::Era::Modern
            || connection.info().era == crate::era::Era::Modern
            || !self.is_current(&entry.name, &connection)
        {
            return;
        }
        let Ok(config) = self.resolve(&entry).await else {
            return;
        };
        let logs = self.logs(&entry.name);
        let stderr = logs.stderr.clone();
        stderr.note(SWITCHED);
        let (limits, _) = self.limits_for(&entry);
        let opened = Connection::open_authorized(
            &entry.name,
            &config,
            &self.project,
            limits,
            logs,
            self.answerer(),
            self.roots.clone(),
            None,
        )
        .await;
        let mut fresh = match opened {
            Ok(fresh) => fresh,
            Err(error) => {
                return stderr.note(&format!(
                    "── MCP Manager: the session in 2026-07-28 did not open ({error}); the first one stays ──"
                ))
            }
        };
        if fresh.info().era != crate::era::Era::Modern
            || !self.is_current(&entry.name, &connection)
            || self.closing.is_cancelled()
        {
            return fresh.shutdown().await;
        }
        fresh.set_era_evidence(format!(
            "{}; this session took the place of the one opened with initialize",
            verdict.evidence
        ));
        let counts = fresh.counts().await;
        let fresh = Arc::new(fresh);
        if !self.is_current(&entry.name, &connection) {
            return fresh.shutdown().await;
        }
        self.go_live(&entry.name, &fresh, counts, None);
        let this = Arc::clone(&self);
        tokio::spawn(async move { this.watch(entry, fresh).await });
        while !connection.idle() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        connection.shutdown().await;
    }

    /// Where OAuth tokens are kept (the OS keychain in the app and `mcpctl`); applies to
    /// sessions opened from now on.
    pub fn set_secrets(&self, secrets: Arc<dyn SecretStore>) {
        *self.secrets.lock().expect("secrets lock") = Some(secrets);
    }

    /// The folders servers may work in (`roots/list`; the project folder until set). Every
    /// live session is told with `notifications/roots/list_changed`, and asks again.
    pub async fn set_roots(&self, folders: &[PathBuf]) {
        self.roots.set(folders);
        let live: Vec<Arc<Connection>> = self
            .slots
            .lock()
            .expect("supervisor lock")
            .values()
            .filter_map(|slot| match &slot.state {
                State::Connected { connection, .. } => Some(Arc::clone(connection)),
                _ => None,
            })
            .collect();
        futures::future::join_all(live.iter().map(|c| c.roots_changed())).await;
    }

    /// The folders servers are told about, as `file://` URIs.
    pub fn roots(&self) -> Vec<String> {
        self.roots.uris()
    }

    /// The OAuth target of a remote entry, when tokens are kept somewhere.
    fn auth_target(
        &self,
        entry: &CatalogEntry,
        config: &ServerConfig,
    ) -> Option<mcp_manager_oauth::Target> {
        let secrets = self.secrets.lock().expect("secrets lock").clone()?;
        let Transport::Remote { url, .. } = &config.transport else {
            return None;
        };
        let target = mcp_manager_oauth::Target::of(&entry.name, &entry.config, url, secrets)?
            .from_entry(entry.scope, &entry.path);
        Some(
            match self
                .login_stores
                .lock()
                .expect("login stores lock")
                .as_ref()
            {
                Some(stores) => {
                    let store = stores.store_of(&entry.name, &entry.config, config);
                    target.kept_in(stores, store, &entry.name, &entry.config, config)
                }
                None => target,
            },
        )
    }

    /// Whether this entry's login is one MCP Manager keeps in its keychain and holds now. The
    /// needs-auth cache is Claude Code's: it says Claude Code was asked for a login it did not
    /// have, which says nothing of a login only MCP Manager holds (a Claude Code session that
    /// lists the entry marks it at every start).
    async fn holds_own_login(&self, entry: &CatalogEntry) -> bool {
        match self.auth_target(entry, &entry.config) {
            Some(target)
                if target.store == mcp_manager_oauth::claude_store::LoginStore::Keychain =>
            {
                target.secrets.has_tokens().await.unwrap_or(false)
            }
            _ => false,
        }
    }

    /// Lets logins live in Claude Code's store where the person chose so, or where Claude
    /// Code already logged in.
    pub fn set_login_stores(&self, stores: mcp_manager_oauth::claude_store::LoginStores) {
        *self.login_stores.lock().expect("login stores lock") = Some(stores);
    }

    /// Who answers the servers' elicitation and sampling requests (default: [`Decline`]);
    /// applies to sessions opened from now on.
    pub fn set_answerer(&self, answerer: Arc<dyn Answerer>) {
        *self.answerer.lock().expect("answerer lock") = answerer;
    }

    fn limits(&self) -> crate::Limits {
        crate::Limits {
            connect: self.settings.connect_timeout,
            http_post: self.settings.http_post_timeout,
            ask_beside: false,
            remembered: None,
        }
    }

    fn answerer(&self) -> Arc<dyn Answerer> {
        Arc::clone(&self.answerer.lock().expect("answerer lock"))
    }

    /// Every list change (after the list was fetched again) from now on.
    pub fn subscribe_lists(&self) -> broadcast::Receiver<ListChanged> {
        self.lists.subscribe()
    }

    /// Refetches the list a server says changed, and announces it.
    fn follow_list_changes(self: &Arc<Self>, server: &str, connection: &Arc<Connection>) {
        let Some(mut changes) = connection.take_list_changes() else {
            return;
        };
        let (this, server, connection) =
            (Arc::clone(self), server.to_string(), Arc::clone(connection));
        tokio::spawn(async move {
            while let Some(first) = changes.recv().await {
                // Notices already waiting are answered by the same fetch: a server that says
                // five times at once that its tools changed is asked for them once, not five
                // times. A notice that comes while the fetch runs is waiting for the next.
                let mut lists = vec![first];
                while let Ok(list) = changes.try_recv() {
                    if !lists.contains(&list) {
                        lists.push(list);
                    }
                }
                for list in lists {
                    if !this.is_current(&server, &connection) {
                        return;
                    }
                    if let Ok(count) = connection.refetch(list).await {
                        this.recount(&server, &connection, list, count);
                        let _ = this.lists.send(ListChanged {
                            server: server.clone(),
                            list,
                            count,
                        });
                    }
                }
            }
        });
    }

    /// Announces each change of a 2026-07-28 session's `subscriptions/listen` as the same
    /// connected state with the new [`ConnectedInfo::listening`], while it is the live one.
    fn follow_listening(self: &Arc<Self>, server: &str, connection: &Arc<Connection>) {
        let Some(mut changes) = connection.listen_changes() else {
            return;
        };
        let (this, server, connection) =
            (Arc::clone(self), server.to_string(), Arc::clone(connection));
        tokio::spawn(async move {
            while changes.changed().await.is_ok() {
                let counts = match this
                    .slots
                    .lock()
                    .expect("supervisor lock")
                    .get(&server)
                    .map(|s| &s.state)
                {
                    Some(State::Connected {
                        connection: live,
                        counts,
                    }) if Arc::ptr_eq(live, &connection) => *counts,
                    _ => return,
                };
                let connection = Arc::clone(&connection);
                this.transition(&server, State::Connected { connection, counts });
            }
        });
    }

    /// A connected server's list has a new size: the same state with new counts, announced
    /// (nothing when the size is unchanged).
    fn recount(&self, server: &str, connection: &Arc<Connection>, list: ListKind, count: usize) {
        let counts = match self
            .slots
            .lock()
            .expect("supervisor lock")
            .get(server)
            .map(|s| &s.state)
        {
            Some(State::Connected {
                connection: live,
                counts,
            }) if Arc::ptr_eq(live, connection) => {
                let recounted = counts.with(list, count);
                // A list that changed but kept its size is no new state.
                if recounted == *counts {
                    return;
                }
                recounted
            }
            _ => return,
        };
        self.transition(
            server,
            State::Connected {
                connection: Arc::clone(connection),
                counts,
            },
        );
    }

    /// Every status change from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<StatusEvent> {
        self.events.subscribe()
    }

    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The one place a state changes: store it, emit one event. A failure's words never
    /// carry a secret value of the server's expanded entry (`?api_key=${KEY}`, a plugin's
    /// `${user_config.KEY}`, an `Authorization` header…), whoever quoted it.
    fn transition(&self, server: &str, state: State) {
        self.transition_if(server, None, state);
    }

    /// [`Self::transition_if`] for the start `start`: ignored once another start or a stop
    /// took its place.
    fn set(&self, server: &str, start: u64, state: State) -> bool {
        self.transition_if(server, Some(start), state)
    }

    /// [`Self::set`], when whether it applied does not matter.
    fn settle(&self, server: &str, start: u64, state: State) {
        self.set(server, start, state);
    }

    /// Counts one more start (or stop) of `server` and returns it: from now on, only that
    /// start changes the server's state.
    fn next_start(&self, server: &str) -> u64 {
        let mut slots = self.slots.lock().expect("supervisor lock");
        let slot = slots.entry(server.to_string()).or_insert_with(Slot::new);
        slot.start += 1;
        slot.start
    }

    /// [`Self::transition`], when `start` (if given) is still the server's current start;
    /// whether it was.
    fn transition_if(&self, server: &str, start: Option<u64>, state: State) -> bool {
        let state = match state {
            State::Failed { error } => State::Failed {
                error: mcp_manager_core::secrets::conceal_values(
                    &error,
                    &self
                        .concealed
                        .lock()
                        .expect("concealed lock")
                        .get(server)
                        .cloned()
                        .unwrap_or_default(),
                ),
            },
            other => other,
        };
        let status = state.status();
        let mut slots = self.slots.lock().expect("supervisor lock");
        let slot = slots.entry(server.to_string()).or_insert_with(Slot::new);
        if start.is_some_and(|start| start != slot.start) {
            return false;
        }
        slot.state = state;
        let _ = self.events.send(StatusEvent {
            server: server.to_string(),
            status,
        });
        true
    }

    /// Where a server's sessions keep their stderr and, when wanted, their messages.
    fn logs(&self, server: &str) -> ServerLogs {
        let keep = self
            .keep_protocol
            .load(std::sync::atomic::Ordering::Relaxed);
        let mut slots = self.slots.lock().expect("supervisor lock");
        let slot = slots.entry(server.to_string()).or_insert_with(Slot::new);
        ServerLogs {
            stderr: slot.stderr.clone(),
            protocol: keep.then(|| slot.protocol.clone()),
        }
    }

    /// Keeps every server's JSON-RPC messages (the window's protocol log) from now on.
    pub fn keep_protocol_logs(&self) {
        self.keep_protocol
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// A server's protocol log (empty unless [`Self::keep_protocol_logs`]).
    pub fn protocol_log(&self, server: &str) -> Option<ProtocolLog> {
        self.slots
            .lock()
            .expect("supervisor lock")
            .get(server)
            .map(|s| s.protocol.clone())
    }

    /// Connects every server the catalog says should run, and marks the others disabled.
    /// Returns when every one of them has settled (connected, failed or needing auth).
    pub async fn start(self: &Arc<Self>, catalog: &Catalog) {
        self.start_selected(catalog, None).await
    }

    /// [`Self::start`] limited to the named servers (all when `only` is `None`).
    pub async fn start_selected(self: &Arc<Self>, catalog: &Catalog, only: Option<&[String]>) {
        let entries: Vec<&CatalogEntry> = catalog
            .entries
            .iter()
            .filter(|e| e.shadowed_by.is_none())
            .filter(|e| only.is_none_or(|names| names.contains(&e.name)))
            .collect();
        let mut startable = Vec::new();
        for entry in entries {
            if entry.will_start() {
                startable.push(entry.clone());
            } else {
                // Counted as a stop: a start still under way does not bring it back.
                let start = self.next_start(&entry.name);
                self.set(&entry.name, start, State::Disabled);
            }
        }
        self.connect_all(startable, false).await;
    }

    /// Announces each entry as pending, then connects them in the two pools. `ask_again`: the
    /// person asked, so the needs-auth cache is not consulted.
    async fn connect_all(self: &Arc<Self>, entries: Vec<CatalogEntry>, ask_again: bool) {
        self.record_first_starts(&entries);
        let mut starts = Vec::with_capacity(entries.len());
        for entry in &entries {
            let start = self.next_start(&entry.name);
            starts.push(start);
            self.transition_if(&entry.name, Some(start), State::Pending { attempt: 1 });
            if let Some(slot) = self
                .slots
                .lock()
                .expect("supervisor lock")
                .get_mut(&entry.name)
            {
                slot.hash = Some(entry.hash.clone());
            }
        }
        let local = Arc::new(Semaphore::new(self.settings.local_batch));
        let remote = Arc::new(Semaphore::new(self.settings.remote_batch));
        let mut tasks = tokio::task::JoinSet::new();
        for (entry, start) in entries.into_iter().zip(starts) {
            let pool = if entry.config.kind() == TransportKind::Stdio {
                &local
            } else {
                &remote
            };
            let permit_pool = Arc::clone(pool);
            let this = Arc::clone(self);
            tasks.spawn(async move {
                let _permit = permit_pool
                    .acquire_owned()
                    .await
                    .expect("the pool is never closed");
                this.connect(entry, ask_again, start).await;
            });
        }
        while tasks.join_next().await.is_some() {}
    }

    /// Brings what runs in line with a new catalog, as after a config-changed event: stops
    /// servers that were removed, disabled or unapproved, starts new ones, and restarts only
    /// those whose content hash changed. Everything else keeps its session.
    pub async fn reconcile(self: &Arc<Self>, catalog: &Catalog) -> Reconciled {
        let wanted: BTreeMap<String, &CatalogEntry> = catalog
            .entries
            .iter()
            .filter(|e| e.shadowed_by.is_none())
            .map(|e| (e.name.clone(), e))
            .collect();
        let mut outcome = Reconciled::default();
        let current: Vec<(String, bool, Option<String>)> = self
            .slots
            .lock()
            .expect("supervisor lock")
            .iter()
            .map(|(name, slot)| {
                (
                    name.clone(),
                    !matches!(slot.state, State::Disabled),
                    slot.hash.clone(),
                )
            })
            .collect();
        let mut to_start = Vec::new();
        for (name, active, hash) in &current {
            match wanted.get(name) {
                None => {
                    self.stop(name).await;
                    self.slots.lock().expect("supervisor lock").remove(name);
                    outcome.stopped.push(name.clone());
                }
                Some(entry) if !entry.will_start() => {
                    if *active {
                        self.stop(name).await;
                        outcome.stopped.push(name.clone());
                    }
                }
                Some(entry) if !*active => {
                    to_start.push((*entry).clone());
                    outcome.started.push(name.clone());
                }
                Some(entry) if hash.as_deref() != Some(entry.hash.as_str()) => {
                    self.stop(name).await;
                    to_start.push((*entry).clone());
                    outcome.restarted.push(name.clone());
                }
                Some(_) => {}
            }
        }
        for (name, entry) in &wanted {
            if current.iter().all(|(n, _, _)| n != name) {
                if entry.will_start() {
                    to_start.push((*entry).clone());
                    outcome.started.push(name.clone());
                } else {
                    self.transition(name, State::Disabled);
                }
            }
        }
        self.connect_all(to_start, false).await;
        outcome
    }

    /// Starts one server again, when the person asks (a failed local server is never
    /// restarted on its own).
    pub async fn restart(self: &Arc<Self>, catalog: &Catalog, server: &str) -> bool {
        let Some(entry) = catalog
            .effective(server)
            .filter(|e| e.will_start())
            .cloned()
        else {
            return false;
        };
        self.stop(server).await;
        self.connect_all(vec![entry], true).await;
        true
    }

    /// Ends one server's session, if it has one, and marks it disabled.
    async fn stop(&self, server: &str) {
        let connection = match &self
            .slots
            .lock()
            .expect("supervisor lock")
            .get(server)
            .map(|s| &s.state)
        {
            Some(State::Connected { connection, .. }) => Some(Arc::clone(connection)),
            _ => None,
        };
        // A start still connecting is no longer wanted.
        let start = self.next_start(server);
        self.transition_if(server, Some(start), State::Disabled);
        if let Some(connection) = connection {
            connection.shutdown().await;
        }
    }

    /// The expanded config, with `headersHelper`'s headers over the static ones.
    async fn resolve(&self, entry: &CatalogEntry) -> Result<ServerConfig, String> {
        let (mut config, _missing) = entry.expanded();
        self.concealed
            .lock()
            .expect("concealed lock")
            .insert(entry.name.clone(), entry.secret_values());
        if let (Some(helper), Transport::Remote { url, headers, .. }) =
            (&entry.config.headers_helper, &mut config.transport)
        {
            let from_project = entry.from_project();
            if from_project && !entry.trusted_folder {
                return Err("its headersHelper was not run: it comes with the project, and this folder is not trusted; trust the folder first (mcpctl trust)".into());
            }
            let extra = crate::headers::run_helper(
                helper,
                &entry.name,
                url,
                &self.project,
                crate::headers::HELPER_TIMEOUT,
                if from_project {
                    crate::headers::Environment::Scrubbed
                } else {
                    crate::headers::Environment::Inherited
                },
            )
            .await?;
            for (name, value) in extra {
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
                headers.push((name, value));
            }
            // The helper's own secret headers (a fresh token) are concealed as well.
            let mut secrets = entry.secret_values();
            secrets.extend(mcp_manager_core::secrets::config_secret_values(
                &config,
                &[],
            ));
            self.concealed
                .lock()
                .expect("concealed lock")
                .insert(entry.name.clone(), secrets);
        }
        Ok(config)
    }

    async fn connect(self: &Arc<Self>, entry: CatalogEntry, ask_again: bool, start: u64) {
        if self.closing.is_cancelled() {
            return self.settle(&entry.name, start, State::Disabled);
        }
        let remote = entry.config.kind() != TransportKind::Stdio;
        let cache = self.needs_auth_cache().filter(|_| remote);
        if let Some(cache) = &cache {
            if !ask_again && cache.is_fresh(&entry.name) && !self.holds_own_login(&entry).await {
                return self.settle(&entry.name, start, State::NeedsAuth);
            }
        }
        let config = match self.resolve(&entry).await {
            Ok(config) => config,
            Err(error) => return self.settle(&entry.name, start, State::Failed { error }),
        };
        let logs = self.logs(&entry.name);
        let auth = self.auth_target(&entry, &config);
        let (limits, remembered) = self.limits_for(&entry);
        let open = || {
            Connection::open_authorized(
                &entry.name,
                &config,
                &self.project,
                limits,
                logs.clone(),
                self.answerer(),
                self.roots.clone(),
                auth.as_ref(),
            )
        };
        let opening = async {
            let mut opened = open().await;
            // A server authorized without a person gets its token now, and one more try.
            if let (Err(ConnectError::NeedsAuth { .. }), Some(target)) = (&opened, &auth) {
                if mcp_manager_oauth::machine::is_machine(target) {
                    opened = match mcp_manager_oauth::machine::obtain(
                        target,
                        &mcp_manager_oauth::journal(target)
                            .begin(mcp_manager_oauth::TraceKind::Connect),
                    )
                    .await
                    {
                        Ok(_) => open().await,
                        Err(err) => Err(ConnectError::Auth(err.to_string())),
                    };
                }
            }
            let mut late = None;
            if let Ok(connection) = &mut opened {
                late = self.note_era(&entry, connection, remembered.as_ref());
            }
            let counts = match &opened {
                Ok(connection) => connection.counts().await,
                Err(_) => ListCounts::default(),
            };
            opened.map(|connection| (connection, counts, late))
        };
        // Closing the app drops a start still under way: its process group is killed with it.
        let opened = tokio::select! {
            biased;
            _ = self.closing.cancelled() => return self.settle(&entry.name, start, State::Disabled),
            opened = opening => opened,
        };
        let (connection, counts, late) = match opened {
            Ok((connection, counts, late)) => (Arc::new(connection), counts, late),
            Err(ConnectError::NeedsAuth { .. }) => {
                // Claude Code's needs-auth cache hears only from the current start.
                if self.set(&entry.name, start, State::NeedsAuth) {
                    if let Some(cache) = &cache {
                        cache.mark(&entry.name);
                    }
                }
                return;
            }
            Err(err) => {
                return self.settle(
                    &entry.name,
                    start,
                    State::Failed {
                        error: err.to_string(),
                    },
                )
            }
        };
        if self.closing.is_cancelled() {
            connection.shutdown().await;
            self.set(&entry.name, start, State::Disabled);
            return;
        }
        // A later start or a stop took this one's place while it connected.
        if !self.go_live(&entry.name, &connection, counts, Some(start)) {
            return connection.shutdown().await;
        }
        if let Some(cache) = &cache {
            cache.clear(&entry.name);
        }
        if let Some(late) = late {
            let this = Arc::clone(self);
            let (entry, connection) = (entry.clone(), Arc::clone(&connection));
            self.settling.send_modify(|names| {
                names.insert(entry.name.clone());
            });
            tokio::spawn(async move {
                let name = entry.name.clone();
                Arc::clone(&this).settle_era(entry, connection, late).await;
                this.settling.send_modify(|names| {
                    names.remove(&name);
                });
            });
        }
        let this = Arc::clone(self);
        tokio::spawn(async move { this.watch(entry, connection).await });
    }

    /// Makes `connection` the live session of `server` (one `Connected` transition) and
    /// follows its list changes and listening stream; its end is watched by the caller.
    /// With `start`, only while that start is the current one; whether it went live.
    fn go_live(
        self: &Arc<Self>,
        server: &str,
        connection: &Arc<Connection>,
        counts: ListCounts,
        start: Option<u64>,
    ) -> bool {
        let live = self.transition_if(
            server,
            start,
            State::Connected {
                connection: Arc::clone(connection),
                counts,
            },
        );
        if live {
            self.follow_list_changes(server, connection);
            self.follow_listening(server, connection);
        }
        live
    }

    /// Whether `connection` is still the live session of `server` (not stopped, replaced or
    /// restarted meanwhile).
    fn is_current(&self, server: &str, connection: &Arc<Connection>) -> bool {
        matches!(
            self.slots.lock().expect("supervisor lock").get(server).map(|s| &s.state),
            Some(State::Connected { connection: live, .. }) if Arc::ptr_eq(live, connection)
        )
    }

    /// Follows a session until it ends. A local server that exits becomes failed, with how it
    /// ended, and is restarted only when the person asks. A remote server that is lost is
    /// reconnected with exponential backoff (1 s doubling to 30 s), at most
    /// [`RECONNECT_ATTEMPTS`] times, then becomes failed.
    async fn watch(self: Arc<Self>, entry: CatalogEntry, mut connection: Arc<Connection>) {
        loop {
            let ended = connection.ended(self.settings.heartbeat).await;
            if !self.is_current(&entry.name, &connection) {
                return;
            }
            if entry.config.kind() == TransportKind::Stdio {
                let error = format!("exited with {ended}");
                return self.transition(&entry.name, State::Failed { error });
            }
            // Close the old session, so requests still waiting on it fail instead of hanging.
            connection.shutdown().await;
            if connection.needs_auth() {
                if let Some(cache) = self.needs_auth_cache() {
                    cache.mark(&entry.name);
                }
                return self.transition(&entry.name, State::NeedsAuth);
            }
            let mut last_error = ended;
            let mut reconnected = None;
            for attempt in 1..=RECONNECT_ATTEMPTS {
                self.transition(&entry.name, State::Pending { attempt });
                let delay =
                    Duration::from_secs(1 << (attempt - 1).min(5)).min(Duration::from_secs(30));
                tokio::time::sleep(delay).await;
                let still_wanted = matches!(
                    self.slots.lock().expect("supervisor lock").get(&entry.name).map(|s| &s.state),
                    Some(State::Pending { attempt: a }) if *a == attempt
                );
                if !still_wanted {
                    return;
                }
                let config = match self.resolve(&entry).await {
                    Ok(config) => config,
                    Err(error) => {
                        last_error = error;
                        continue;
                    }
                };
                let auth = self.auth_target(&entry, &config);
                let (limits, remembered) = self.limits_for(&entry);
                // Boxed, so that the opening's state (tens of kB) is held only while it runs:
                // inline, every server's watch held its room for as long as the server lived.
                match Box::pin(Connection::open_authorized(
                    &entry.name,
                    &config,
                    &self.project,
                    limits,
                    self.logs(&entry.name),
                    self.answerer(),
                    self.roots.clone(),
                    auth.as_ref(),
                ))
                .await
                {
                    Ok(mut new) => {
                        self.note_era(&entry, &mut new, remembered.as_ref());
                        let counts = new.counts().await;
                        reconnected = Some((Arc::new(new), counts));
                        break;
                    }
                    Err(ConnectError::NeedsAuth { .. }) => {
                        return self.transition(&entry.name, State::NeedsAuth)
                    }
                    Err(err) => last_error = err.to_string(),
                }
            }
            match reconnected {
                Some((new, counts)) => {
                    connection = new;
                    self.go_live(&entry.name, &connection, counts, None);
                }
                None => {
                    let error = format!(
                        "lost, and {RECONNECT_ATTEMPTS} reconnection attempts failed: {last_error}"
                    );
                    return self.transition(&entry.name, State::Failed { error });
                }
            }
        }
    }

    /// Each server's current status, by name.
    pub fn statuses(&self) -> Vec<StatusEvent> {
        self.slots
            .lock()
            .expect("supervisor lock")
            .iter()
            .map(|(server, slot)| StatusEvent {
                server: server.clone(),
                status: slot.state.status(),
            })
            .collect()
    }

    /// The live session of a connected server.
    pub fn connection(&self, server: &str) -> Option<Arc<Connection>> {
        match &self
            .slots
            .lock()
            .expect("supervisor lock")
            .get(server)?
            .state
        {
            State::Connected { connection, .. } => Some(Arc::clone(connection)),
            _ => None,
        }
    }

    /// The stderr tail of a local server (kept after it failed, too).
    pub fn stderr(&self, server: &str) -> Option<StderrLog> {
        self.slots
            .lock()
            .expect("supervisor lock")
            .get(server)
            .map(|s| s.stderr.clone())
    }

    /// Ends every session; local servers get stdin closed, then SIGTERM, then SIGKILL. Each
    /// connected server becomes disabled first, so its exit is not mistaken for a crash.
    /// Starts still under way are abandoned (their process group killed) and none begin
    /// afterwards: the supervisor is done.
    pub async fn shutdown(&self) {
        self.closing.cancel();
        // An abandoned start settles as disabled at its next poll; give them that moment.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        while tokio::time::Instant::now() < deadline
            && self
                .slots
                .lock()
                .expect("supervisor lock")
                .values()
                .any(|slot| matches!(slot.state, State::Pending { .. }))
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let connections: Vec<(String, Arc<Connection>)> = self
            .slots
            .lock()
            .expect("supervisor lock")
            .iter()
            .filter_map(|(name, slot)| match &slot.state {
                State::Connected { connection, .. } => Some((name.clone(), Arc::clone(connection))),
                _ => None,
            })
            .collect();
        for (name, _) in &connections {
            self.transition(name, State::Disabled);
        }
        let mut tasks = tokio::task::JoinSet::new();
        for (_, connection) in connections {
            tasks.spawn(async move { connection.shutdown().await });
        }
        while tasks.join_next().await.is_some() {}
    }
}
