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
use mcp_manager_connect::protocol_log::{Direction, ProtocolLog};
use mcp_manager_connect::stderr::StderrLog;
use mcp_manager_connect::{
    ConnectedInfo, Connection, Limits, ServerLogs, ServerStatus, Settings, Supervisor,
};
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

/// [`open`], with the server's stderr (and protocol log) into `logs`.
async fn open_logging(
    config: &ServerConfig,
    remembered: Option<Era>,
    logs: impl Into<ServerLogs>,
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
        logs,
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
    // Over stdio `initialize` comes first and is refused with -32022; the same process is then
    // sent server/discover. Over HTTP the probe is server/discover itself.
    for (config, evidence) in [
        (
            support::modern_stdio(&[]),
            "initialize → -32022, then 2026-07-28",
        ),
        (remote, "server/discover → 2026-07-28"),
    ] {
        let log = ProtocolLog::default();
        let logs = ServerLogs {
            stderr: StderrLog::default(),
            protocol: Some(log.clone()),
        };
        let connection = open_logging(&config, None, logs).await.unwrap();
        let info = connection.info();
        assert_eq!(
            (
                info.era,
                info.era_evidence.as_str(),
                info.protocol_version.as_str()
            ),
            (Era::Modern, evidence, "2026-07-28"),
            "{config:?}"
        );
        if evidence.starts_with("initialize") {
            // One process: its log holds both requests, the refusal and the result.
            let sent: Vec<(Direction, String)> = log
                .entries(0)
                .into_iter()
                .map(|m| (m.direction, m.method.unwrap_or_default()))
                .take(4)
                .collect();
            assert_eq!(
                sent,
                [
                    (Direction::Out, "initialize".to_string()),
                    (Direction::In, "initialize".to_string()),
                    (Direction::Out, "server/discover".to_string()),
                    (Direction::In, "server/discover".to_string()),
                ]
            );
            assert!(log.entries(0)[1].text.contains("-32022"));
        }
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
async fn servers_of_the_initialize_era_open_on_initialize_whatever_a_probe_would_do_to_them() {
    // server-everything answers a server/discover first with -32601; the strict server exits on
    // it. Neither is sent one: `initialize` comes first.
    for config in [support::everything_stdio(), strict_legacy()] {
        let stderr = StderrLog::default();
        let connection = open_logging(&config, None, stderr.clone()).await.unwrap();
        let evidence = connection.info().era_evidence.clone();
        assert_eq!(connection.info().era, Era::Legacy, "{evidence}");
        assert!(
            evidence.starts_with("legacy: initialize answered in ") && evidence.ends_with(" ms"),
            "{evidence}"
        );
        assert!(!support::tool_names(&connection).await.is_empty());
        assert!(
            !stderr
                .lines()
                .iter()
                .any(|l| l.contains("before initialize")),
            "{:?}",
            stderr.lines()
        );
        connection.shutdown().await;
    }
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
        (Era::Legacy, "legacy: -32601"),
        "the failed server/discover is the evidence"
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
    let said = evidence(&first);
    assert_eq!(
        said[0],
        (
            "modern".into(),
            "initialize → -32022, then 2026-07-28".into()
        )
    );
    assert!(
        said[1].1.starts_with("legacy: initialize answered in "),
        "{said:?}"
    );
    // What server/discover asked beside the strict server's session finds is kept.
    first.eras_found().await;
    assert!(first.finding_eras().is_empty());
    first.shutdown().await;

    let again = Supervisor::new(world.locations.project.clone(), Settings::default());
    again.set_era_cache(EraCache::in_dir(data.path()));
    again.start(&catalog).await;
    assert_eq!(
        evidence(&again),
        [
            (
                "modern".into(),
                "remembered: initialize → -32022, then 2026-07-28".into()
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

/// One of each kind of local server: its name, its entry, what its first start finds (era and
/// evidence) and what the question asked beside it settles for the next start.
struct Kind {
    name: &'static str,
    config: ServerConfig,
    first: (Era, &'static str),
    settled: (Era, &'static str),
}

fn every_kind(scratch: &std::path::Path) -> Vec<Kind> {
    const ANSWERED: &str = "legacy: initialize answered in ";
    const REFUSED: &str = "initialize → -32022, then 2026-07-28";
    const DISCOVER: &str = "server/discover → 2026-07-28";
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
        Kind {
            name: "sqlite-of-spring-2025",
            config: ServerConfig::stdio(
                support::python_server("spring-2025", "mcp-server-sqlite"),
                vec!["--db-path".into(), db],
                vec![],
            ),
            first: (Era::Legacy, ANSWERED),
            settled: (Era::Legacy, "legacy: no answer to server/discover within "),
        },
        Kind {
            name: "time",
            config: ServerConfig::stdio(
                support::python_server("current", "mcp-server-time"),
                vec![],
                vec![],
            ),
            first: (Era::Legacy, ANSWERED),
            settled: (Era::Modern, DISCOVER),
        },
        Kind {
            name: "git",
            config: ServerConfig::stdio(
                support::python_server("current", "mcp-server-git"),
                vec!["--repository".into(), repository.display().to_string()],
                vec![],
            ),
            first: (Era::Legacy, ANSWERED),
            settled: (Era::Modern, DISCOVER),
        },
        Kind {
            name: "filesystem",
            config: support::filesystem_stdio(scratch),
            first: (Era::Legacy, ANSWERED),
            settled: (Era::Legacy, "legacy: -32601"),
        },
        Kind {
            name: "modern-only",
            config: support::modern_stdio(&[]),
            first: (Era::Modern, REFUSED),
            settled: (Era::Modern, REFUSED),
        },
        Kind {
            name: "exits-on-the-probe",
            config: strict_legacy(),
            first: (Era::Legacy, ANSWERED),
            settled: (
                Era::Legacy,
                "legacy: the server exited (status 2) on server/discover",
            ),
        },
        Kind {
            name: "slow-to-start",
            // Another command line than modern-only's (an argument it ignores): the verdict is
            // its own.
            config: ServerConfig::stdio(
                "node",
                vec![
                    support::repo("tests/fixtures/servers/modern-server.mjs")
                        .display()
                        .to_string(),
                    "--slow".into(),
                ],
                vec![("MODERN_START_MS".into(), "3000".into())],
            ),
            first: (Era::Modern, REFUSED),
            settled: (Era::Modern, REFUSED),
        },
    ]
}

/// Checks an era and its evidence against what was expected: the era, and how the evidence
/// begins.
fn assert_found(name: &str, era: Era, evidence: &str, expected: (Era, &str)) {
    assert_eq!(era, expected.0, "{name}: {evidence}");
    assert!(
        evidence.starts_with(expected.1),
        "{name}: {evidence:?} is not {:?}",
        expected.1
    );
}

/// Each server's connected facts, by name; panics on one that did not connect.
fn connected(supervisor: &Supervisor) -> std::collections::BTreeMap<String, ConnectedInfo> {
    supervisor
        .statuses()
        .into_iter()
        .map(|event| match event.status {
            ServerStatus::Connected(info) => (event.server, *info),
            other => panic!("{}: {other:?}", event.server),
        })
        .collect()
}

#[tokio::test]
async fn every_kind_of_local_server_starts_on_initialize_and_is_found_out_beside_its_session() {
    let scratch = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let kinds = every_kind(scratch.path());
    let world = support::World::with_servers(serde_json::Value::Object(
        kinds
            .iter()
            .map(|kind| {
                (
                    kind.name.to_string(),
                    kind.config.to_json(&Default::default()),
                )
            })
            .collect(),
    ));
    let catalog = Catalog::load(&world.locations);
    let first = Supervisor::new(world.locations.project.clone(), Settings::default());
    let eras = EraCache::in_dir(data.path());
    first.set_era_cache(eras.clone());
    let mut events = first.subscribe();
    first.start(&catalog).await;
    // Every session each server had, in order, as the window hears them.
    let mut sessions: std::collections::BTreeMap<String, Vec<ConnectedInfo>> = Default::default();
    let switching = |kind: &Kind| kind.first.0 != kind.settled.0;
    let waited = std::time::Instant::now();
    loop {
        while let Ok(event) = events.try_recv() {
            // A session's facts may be told again (its counts, its listening): one per session.
            if let ServerStatus::Connected(info) = event.status {
                let seen = sessions.entry(event.server).or_default();
                if seen.last().map(|last| &last.era_evidence) != Some(&info.era_evidence) {
                    seen.push(*info);
                }
            }
        }
        let done = kinds.iter().all(|kind| {
            let seen = sessions.get(kind.name).map_or(0, Vec::len);
            seen >= if switching(kind) { 2 } else { 1 }
        });
        if done {
            break;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "sessions so far: {sessions:#?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for kind in &kinds {
        let opened = &sessions[kind.name];
        let info = &opened[0];
        assert_found(kind.name, info.era, &info.era_evidence, kind.first);
        if kind.first.1.starts_with("legacy") {
            assert!(
                info.era_evidence
                    .ends_with("; server/discover is asked beside it, for the next start"),
                "{}: {}",
                kind.name,
                info.era_evidence
            );
        }
        if switching(kind) {
            // A dual-era server: a session of 2026-07-28 takes the first one's place.
            let now = opened.last().unwrap();
            assert_eq!(now.era, Era::Modern, "{}: {}", kind.name, now.era_evidence);
            assert_eq!(
                now.era_evidence,
                "server/discover → 2026-07-28; this session took the place of the one opened with initialize",
                "{}",
                kind.name
            );
            assert!(first
                .stderr(kind.name)
                .unwrap()
                .lines()
                .iter()
                .any(|line| line.contains("a session in that era takes that one's place")));
        } else {
            assert_eq!(opened.len(), 1, "{}: {opened:#?}", kind.name);
        }
        assert!(
            !support::tool_names(&first.connection(kind.name).unwrap())
                .await
                .is_empty(),
            "{}: its tools are listed",
            kind.name
        );
    }
    // What was asked beside each session settles, while the sessions run.
    let settled = |kind: &Kind| eras.get(&kind.config.program_hash());
    let waited = std::time::Instant::now();
    while kinds.iter().any(|kind| settled(kind).is_none()) {
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "unsettled: {:?}",
            kinds
                .iter()
                .filter(|kind| settled(kind).is_none())
                .map(|kind| kind.name)
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for kind in &kinds {
        let verdict = settled(kind).unwrap();
        assert_found(kind.name, verdict.era, &verdict.evidence, kind.settled);
    }
    // Its stderr stays its own: the server's log holds only what its session's process said.
    assert!(
        first
            .stderr("exits-on-the-probe")
            .unwrap()
            .lines()
            .is_empty(),
        "{:?}",
        first.stderr("exits-on-the-probe").unwrap().lines()
    );
    first.shutdown().await;

    // The next start opens each in the era settled, dual-era servers in 2026-07-28.
    let again = Supervisor::new(world.locations.project.clone(), Settings::default());
    again.set_era_cache(EraCache::in_dir(data.path()));
    again.start(&catalog).await;
    let reopened = connected(&again);
    for kind in &kinds {
        let info = &reopened[kind.name];
        let remembered = format!("remembered: {}", kind.settled.1);
        assert_found(
            kind.name,
            info.era,
            &info.era_evidence,
            (kind.settled.0, &remembered),
        );
        assert!(
            !support::tool_names(&again.connection(kind.name).unwrap())
                .await
                .is_empty(),
            "{}: its tools are listed",
            kind.name
        );
    }
    again.shutdown().await;
}

#[tokio::test]
async fn without_a_memory_of_eras_nothing_is_asked_beside_and_nothing_is_kept() {
    // mcpctl's way: its command ends before an answer could come, so none is asked for.
    let world = support::World::with_servers(json!({
        "strict": {"command": "node", "args": [support::edge()], "env": {"EDGE_FAULT": "strict-initialize"}},
    }));
    let data = tempfile::tempdir().unwrap();
    let settings = Settings {
        ask_era_beside: false,
        ..Settings::default()
    };
    let supervisor = Supervisor::new(world.locations.project.clone(), settings);
    supervisor.set_era_cache(EraCache::in_dir(data.path()));
    supervisor.start(&Catalog::load(&world.locations)).await;
    let info = connected(&supervisor).remove("strict").unwrap();
    assert_eq!(info.era, Era::Legacy);
    assert!(
        info.era_evidence
            .starts_with("legacy: initialize answered in ")
            && info.era_evidence.ends_with(" ms"),
        "{}",
        info.era_evidence
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !data
            .path()
            .join(mcp_manager_connect::era::FILE_NAME)
            .exists(),
        "no verdict is kept"
    );
    supervisor.shutdown().await;
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
async fn a_server_that_cannot_run_twice_at_once_runs_once_and_its_session_opens() {
    // It takes a port: its session's process has it, and the process asked beside (started
    // after) finds it taken. That failure is not the server's: its log does not show it, and
    // the verdict is the era before, which it speaks.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let world = support::World::with_servers(json!({
        "single": {"command": "node", "args": [support::edge()],
                   "env": {"EDGE_FAULT": "single", "EDGE_PORT": port}},
    }));
    let data = tempfile::tempdir().unwrap();
    let supervisor = Supervisor::new(world.locations.project.clone(), Settings::default());
    let eras = EraCache::in_dir(data.path());
    supervisor.set_era_cache(eras.clone());
    let catalog = Catalog::load(&world.locations);
    supervisor.start(&catalog).await;
    let info = connected(&supervisor).remove("single").unwrap();
    assert_eq!(info.era, Era::Legacy, "{}", info.era_evidence);
    let hash = catalog.entries[0].config.program_hash();
    let waited = std::time::Instant::now();
    let verdict = loop {
        if let Some(verdict) = eras.get(&hash) {
            break verdict;
        }
        assert!(waited.elapsed() < Duration::from_secs(30), "no verdict");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        (verdict.era, verdict.evidence.as_str()),
        (
            Era::Legacy,
            "legacy: the server exited (status 4) on server/discover"
        )
    );
    let lines = supervisor.stderr("single").unwrap().lines();
    assert!(!lines.iter().any(|l| l.contains("is taken")), "{lines:?}");
    assert!(
        !support::tool_names(&supervisor.connection("single").unwrap())
            .await
            .is_empty()
    );
    supervisor.shutdown().await;
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
    assert_eq!(first, "initialize → -32022, then 2026-07-28");
    let edited = evidence_of(json!({"m": {"command": "node", "args": [modern],
        "env": {"MODERN_TOOLS_TTL_MS": "5000"}, "timeout": 20000}}))
    .await;
    assert_eq!(edited, "remembered: initialize → -32022, then 2026-07-28");
    let moved = evidence_of(json!({"m": {"command": "node", "args": [modern, "--marker"]}})).await;
    assert_eq!(
        moved, "initialize → -32022, then 2026-07-28",
        "a new command line is probed"
    );
}
