//! How the app starts: its arguments, which project it opens, and what a second launch does.
//!
//! One app per user session. A second `mcp-manager` (from the menu, a terminal, a file
//! manager) must not start a second supervisor over the same servers: that would run every
//! stdio server twice and race two logins for one keychain entry. Instead it hands its
//! arguments to the running app over the session bus (tauri-plugin-single-instance) and
//! exits; the running app brings its window forward and opens the project named with
//! `--project`, if any.
//!
//! The app remembers the last project it had open, in its data folder, and opens it again
//! when started without `--project` (from the desktop menu, whose current folder is the home
//! folder and means nothing). `--project` always wins. The window's size and position are
//! remembered by tauri-plugin-window-state.
//!
//! The window paints in software (WebKit's compositing mode off). A list of servers, forms and
//! logs gains nothing from GPU compositing, and under it WebKitGTK's web process loads the
//! GL stack and keeps a texture for every layer: measured with 20 servers connected
//! (`scripts/bench-window`), the web process takes 120 MiB PSS painting in software against
//! 218 MiB composited, for the same page. It also sidesteps the blank windows some GPU drivers
//! give WebKitGTK. `MCP_MANAGER_GPU_COMPOSITING=1` keeps WebKit's default.
//!
//! The page's JavaScript runs in JavaScriptCore's interpreter and baseline JIT, without its
//! optimizing compilers (DFG and FTL). A UI that renders lists and forms on events never runs
//! hot long enough to gain from them, and compiling with them touches megabytes of their code
//! and keeps their output: measured idle with 20 servers connected, the web process took 110.6
//! MiB PSS without them against 117.6 MiB with them (4.4 MiB less of JavaScriptCore's code
//! touched, 2.4 MiB less heap), and the tools benchmark's keystrokes cost the same
//! (`scripts/bench-tools`). `MCP_MANAGER_JS_OPTIMIZING=1`, or JavaScriptCore's own
//! `JSC_useDFGJIT`, keeps its default.

use std::path::{Path, PathBuf};

use clap::Parser;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};

use crate::Context;

/// MCP Manager: configure, log in to and try MCP servers.
#[derive(Parser, Debug)]
#[command(name = "mcp-manager", version)]
pub struct Args {
    /// The project folder to open (default: the last one opened, else the current folder).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// An empty Tauri window from this same build, and nothing else: the reference the
    /// window benchmark (tests/bench/window.mjs) measures the app against.
    #[arg(long, hide = true)]
    pub empty_window: bool,
    /// Start in the tray with the window closed: the login keeper runs, no server does until
    /// the window is opened (what starting at login does).
    #[arg(long)]
    pub background: bool,
    /// Switch starting at login (in the tray) on or off, then exit.
    #[arg(long, value_name = "on|off", value_parser = ["on", "off"])]
    pub autostart: Option<String>,
}

/// Set, WebKit composites on the GPU as it does by default.
pub const GPU_COMPOSITING: &str = "MCP_MANAGER_GPU_COMPOSITING";

/// Turns WebKit's compositing mode off for this process and the web process it starts (not
/// for the servers it starts), unless the person asked for it ([`GPU_COMPOSITING`]) or set
/// WebKit's own variable. Call it first thing in `main`, while the process has one thread
/// (it changes the environment).
pub fn paint_in_software() {
    const WEBKIT: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    if std::env::var_os(GPU_COMPOSITING).is_some_and(|v| v == "1")
        || std::env::var_os(WEBKIT).is_some()
    {
        return;
    }
    std::env::set_var(WEBKIT, "1");
    mcp_manager_connect::connection::keep_from_servers(WEBKIT);
}

/// Set, JavaScriptCore compiles hot code with its optimizing tiers as it does by default.
pub const JS_OPTIMIZING: &str = "MCP_MANAGER_JS_OPTIMIZING";

/// Leaves JavaScriptCore's optimizing compilers (DFG, and FTL with it) off in the web process
/// this process starts (not in the servers it starts), unless the person asked for them
/// ([`JS_OPTIMIZING`]) or set the engine's own option. JavaScriptCore reads its `JSC_`
/// options from the environment, which the web process inherits. Call it first thing in
/// `main`, while the process has one thread.
pub fn js_without_optimizing_tiers() {
    const JSC: &str = "JSC_useDFGJIT";
    if std::env::var_os(JS_OPTIMIZING).is_some_and(|v| v == "1") || std::env::var_os(JSC).is_some()
    {
        return;
    }
    std::env::set_var(JSC, "false");
    mcp_manager_connect::connection::keep_from_servers(JSC);
}

