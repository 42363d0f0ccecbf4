//! OAuth in the connection engine against a real OAuth-protected server on loopback
//! (tests/reference/oauth-server.mjs): a login through the product's loopback browser with
//! a stand-in person (tests/fixtures/browser/complete-login.mjs), then the supervisor's
//! sessions carrying the token, and a token the server stops honouring mid-session.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use mcp_manager_connect::{ServerStatus, Settings, Supervisor};
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use mcp_manager_core::secrets::SecretStore;
use mcp_manager_core::Scope;
use mcp_manager_oauth as oauth;
use mcp_manager_oauth::{Browser, Loopback, OAuthError, Opener, Recorder, Target};
use serde_json::json;
use support::OAuthServer;

/// The product's loopback browser, with the person replaced by complete-login.mjs.
struct Person(Loopback);

#[async_trait]
impl Browser for Person {
    fn redirect_uri(&self) -> String {
        self.0.redirect_uri()
    }

    async fn authorize(&self, url: &str, recorder: &Recorder) -> Result<String, OAuthError> {
        let mut person = tokio::process::Command::new("node")
            .arg(support::repo("tests/fixtures/browser/complete-login.mjs"))
            .arg(url)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let received = self.0.authorize(url, recorder).await;
        let _ = person.wait().await;
        received
    }
}

/// A supervisor for `world`'s servers, with `secrets` as its keychain, started.
async fn started(world: &support::World, secrets: &Arc<dyn SecretStore>) -> Arc<Supervisor> {
    let supervisor = Supervisor::new(world.locations.project.clone(), Settings::default());
    supervisor.set_secrets(Arc::clone(secrets));
    supervisor.start(&Catalog::load(&world.locations)).await;
    supervisor
}

/// Logs in to `target` as the stand-in person.
async fn log_in(target: &Target) -> oauth::Granted {
    let browser = Person(Loopback::bind(None, Opener::Print).await.unwrap());
    oauth::login(target, &browser, None, &[]).await.unwrap()
}

/// Server `name`'s session after a restart (as after a login).
async fn restarted(
    supervisor: &Arc<Supervisor>,
    world: &support::World,
    name: &str,
) -> Arc<mcp_manager_connect::Connection> {
    assert!(
        supervisor
            .restart(&Catalog::load(&world.locations), name)
            .await
    );
    supervisor
        .connection(name)
        .expect("connected with the token")
}

/// The statuses a server passes through, up to needs-auth (10 s at most).
async fn statuses_up_to_needs_auth(
    events: &mut tokio::sync::broadcast::Receiver<mcp_manager_connect::StatusEvent>,
) -> Vec<&'static str> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    while Instant::now() < deadline && !seen.contains(&"needs-auth") {
        if let Ok(Ok(event)) = tokio::time::timeout(Duration::from_millis(200), events.recv()).await
        {
            seen.push(event.status.label());
        }
    }
    seen
}

