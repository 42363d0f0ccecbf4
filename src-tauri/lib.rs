//! The Tauri layer: window, one-line commands into the core, the hosted servers, and the
//! typed bindings.
//!
//! Nothing here decides anything. The app owns one [`LiveProject`] at a time (the open
//! project's configuration and the supervisor running its servers): opening a project starts
//! every server that may start, each status change is forwarded to the UI as a typed
//! `server-status-changed` event, a change on disk is announced (`config-changed`) and
//! reconciled, and opening another project, or leaving the app (closing the window, SIGTERM,
//! SIGINT), shuts every server down first. Each command forwards to `mcp_manager_core::api`
//! or to the [`LiveProject`], so the same behaviour is reachable from `mcpctl` and from tests
//! without a window. The command list in [`bindings_builder`] is the single source of the
//! TypeScript bindings in `ui/src/bindings.ts`; the `bindings` test fails when that file has
//! drifted.

mod apps;
mod collections;
mod commands;
mod feed;
mod first_list;
mod keeper;
mod kept_paint;
pub mod launch;
mod navigation;
mod open;
mod registry;
pub mod startup;
mod surfaces;
mod usage;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use mcp_manager_connect::asks::{Asks, Reply};
use mcp_manager_connect::project::{Following, LiveProject};
use mcp_manager_connect::protocol_log::LoggedMessage;
use mcp_manager_connect::{Settings, StatusEvent};
use mcp_manager_core::config::watch::{ConfigChange, ConfigWatcher};
use mcp_manager_core::{ApiError, Locations};
use mcp_manager_history::{History, HistoryError};
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager};

/// Broadcast when configuration files change on disk (by an editor, by Claude Code or by this
/// app): the servers whose connection-relevant content, or whether they start, changed.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct ConfigChanged(pub ConfigChange);

/// Broadcast on every change of a server's status: exactly one per supervisor transition, in
/// order.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct ServerStatusChanged(pub StatusEvent);

/// Broadcast when a remote server's login moved on or an OAuth exchange of it was recorded:
/// the window asks for the server's `oauth_activity` again.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct LoginActivityChanged {
    pub server: String,
}

/// Broadcast when another project was opened: everything shown belongs to the old one.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct ProjectOpened {
    pub project_dir: String,
}

/// Broadcast when a server asked the person something (elicitation, sampling) or such a
/// request was answered or withdrawn: the window asks for `pending_asks` again.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct AsksChanged;

/// The project open now, with what watches it and what its servers ask of the person.
struct Open {
    project: Arc<LiveProject>,
    asks: Asks,
    _watcher: ConfigWatcher,
}

/// What every command may use. Owned by Tauri's state.
pub struct Context {
    open: RwLock<Option<Open>>,
    /// Serializes opening projects: one supervisor at a time.
    opening: tokio::sync::Mutex<()>,
    /// The protocol logs the window follows, by the id it was given.
    followers: Mutex<HashMap<u32, Following>>,
    next_follower: AtomicU32,
    /// The resources the window follows (`resources/subscribe`), by the id it was given.
    subscriptions: Mutex<HashMap<u32, Subscription>>,
    /// The history of calls made by hand, opened once at start (or why it could not be).
    history: std::sync::OnceLock<Result<History, HistoryError>>,
    /// Whether the window has painted its first list of servers: until then servers wait, so
    /// that starting them (20 Node processes, say) does not compete with the first paint.
    painted: tokio::sync::watch::Sender<bool>,
    /// The Apps shown in the window (set up once the data folder is known).
    apps: std::sync::OnceLock<mcp_manager_apps::AppHost>,
    /// The servers whose surface changed while the open project was open, by name.
    surface_changes: Mutex<HashMap<String, mcp_manager_connect::project::surface::SurfaceChange>>,
    /// Each server's last check against its pin, in the open project, by name.
    pin_checks: Mutex<HashMap<String, mcp_manager_connect::project::pins::PinCheck>>,
    /// The index of Claude Code's records (crates/usage), opened at the first request.
    usage: tokio::sync::Mutex<Option<mcp_manager_usage::Index>>,
}

