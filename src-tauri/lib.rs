//! The Tauri layer: window, one-line commands into the core, and the typed bindings.
//!
//! Nothing here decides anything. Each command forwards to a function of
//! `mcp_manager_core::api` with the app's [`Context`], so the same behaviour is reachable from
//! `mcpctl` and from core tests without a window. The command list in [`bindings_builder`] is
//! the single source of the TypeScript bindings in `ui/src/bindings.ts`; the `bindings` test
//! regenerates them and fails when the committed file has drifted.

mod commands;

use mcp_manager_core::config::watch::{ConfigChange, ConfigWatcher};
use mcp_manager_core::Locations;
use serde::Serialize;
use tauri::Manager;
use tauri_specta::Event;

/// Broadcast when configuration files change on disk (by an editor, by Claude Code or by this
/// app): the servers whose connection-relevant content, or whether they start, changed.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct ConfigChanged(pub ConfigChange);

/// What every command may use. Owned by Tauri's state.
pub struct Context {
    pub locations: Locations,
}

/// Where the generated TypeScript goes, relative to the workspace root.
pub const BINDINGS_PATH: &str = "ui/src/bindings.ts";

/// The commands (and, as they come, events) the UI can use, for Tauri and for the bindings.
pub fn bindings_builder() -> tauri_specta::Builder<tauri::Wry> {
    // Every type crossing the boundary is an answer, never parsed back from the UI, so one
    // shape per type (no serde "phases" splitting `T_Serialize` from `T_Deserialize`).
    tauri_specta::Builder::<tauri::Wry>::new()
        .disable_serde_phases()
        .commands(tauri_specta::collect_commands![commands::list_servers])
        .events(tauri_specta::collect_events![ConfigChanged])
}

/// The exporter settings used for `ui/src/bindings.ts`.
pub fn typescript() -> specta_typescript::Typescript {
    specta_typescript::Typescript::default()
        .header("// Generated from Rust by the `bindings` test (src-tauri/tests/bindings.rs). Do not edit.\n")
}

/// Opens the main window and runs until it is closed.
pub fn run(locations: Locations) {
    let builder = bindings_builder();
    let watched = locations.clone();
    tauri::Builder::default()
        .manage(Context { locations })
        .invoke_handler(builder.invoke_handler())
        .setup(move |app| {
            builder.mount_events(app);
            let handle = app.handle().clone();
            let watcher = ConfigWatcher::start(watched, move |change| {
                if let Err(err) = ConfigChanged(change).emit(&handle) {
                    eprintln!("mcp-manager: could not emit config-changed: {err}");
                }
            })?;
            app.manage(watcher);
            Ok(())
        })
        .run(tauri::generate_context!())
        .expect("the Tauri runtime failed to start");
}