#[tokio::test]
async fn a_logged_in_session_carries_the_token_and_a_revoked_one_turns_needs_auth() {
    let server = OAuthServer::start(3600);
    let secrets: Arc<dyn SecretStore> = Arc::new(mcp_manager_core::secrets::InMemory::default());
    let name = "secure";
    let world =
        support::World::with_servers(json!({ name: {"type": "http", "url": server.url()} }));
    let config = ServerConfig::remote(TransportKind::Http, server.url(), vec![]);
    let target = Target::of(name, &config, &server.url(), Arc::clone(&secrets))
        .unwrap()
        .from_entry(Scope::User, &world.locations.claude_json());

    let supervisor = started(&world, &secrets).await;
    assert_eq!(supervisor.statuses()[0].status.label(), "needs-auth");

    let granted = log_in(&target).await;
    assert!(!granted.client_id.is_empty());
    assert!(target.secrets.has_tokens().await.unwrap());

    let connection = restarted(&supervisor, &world, name).await;
    let outcome = connection.call_tool("whoami", None, None).await.unwrap();
    assert_eq!(
        outcome.result["content"][0]["text"],
        format!("client {}", granted.client_id)
    );

    // The server forgets every token, refresh tokens included.
    let mut events = supervisor.subscribe();
    server.request("POST", "/quirk", r#"{"quirk": "forget-tokens"}"#);
    let err = connection
        .call_tool("whoami", None, None)
        .await
        .unwrap_err();
    assert!(err.auth_challenge().is_some(), "{err}");
    assert_eq!(
        statuses_up_to_needs_auth(&mut events).await,
        ["needs-auth"],
        "straight to needs-auth, no reconnect loop"
    );
    assert!(matches!(
        supervisor.statuses()[0].status,
        ServerStatus::NeedsAuth
    ));
    supervisor.shutdown().await;
}

#[tokio::test]
async fn requests_that_find_the_token_expired_together_refresh_it_once() {
    let server = OAuthServer::start(2);
    let secrets: Arc<dyn SecretStore> = Arc::new(mcp_manager_core::secrets::InMemory::default());
    let config = ServerConfig::remote(TransportKind::Http, server.url(), vec![]);
    let target = Target::of("together", &config, &server.url(), Arc::clone(&secrets)).unwrap();
    log_in(&target).await;
    let connection = mcp_manager_connect::Connection::open_authorized(
        "together",
        &config,
        &std::env::temp_dir(),
        mcp_manager_connect::Limits::connect(Duration::from_secs(30)),
        mcp_manager_connect::ServerLogs::default(),
        Arc::new(mcp_manager_connect::answer::Decline),
        mcp_manager_connect::Roots::default(),
        Some(&target),
    )
    .await
    .unwrap();
    assert_eq!(server.stats()["refreshes"], 0);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (a, b, c) = tokio::join!(
        connection.call_tool("whoami", None, None),
        connection.call_tool("whoami", None, None),
        connection.call_tool("whoami", None, None),
    );
    assert!(a.is_ok() && b.is_ok() && c.is_ok(), "{a:?} {b:?} {c:?}");
    assert_eq!(
        server.stats()["refreshes"],
        1,
        "one refresh for three requests"
    );
    connection.shutdown().await;
}

#[tokio::test]
async fn a_client_credentials_server_gets_its_token_by_itself_at_start() {
    let server = OAuthServer::start(3600);
    let secrets: Arc<dyn SecretStore> = Arc::new(mcp_manager_core::secrets::InMemory::default());
    let entry = json!({
        "type": "http",
        "url": server.url(),
        "oauth": {"clientId": "machine", "grantType": "client_credentials"}
    });
    let world = support::World::with_servers(json!({ "machine": entry }));
    let catalog = Catalog::load(&world.locations);
    let raw = &catalog.effective("machine").unwrap().config;
    // The secret, where `mcpctl add --client-secret` puts it.
    secrets
        .set(
            &mcp_manager_core::secrets::client_secret_account("machine", raw),
            &mcp_manager_core::secrets::Secret::new("machine-secret"),
        )
        .unwrap();

    let supervisor = Supervisor::new(world.locations.project.clone(), Settings::default());
    supervisor.set_secrets(Arc::clone(&secrets));
    supervisor.start(&catalog).await;
    let status = supervisor.statuses()[0].status.clone();
    assert!(matches!(status, ServerStatus::Connected(_)), "{status:?}");
    let outcome = supervisor
        .connection("machine")
        .unwrap()
        .call_tool("whoami", None, None)
        .await
        .unwrap();
    assert_eq!(outcome.result["content"][0]["text"], "client machine");
    assert_eq!(server.stats()["machineTokens"], 1);
    assert_eq!(server.stats()["logins"], 0, "no person involved");
    supervisor.shutdown().await;
}

#[tokio::test]
async fn a_legacy_sse_server_takes_the_same_login_refresh_and_needs_auth() {
    let server = OAuthServer::start(2);
    let secrets: Arc<dyn SecretStore> = Arc::new(mcp_manager_core::secrets::InMemory::default());
    let name = "legacy";
    let url = format!("http://localhost:{}/sse", server.port);
    let world = support::World::with_servers(json!({ name: {"type": "sse", "url": url} }));
    let config = ServerConfig::remote(TransportKind::Sse, url.clone(), vec![]);
    let target = Target::of(name, &config, &url, Arc::clone(&secrets))
        .unwrap()
        .from_entry(Scope::User, &world.locations.claude_json());

    let supervisor = started(&world, &secrets).await;
    assert_eq!(
        supervisor.statuses()[0].status.label(),
        "needs-auth",
        "{:?}",
        supervisor.statuses()[0].status
    );

    // The login discovers the SSE endpoint's own protected-resource metadata.
    let granted = log_in(&target).await;
    let connection = restarted(&supervisor, &world, name).await;
    let whoami = || connection.call_tool("whoami", None, None);
    let outcome = whoami().await.unwrap();
    assert_eq!(
        outcome.result["content"][0]["text"],
        format!("client {}", granted.client_id)
    );

    // The access token expires (2 s): the next POST carries a refreshed one.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    whoami().await.unwrap();
    assert!(server.stats()["refreshes"].as_u64().unwrap() >= 1);
    assert_eq!(server.stats()["logins"], 1);

    // The server forgets every token: the session becomes needs-auth, once.
    let mut events = supervisor.subscribe();
    server.request("POST", "/quirk", r#"{"quirk": "forget-tokens"}"#);
    let err = whoami().await.unwrap_err();
    assert!(err.is_authorization_required(), "{err}");
    assert_eq!(statuses_up_to_needs_auth(&mut events).await, ["needs-auth"]);
    supervisor.shutdown().await;
}

#[tokio::test]
async fn a_login_and_a_refresh_are_recorded_step_by_step_without_a_secret() {
    use mcp_manager_oauth::trace::{Step, StepOutcome};
    let server = OAuthServer::start(2);
    let secrets: Arc<dyn SecretStore> = Arc::new(mcp_manager_core::secrets::InMemory::default());
    let config = ServerConfig::remote(TransportKind::Http, server.url(), vec![]);
    let target = Target::of("recorded", &config, &server.url(), Arc::clone(&secrets)).unwrap();
    log_in(&target).await;
    let journal = oauth::journal(&target);
    let login = journal.traces().pop().unwrap();
    assert_eq!(login.kind, oauth::TraceKind::Login);
    assert_eq!(login.phase, Some(oauth::Phase::Connecting));
    let steps: Vec<(Step, StepOutcome)> = login
        .exchanges
        .iter()
        .map(|exchange| (exchange.step, exchange.outcome))
        .collect();
    for wanted in [
        Step::ResourceMetadata,
        Step::ServerMetadata,
        Step::Registration,
        Step::Authorization,
        Step::Callback,
        Step::Token,
    ] {
        assert!(
            steps.contains(&(wanted, StepOutcome::Ok)),
            "{wanted:?} went well: {steps:?}"
        );
    }
    let token = login
        .exchanges
        .iter()
        .find(|exchange| exchange.step == Step::Token)
        .unwrap();
    assert_eq!(token.status, Some(200));
    assert!(token.rfc.contains("7636") && token.rfc.contains("8707"));
    assert!(token
        .request_body
        .as_deref()
        .unwrap()
        .contains("code_verifier=[secret:"));

    // A connection with the token, which expires: the refresh lands in the record too.
    let connection = mcp_manager_connect::Connection::open_authorized(
        "recorded",
        &config,
        &std::env::temp_dir(),
        mcp_manager_connect::Limits::connect(Duration::from_secs(30)),
        mcp_manager_connect::ServerLogs::default(),
        Arc::new(mcp_manager_connect::answer::Decline),
        mcp_manager_connect::Roots::default(),
        Some(&target),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    connection.call_tool("whoami", None, None).await.unwrap();
    connection.shutdown().await;
    assert_eq!(server.stats()["refreshes"], 1);
    let refresh = journal
        .traces()
        .into_iter()
        .flat_map(|trace| trace.exchanges)
        .find(|exchange| exchange.step == Step::Refresh)
        .expect("the refresh is recorded");
    assert_eq!(refresh.outcome, StepOutcome::Ok);

    let recorded = serde_json::to_string(&journal.traces()).unwrap();
    let issued = server.request("GET", "/issued", "");
    let issued: Vec<String> = serde_json::from_value(issued).unwrap();
    assert!(issued.len() >= 4, "two logins' worth of tokens: {issued:?}");
    for value in &issued {
        assert!(!recorded.contains(value.as_str()), "a token in the record");
    }
    let state = oauth::token_state(&target, "memory".into()).await.unwrap();
    assert!(state.has_token && state.has_refresh_token, "{state:?}");
    assert!(state.expires_at_ms.is_some() && state.client_id.is_some());
    assert_eq!(state.account, target.secrets.tokens_account());
    let shown = serde_json::to_string(&state).unwrap();
    for value in &issued {
        assert!(
            !shown.contains(value.as_str()),
            "a token in the token state"
        );
    }
}

#[tokio::test]
async fn a_dpop_bound_login_proves_its_key_on_every_request_refreshes_bound_and_a_replayed_proof_is_refused(
) {
    let server = OAuthServer::start(2);
    server.request("POST", "/quirk", r#"{"quirk": "dpop"}"#);
    let secrets: Arc<dyn SecretStore> = Arc::new(mcp_manager_core::secrets::InMemory::default());
    let config = ServerConfig::remote(TransportKind::Http, server.url(), vec![]);
    let target = Target::of("bound", &config, &server.url(), Arc::clone(&secrets)).unwrap();
    log_in(&target).await;
    assert_eq!(
        server.stats()["dpopTokens"],
        1,
        "the login's token is bound"
    );
    let key = oauth::dpop_key(&target)
        .await
        .unwrap()
        .expect("the key is kept");
    let state = oauth::token_state(&target, "test".into()).await.unwrap();
    assert!(state.dpop_bound, "{state:?}");

    let connection = mcp_manager_connect::Connection::open_authorized(
        "bound",
        &config,
        &std::env::temp_dir(),
        mcp_manager_connect::Limits::connect(Duration::from_secs(30)),
        mcp_manager_connect::ServerLogs::default(),
        Arc::new(mcp_manager_connect::answer::Decline),
        mcp_manager_connect::Roots::default(),
        Some(&target),
    )
    .await
    .unwrap();
    let outcome = connection.call_tool("whoami", None, None).await.unwrap();
    assert!(outcome.result["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("client "));
    // The token expires; the refresh is proved by the same key, and the new token bound to it.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    connection.call_tool("whoami", None, None).await.unwrap();
    let stats = server.stats();
    assert_eq!(stats["refreshes"], 1, "{stats}");
    assert_eq!(stats["dpopTokens"], 2, "{stats}");
    assert_eq!(stats["badProofs"], 0, "{stats}");
    assert_eq!(
        stats["replaysRefused"], 0,
        "no proof of ours is ever sent twice: {stats}"
    );
    assert_eq!(
        oauth::dpop_key(&target)
            .await
            .unwrap()
            .unwrap()
            .thumbprint(),
        key.thumbprint(),
        "the refresh keeps the binding"
    );

    // Someone who captured a request replays it, proof and token: refused.
    let last = server.request("GET", "/last-proof", "");
    let replay = reqwest::Client::new()
        .post(server.url())
        .header(
            "authorization",
            format!("DPoP {}", last["token"].as_str().unwrap()),
        )
        .header("dpop", last["proof"].as_str().unwrap())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(replay.status(), 401);
    assert_eq!(server.stats()["replaysRefused"], 1);
    // And the token alone, as a bearer, is worth nothing.
    let bearer = reqwest::Client::new()
        .post(server.url())
        .bearer_auth(last["token"].as_str().unwrap())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(bearer.status(), 401);
    // The session goes on with fresh proofs.
    connection.call_tool("whoami", None, None).await.unwrap();
    connection.shutdown().await;
}