impl Context {
    fn new() -> Context {
        Context {
            open: RwLock::new(None),
            opening: tokio::sync::Mutex::new(()),
            followers: Mutex::new(HashMap::new()),
            next_follower: AtomicU32::new(1),
            subscriptions: Mutex::new(HashMap::new()),
            history: std::sync::OnceLock::new(),
            painted: tokio::sync::watch::channel(false).0,
            apps: std::sync::OnceLock::new(),
            surface_changes: Mutex::new(HashMap::new()),
            pin_checks: Mutex::new(HashMap::new()),
            usage: tokio::sync::Mutex::new(None),
        }
    }

    /// The window painted its first list of servers: servers may start. `marks` are the
    /// window's moments of its start, on its clock, which says `now` (see [`startup`]).
    pub fn window_ready(&self, marks: &[startup::WindowMark], now: f64) {
        if !*self.painted.borrow() {
            self.painted.send_replace(true);
            report("ready");
            startup::report(marks, now);
        }
    }

    /// The project open now.
    pub fn project(&self) -> Arc<LiveProject> {
        let open = self.open.read().expect("project lock");
        Arc::clone(
            &open
                .as_ref()
                .expect("a project is open from start-up on")
                .project,
        )
    }

    /// Opens `locations`' project in place of the current one: the old servers are shut down
    /// first, then the new project's start; the UI is told.
    pub async fn open_project(
        &self,
        app: &AppHandle,
        locations: Locations,
    ) -> Result<(), ApiError> {
        let _turn = self.opening.lock().await;
        // The old project's Apps are asked nothing more.
        if let Some(apps) = self.apps() {
            apps.close_all();
        }
        let project = LiveProject::open(locations, Settings::from_env());
        project.supervisor().keep_protocol_logs();
        let asks = Asks::new();
        project.supervisor().set_answerer(Arc::new(asks.clone()));
        forward_asks(app.clone(), &asks);
        if let Some(history) = self.history.get() {
            project.set_history(history.clone());
        }
        self.surface_changes
            .lock()
            .expect("surface changes lock")
            .clear();
        self.pin_checks.lock().expect("pin checks lock").clear();
        forward_statuses(app.clone(), &project);
        surfaces::keep_surfaces(app.clone(), Arc::clone(&project));
        forward_oauth(app.clone(), &project);
        let watcher = watch_config(app.clone(), Arc::clone(&project)).map_err(ApiError::from)?;
        let old = self.open.write().expect("project lock").replace(Open {
            project: Arc::clone(&project),
            asks,
            _watcher: watcher,
        });
        self.followers.lock().expect("followers lock").clear();
        for (_, old) in self
            .subscriptions
            .lock()
            .expect("subscriptions lock")
            .drain()
        {
            old.forward.abort();
        }
        if let Some(old) = old {
            old.project.shutdown().await;
        }
        let opened = ProjectOpened {
            project_dir: project.locations().project.display().to_string(),
        };
        feed::send(app, &opened);
        launch::remember_project(app, &project.locations().project);
        let mut painted = self.painted.subscribe();
        tauri::async_runtime::spawn(async move {
            // A window that never says so (it failed to load) does not hold the servers back
            // for long.
            let _ = tokio::time::timeout(FIRST_PAINT_WAIT, painted.wait_for(|p| *p)).await;
            project.start().await;
            report("settled");
        });
        Ok(())
    }

    /// What the open project's servers ask of the person now.
    pub fn asks(&self) -> Asks {
        let open = self.open.read().expect("project lock");
        open.as_ref()
            .expect("a project is open from start-up on")
            .asks
            .clone()
    }

    /// Hands the person's reply to a server's waiting request.
    pub fn answer_ask(&self, id: u32, reply: Reply) -> Result<(), ApiError> {
        self.asks().answer(id, reply).map_err(|err| ApiError {
            code: mcp_manager_core::ErrorCode::InvalidRequest,
            message: err.to_string(),
        })
    }

