//! The login keeper in the app, and the tray it lives in.
//!
//! The keeper (`mcp_manager_connect::keeper`) looks at every login of the open project's
//! configuration at least once a minute and refreshes each one some minutes before it expires.
//! It runs while the app runs, window shown or not: closing the window can leave it running in
//! the tray (the person is asked once; [`KeeperSettings`]), and the app can start at login with
//! its window hidden (`--background`, an XDG autostart entry). With the window closed the
//! project's servers are shut down as before: the keeper starts no server, it only talks to the
//! authorization servers of entries that may start, and holds a token only for as long as one
//! refresh takes.
//!
//! The tray shows at a glance how many servers are connected, need a login or failed; its menu
//! opens the window, names each login that needs the person (choosing one opens the window on
//! the Logins view and starts that login in the browser), and quits. A login that lapses (its
//! refresh refused for good) is said once: in the tray and as a desktop notification
//! (`org.freedesktop.Notifications` on the session bus).

use std::sync::Mutex;

use mcp_manager_connect::keeper::{self, KeeperSettings, Login};
use mcp_manager_connect::ServerStatus;
use mcp_manager_core::{ApiError, ErrorCode, Locations};
use mcp_manager_oauth::claude_store::LoginStore;
use serde::Serialize;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager};

use crate::{feed, first_list, Context};

/// Broadcast when the logins changed (a refresh, a lapse, a move): the Logins view reads them
/// again.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct LoginsChanged;

/// Broadcast when the window was closed for the first time: the person is asked whether the
/// keeper goes on in the tray ([`answer_close`](crate::commands::answer_close)).
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct CloseAsked;

/// Broadcast when the tray asks for the Logins view (a login that needs the person was chosen).
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct ShowLogins {
    pub server: Option<String>,
}

/// The keeper's settings and what the window shows of them.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct KeeperView {
    /// Closing the window leaves the keeper running (`true`), quits (`false`), or asks
    /// (`None`).
    pub keep_running_when_closed: Option<bool>,
    /// The app starts at login, in the tray.
    pub starts_at_login: bool,
    /// The keeper refreshes logins kept in Claude Code's store too, while no Claude Code runs.
    pub refresh_claude_code_logins: bool,
    /// A tray icon could be shown (the desktop has a tray, and its library is installed).
    pub tray: bool,
    /// The settings' file cannot be read (where it broke): the defaults are shown, and the
    /// file is not written over.
    pub problem: Option<String>,
}

/// What the app's part of the keeper holds.
#[derive(Default)]
pub struct Keeper {
    /// The project whose servers were shut down when the window closed into the tray; opened
    /// again when the window is shown.
    resting: Mutex<Option<Locations>>,
    /// The tray's icon, once made.
    tray: Mutex<Option<tauri::tray::TrayIcon>>,
    /// The logins that need the person, as the tray last showed them.
    needing: Mutex<Vec<String>>,
    /// What the tray's menu shows now: it is made again only when that changes.
    shown: Mutex<Option<(String, Vec<String>)>>,
}

impl Context {
    /// Every login held for the open project's configuration.
    pub async fn logins(&self) -> Vec<Login> {
        keeper::logins(self.project().locations()).await
    }

    /// Refreshes `name`'s login now.
    pub async fn refresh_login(&self, app: &AppHandle, name: &str) -> Result<Login, ApiError> {
        let outcome = keeper::refresh_one(self.project().locations(), name).await;
        feed::send(app, &LoginsChanged);
        outcome
    }

    /// Moves `name`'s login to `store`, and starts the server again with it.
    pub async fn move_login(
        &self,
        app: &AppHandle,
        name: &str,
        store: LoginStore,
    ) -> Result<(), ApiError> {
        let project = self.project();
        keeper::move_login(project.locations(), name, store).await?;
        feed::send(app, &LoginsChanged);
        project.restart(name).await
    }

    pub fn keeper_view(&self, app: &AppHandle) -> KeeperView {
        let locations = self.project().locations().clone();
        let read = KeeperSettings::read(&locations);
        let problem = read.as_ref().err().map(|err| err.message.clone());
        let settings = read.unwrap_or_default();
        KeeperView {
            problem,
            keep_running_when_closed: settings.keep_running_when_closed,
            refresh_claude_code_logins: settings.refresh_claude_code_logins,
            starts_at_login: mcp_manager_core::autostart::enabled(&locations),
            tray: app
                .state::<Keeper>()
                .tray
                .lock()
                .expect("tray lock")
                .is_some(),
        }
    }

    pub fn set_keep_running(&self, keep: Option<bool>) -> Result<(), ApiError> {
        KeeperSettings::change(self.project().locations(), |settings| {
            settings.keep_running_when_closed = keep
        })
    }

