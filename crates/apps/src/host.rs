//! The host's trusted half: which App runs for which server, the pages served once, the
//! person's consent, and what an App may ask.
//!
//! Opening an App ([`AppHost::open`]) finds the tool's view, reads it, builds its CSP and,
//! once the person has allowed Apps of that server (with the external origins it declares),
//! creates a session: an unguessable token the window uses for everything the App asks, and
//! two pages, each served once ([`AppHost::page`]): the relay and the App's document. Every
//! request of an App goes through the session, so Rust decides which server answers: the
//! session's server, and only tools its current `tools/list` marks callable by Apps.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_manager_connect::project::LiveProject;
use mcp_manager_core::ApiError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::csp::{DeclaredDomains, Origins};
use crate::document::AppDocument;
use crate::view::ToolUi;
use crate::{refused, AppError};

/// The URI scheme Apps are served on.
pub const SCHEME: &str = "mcpapp";
pub use crate::relay::SANDBOX;
/// The file of consents in the app's data folder.
pub const CONSENT_FILE: &str = "apps-allowed.json";
/// How long a page waits to be asked for.
const PAGE_LIFETIME: Duration = Duration::from_secs(60);

/// An App about to be shown: what it is and, once allowed, where it is served.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AppOpening {
    pub server: String,
    pub tool: String,
    pub resource_uri: String,
    /// `mcpapp://<host>`: the origin of this server's Apps.
    pub origin: String,
    pub declared: DeclaredDomains,
    /// `_meta.ui.permissions` as JSON text: shown, not granted.
    pub permissions: Option<String>,
    pub prefers_border: bool,
    /// The Content-Security-Policy the App is served with.
    pub csp: String,
    /// Whether the person must allow Apps of this server (or its new origins) first.
    pub consent_needed: bool,
    /// Once allowed: the session's token and the relay's one-time URL.
    pub session: Option<String>,
    pub relay_url: Option<String>,
}

/// A page served once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub html: String,
    pub csp: String,
}

struct Session {
    server: String,
}

#[derive(Default)]
struct State {
    sessions: HashMap<String, Session>,
    /// By (host, path).
    pages: HashMap<(String, String), (Page, Instant)>,
}

/// What the person allowed for the Apps of one server in one project: the external origins
/// of each CSP directive, each list on its own. A record written before consent was kept per
/// directive (one `domains` list) reads as allowing no origin: its Apps are asked for again
/// if they declare any.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Consent {
    server: String,
    project: String,
    #[serde(default)]
    origins: Origins,
}

/// The Apps of the open project.
pub struct AppHost {
    state: Mutex<State>,
    consent_file: Option<PathBuf>,
}