    /// Subscribes to a resource and sends `channel` its URI on each
    /// `notifications/resources/updated` of it, until unfollowed; returns the id to unfollow
    /// with.
    pub async fn follow_resource(
        &self,
        server: &str,
        uri: &str,
        channel: Channel<String>,
    ) -> Result<u32, ApiError> {
        let mut updates = self.project().subscribe_resource(server, uri).await?;
        let wanted = uri.to_string();
        let forward = tauri::async_runtime::spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match updates.recv().await {
                    Ok(updated) if updated == wanted => {
                        if channel.send(updated).is_err() {
                            break;
                        }
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => break,
                }
            }
        });
        let id = self.next_follower.fetch_add(1, Ordering::Relaxed);
        self.subscriptions
            .lock()
            .expect("subscriptions lock")
            .insert(
                id,
                Subscription {
                    server: server.to_string(),
                    uri: uri.to_string(),
                    forward,
                },
            );
        Ok(id)
    }

    /// Stops following a resource and unsubscribes from it; an unknown id is already stopped.
    pub async fn unfollow_resource(&self, id: u32) -> Result<(), ApiError> {
        let removed = self
            .subscriptions
            .lock()
            .expect("subscriptions lock")
            .remove(&id);
        let Some(subscription) = removed else {
            return Ok(());
        };
        subscription.forward.abort();
        self.project()
            .unsubscribe_resource(&subscription.server, &subscription.uri)
            .await
    }

    /// Opens the project in `folder` (as `--project` would).
    pub async fn open_folder(&self, app: &AppHandle, folder: &str) -> Result<(), ApiError> {
        let locations = Locations::from_env(Some(Path::new(folder)))?;
        self.open_project(app, locations).await
    }

    /// Shuts the open project's servers down (leaving the app).
    async fn close(&self) {
        let open = self.open.write().expect("project lock").take();
        if let Some(open) = open {
            open.project.shutdown().await;
        }
    }

    /// Streams a server's new protocol messages to `channel` until unfollowed (or the
    /// window's end of the channel is gone).
    pub fn follow_protocol_log(
        &self,
        server: &str,
        after: u32,
        channel: Channel<Vec<LoggedMessage>>,
    ) -> Result<u32, ApiError> {
        let following = self
            .project()
            .follow_protocol_log(server, after, move |batch| channel.send(batch).is_ok())?;
        let id = self.next_follower.fetch_add(1, Ordering::Relaxed);
        self.followers
            .lock()
            .expect("followers lock")
            .insert(id, following);
        Ok(id)
    }

    /// Calls a tool of the open project, forwarding its progress to `channel` as it comes.
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: &str,
        call_id: u32,
        as_task: bool,
        channel: Channel<mcp_manager_connect::Progress>,
    ) -> Result<mcp_manager_connect::project::ToolCallView, ApiError> {
        let (sink, mut progress) = tokio::sync::mpsc::unbounded_channel();
        let forward = tauri::async_runtime::spawn(async move {
            while let Some(step) = progress.recv().await {
                if channel.send(step).is_err() {
                    break;
                }
            }
        });
        let project = self.project();
        let called = project
            .call_tool_watched(server, tool, arguments, Some(call_id), Some(sink), as_task)
            .await;
        forward.abort();
        called
    }

    /// Stops one follower; an unknown id is already stopped.
    pub fn unfollow_protocol_log(&self, id: u32) {
        self.followers.lock().expect("followers lock").remove(&id);
    }
}

/// A resource the window follows.
struct Subscription {
    server: String,
    uri: String,
    forward: tauri::async_runtime::JoinHandle<()>,
}

/// Where the generated TypeScript goes, relative to the workspace root.
pub const BINDINGS_PATH: &str = "ui/src/bindings.ts";

