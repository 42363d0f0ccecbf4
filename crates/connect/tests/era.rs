//! Both protocol eras against real servers: a server of the official TypeScript SDK 2.4 that
//! serves only 2026-07-28 (`legacy: 'reject'`, over stdio and streamable HTTP), server-everything
//! (the `initialize` era, answering `server/discover` with -32601), and a server of the
//! `initialize` era that exits on any request before it. Each connects without a setting, with
//! the evidence of its era; a remembered era is used without a probe and probed again when it
//! no longer holds; the entry's `protocol` key forces an era, with a clear error when wrong.

mod support;

use std::sync::Arc;
use std::time::Duration;

use mcp_manager_connect::answer::Decline;
use mcp_manager_connect::era::{Era, EraCache};
use mcp_manager_connect::stderr::StderrLog;
use mcp_manager_connect::{Connection, Limits, ServerStatus, Settings, Supervisor};
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::entry::{ProtocolChoice, ServerConfig, TransportKind};
use serde_json::json;

fn strict_legacy() -> ServerConfig {
    ServerConfig::stdio(
        "node",
        vec![support::edge()],
        vec![("EDGE_FAULT".into(), "strict-initialize".into())],
    )
}

async fn open(config: &ServerConfig, remembered: Option<Era>) -> Result<Connection, String> {
    let limits = Limits {
        remembered,
        ..Limits::connect(Duration::from_secs(30))
    };
    Connection::open_authorized(
        "s",
        config,
        &std::env::temp_dir(),
        limits,
        StderrLog::default(),
        Arc::new(Decline),
        mcp_manager_connect::Roots::default(),
        None,
    )
    .await
    .map_err(|err| err.to_string())
}

#[tokio::test]
async fn a_server_of_2026_07_28_only_is_reached_over_stdio_and_http_without_a_setting() {
    let http = support::ModernHttp::start(&[]);
    let remote = ServerConfig::remote(TransportKind::Http, &http.url, vec![]);
    for config in [support::modern_stdio(&[]), remote] {
        let connection = open(&config, None).await.unwrap();
        let info = connection.info();
        assert_eq!(
            (
                info.era,
                info.era_evidence.as_str(),
                info.protocol_version.as_str()
            ),
            (Era::Modern, "server/discover → 2026-07-28", "2026-07-28"),
            "{config:?}"
        );
        let tools: Vec<String> = support::tool_names(&connection).await;
        assert_eq!(
            tools[..4],
            ["echo", "add", "whoami", "deploy"],
            "and the tools of the list-change, progress and cancellation tests after them"
        );
        assert_eq!(
            support::text_of(&connection, "echo", json!({"text": "hi"})).await,
            "modern echo: hi"
        );
        // Every request carries who we are and the version, as the stateless protocol asks.
        assert_eq!(
            support::text_of(&connection, "whoami", json!({})).await,
            r#"{"client":"mcp-manager","version":"2026-07-28"}"#
        );
        let outcome = connection
            .call_tool(
                "add",
                json!({"a": 2, "b": 40}).as_object().cloned(),
                Some(Duration::from_secs(20)),
            )
            .await
            .unwrap();
        assert_eq!(outcome.result["structuredContent"], json!({"sum": 42}));
        assert!(
            outcome.schema_errors.is_empty(),
            "{:?}",
            outcome.schema_errors
        );
        connection.shutdown().await;
    }
}

#[tokio::test]
async fn servers_of_the_initialize_era_connect_with_the_evidence_of_the_probe() {
    let everything = open(&support::everything_stdio(), None).await.unwrap();
    assert_eq!(
        (
            everything.info().era,
            everything.info().era_evidence.as_str()
        ),
        (Era::Legacy, "legacy: -32601")
    );
    assert!(
        support::text_of(&everything, "echo", json!({"message": "hi"}))
            .await
            .contains("hi")
    );
    everything.shutdown().await;

    // Knocked over by the probe, started again with initialize.
    let strict = open(&strict_legacy(), None).await.unwrap();
    assert_eq!(
        (strict.info().era, strict.info().era_evidence.as_str()),
        (
            Era::Legacy,
            "legacy: the server exited (status 2) on server/discover"
        )
    );
    strict.shutdown().await;
}

#[tokio::test]
async fn a_remembered_era_is_used_without_a_probe_and_probed_again_when_wrong() {
    // Right: straight in, no probe (the strict server would have exited on one).
    let strict = open(&strict_legacy(), Some(Era::Legacy)).await.unwrap();
    assert_eq!(strict.info().era_evidence, "remembered: legacy");
    strict.shutdown().await;
    let modern = open(&support::modern_stdio(&[]), Some(Era::Modern))
        .await
        .unwrap();
    assert_eq!(modern.info().era_evidence, "remembered: 2026-07-28");
    modern.shutdown().await;

    // Wrong: a server that moved to 2026-07-28 refuses initialize with -32022 and the
    // versions it serves; one that is of the era before fails discover and is probed again.
    let moved = open(&support::modern_stdio(&[]), Some(Era::Legacy))
        .await
        .unwrap();
    assert_eq!(
        (moved.info().era, moved.info().era_evidence.as_str()),
        (Era::Modern, "initialize → -32022, then 2026-07-28")
    );
    moved.shutdown().await;
    let older = open(&support::everything_stdio(), Some(Era::Modern))
        .await
        .unwrap();
    assert_eq!(
        (older.info().era, older.info().era_evidence.as_str()),
        (Era::Legacy, "legacy: -32601")
    );
    older.shutdown().await;
}