/// The origin host of `server`'s Apps in `project`: 16 hex digits of a hash, so that two
/// servers (or one name in two projects) never share an origin, and nothing of the name
/// reaches the URL.
pub fn origin_host(project: &Path, server: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(project.to_string_lossy().as_bytes());
    hasher.update([0]);
    hasher.update(server.as_bytes());
    hasher.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn token() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS has randomness");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl AppHost {
    /// Consents are kept in `data_dir` (none kept without one).
    pub fn new(data_dir: Option<&Path>) -> AppHost {
        AppHost {
            state: Mutex::default(),
            consent_file: data_dir.map(|dir| dir.join(CONSENT_FILE)),
        }
    }

    fn consents(&self) -> HashMap<String, Consent> {
        self.consent_file
            .as_ref()
            .and_then(|file| {
                mcp_manager_core::files::read(file, mcp_manager_core::files::READ_LIMIT)
                    .ok()
                    .flatten()
            })
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// The person allows Apps of `server` in `project` to reach `origins`, each for what its
    /// list says (and nothing else): the consent before replaced.
    pub fn allow(&self, project: &Path, server: &str, origins: Origins) -> Result<(), ApiError> {
        let host = origin_host(project, server);
        let mut consents = self.consents();
        consents.insert(
            host,
            Consent {
                server: server.into(),
                project: project.to_string_lossy().into(),
                origins,
            },
        );
        let Some(file) = &self.consent_file else {
            return Err(refused(
                "the app's data folder is unknown: nothing can be remembered".into(),
            ));
        };
        let text = serde_json::to_vec_pretty(&consents).expect("consents serialize");
        if let Some(dir) = file.parent() {
            let _ = mcp_manager_core::private::dir(dir);
        }
        mcp_manager_core::private::write(file, &text)
            .map_err(|err| refused(format!("{} could not be written ({err})", file.display())))
    }

    /// Whether every origin of `wanted` was allowed for `host`, for the same directive.
    fn allowed(&self, host: &str, wanted: &Origins) -> bool {
        self.consents()
            .get(host)
            .is_some_and(|consent| consent.origins.covers(wanted))
    }

    /// Prepares `tool`'s App of `server`: reads its view and, when allowed, serves it.
    pub async fn open(
        &self,
        project: &LiveProject,
        server: &str,
        tool: &str,
    ) -> Result<AppOpening, ApiError> {
        let tools = project.tools(server).await?;
        let listed = tools
            .iter()
            .find(|t| t.name == tool)
            .ok_or_else(|| refused(format!("\"{server}\" offers no tool \"{tool}\"")))?;
        let meta: Option<Value> = listed
            .meta
            .as_deref()
            .and_then(|m| serde_json::from_str(m).ok());
        let ui = ToolUi::of(meta.as_ref()).map_err(|err| err.into_api(server))?;
        let Some(uri) = ui.resource_uri else {
            return Err(refused(format!(
                "\"{tool}\" of \"{server}\" has no App (no _meta.ui.resourceUri)"
            )));
        };
        let read: Value = serde_json::from_str(&project.read_resource(server, &uri).await?)
            .map_err(|err| {
                refused(format!(
                    "\"{server}\" answered resources/read of {uri} with no JSON ({err})"
                ))
            })?;
        // The list entry's _meta, asked for only when the content has none.
        let needs_listed = read
            .get("contents")
            .and_then(Value::as_array)
            .is_none_or(|c| {
                c.iter()
                    .all(|c| c.get("_meta").and_then(|m| m.get("ui")).is_none())
            });
        let listed_meta = if needs_listed {
            listed_meta(project, server, &uri).await
        } else {
            None
        };
        let document = AppDocument::from_read(&uri, &read, listed_meta.as_ref())
            .map_err(|err| err.into_api(server))?;
        let declared = DeclaredDomains::of(document.ui.as_ref());
        let csp = declared.header();
        let host = origin_host(&project.locations().project, server);
        let origin = format!("{SCHEME}://{host}");
        let consent_needed = !self.allowed(&host, &declared.origins);
        let mut opening = AppOpening {
            server: server.into(),
            tool: tool.into(),
            resource_uri: uri,
            origin: origin.clone(),
            permissions: document
                .ui
                .as_ref()
                .and_then(|ui| ui.get("permissions"))
                .map(Value::to_string),
            prefers_border: document
                .ui
                .as_ref()
                .and_then(|ui| ui.get("prefersBorder"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            declared,
            csp: csp.clone(),
            consent_needed,
            session: None,
            relay_url: None,
        };
        if consent_needed {
            return Ok(opening);
        }
        let session = token();
        let app_path = format!("/app/{}", token());
        let relay_path = format!("/relay/{}", token());
        let (relay_html, relay_csp) = crate::relay::page(
            &origin,
            &format!("{origin}{app_path}"),
            &format!("App of {tool}"),
        );
        let mut state = self.state.lock().expect("apps lock");
        state
            .pages
            .retain(|_, (_, at)| at.elapsed() < PAGE_LIFETIME);
        state.pages.insert(
            (host.clone(), app_path),
            (
                Page {
                    html: document.html,
                    csp,
                },
                Instant::now(),
            ),
        );
        state.pages.insert(
            (host, relay_path.clone()),
            (
                Page {
                    html: relay_html,
                    csp: relay_csp,
                },
                Instant::now(),
            ),
        );
        state.sessions.insert(
            session.clone(),
            Session {
                server: server.into(),
            },
        );
        opening.relay_url = Some(format!("{origin}{relay_path}"));
        opening.session = Some(session);
        Ok(opening)
    }

    /// The page at `host` and `path`, once: asked again, or never made, it is `None` (404).
    pub fn page(&self, host: &str, path: &str) -> Option<Page> {
        let mut state = self.state.lock().expect("apps lock");
        let (page, at) = state.pages.remove(&(host.to_string(), path.to_string()))?;
        (at.elapsed() < PAGE_LIFETIME).then_some(page)
    }

    fn server_of(&self, session: &str) -> Result<String, ApiError> {
        self.state
            .lock()
            .expect("apps lock")
            .sessions
            .get(session)
            .map(|s| s.server.clone())
            .ok_or_else(|| refused("this App was closed".into()))
    }

    /// A `tools/call` the App asks for: only of its own server, and only of a tool that
    /// server lists now as callable by Apps. The `CallToolResult` as JSON text.
    pub async fn call_tool(
        &self,
        project: &LiveProject,
        session: &str,
        name: &str,
        arguments: &str,
    ) -> Result<String, ApiError> {
        let server = self.server_of(session)?;
        let tools = project.tools(&server).await?;
        let Some(tool) = tools.iter().find(|t| t.name == name) else {
            return Err(AppError::UnknownTool {
                server,
                tool: name.into(),
            }
            .into_api_plain());
        };
        if !ToolUi::callable(tool.meta.as_deref()).app {
            return Err(AppError::ModelOnly {
                server,
                tool: name.into(),
            }
            .into_api_plain());
        }
        Ok(project.call_tool(&server, name, arguments).await?.result)
    }

    /// A `resources/read` the App asks for, of its own server: the result as JSON text.
    pub async fn read_resource(
        &self,
        project: &LiveProject,
        session: &str,
        uri: &str,
    ) -> Result<String, ApiError> {
        let server = self.server_of(session)?;
        project.read_resource(&server, uri).await
    }

    /// `resources/list` (or, with `templates`, `resources/templates/list`) of the App's
    /// server: the result as JSON text.
    pub async fn list_resources(
        &self,
        project: &LiveProject,
        session: &str,
        templates: bool,
    ) -> Result<String, ApiError> {
        let server = self.server_of(session)?;
        let lists = project.resources(&server).await?;
        let (key, list) = if templates {
            ("resourceTemplates", lists.templates)
        } else {
            ("resources", lists.resources)
        };
        let list: Value = serde_json::from_str(&list).unwrap_or(Value::Array(Vec::new()));
        Ok(serde_json::json!({ key: list }).to_string())
    }

    /// A link the App asked to open, checked: http or https only.
    pub fn link(&self, session: &str, url: &str) -> Result<url::Url, ApiError> {
        self.server_of(session)?;
        let parsed = url::Url::parse(url)
            .map_err(|_| AppError::BadLink { url: url.into() }.into_api_plain())?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(AppError::BadLink { url: url.into() }.into_api_plain());
        }
        Ok(parsed)
    }

    /// Ends a session; its unserved pages go with it. Unknown sessions are already closed.
    pub fn close(&self, session: &str) {
        self.state
            .lock()
            .expect("apps lock")
            .sessions
            .remove(session);
    }

    /// Ends every session (another project was opened).
    pub fn close_all(&self) {
        let mut state = self.state.lock().expect("apps lock");
        state.sessions.clear();
        state.pages.clear();
    }
}

async fn listed_meta(project: &LiveProject, server: &str, uri: &str) -> Option<Value> {
    let lists = project.resources(server).await.ok()?;
    let resources: Vec<Value> = serde_json::from_str(&lists.resources).ok()?;
    resources
        .into_iter()
        .find(|r| r.get("uri").and_then(Value::as_str) == Some(uri))?
        .get("_meta")
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consents_are_kept_for_their_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let host = AppHost::new(Some(&dir.path().join("data")));
        host.allow(Path::new("/p"), "a", Origins::default())
            .unwrap();
        let file = dir.path().join("data").join(CONSENT_FILE);
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode, 0o600,
            "apps-allowed.json says which projects the person opens"
        );
    }

    #[test]
    fn origins_differ_by_server_and_project() {
        let a = origin_host(Path::new("/p"), "a");
        assert_eq!(a.len(), 16);
        assert_ne!(a, origin_host(Path::new("/p"), "b"));
        assert_ne!(a, origin_host(Path::new("/q"), "a"));
        assert_eq!(a, origin_host(Path::new("/p"), "a"));
    }

    #[test]
    fn consent_covers_the_origins_allowed_for_their_directive_and_no_more() {
        let dir = tempfile::tempdir().unwrap();
        let host = AppHost::new(Some(dir.path()));
        let h = origin_host(Path::new("/p"), "a");
        let none = Origins::default();
        let x = || vec!["https://x.example".to_string()];
        let connect_x = Origins {
            connect: x(),
            ..Origins::default()
        };
        assert!(!host.allowed(&h, &none), "nothing allowed yet");
        host.allow(Path::new("/p"), "a", connect_x.clone()).unwrap();
        assert!(host.allowed(&h, &none));
        assert!(host.allowed(&h, &connect_x));
        let connect_y = Origins {
            connect: vec!["https://y.example".into()],
            ..Origins::default()
        };
        assert!(!host.allowed(&h, &connect_y), "a new origin asks again");
        for (directive, other_use) in [
            (
                "resource",
                Origins {
                    resource: x(),
                    ..Origins::default()
                },
            ),
            (
                "frame",
                Origins {
                    frame: x(),
                    ..Origins::default()
                },
            ),
            (
                "base-uri",
                Origins {
                    base_uri: x(),
                    ..Origins::default()
                },
            ),
        ] {
            assert!(
                !host.allowed(&h, &other_use),
                "allowed to fetch from it is not allowed as {directive}"
            );
        }
        assert!(!host.allowed(&origin_host(Path::new("/p"), "b"), &none));
        // Kept on disk.
        let again = AppHost::new(Some(dir.path()));
        assert!(again.allowed(&h, &connect_x));
    }

    /// A consent kept before consent was per directive (one list of origins) allows none of
    /// them now: what it meant for each use is not known.
    #[test]
    fn a_consent_of_one_list_of_origins_is_asked_again() {
        let dir = tempfile::tempdir().unwrap();
        let h = origin_host(Path::new("/p"), "a");
        std::fs::write(
            dir.path().join(CONSENT_FILE),
            serde_json::json!({ &h: { "server": "a", "project": "/p", "domains": ["https://x.example"] } })
                .to_string(),
        )
        .unwrap();
        let host = AppHost::new(Some(dir.path()));
        assert!(
            host.allowed(&h, &Origins::default()),
            "an App that reaches nothing"
        );
        let connect_x = Origins {
            connect: vec!["https://x.example".into()],
            ..Origins::default()
        };
        assert!(!host.allowed(&h, &connect_x));
    }

    #[test]
    fn pages_are_served_once() {
        let host = AppHost::new(None);
        host.state.lock().unwrap().pages.insert(
            ("h".into(), "/app/t".into()),
            (
                Page {
                    html: "x".into(),
                    csp: "c".into(),
                },
                Instant::now(),
            ),
        );
        assert!(
            host.page("other", "/app/t").is_none(),
            "another origin's host"
        );
        assert_eq!(host.page("h", "/app/t").unwrap().html, "x");
        assert!(host.page("h", "/app/t").is_none(), "a second time");
    }

    #[test]
    fn links_are_http_or_https_of_an_open_session() {
        let host = AppHost::new(None);
        assert!(
            host.link("nope", "https://example.com").is_err(),
            "no session"
        );
        host.state
            .lock()
            .unwrap()
            .sessions
            .insert("s".into(), Session { server: "a".into() });
        assert!(host.link("s", "https://example.com/x").is_ok());
        assert!(host.link("s", "http://example.com/x").is_ok());
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "mcpapp://x/app",
            "tauri://localhost",
            "nonsense",
        ] {
            assert!(host.link("s", bad).is_err(), "{bad}");
        }
        host.close("s");
        assert!(host.link("s", "https://example.com").is_err(), "closed");
    }
}