/// The commands and events the UI can use, for Tauri and for the bindings.
pub fn bindings_builder() -> tauri_specta::Builder<tauri::Wry> {
    // Every type crossing the boundary has one shape both ways (no serde "phases" splitting
    // `T_Serialize` from `T_Deserialize`).
    tauri_specta::Builder::<tauri::Wry>::new()
        .disable_serde_phases()
        .commands(tauri_specta::collect_commands![
            commands::list_servers,
            commands::server_statuses,
            commands::restart_server,
            commands::set_server_enabled,
            commands::set_server_approval,
            commands::folder_trust,
            commands::trust_folder,
            commands::review_server,
            commands::approve_all_project_servers,
            commands::reset_project_choices,
            commands::remove_server,
            commands::server_stderr,
            commands::server_draft,
            commands::check_server_draft,
            commands::save_server_draft,
            commands::protocol_log,
            commands::follow_protocol_log,
            commands::unfollow_protocol_log,
            commands::recent_projects,
            commands::open_project,
            commands::plan_import,
            commands::apply_import,
            commands::export_servers,
            commands::log_in,
            commands::log_out,
            commands::cancel_login,
            commands::set_plugin_enabled,
            commands::set_login_store,
            commands::forget_registration,
            commands::oauth_activity,
            commands::examine_server,
            commands::list_tools,
            commands::client_view,
            commands::project_budget,
            commands::claude_code_usage,
            commands::profiles,
            commands::save_profile,
            commands::delete_profile,
            commands::plan_profile,
            commands::apply_profile,
            commands::undo_profile,
            commands::launch_profile,
            commands::subagents,
            commands::agent_names,
            commands::move_into_agent,
            commands::move_out_of_agent,
            commands::dropped_tools,
            commands::call_tool,
            commands::cancel_call,
            commands::tool_rule,
            commands::list_resources,
            commands::read_resource,
            commands::list_prompts,
            commands::list_skills,
            commands::load_skill,
            commands::disk_skills,
            commands::get_prompt,
            commands::complete_argument,
            commands::set_tool_rule,
            commands::call_history,
            commands::name_call,
            commands::open_login_page,
            commands::open_config_file,
            commands::save_result,
            commands::open_saved_result,
            commands::copy_server,
            commands::store_client_secret,
            commands::window_ready,
            commands::keep_first_paint,
            commands::events_cursor,
            commands::next_events,
            commands::pending_asks,
            commands::answer_ask,
            commands::decline_all_asks,
            commands::open_ask_url,
            commands::follow_resource,
            commands::unfollow_resource,
            commands::save_resource,
            commands::open_saved_resource,
            commands::set_log_level,
            commands::roots,
            commands::set_roots,
            commands::all_tools,
            commands::open_app,
            commands::allow_apps,
            commands::app_call_tool,
            commands::app_read_resource,
            commands::app_list_resources,
            commands::app_open_link,
            commands::close_app,
            commands::registry_setting,
            commands::set_registry,
            commands::registry_cached,
            commands::registry_search,
            commands::registry_refresh,
            commands::registry_versions,
            commands::registry_install_form,
            commands::registry_install_draft,
            commands::registry_keep_headers,
            commands::paste_snippet,
            commands::open_registry_link,
            commands::registry_icon,
            commands::collections,
            commands::add_to_collection,
            commands::add_history_call_to_collection,
            commands::run_collections,
            commands::update_case,
            commands::accept_snapshot,
            commands::remove_case,
            commands::surface_changes,
            commands::pin_checks,
            commands::accept_change,
            commands::pin_now,
            commands::package_preflight,
            commands::set_quarantine,
            commands::quarantine_choice,
            commands::surface_history,
            commands::surface_diff,
            commands::clear_history,
            commands::list_logins,
            commands::refresh_login,
            commands::move_login,
            commands::keeper_settings,
            commands::set_keep_running,
            commands::set_start_at_login,
            commands::set_refresh_claude_code,
            commands::answer_close
        ])
        .events(tauri_specta::collect_events![
            ConfigChanged,
            ServerStatusChanged,
            ProjectOpened,
            LoginActivityChanged,
            AsksChanged,
            surfaces::SurfaceChanged,
            surfaces::PinChecked,
            keeper::LoginsChanged,
            keeper::CloseAsked,
            keeper::ShowLogins
        ])
}

/// The exporter settings used for `ui/src/bindings.ts`.
pub fn typescript() -> specta_typescript::Typescript {
    specta_typescript::Typescript::default()
        .header("// Generated from Rust by the `bindings` test (src-tauri/tests/bindings.rs). Do not edit.\n")
}