    pub fn set_refresh_claude_code(&self, on: bool) -> Result<(), ApiError> {
        KeeperSettings::change(self.project().locations(), |settings| {
            settings.refresh_claude_code_logins = on
        })
    }

    pub fn set_start_at_login(&self, on: bool) -> Result<(), ApiError> {
        set_autostart(self.project().locations(), on)
    }
}

/// Switches starting at login on or off, for this very program.
pub fn set_autostart(locations: &Locations, on: bool) -> Result<(), ApiError> {
    let program = std::env::current_exe().map_err(|err| ApiError {
        code: ErrorCode::ConfigUnwritable,
        message: format!(
            "this program's own path is not known ({err}), so no autostart entry was written"
        ),
    })?;
    mcp_manager_core::autostart::set(locations, on, &program).map_err(|err| ApiError {
        code: ErrorCode::ConfigUnwritable,
        message: err.to_string(),
    })
}

/// The answer to the first close: `keep` the keeper running in the tray (the window hides and
/// the servers stop) or quit; `remember` it for every later close.
pub async fn answer_close(app: &AppHandle, keep: bool, remember: bool) -> Result<(), ApiError> {
    let context = app.state::<Context>();
    if remember {
        context.set_keep_running(Some(keep))?;
    }
    if keep {
        hide_to_tray(app).await;
    } else {
        app.exit(0);
    }
    Ok(())
}

/// What closing the main window does: asks the first time, then hides it into the tray or lets
/// it close (and the app leave) as the person chose. Without a tray, closing quits as before.
pub fn on_close(app: &AppHandle, api: &tauri::CloseRequestApi) {
    let has_tray = app
        .state::<Keeper>()
        .tray
        .lock()
        .expect("tray lock")
        .is_some();
    if !has_tray {
        return;
    }
    let locations = app.state::<Context>().project().locations().clone();
    match KeeperSettings::load(&locations).keep_running_when_closed {
        Some(false) => {}
        Some(true) => {
            api.prevent_close();
            let app = app.clone();
            tauri::async_runtime::spawn(async move { hide_to_tray(&app).await });
        }
        None => {
            api.prevent_close();
            feed::send(app, &CloseAsked);
        }
    }
}

/// Hides the window and shuts the project's servers down; the keeper goes on.
pub async fn hide_to_tray(app: &AppHandle) {
    if let Some(window) = app.get_webview_window(first_list::MAIN) {
        let _ = window.hide();
    }
    let project = app.state::<Context>().project();
    *app.state::<Keeper>().resting.lock().expect("resting lock") =
        Some(project.locations().clone());
    project.shutdown().await;
    update_tray(app);
}

/// Shows the window, opening again the project whose servers were shut down when it hid.
pub async fn show_window(app: &AppHandle) {
    let resting = app
        .state::<Keeper>()
        .resting
        .lock()
        .expect("resting lock")
        .take();
    if let Some(locations) = resting {
        if let Err(err) = app.state::<Context>().open_project(app, locations).await {
            eprintln!("mcp-manager: the project could not be opened again: {err}");
        }
    }
    if let Some(window) = app.get_webview_window(first_list::MAIN) {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
    update_tray(app);
}

/// Starts with the window hidden: the project is opened when it is first shown.
pub fn rest(app: &AppHandle, locations: Locations) {
    *app.state::<Keeper>().resting.lock().expect("resting lock") = Some(locations);
}

/// Whether the app rests in the tray with its window closed.
pub fn resting(app: &AppHandle) -> Option<Locations> {
    app.state::<Keeper>()
        .resting
        .lock()
        .expect("resting lock")
        .clone()
}

const OPEN: &str = "open";
const QUIT: &str = "quit";
const LOG_IN: &str = "log-in:";

/// Makes the tray icon. The tray's library (libayatana-appindicator) is loaded at run time;
/// where it is missing, the app goes on without a tray (and closing the window quits).
pub fn make_tray(app: &AppHandle) {
    if std::env::var_os("MCP_MANAGER_NO_TRAY").is_some() || !tray_host() {
        eprintln!("mcp-manager: this desktop shows no tray (no StatusNotifierWatcher on the session bus); closing the window quits");
        return;
    }
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let menu = menu(app, &tray_words(app), &[]).ok()?;
        let mut builder = TrayIconBuilder::with_id("keeper")
            .tooltip("MCP Manager")
            .menu(&menu)
            .show_menu_on_left_click(true)
            .on_menu_event(|app, event| on_menu(app, event.id().as_ref()));
        if let Some(icon) = app.default_window_icon() {
            builder = builder.icon(icon.clone());
        }
        builder.build(app).ok()
    }));
    match built {
        Ok(Some(tray)) => *app.state::<Keeper>().tray.lock().expect("tray lock") = Some(tray),
        _ => eprintln!(
            "mcp-manager: no tray icon could be made (is libayatana-appindicator3-1 installed?); closing the window quits"
        ),
    }
}

