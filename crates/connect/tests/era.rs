//! Both protocol eras against real servers: a server of the official TypeScript SDK 2.4 that
//! serves only 2026-07-28 (`legacy: 'reject'`, over stdio and streamable HTTP), server-everything
//! (the `initialize` era, answering `server/discover` with -32601), and a server of the
//! `initialize` era that exits on any request before it. Each connects without a setting, with
//! the evidence of its era; a remembered era is used without a probe and probed again when it
//! no longer holds; the entry's `protocol` key forces an era, with a clear error when wrong.
//!
//! The first start of a local server races an `initialize` start and a probe (`race.rs`): every
//! kind of real server is found out with what happened as evidence, all at once as the window
//! starts them: the Python SDK of spring 2025 (mcp-server-sqlite, silent on the probe), the
//! current Python SDK (mcp-server-time and mcp-server-git, both eras), npm's server-filesystem
//! (-32601), the SDK 2.4 server of 2026-07-28 only, a server that exits on the probe, and one
//! slow to start. A server that fails at start shows its stderr once; one that cannot run twice
//! at once still starts; a verdict survives an edit of the entry's `env`.

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
    open_logging(config, remembered, StderrLog::default()).await
}

/// [`open`], with the server's stderr into `stderr`.
async fn open_logging(
    config: &ServerConfig,
    remembered: Option<Era>,
    stderr: StderrLog,
) -> Result<Connection, String> {
    let limits = Limits {
        remembered,
        ..Limits::connect(Duration::from_secs(30))
    };
    Connection::open_authorized(
        "s",
        config,
        &std::env::temp_dir(),
        limits,
        stderr,
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

/// One of each kind of local server, and what its first start must find.
fn every_kind(scratch: &std::path::Path) -> Vec<(&'static str, ServerConfig, Era, String)> {
    let discover = "server/discover → 2026-07-28".to_string();
    let repository = scratch.join("repository");
    std::fs::create_dir_all(&repository).unwrap();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repository)
        .status()
        .unwrap();
    assert!(git.success());
    let db = scratch.join("notes.db").display().to_string();
    vec![
        (
            "sqlite of spring 2025",
            ServerConfig::stdio(
                support::python_server("spring-2025", "mcp-server-sqlite"),
                vec!["--db-path".into(), db],
                vec![],
            ),
            Era::Legacy,
            "legacy: no answer to server/discover within ".into(),
        ),
        (
            "time",
            ServerConfig::stdio(
                support::python_server("current", "mcp-server-time"),
                vec![],
                vec![],
            ),
            Era::Modern,
            discover.clone(),
        ),
        (
            "git",
            ServerConfig::stdio(
                support::python_server("current", "mcp-server-git"),
                vec!["--repository".into(), repository.display().to_string()],
                vec![],
            ),
            Era::Modern,
            discover.clone(),
        ),
        (
            "filesystem",
            support::filesystem_stdio(scratch),
            Era::Legacy,
            "legacy: -32601".into(),
        ),
        (
            "modern only",
            support::modern_stdio(&[]),
            Era::Modern,
            discover.clone(),
        ),
        (
            "exits on the probe",
            strict_legacy(),
            Era::Legacy,
            "legacy: the server exited (status 2) on server/discover".into(),
        ),
        (
            "slow to start",
            support::modern_stdio(&[("MODERN_START_MS", "3000")]),
            Era::Modern,
            discover,
        ),
    ]
}

#[tokio::test]
async fn every_kind_of_local_server_is_found_out_on_its_first_start_all_at_once() {
    let scratch = tempfile::tempdir().unwrap();
    let kinds = every_kind(scratch.path());
    let opened = futures::future::join_all(kinds.iter().map(|(_, config, _, _)| async move {
        let began = std::time::Instant::now();
        (open(config, None).await, began.elapsed())
    }))
    .await;
    for ((name, _, era, evidence), (connection, took)) in kinds.iter().zip(opened) {
        let connection = connection.unwrap_or_else(|err| panic!("{name}: {err}"));
        let info = connection.info();
        assert_eq!(info.era, *era, "{name}: {}", info.era_evidence);
        assert!(
            info.era_evidence.starts_with(evidence.as_str()),
            "{name}: {:?} is not {evidence:?}",
            info.era_evidence
        );
        assert!(
            !support::tool_names(&connection).await.is_empty(),
            "{name}: its tools are listed"
        );
        if *name == "slow to start" {
            assert!(took >= Duration::from_secs(3), "{name} took {took:?}");
        }
        connection.shutdown().await;
    }
}

#[tokio::test]
async fn a_server_that_fails_at_start_shows_its_stderr_once() {
    let world = support::World::with_servers(json!({
        "broken": {"command": "node", "args": [support::edge()], "env": {"EDGE_FAULT": "exit"}},
    }));
    let supervisor = Supervisor::new(world.locations.project.clone(), Settings::default());
    supervisor.start(&Catalog::load(&world.locations)).await;
    let status = supervisor.statuses().remove(0).status;
    let ServerStatus::Failed { error: message } = status else {
        panic!("{status:?}")
    };
    assert_eq!(
        message.matches("EDGE_API_KEY is not set").count(),
        1,
        "{message}"
    );
    assert_eq!(
        supervisor.stderr("broken").unwrap().lines(),
        ["edge-server: EDGE_API_KEY is not set"]
    );
    supervisor.shutdown().await;
}

#[tokio::test]
async fn a_server_that_works_a_while_before_it_fails_is_not_started_again() {
    // Each of the two processes works for its own random time before it fails, so the probe's
    // often fails long after the `initialize` one: it is waited for while it works, and the
    // failure is the server's, told once (it was started a third time when the probe was given
    // a fixed 100 ms).
    for _ in 0..6 {
        let config = ServerConfig::stdio(
            "node",
            vec![support::edge()],
            vec![
                ("EDGE_FAULT".into(), "exit".into()),
                ("EDGE_WORK_MS".into(), "700".into()),
            ],
        );
        let stderr = StderrLog::default();
        let failure = open_logging(&config, None, stderr.clone())
            .await
            .expect_err("it fails");
        assert_eq!(
            failure.matches("EDGE_API_KEY is not set").count(),
            1,
            "{failure}"
        );
        assert_eq!(stderr.lines(), ["edge-server: EDGE_API_KEY is not set"]);
    }
}

#[tokio::test]
async fn a_server_that_cannot_run_twice_at_once_still_starts() {
    // Whichever of the two starts takes the port, the session opens: when the `initialize`
    // one lost, it is started again alone, after a line that says so.
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..6 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
            .to_string();
        let config = ServerConfig::stdio(
            "node",
            vec![support::edge()],
            vec![
                ("EDGE_FAULT".into(), "single".into()),
                ("EDGE_PORT".into(), port),
            ],
        );
        let stderr = StderrLog::default();
        let connection = open_logging(&config, None, stderr.clone()).await.unwrap();
        let evidence = connection.info().era_evidence.clone();
        assert_eq!(connection.info().era, Era::Legacy, "{evidence}");
        let lines = stderr.lines();
        let taken = lines.iter().filter(|l| l.contains("is taken")).count();
        if evidence.ends_with("; started again alone") {
            assert_eq!(taken, 1, "{lines:?}");
            assert!(lines.iter().any(|l| l.contains("started again, alone")));
        } else {
            // The probe's start lost the port (its stderr is not the server's) or answered.
            assert!(
                [
                    "legacy: -32601",
                    "legacy: the server exited (status 4) on server/discover"
                ]
                .contains(&evidence.as_str()),
                "{evidence}"
            );
            assert_eq!(taken, 0, "{lines:?}");
        }
        assert!(!support::tool_names(&connection).await.is_empty());
        connection.shutdown().await;
        seen.insert(evidence);
    }
    eprintln!("single: {seen:?}");
}

