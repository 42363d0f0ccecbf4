//! The main window shows its own page and nothing else.
//!
//! The window holds the app's IPC: whatever page it shows can ask for every command the window
//! is granted. Its page never navigates (links go to the person's browser through the
//! opener, a login through the system browser), so any navigation of the window is something
//! else: markup that slipped into the page (a `<meta http-equiv="refresh">`, a link), or a
//! script of a page that should not be there. Every navigation WebKit is asked for, of the
//! window or of a frame in it (WebKitGTK's `decide-policy` covers both), goes through
//! [`own_page`]: the app's own origin (`tauri://localhost`, or `http(s)://tauri.localhost`
//! where the webview serves custom schemes over http), the dev server when the build has one
//! and is not the packaged app, and the frames of MCP Apps on their `mcpapp:` scheme, which
//! only the main window is served and whose own CSP limits what they frame. Anything else is
//! refused, and said on stderr by its scheme and host (never its path or query, which may
//! carry a token).

use tauri::Url;

/// Whether the main window, or a frame in it, may go to `url`. `dev_url` is the dev server
/// of a build that has one (`build.devUrl`, outside the packaged app).
pub fn own_page(url: &Url, dev_url: Option<&Url>) -> bool {
    let host = url.host_str();
    let allowed = match url.scheme() {
        "tauri" => host == Some("localhost") && url.port().is_none(),
        "http" | "https" if host == Some("tauri.localhost") => url.port().is_none(),
        scheme if scheme == mcp_manager_apps::SCHEME => true,
        "http" | "https" if cfg!(windows) && host.is_some_and(app_host) => url.port().is_none(),
        "about" => matches!(url.path(), "blank" | "srcdoc"),
        _ => false,
    };
    allowed || dev_url.is_some_and(|dev| same_origin(url, dev))
}

/// `mcpapp.<16 hex digits>`: an App's origin as WebView2 spells it (`http://mcpapp.<host>`).
fn app_host(host: &str) -> bool {
    host.strip_prefix(mcp_manager_apps::SCHEME)
        .and_then(|rest| rest.strip_prefix('.'))
        .is_some_and(|hash| hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()))
}

fn same_origin(url: &Url, other: &Url) -> bool {
    url.scheme() == other.scheme()
        && url.host() == other.host()
        && url.port_or_known_default() == other.port_or_known_default()
}

/// What stderr says of a refused navigation: its scheme and host only.
pub fn refused(url: &Url) {
    eprintln!(
        "mcp-manager: the window was asked to go to {}://{} and stayed on its own page",
        url.scheme(),
        url.host_str().unwrap_or_default()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn the_window_goes_to_its_own_page_and_its_apps_frames_only() {
        for own in [
            "tauri://localhost",
            "tauri://localhost/",
            "tauri://localhost/index.html?x#y",
            "http://tauri.localhost/",
            "https://tauri.localhost/index.html",
            "mcpapp://0123456789abcdef/relay/abc",
            "about:blank",
            "about:srcdoc",
        ] {
            assert!(own_page(&url(own), None), "{own}");
        }
        for elsewhere in [
            "http://127.0.0.1:8765/",
            "https://example.com/",
            "https://tauri.localhost.example.com/",
            "http://tauri.localhost:8080/",
            "tauri://localhost:1/",
            "tauri://example.com/",
            "http://localhost/",
            "file:///etc/passwd",
            "data:text/html,<script>alert(1)</script>",
            "javascript:alert(1)",
            "blob:tauri://localhost/0000",
            "ipc://localhost/list_servers",
            "about:config",
            "http://mcpapp.example.com/",
        ] {
            assert!(!own_page(&url(elsewhere), None), "{elsewhere}");
        }
        // An App's origin as WebView2 spells it, on Windows only.
        assert_eq!(
            own_page(&url("http://mcpapp.0123456789abcdef/relay/abc"), None),
            cfg!(windows)
        );
    }

    #[test]
    fn a_dev_server_is_its_own_page_when_there_is_one() {
        let dev = url("http://localhost:1420/");
        assert!(own_page(
            &url("http://localhost:1420/src/main.tsx"),
            Some(&dev)
        ));
        assert!(!own_page(&url("http://localhost:1421/"), Some(&dev)));
        assert!(!own_page(&url("https://localhost:1420/"), Some(&dev)));
        assert!(!own_page(&url("http://localhost:1420/"), None));
    }
}