fn on_menu(app: &AppHandle, id: &str) {
    let app = app.clone();
    let id = id.to_string();
    tauri::async_runtime::spawn(async move {
        if id == QUIT {
            app.exit(0);
        } else if id == OPEN {
            show_window(&app).await;
        } else if let Some(server) = id.strip_prefix(LOG_IN) {
            show_window(&app).await;
            feed::send(
                &app,
                &ShowLogins {
                    server: Some(server.to_string()),
                },
            );
            let project = app.state::<Context>().project();
            if let Err(err) = project.log_in(server).await {
                eprintln!("mcp-manager: the login of {server} did not complete: {err}");
            }
            feed::send(&app, &LoginsChanged);
        }
    });
}

fn menu(app: &AppHandle, words: &str, needing: &[String]) -> tauri::Result<Menu<tauri::Wry>> {
    let menu = Menu::new(app)?;
    menu.append(&MenuItem::with_id(
        app,
        "state",
        words,
        false,
        None::<&str>,
    )?)?;
    menu.append(&PredefinedMenuItem::separator(app)?)?;
    for server in needing {
        menu.append(&MenuItem::with_id(
            app,
            format!("{LOG_IN}{server}"),
            // `&` marks a mnemonic in a menu's label; `&&` is one `&`.
            format!("Log in again to {}…", server.replace('&', "&&")),
            true,
            None::<&str>,
        )?)?;
    }
    if !needing.is_empty() {
        menu.append(&PredefinedMenuItem::separator(app)?)?;
    }
    menu.append(&MenuItem::with_id(
        app,
        OPEN,
        "Open MCP Manager",
        true,
        None::<&str>,
    )?)?;
    menu.append(&MenuItem::with_id(app, QUIT, "Quit", true, None::<&str>)?)?;
    Ok(menu)
}

/// The tray's line: the servers by state, or, with the window closed, that the keeper runs.
fn tray_words(app: &AppHandle) -> String {
    if resting(app).is_some() {
        return "Window closed: servers stopped, logins kept fresh".into();
    }
    let (mut connected, mut needs_auth, mut failed) = (0, 0, 0);
    for event in app.state::<Context>().project().statuses() {
        match event.status {
            ServerStatus::Connected(_) => connected += 1,
            ServerStatus::NeedsAuth => needs_auth += 1,
            ServerStatus::Failed { .. } => failed += 1,
            _ => {}
        }
    }
    let login = if needs_auth == 1 {
        "needs a login"
    } else {
        "need a login"
    };
    format!("{connected} connected · {needs_auth} {login} · {failed} failed")
}

/// Shows the servers' states and the logins that need the person in the tray.
pub fn update_tray(app: &AppHandle) {
    let keeper = app.state::<Keeper>();
    let tray = keeper.tray.lock().expect("tray lock");
    let Some(tray) = tray.as_ref() else {
        return;
    };
    let words = tray_words(app);
    let needing = keeper.needing.lock().expect("needing lock").clone();
    let now = Some((words.clone(), needing.clone()));
    if *keeper.shown.lock().expect("shown lock") == now {
        return;
    }
    *keeper.shown.lock().expect("shown lock") = now;
    let _ = tray.set_tooltip(Some(format!("MCP Manager: {words}")));
    if let Ok(menu) = menu(app, &words, &needing) {
        let _ = tray.set_menu(Some(menu));
    }
}

/// Runs the keeper for as long as the app runs.
pub fn start(app: AppHandle) {
    tauri::async_runtime::spawn(async move {
        let mut oauth_changes = mcp_manager_oauth::trace::changes();
        loop {
            let locations = resting(&app)
                .unwrap_or_else(|| app.state::<Context>().project().locations().clone());
            let tick = keeper::tick(&locations, &KeeperSettings::load(&locations)).await;
            for (server, why) in &tick.lapsed {
                notify(
                    &format!("{server} needs a new login"),
                    &format!("Its login could not be refreshed: {why}. Open MCP Manager, or choose \"Log in again to {server}\" in the tray."),
                );
            }
            let needing: Vec<String> = keeper::logins(&locations)
                .await
                .into_iter()
                .filter(|login| login.needs_person(keeper::now_ms()))
                .map(|login| login.server)
                .collect();
            let changed = {
                let keeper = app.state::<Keeper>();
                let mut shown = keeper.needing.lock().expect("needing lock");
                let changed = *shown != needing;
                *shown = needing;
                changed
            };
            if changed
                || !tick.refreshed.is_empty()
                || !tick.failed.is_empty()
                || !tick.lapsed.is_empty()
            {
                feed::send(&app, &LoginsChanged);
            }
            update_tray(&app);
            // A login made, or a token refreshed by a connection, is planned for at once.
            tokio::select! {
                _ = tokio::time::sleep(tick.next) => {}
                _ = oauth_changes.recv() => {
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                    while oauth_changes.try_recv().is_ok() {}
                }
            }
        }
    });
}