#[tokio::test]
async fn the_entrys_protocol_key_forces_an_era_and_says_so_when_it_is_wrong() {
    let mut legacy_on_modern = support::modern_stdio(&[]);
    legacy_on_modern.protocol = ProtocolChoice::Legacy;
    assert_eq!(
        open(&legacy_on_modern, None).await.unwrap_err(),
        "the entry sets \"protocol\": \"legacy\", but the server speaks only 2026-07-28 (it \
         refused initialize with -32022): remove the key, or set it to \"auto\""
    );
    let mut modern_on_legacy = support::everything_stdio();
    modern_on_legacy.protocol = ProtocolChoice::Modern;
    let said = open(&modern_on_legacy, None).await.unwrap_err();
    assert!(
        said.starts_with("the entry sets \"protocol\": \"2026-07-28\", and server/discover failed"),
        "{said}"
    );
    let mut legacy_on_strict = strict_legacy();
    legacy_on_strict.protocol = ProtocolChoice::Legacy;
    let strict = open(&legacy_on_strict, None).await.unwrap();
    assert_eq!(strict.info().era_evidence, "set in the entry: legacy");
    strict.shutdown().await;
}

#[tokio::test]
async fn the_supervisor_remembers_each_verdict_by_entry_and_the_next_start_uses_it() {
    let world = support::World::with_servers(json!({
        "modern": {"command": "node", "args": [support::repo("tests/fixtures/servers/modern-server.mjs")]},
        "strict": {"command": "node", "args": [support::edge()], "env": {"EDGE_FAULT": "strict-initialize"}},
    }));
    let data = tempfile::tempdir().unwrap();
    let evidence = |supervisor: &Supervisor| {
        let mut seen: Vec<(String, String)> = supervisor
            .statuses()
            .into_iter()
            .map(|event| match event.status {
                ServerStatus::Connected(info) => (event.server, info.era_evidence),
                other => (event.server, format!("{other:?}")),
            })
            .collect();
        seen.sort();
        seen
    };
    let catalog = Catalog::load(&world.locations);
    let first = Supervisor::new(world.locations.project.clone(), Settings::default());
    first.set_era_cache(EraCache::in_dir(data.path()));
    first.start(&catalog).await;
    assert_eq!(
        evidence(&first),
        [
            ("modern".into(), "server/discover → 2026-07-28".into()),
            (
                "strict".into(),
                "legacy: the server exited (status 2) on server/discover".into()
            ),
        ]
    );
    first.shutdown().await;

    let again = Supervisor::new(world.locations.project.clone(), Settings::default());
    again.set_era_cache(EraCache::in_dir(data.path()));
    again.start(&catalog).await;
    assert_eq!(
        evidence(&again),
        [
            (
                "modern".into(),
                "remembered: server/discover → 2026-07-28".into()
            ),
            (
                "strict".into(),
                "remembered: legacy: the server exited (status 2) on server/discover".into()
            ),
        ]
    );
    again.shutdown().await;
}

#[tokio::test]
async fn a_multi_round_call_is_answered_and_retried_with_the_servers_state() {
    use mcp_manager_connect::answer::FixedAnswer;
    let http = support::ModernHttp::start(&[]);
    let remote = ServerConfig::remote(TransportKind::Http, &http.url, vec![]);
    // Over stdio (our fast path) and HTTP (rmcp): both answer each round.
    for config in [support::modern_stdio(&[]), remote] {
        let connection = Connection::open_authorized(
            "s",
            &config,
            &std::env::temp_dir(),
            Limits::connect(Duration::from_secs(30)),
            StderrLog::default(),
            Arc::new(FixedAnswer(json!({"name": "Ada"}))),
            mcp_manager_connect::Roots::of(&["/srv/app".into()]),
            None,
        )
        .await
        .unwrap();
        let outcome = connection
            .call_tool(
                "deploy",
                json!({"env": "prod"}).as_object().cloned(),
                Some(Duration::from_secs(20)),
            )
            .await
            .unwrap();
        assert_eq!(
            outcome.result["content"][0]["text"], "deployed to prod by Ada, in file:///srv/app",
            "{config:?}"
        );
        assert_eq!(outcome.input_rounds.len(), 1, "one round of input");
        assert_eq!(
            outcome.input_rounds[0]["inputRequests"]["who"]["method"],
            "elicitation/create"
        );
        connection.shutdown().await;
    }
}