#[tokio::test]
async fn a_verdict_survives_an_edit_of_env_and_not_of_the_command_line() {
    let data = tempfile::tempdir().unwrap();
    let evidence_of = |servers: serde_json::Value| {
        let data = data.path().to_path_buf();
        async move {
            let world = support::World::with_servers(servers);
            let supervisor = Supervisor::new(world.locations.project.clone(), Settings::default());
            supervisor.set_era_cache(EraCache::in_dir(&data));
            supervisor.start(&Catalog::load(&world.locations)).await;
            let status = supervisor.statuses().remove(0).status;
            supervisor.shutdown().await;
            match status {
                ServerStatus::Connected(info) => info.era_evidence,
                other => panic!("{other:?}"),
            }
        }
    };
    let modern = support::repo("tests/fixtures/servers/modern-server.mjs");
    let first = evidence_of(json!({"m": {"command": "node", "args": [modern]}})).await;
    assert_eq!(first, "server/discover → 2026-07-28");
    let edited = evidence_of(json!({"m": {"command": "node", "args": [modern],
        "env": {"MODERN_TOOLS_TTL_MS": "5000"}, "timeout": 20000}}))
    .await;
    assert_eq!(edited, "remembered: server/discover → 2026-07-28");
    let moved = evidence_of(json!({"m": {"command": "node", "args": [modern, "--marker"]}})).await;
    assert_eq!(
        moved, "server/discover → 2026-07-28",
        "a new command line is probed"
    );
}
