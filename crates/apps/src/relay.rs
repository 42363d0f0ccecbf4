//! The relay: the page between the window and an App.
//!
//! The window never frames an App directly. It frames this page, on the App's own origin
//! (`mcpapp://<hash of project and server>`), which frames the App's document on the same
//! origin and passes messages on: from the window to the App, and from the App to the window,
//! nothing else. So the App's parent is not the window (`window.parent !== window.top`) and
//! the window's origin is two frames away. Only messages from the App's own origin are passed
//! on: an App that navigates its frame elsewhere leaves its bridge behind. The page's script and style are allowed by their
//! hashes alone; it may frame its own origin only.
//!
//! What the script holds of the server (the tool's name in the frame's title) is a JSON string
//! with `<`, `>` and `&` written as `\u003c`, `\u003e` and `\u0026` ([`script_string`]):
//! the same string to JavaScript, and nothing the HTML tokenizer reads as the end of the
//! script (`</script>`) or as the start of an escaped section (`<!--`) that would move it.

use base64::Engine;
use sha2::{Digest, Sha256};

/// The `sandbox` of both frames: scripts, their own origin (so it is not `"null"`) and forms;
/// no popups, no top navigation, no downloads, no modals.
pub const SANDBOX: &str = "allow-scripts allow-same-origin allow-forms";

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
        sandbox = script_string(SANDBOX),
        title = script_string(title),
        url = script_string(app_url),
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

/// `text` as a JavaScript string literal that can stand inside a `<script>` element: JSON,
/// with the characters HTML reads in a script (`<`, `>`, `&`) and the line separators
/// escaped.
fn script_string(text: &str) -> String {
    let json = serde_json::to_string(text).expect("a string serializes");
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
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

    /// A server names its tool so as to end the relay's script and start markup of its own.
    #[test]
    fn a_tool_name_cannot_end_the_relays_script() {
        for tool in [
            "x</script><script>alert(1)</script>",
            "x</SCRIPT ><img src=x>",
            "x<!--<script>",
            "x\u{2028}y & z > w",
        ] {
            let title = format!("App of {tool}");
            let (html, _) = page("mcpapp://abc", "mcpapp://abc/app/t", &title);
            assert_eq!(
                html.to_ascii_lowercase().matches("</script").count(),
                1,
                "{tool}: only the relay's own script ends: {html}"
            );
            let script = html
                .split("<script>")
                .nth(1)
                .and_then(|rest| rest.split("</script>").next())
                .unwrap();
            assert!(
                !script.contains('<'),
                "{tool}: no < in the script: {script}"
            );
            // Still the same string to JavaScript (JSON is its subset).
            let literal = script
                .split("app.setAttribute(\"title\", ")
                .nth(1)
                .and_then(|rest| rest.split(");").next())
                .unwrap();
            assert_eq!(serde_json::from_str::<String>(literal).unwrap(), title);
        }
    }
}
