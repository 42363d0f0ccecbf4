//! The main window, opened with the project's list of servers already in its page.
//!
//! The first thing the window paints is that list. Asked for over IPC, it came 7–11 ms after
//! the page's script ran (the request and its answer both pass through the app's main
//! thread, which is also serving the page's files), and the page had nothing to do
//! meanwhile. So the app reads the list before it opens the window (a millisecond or two:
//! the same [`api::list_servers`] the `list_servers` command answers with) and hands it to
//! the page in a script WebKit runs before the page's own, in the main frame only: MCP Apps'
//! frames never see it. The page takes it once, on its first load (`ui/src/servers/firstList.ts`);
//! every later reading is an IPC call, and the page reads the list again over IPC once it
//! has painted, so a file changed while the window opened is shown as it is now.
//!
//! The list holds what the `list_servers` command sends the window anyway: names, scopes,
//! commands and URLs, never a secret (see `ServerSummary`).

use std::sync::Arc;

use mcp_manager_core::{api, Locations};
use tauri::Manager;

use crate::kept_paint::KeptPaint;

/// The window's label, as in `tauri.conf.json` (which does not create it: see [`open_window`]).
pub const MAIN: &str = "main";

/// The name the list has in the page; `ui/src/servers/firstList.ts` reads and removes it.
const GLOBAL: &str = "__MCP_MANAGER_FIRST_LIST__";

/// Opens the main window as `tauri.conf.json` describes it, with the servers of `locations`
/// in its page from the start.
pub fn open_window(app: &tauri::App, locations: &Locations, visible: bool) -> tauri::Result<()> {
    let config = app
        .config()
        .app
        .windows
        .iter()
        .find(|window| window.label == MAIN)
        .cloned()
        .expect("tauri.conf.json describes the main window");
    let json =
        serde_json::to_string(&api::list_servers(locations)).expect("a server list serializes");
    // The first frame the last start kept for this very list, if any (kept_paint.rs).
    app.state::<Arc<KeptPaint>>()
        .opening(&json, app.path().app_cache_dir().ok().as_deref());
    // The window shows its own page only (navigation.rs).
    let dev_url = tauri::is_dev()
        .then(|| app.config().build.dev_url.clone())
        .flatten();
    tauri::WebviewWindowBuilder::from_config(app.handle(), &config)?
        .visible(visible && config.visible)
        .initialization_script(script(&json))
        .on_navigation(move |url| {
            let own = crate::navigation::own_page(url, dev_url.as_ref());
            if !own {
                crate::navigation::refused(url);
            }
            own
        })
        .build()?;
    Ok(())
}

/// The script that puts the list (`json`, as `list_servers` sends it) in the page: JSON, which
/// is a JavaScript expression that can hold nothing but data, whatever the configuration files
/// say.
fn script(json: &str) -> String {
    format!("window.{GLOBAL} = {json};")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_is_the_list_as_the_ipc_sends_it_and_nothing_a_name_says_runs() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        // A name and a command that try to end the string, the statement and a script tag.
        std::fs::write(
            project.path().join(".mcp.json"),
            r#"{"mcpServers":{"x\";alert(1);//</script>":{"command":"\u2028\"); fetch('http://evil')//","args":[]}}}"#,
        )
        .unwrap();
        let mut locations =
            Locations::new(home.path().to_path_buf(), None, project.path()).unwrap();
        locations.managed_dir = home.path().join("managed");
        let list = api::list_servers(&locations);
        let script = script(&serde_json::to_string(&list).unwrap());
        let prefix = format!("window.{GLOBAL} = ");
        assert!(
            script.starts_with(&prefix) && script.ends_with(';'),
            "{script}"
        );
        // One assignment of one JSON value: parsing what follows the `=` as JSON consumes it all.
        let value: serde_json::Value =
            serde_json::from_str(&script[prefix.len()..script.len() - 1]).unwrap();
        assert_eq!(value, serde_json::to_value(&list).unwrap());
        assert_eq!(value["servers"][0]["name"], "x\";alert(1);//</script>");
    }
}
