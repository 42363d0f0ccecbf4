//! The Apps host against real servers, without a window: the probe server of both eras
//! (tests/fixtures/servers/app-probe-server.mjs, on the SDK 2.4) and server-basic-vanillajs
//! 2.0.3 from npm. What is served, once; what is refused before any server sees it.

use std::path::PathBuf;

use mcp_manager_apps::AppHost;
use mcp_manager_connect::project::LiveProject;
use mcp_manager_connect::Settings;
use mcp_manager_core::Locations;
use serde_json::{json, Value};

fn repo(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
        .canonicalize()
        .unwrap_or_else(|err| panic!("{path}: {err} (run scripts/setup test)"))
        .to_string_lossy()
        .into_owned()
}

struct World {
    _dir: tempfile::TempDir,
    data: PathBuf,
    /// What the probe App declares in `_meta.ui.csp`, read at each `resources/read`.
    csp: PathBuf,
    locations: Locations,
    calls: PathBuf,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::fs::create_dir_all(root.join("project")).unwrap();
    let mut locations = Locations::new(root.join("home"), None, &root.join("project")).unwrap();
    locations.managed_dir = root.join("managed");
    let calls = root.join("calls.log");
    let probe = repo("tests/fixtures/servers/app-probe-server.mjs");
    let env = json!({ "APP_PROBE_LOG": calls, "APP_PROBE_CONNECT": "https://api.example.com", "APP_PROBE_CSP": root.join("csp.json") });
    std::fs::write(
        locations.claude_json(),
        json!({ "mcpServers": {
            "probe": { "command": "node", "args": [probe], "env": env },
            "modern": { "command": "node", "args": [probe, "--modern"], "env": env },
            "basic": { "command": "node", "args": [repo("tests/reference/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js"), "--stdio"] },
        }})
        .to_string(),
    )
    .unwrap();
    World {
        data: root.join("data"),
        csp: root.join("csp.json"),
        _dir: dir,
        locations,
        calls,
    }
}