/// Opens the main window on `locations`' project, runs its servers, and returns once the app
/// has left and every server has been shut down. Unless `explicit` (given with `--project`),
/// the last project the app had open is opened instead, when there is one. When the app is
/// already running, this hands the arguments to it and exits the process instead.
pub fn run(locations: Locations, explicit: bool, background: bool) {
    startup::mark("run");
    let builder = bindings_builder();
    let mut context: tauri::Context<tauri::Wry> = tauri::generate_context!();
    // The first index.html comes with the first frame the last start kept (kept_paint.rs).
    let kept_paint = kept_paint::KeptPaint::install(&mut context);
    let single_instance =
        tauri_plugin_single_instance::Builder::new().callback(launch::second_launch);
    // A build from a checkout is an app of its own: it neither hands its arguments to an
    // installed MCP Manager that runs nor takes theirs.
    #[cfg(debug_assertions)]
    let single_instance = single_instance.dbus_id("dev.mcp-manager.checkout");
    let app = tauri::Builder::default()
        // First, so that a second launch leaves before anything else is set up.
        .plugin(single_instance.build())
        .plugin(
            tauri_plugin_window_state::Builder::default()
                .with_state_flags(
                    tauri_plugin_window_state::StateFlags::SIZE
                        | tauri_plugin_window_state::StateFlags::POSITION
                        | tauri_plugin_window_state::StateFlags::MAXIMIZED,
                )
                .build(),
        )
        .plugin(tauri_plugin_dialog::init())
        // Used from Rust only (commands::open_login_page, commands::open_config_file): the
        // window is granted none of its commands, so it can open nothing by itself.
        .plugin(tauri_plugin_opener::init())
        .manage(Context::new())
        .manage(kept_paint)
        // Every event for the window, fetched by the page (src-tauri/feed.rs).
        .manage(feed::Feed::default())
        .manage(keeper::Keeper::default())
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::CloseRequested { api, .. } = event {
                if window.label() == first_list::MAIN {
                    keeper::on_close(window.app_handle(), api);
                }
            }
        })
        .invoke_handler(builder.invoke_handler())
        // MCP Apps, each server's on an origin of its own (src-tauri/apps.rs). Only the main
        // window's frames are answered.
        .register_asynchronous_uri_scheme_protocol(
            mcp_manager_apps::SCHEME,
            |context, request, responder| {
                let response = if context.webview_label() == first_list::MAIN {
                    apps::serve(context.app_handle(), &request)
                } else {
                    apps::not_found()
                };
                responder.respond(response)
            },
        )
        .on_page_load(|_, payload| {
            startup::mark(match payload.event() {
                tauri::webview::PageLoadEvent::Started => "page-started",
                tauri::webview::PageLoadEvent::Finished => "page-loaded",
            })
        })
        .setup(move |app| {
            startup::mark("setup");
            // The events are listed in the builder for their types in the bindings only: they
            // reach the window through the feed (feed.rs), not Tauri's events, so none is mounted.
            let handle = app.handle().clone();
            let locations = match launch::last_project(&handle).filter(|_| !explicit) {
                Some(last) => Locations::from_env(Some(&last)).unwrap_or(locations),
                None => locations,
            };
            first_list::open_window(app, &locations, !background)?;
            startup::mark("window");
            // The history first: every project's calls go to it.
            let opened = match app.path().app_data_dir() {
                Ok(folder) => tauri::async_runtime::block_on(History::open(
                    &folder.join(mcp_manager_history::FILE_NAME),
                )),
                Err(err) => Err(HistoryError::Open {
                    path: "the app's data folder".into(),
                    reason: err.to_string(),
                    hint: "set $XDG_DATA_HOME or $HOME".into(),
                }),
            };
            if let Err(err) = &opened {
                eprintln!("mcp-manager: {err}");
            }
            let _ = handle.state::<Context>().history.set(opened);
            let data_dir = app.path().app_data_dir().ok();
            let _ = handle
                .state::<Context>()
                .apps
                .set(mcp_manager_apps::AppHost::new(data_dir.as_deref()));
            startup::mark("history");
            // The project is open from the start on, its servers started only with the window:
            // started in the background (at login), they wait until it is first shown.
            let rest = background.then(|| locations.clone());
            tauri::async_runtime::block_on(async {
                handle
                    .state::<Context>()
                    .open_project(&handle, locations)
                    .await
            })?;
            keeper::make_tray(&handle);
            if let Some(locations) = rest {
                let project = handle.state::<Context>().project();
                tauri::async_runtime::block_on(project.shutdown());
                keeper::rest(&handle, locations);
            }
            keeper::start(handle.clone());
            leave_on_signals(app.handle().clone());
            startup::mark("project");
            Ok(())
        })
        .build(context)
        .expect("the Tauri runtime failed to start");
    startup::mark("built");
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            tauri::async_runtime::block_on(handle.state::<Context>().close());
        }
    });
}

pub use keeper::set_autostart;

