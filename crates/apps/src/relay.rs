//! The relay: the page between the window and an App.
//!
//! The window never frames an App directly. It frames this page, on the App's own origin
//! (`mcpapp://<hash of project and server>`), which frames the App's document on the same
//! origin and passes messages on: from the window to the App, and from the App to the window,
//! nothing else. So the App's parent is not the window (`window.parent !== window.top`) and
//! the window's origin is two frames away. Only messages from the App's own origin are passed
//! on: an App that navigates its frame elsewhere leaves its bridge behind. The page's script and style are allowed by their
//! hashes alone; it may frame its own origin only.

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::host::SANDBOX;

/// The page and its CSP, framing `app_url` (titled `title` for screen readers).
pub fn page(origin: &str, app_url: &str, title: &str) -> (String, String) {
    let style = "html,body{margin:0;height:100%;overflow:hidden;background:transparent}\
                 iframe{border:0;width:100%;height:100%;display:block}";
    let script = format!(
        r#"(() => {{
  const app = document.createElement("iframe");
  app.setAttribute("sandbox", {sandbox});
  app.setAttribute("title", {title});
  const own = location.origin && location.origin !== "null" ? location.origin : "*";
  window.addEventListener("message", (event) => {{
    if (event.source === window.parent && app.contentWindow) app.contentWindow.postMessage(event.data, own);
    else if (event.source === app.contentWindow && event.source && event.origin === location.origin) window.parent.postMessage(event.data, "*");
  }});
  document.body.appendChild(app);
  app.src = {url};
}})();"#,
        sandbox = serde_json::to_string(SANDBOX).expect("a string"),
        title = serde_json::to_string(title).expect("a string"),
        url = serde_json::to_string(app_url).expect("a string"),
    );
    let hash = |text: &str| {
        format!(
            "'sha256-{}'",
            base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
        )
    };
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>App relay</title>\
         <style>{style}</style></head><body><script>{script}</script></body></html>"
    );
    let csp = format!(
        "default-src 'none'; script-src {}; style-src {}; frame-src {origin}; \
         base-uri 'none'; form-action 'none'; object-src 'none'",
        hash(&script),
        hash(style)
    );
    (html, csp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_relay_runs_its_own_script_only_and_frames_its_own_origin_only() {
        let (html, csp) = page("mcpapp://abc", "mcpapp://abc/app/t0k3n", "get-time \"App\"");
        assert!(html.contains(r#"app.src = "mcpapp://abc/app/t0k3n";"#));
        assert!(
            html.contains(r#""get-time \"App\"""#),
            "the title is a JS string"
        );
        assert!(csp.starts_with("default-src 'none'; script-src 'sha256-"));
        assert!(csp.contains("frame-src mcpapp://abc;"));
        assert!(!csp.contains("unsafe"));
        assert!(
            html.contains("event.origin === location.origin"),
            "a page navigated to is not relayed"
        );
    }
}