/// The project a second launch asks for: its `--project`, taken relative to the folder it
/// was started in. `None` when it named none (or its arguments do not parse, which the
/// second process itself has already reported).
pub fn project_asked(argv: &[String], cwd: &Path) -> Option<PathBuf> {
    let args = Args::try_parse_from(argv).ok()?;
    args.project.map(|p| cwd.join(p))
}

/// What a second launch does in the running app: the window comes forward; a project named
/// with `--project` replaces the open one, unless it is the open one.
pub fn second_launch(app: &AppHandle, argv: Vec<String>, cwd: String) {
    // Another start at login while the app runs asks for nothing.
    if argv.iter().any(|a| a == "--background") {
        return;
    }
    let shown = app.clone();
    tauri::async_runtime::spawn(async move { crate::keeper::show_window(&shown).await });
    let Some(folder) = project_asked(&argv, Path::new(&cwd)) else {
        return;
    };
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let context = app.state::<Context>();
        let open_now = context.project().locations().project.clone();
        if folder.canonicalize().ok().as_ref() == Some(&open_now) {
            return;
        }
        if let Err(err) = context.open_folder(&app, &folder.to_string_lossy()).await {
            eprintln!(
                "mcp-manager: could not open {} for a second launch: {err}",
                folder.display()
            );
        }
    });
}

/// The app's memory of what it had open, in its data folder.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Remembered {
    last_project: PathBuf,
}

const REMEMBERED_FILE: &str = "last-project.json";

/// The last project the app had open, if it remembers one that is still a folder.
pub fn last_project(app: &AppHandle) -> Option<PathBuf> {
    let file = app.path().app_data_dir().ok()?.join(REMEMBERED_FILE);
    let text =
        mcp_manager_core::files::read_text(&file, mcp_manager_core::files::READ_LIMIT).ok()??;
    let remembered: Remembered = serde_json::from_str(&text).ok()?;
    remembered
        .last_project
        .is_dir()
        .then_some(remembered.last_project)
}

/// Remembers `project` as the last one opened. Failing to is said and otherwise harmless:
/// the next start opens the current folder instead.
pub fn remember_project(app: &AppHandle, project: &Path) {
    let written = app
        .path()
        .app_data_dir()
        .map_err(|err| err.to_string())
        .and_then(|dir| {
            let text = serde_json::to_string_pretty(&Remembered {
                last_project: project.to_path_buf(),
            })
            .map_err(|err| err.to_string())?;
            write_replacing(&dir, REMEMBERED_FILE, &text).map_err(|err| err.to_string())
        });
    if let Err(err) = written {
        eprintln!("mcp-manager: could not remember the last project: {err}");
    }
}

/// Writes `dir/name` whole or not at all (a temporary file renamed over it).
fn write_replacing(dir: &Path, name: &str, text: &str) -> std::io::Result<()> {
    mcp_manager_core::private::dir(dir)?;
    mcp_manager_core::private::write(&dir.join(name), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn a_second_launch_names_its_project_relative_to_where_it_started() {
        let cwd = Path::new("/home/ada/work");
        assert_eq!(
            project_asked(&argv(&["mcp-manager", "--project", "site"]), cwd),
            Some(PathBuf::from("/home/ada/work/site"))
        );
        assert_eq!(
            project_asked(&argv(&["mcp-manager", "--project", "/srv/api"]), cwd),
            Some(PathBuf::from("/srv/api"))
        );
        assert_eq!(project_asked(&argv(&["mcp-manager"]), cwd), None);
        assert_eq!(
            project_asked(&argv(&["mcp-manager", "--no-such-flag"]), cwd),
            None
        );
    }

    #[test]
    fn remembering_replaces_the_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        write_replacing(dir.path(), "last-project.json", "{\"lastProject\":\"/a\"}").unwrap();
        write_replacing(dir.path(), "last-project.json", "{\"lastProject\":\"/b\"}").unwrap();
        let text = std::fs::read_to_string(dir.path().join("last-project.json")).unwrap();
        let remembered: Remembered = serde_json::from_str(&text).unwrap();
        assert_eq!(remembered.last_project, PathBuf::from("/b"));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