/// Set, this variable makes the app say on stderr when its window first showed the servers
/// ("mcp-manager: ready") and when every server has settled ("mcp-manager: settled"), for
/// the window benchmark.
pub const REPORT_READY: &str = "MCP_MANAGER_REPORT_READY";

fn report(what: &str) {
    if std::env::var_os(REPORT_READY).is_some() {
        eprintln!("mcp-manager: {what}");
    }
}

/// How long servers wait for the window's first paint at most.
const FIRST_PAINT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// The benchmark's reference: an empty Tauri window of this same build (no UI, no servers, no
/// watcher). Says "ready" when its blank page has loaded.
pub fn run_empty_window() {
    let mut context: tauri::Context<tauri::Wry> = tauri::generate_context!();
    context.config_mut().app.windows.clear();
    tauri::Builder::default()
        .setup(|app| {
            startup::mark("setup");
            tauri::WebviewWindowBuilder::new(
                app,
                first_list::MAIN,
                // A blank page served as the app's own is (ui/public/empty.html).
                tauri::WebviewUrl::App("empty.html".into()),
            )
            .title("Empty")
            .inner_size(1120.0, 740.0)
            .on_page_load(|_, payload| {
                if payload.event() == tauri::webview::PageLoadEvent::Started {
                    startup::mark("page-started");
                }
                if payload.event() == tauri::webview::PageLoadEvent::Finished {
                    startup::mark("page-loaded");
                    report("ready");
                    startup::report_own();
                }
            })
            .build()?;
            Ok(())
        })
        .run(context)
        .expect("the Tauri runtime failed to start");
}

/// Every supervisor transition becomes one `server-status-changed` event, in order, until the
/// supervisor is gone.
fn forward_statuses(handle: AppHandle, project: &LiveProject) {
    let mut statuses = project.supervisor().subscribe();
    tauri::async_runtime::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match statuses.recv().await {
                Ok(event) => {
                    feed::send(&handle, &ServerStatusChanged(event));
                    keeper::update_tray(&handle);
                }
                // The UI reloads every status on `config-changed`; a lag only delays it.
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            }
        }
    });
}

/// Every change of what the servers ask of the person becomes one `asks-changed` event,
/// until the project's requests are gone.
fn forward_asks(handle: AppHandle, asks: &Asks) {
    let mut changes = asks.changes();
    tauri::async_runtime::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        // A lag only means several changes: one event says them all.
        while let Ok(()) | Err(RecvError::Lagged(_)) = changes.recv().await {
            feed::send(&handle, &AsksChanged);
        }
    });
}

/// Each change of an OAuth journal of one of this project's servers becomes an
/// `login-activity-changed` event per server it belongs to, until the project is closed.
fn forward_oauth(handle: AppHandle, project: &Arc<LiveProject>) {
    let mut changes = mcp_manager_oauth::trace::changes();
    let project = Arc::downgrade(project);
    tauri::async_runtime::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            let key = match changes.recv().await {
                Ok(key) => key,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            };
            let Some(project) = project.upgrade() else {
                break;
            };
            for server in project.servers_with_journal(&key) {
                feed::send(&handle, &(LoginActivityChanged { server }));
            }
        }
    });
}

/// A change on disk is announced to the UI and reconciled: only the servers whose content
/// hash, or whether they start, changed are started, stopped or restarted.
fn watch_config(
    handle: AppHandle,
    project: Arc<LiveProject>,
) -> Result<ConfigWatcher, mcp_manager_core::ConfigError> {
    let watched = project.locations().clone();
    let project = Arc::downgrade(&project);
    ConfigWatcher::start(watched, move |change| {
        // A project that was closed meanwhile has nothing to reconcile.
        let Some(project) = project.upgrade() else {
            return;
        };
        feed::send(&handle, &ConfigChanged(change));
        tauri::async_runtime::spawn(async move {
            project.reconcile().await;
        });
    })
}

/// SIGTERM and SIGINT (Ctrl+C on Windows) leave the app as closing its window does, so the
/// servers are shut down.
fn leave_on_signals(handle: AppHandle) {
    #[cfg(unix)]
    tauri::async_runtime::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        handle.exit(0);
    });
    // Windows has no SIGTERM: Ctrl+C in the console that started it, or Ctrl+Break, is how a
    // terminal asks it to leave.
    #[cfg(windows)]
    tauri::async_runtime::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            handle.exit(0);
        }
    });
}