fn seen(world: &World) -> Vec<String> {
    std::fs::read_to_string(&world.calls)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

#[tokio::test]
async fn an_app_is_served_once_after_consent_and_asks_only_what_its_server_allows() {
    let world = world();
    let project = LiveProject::open(world.locations.clone(), Settings::default());
    project.start().await;
    let host = AppHost::new(Some(&world.data));

    // Servers hear that we host Apps, in either era.
    for server in ["probe", "modern"] {
        let call = project.call_tool(server, "client-ui", "{}").await.unwrap();
        let result: Value = serde_json::from_str(&call.result).unwrap();
        assert_eq!(
            result["content"][0]["text"], r#"{"mimeTypes":["text/html;profile=mcp-app"]}"#,
            "{server}"
        );
    }

    // First: what it declares, and the person's consent.
    let first = host.open(&project, "probe", "probe").await.unwrap();
    assert!(first.consent_needed);
    assert!(
        first.session.is_none() && first.relay_url.is_none(),
        "nothing served before consent"
    );
    assert_eq!(
        first.declared.origins.connect,
        vec!["https://api.example.com"]
    );
    assert!(first.csp.contains("connect-src https://api.example.com;"));
    host.allow(
        &world.locations.project,
        "probe",
        first.declared.origins.clone(),
    )
    .unwrap();

    let opened = host.open(&project, "probe", "probe").await.unwrap();
    assert!(!opened.consent_needed);
    let session = opened.session.clone().unwrap();
    let relay = url::Url::parse(opened.relay_url.as_deref().unwrap()).unwrap();
    assert_eq!(relay.scheme(), "mcpapp");
    let origin_host = relay.host_str().unwrap().to_string();
    assert_eq!(opened.origin, format!("mcpapp://{origin_host}"));
    let relay_page = host
        .page(&origin_host, relay.path())
        .expect("the relay is served");
    assert!(relay_page
        .csp
        .contains(&format!("frame-src mcpapp://{origin_host};")));
    assert!(host.page(&origin_host, relay.path()).is_none(), "once");
    let app_url = relay_page
        .html
        .split("app.src = \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_string();
    let app_url = url::Url::parse(&app_url).unwrap();
    let app = host
        .page(&origin_host, app_url.path())
        .expect("the App is served");
    assert!(app.html.contains("<h1>Probe App</h1>"));
    assert_eq!(app.csp, opened.csp);
    assert!(host.page(&origin_host, app_url.path()).is_none(), "once");

    // Its own server's tools for Apps: yes. Model-only, unknown: refused, never sent.
    let before = seen(&world).len();
    let refreshed = host
        .call_tool(&project, &session, "probe-refresh", "{}")
        .await
        .unwrap();
    assert!(refreshed.contains("refreshed 1"), "{refreshed}");
    let model_only = host
        .call_tool(&project, &session, "secret-admin", "{}")
        .await
        .unwrap_err();
    assert!(
        model_only.message.contains("for the model only"),
        "{}",
        model_only.message
    );
    // A tool whose _meta.ui cannot be read (a view that is not ui://, a visibility that is
    // not a list) is the model's too.
    for tool in ["not-ui", "malformed-ui"] {
        let refused = host
            .call_tool(&project, &session, tool, "{}")
            .await
            .expect_err(tool);
        assert!(
            refused.message.contains("for the model only"),
            "{tool}: {}",
            refused.message
        );
    }
    let elsewhere = host
        .call_tool(&project, &session, "get-time", "{}")
        .await
        .unwrap_err();
    assert!(
        elsewhere.message.contains("\"probe\" does not offer"),
        "{}",
        elsewhere.message
    );
    assert_eq!(seen(&world)[before..], ["probe-refresh".to_string()]);
    let read = host
        .read_resource(&project, &session, "ui://probe/plain.html")
        .await
        .unwrap();
    assert!(read.contains("<p>plain</p>"));
    let listed: Value = serde_json::from_str(
        &host
            .list_resources(&project, &session, false)
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(listed["resources"].as_array().unwrap().len(), 2);

    // Closed: nothing more.
    host.close(&session);
    let closed = host
        .call_tool(&project, &session, "probe-refresh", "{}")
        .await
        .unwrap_err();
    assert_eq!(closed.message, "this App was closed");

    // Another server: another origin, its own consent.
    let modern = host.open(&project, "modern", "probe").await.unwrap();
    assert!(modern.consent_needed, "consent is per server");
    assert_ne!(modern.origin, opened.origin);

    // Views that are not Apps.
    let wrong = host
        .open(&project, "probe", "wrong-type")
        .await
        .unwrap_err();
    assert!(
        wrong
            .message
            .contains("of type text/html, not text/html;profile=mcp-app"),
        "{}",
        wrong.message
    );
    let not_ui = host.open(&project, "probe", "not-ui").await.unwrap_err();
    assert!(
        not_ui.message.contains("is not a ui:// resource"),
        "{}",
        not_ui.message
    );
    let none = host
        .open(&project, "probe", "secret-admin")
        .await
        .unwrap_err();
    assert!(none.message.contains("has no App"), "{}", none.message);

    // A published App: the strict default CSP, no external origin to allow.
    let basic = host.open(&project, "basic", "get-time").await.unwrap();
    assert_eq!(basic.resource_uri, "ui://get-time/mcp-app.html");
    assert!(basic.declared.origins.is_empty());
    assert!(basic.csp.contains("connect-src 'none'"));
    project.shutdown().await;
}

/// The person allowed a server's App to fetch from an origin; the server's App then declares
/// the same origin as one to frame (or to load scripts from). That is a new permission, asked
/// for again, and nothing is served until it is given.
#[tokio::test]
async fn consent_to_reach_an_origin_one_way_is_not_consent_to_reach_it_another() {
    let world = world();
    let project = LiveProject::open(world.locations.clone(), Settings::default());
    project.start().await;
    let host = AppHost::new(Some(&world.data));
    let api = "https://api.example.com";
    std::fs::write(&world.csp, json!({ "connectDomains": [api] }).to_string()).unwrap();
    let first = host.open(&project, "probe", "probe").await.unwrap();
    assert!(first.consent_needed);
    host.allow(
        &world.locations.project,
        "probe",
        first.declared.origins.clone(),
    )
    .unwrap();
    let allowed = host.open(&project, "probe", "probe").await.unwrap();
    assert!(!allowed.consent_needed, "allowed as declared");

    for (directive, declared) in [
        (
            "frame-src",
            json!({ "connectDomains": [api], "frameDomains": [api] }),
        ),
        ("script-src", json!({ "resourceDomains": [api] })),
        ("base-uri", json!({ "baseUriDomains": [api] })),
    ] {
        std::fs::write(&world.csp, declared.to_string()).unwrap();
        let widened = host.open(&project, "probe", "probe").await.unwrap();
        assert!(
            widened.csp.contains(&format!("{directive} {api}"))
                || widened
                    .csp
                    .contains(&format!("{directive} 'unsafe-inline' {api}")),
            "{directive}: {}",
            widened.csp
        );
        assert!(
            widened.consent_needed,
            "{directive}: {api} was allowed for connect-src only, and is asked for again"
        );
        assert!(
            widened.session.is_none() && widened.relay_url.is_none(),
            "{directive}: nothing served"
        );
        // Allowed for this use too, it is served.
        host.allow(
            &world.locations.project,
            "probe",
            widened.declared.origins.clone(),
        )
        .unwrap();
        let served = host.open(&project, "probe", "probe").await.unwrap();
        assert!(
            !served.consent_needed && served.session.is_some(),
            "{directive}"
        );
    }
    project.shutdown().await;
}