/// Whether the desktop shows tray icons: a StatusNotifierWatcher (the panel's tray) is on the
/// session bus. Without one an icon would be made and never seen, and a window closed into it
/// could be found again only by starting the app once more.
#[cfg(target_os = "linux")]
fn tray_host() -> bool {
    (|| -> zbus::Result<bool> {
        let bus = zbus::blocking::Connection::session()?;
        let reply = bus.call_method(
            Some("org.freedesktop.DBus"),
            "/org/freedesktop/DBus",
            Some("org.freedesktop.DBus"),
            "NameHasOwner",
            &("org.kde.StatusNotifierWatcher",),
        )?;
        reply.body().deserialize::<bool>()
    })()
    .unwrap_or(false)
}

#[cfg(not(target_os = "linux"))]
fn tray_host() -> bool {
    true
}

/// A desktop notification, on the session bus; said on stderr when none can be shown. The
/// body is plain text: the authorization server's words and an entry's name are data, never
/// markup a notification daemon would render (a link, an image).
fn notify(summary: &str, body: &str) {
    let (summary, body) = (plain_text(summary), plain_text(body));
    tauri::async_runtime::spawn_blocking(move || {
        if let Err(err) = show_notification(&summary, &body) {
            eprintln!("mcp-manager: {summary} (no desktop notification could be shown: {err})");
        }
    });
}

#[cfg(target_os = "linux")]
fn show_notification(summary: &str, body: &str) -> Result<(), String> {
    (|| -> zbus::Result<()> {
        let bus = zbus::blocking::Connection::session()?;
        // A daemon that reads markup in bodies is given none (a daemon that answers nothing
        // is taken to read it).
        let markup = bus
            .call_method(
                Some("org.freedesktop.Notifications"),
                "/org/freedesktop/Notifications",
                Some("org.freedesktop.Notifications"),
                "GetCapabilities",
                &(),
            )
            .and_then(|reply| reply.body().deserialize::<Vec<String>>())
            .map_or(true, |caps| caps.iter().any(|c| c == "body-markup"));
        let body = if markup {
            markup_escaped(body)
        } else {
            body.to_string()
        };
        // Critical: a login that lapsed stays on screen until the person dismisses it.
        let hints: std::collections::HashMap<&str, zbus::zvariant::Value> =
            [("urgency", zbus::zvariant::Value::U8(2))]
                .into_iter()
                .collect();
        bus.call_method(
            Some("org.freedesktop.Notifications"),
            "/org/freedesktop/Notifications",
            Some("org.freedesktop.Notifications"),
            "Notify",
            &(
                "MCP Manager",
                0u32,
                "mcp-manager",
                summary,
                body.as_str(),
                Vec::<&str>::new(),
                hints,
                -1i32,
            ),
        )?;
        Ok(())
    })()
    .map_err(|err| err.to_string())
}

#[cfg(not(target_os = "linux"))]
fn show_notification(_summary: &str, _body: &str) -> Result<(), String> {
    Err("desktop notifications are shown on Linux only".into())
}

/// `text` without control characters (each a space) and format characters (dropped: a
/// right-to-left override would make the words read otherwise than they are), and at most 400
/// characters long.
fn plain_text(text: &str) -> String {
    let visible = mcp_manager_connect::sanitize::strip(text);
    let mut plain: String = visible
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(400)
        .collect();
    if visible.chars().count() > 400 {
        plain.push('…');
    }
    plain
}

/// `text` for a notification body, which a daemon may read as markup (the Desktop
/// Notifications Specification's `body-markup`): `&`, `<` and `>` as entities, so that they
/// show as themselves, and nothing in `text` is a tag.
fn markup_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_body_carries_no_markup_and_no_control_characters() {
        let hostile = "invalid_grant: <a href=\"https://evil.example/\">Sign in</a> <img src=\"x\"/> R&D\nExec=x\u{202e}txt.exe";
        let body = markup_escaped(&plain_text(hostile));
        assert_eq!(
            body,
            "invalid_grant: &lt;a href=\"https://evil.example/\"&gt;Sign in&lt;/a&gt; &lt;img src=\"x\"/&gt; R&amp;D Exec=xtxt.exe"
        );
        assert!(!body.contains('<') && !body.contains('\n'));
        let long = plain_text(&"x".repeat(1000));
        assert_eq!(long.chars().count(), 401);
    }
}
