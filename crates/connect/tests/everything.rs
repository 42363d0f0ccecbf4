//! Against the real reference server, `@modelcontextprotocol/server-everything` from npm, run
//! with `node` (installed in tests/reference by `scripts/setup test`).

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_manager_connect::stderr::StderrLog;
use mcp_manager_connect::{Connection, Limits, ServerStatus, Settings, Supervisor};
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::Locations;
use serde_json::json;

fn everything() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        path.exists(),
        "server-everything is not installed: run `scripts/setup test`"
    );
    path.canonicalize().unwrap()
}

fn alive(pid: u32) -> bool {
    // Signal 0 asks whether the process exists.
    std::process::Command::new("kill")
        .arg("-0")
        .arg(pid.to_string())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| s.contains(") Z "))
            .unwrap_or(true)
}

#[tokio::test]
async fn stdio_session_lists_tools_calls_echo_and_leaves_no_process() {
    let project = tempfile::tempdir().unwrap();
    let config = support::everything_stdio();
    let connection = Connection::open(
        &config,
        project.path(),
        Duration::from_secs(30),
        StderrLog::default(),
    )
    .await
    .expect("server-everything starts");
    assert_eq!(connection.info().server_name, "mcp-servers/everything");
    assert!(connection.info().capabilities.tools);
    let tools = connection.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(
        names.contains(&"echo") && names.contains(&"get-sum"),
        "tools: {names:?}"
    );
    let echo = tools.iter().find(|t| t.name == "echo").unwrap();
    assert_eq!(echo.input_schema["type"], "object");

    let outcome = connection
        .call_tool(
            "echo",
            Some(json!({"message": "hello"}).as_object().unwrap().clone()),
            None,
        )
        .await
        .unwrap();
    assert!(!outcome.is_error);
    assert_eq!(outcome.result["content"][0]["text"], "Echo: hello");

    let pid = connection.pid().expect("a local server has a pid");
    assert!(alive(pid));
    connection.shutdown().await;
    assert!(!alive(pid), "the server process is gone after shutdown");
}

#[tokio::test]
async fn supervisor_reports_each_servers_sequence_of_states() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = root.join("home");
    let project = root.join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let everything = everything().display().to_string();
    std::fs::write(
        home.join(".claude.json"),
        json!({
            "mcpServers": {
                "everything": {"command": "node", "args": [everything, "stdio"]},
                "crashes": {"command": "sh", "args": ["-c", "echo 'fatal: missing API key' >&2; exit 3"]},
                "switched-off": {"command": "node", "args": ["x.js"]}
            },
            "projects": {project.display().to_string(): {"disabledMcpServers": ["switched-off"]}}
        })
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        json!({"mcpServers": {"unapproved": {"command": "node", "args": ["y.js"]}}}).to_string(),
    )
    .unwrap();
    let mut locations = Locations::new(home.clone(), None, &project).unwrap();
    locations.managed_dir = home.join("managed");
    let catalog = Catalog::load(&locations);

    let supervisor = Supervisor::new(project.clone(), Settings::default());
    let mut events = supervisor.subscribe();
    supervisor.start(&catalog).await;
    let mut seen: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    while let Ok(event) = events.try_recv() {
        seen.entry(event.server)
            .or_default()
            .push(event.status.label().to_string());
    }
    let expect = |labels: &[&str]| labels.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(seen["everything"], expect(&["pending", "connected"]));
    assert_eq!(seen["crashes"], expect(&["pending", "failed"]));
    assert_eq!(
        seen["switched-off"],
        expect(&["disabled"]),
        "a disabled server never spawns"
    );
    assert_eq!(
        seen["unapproved"],
        expect(&["disabled"]),
        "an unapproved project server never spawns"
    );

    let statuses = supervisor.statuses();
    let crashed = statuses.iter().find(|s| s.server == "crashes").unwrap();
    match &crashed.status {
        ServerStatus::Failed { error } => assert!(
            error.contains("exited before initialize") && error.contains("fatal: missing API key"),
            "the stderr tail explains the failure: {error}"
        ),
        other => panic!("crashes: {other:?}"),
    }
    let connected = statuses.iter().find(|s| s.server == "everything").unwrap();
    match &connected.status {
        ServerStatus::Connected(info) => {
            let counts = info.counts;
            assert!(
                counts.tools.is_some_and(|n| n > 0)
                    && counts.resources.is_some_and(|n| n > 0)
                    && counts.prompts.is_some_and(|n| n > 0),
                "the connected status counts what server-everything lists: {counts:?}"
            );
        }
        other => panic!("everything: {other:?}"),
    }
    let pid = supervisor.connection("everything").unwrap().pid().unwrap();
    supervisor.shutdown().await;
    assert!(!alive(pid), "no server process survives shutdown");
}

#[tokio::test]
async fn reconcile_restarts_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = root.join("home");
    let project = root.join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let edge = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/servers/edge-server.mjs")
        .canonicalize()
        .unwrap()
        .display()
        .to_string();
    let write = |servers: serde_json::Value| {
        std::fs::write(
            home.join(".claude.json"),
            json!({"mcpServers": servers}).to_string(),
        )
        .unwrap()
    };
    write(json!({
        "removed": {"command": "node", "args": [edge, "removed"]},
        "changed": {"command": "node", "args": [edge, "v1"]},
        "kept": {"command": "node", "args": [edge, "kept"], "alwaysLoad": false}
    }));
    let mut locations = Locations::new(home.clone(), None, &project).unwrap();
    locations.managed_dir = home.join("managed");
    let supervisor = Supervisor::new(project.clone(), Settings::default());
    supervisor.start(&Catalog::load(&locations)).await;
    let pid = |name: &str| supervisor.connection(name).and_then(|c| c.pid());
    let (removed, changed, kept) = (
        pid("removed").unwrap(),
        pid("changed").unwrap(),
        pid("kept").unwrap(),
    );

    write(json!({
        "changed": {"command": "node", "args": [edge, "v2"]},
        "kept": {"command": "node", "args": [edge, "kept"], "alwaysLoad": true},
        "added": {"command": "node", "args": [edge, "added"]}
    }));
    let outcome = supervisor.reconcile(&Catalog::load(&locations)).await;
    assert_eq!(outcome.stopped, ["removed"]);
    assert_eq!(outcome.restarted, ["changed"]);
    assert_eq!(outcome.started, ["added"]);
    assert_eq!(
        pid("kept"),
        Some(kept),
        "alwaysLoad does not change the connection: same process"
    );
    assert_ne!(
        pid("changed"),
        Some(changed),
        "a changed server runs a new process"
    );
    assert!(pid("added").is_some());
    assert!(!alive(removed), "a removed server's process is gone");
    assert!(
        !alive(changed),
        "the old process of a changed server is gone"
    );
    supervisor.shutdown().await;
}

#[tokio::test]
async fn progress_notifications_reach_the_caller() {
    let config = support::everything_stdio();
    let connection = support::open(&config).await.unwrap();
    let (sink, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let outcome = connection
        .call_tool_with_progress(
            "trigger-long-running-operation",
            Some(
                json!({"duration": 1, "steps": 4})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            None,
            Some(sink),
        )
        .await
        .unwrap();
    assert!(outcome.result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Steps: 4"));
    let mut steps = Vec::new();
    while let Ok(p) = progress.try_recv() {
        steps.push((p.progress, p.total));
    }
    assert_eq!(
        steps,
        [
            (1.0, Some(4.0)),
            (2.0, Some(4.0)),
            (3.0, Some(4.0)),
            (4.0, Some(4.0))
        ]
    );
    connection.shutdown().await;
}

#[tokio::test]
async fn completion_subscription_and_log_level() {
    let config = support::everything_stdio();
    let connection = support::open(&config).await.unwrap();
    let prompt = json!({"type": "ref/prompt", "name": "completable-prompt"});
    let values = connection
        .complete(prompt.clone(), "department", "S", None)
        .await
        .unwrap();
    assert_eq!(values, ["Sales", "Support"]);
    let context = json!({"department": "Engineering"})
        .as_object()
        .unwrap()
        .clone();
    let names = connection
        .complete(prompt, "name", "", Some(context))
        .await
        .unwrap();
    assert!(
        !names.is_empty(),
        "names depend on the department given as context"
    );
    connection
        .subscribe("demo://resource/static/document/architecture.md")
        .await
        .unwrap();
    connection.set_log_level("debug").await.unwrap();
    let err = connection.set_log_level("loud").await.unwrap_err();
    assert!(
        err.to_string().contains("loud") || err.to_string().contains("variant"),
        "{err}"
    );
    connection.shutdown().await;
}

#[tokio::test]
async fn elicitation_is_answered_by_the_answerer_and_sampling_is_declined_clearly() {
    use mcp_manager_connect::answer::{Decline, FixedAnswer, SAMPLING_DECLINED};
    use std::sync::Arc;

    let config = support::everything_stdio();
    let open = |answerer: Arc<dyn mcp_manager_connect::answer::Answerer>| {
        let config = config.clone();
        async move {
            Connection::open_with(
                "everything",
                &config,
                &std::env::temp_dir(),
                Limits::connect(Duration::from_secs(30)),
                StderrLog::default(),
                answerer,
            )
            .await
            .unwrap()
        }
    };
    let text = |outcome: &mcp_manager_connect::CallOutcome| {
        outcome.result["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };

    let accepting = open(Arc::new(FixedAnswer(
        json!({"name": "Ada Lovelace", "check": true}),
    )))
    .await;
    let outcome = accepting
        .call_tool(
            "trigger-elicitation-request",
            None,
            Some(Duration::from_secs(30)),
        )
        .await
        .unwrap();
    let shown = text(&outcome);
    assert!(
        shown.contains("User provided the requested information") && shown.contains("Ada Lovelace"),
        "{shown}"
    );
    let sampled = accepting
        .call_tool(
            "trigger-sampling-request",
            Some(
                json!({"prompt": "hi", "maxTokens": 5})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            Some(Duration::from_secs(30)),
        )
        .await;
    let said = match &sampled {
        Ok(outcome) => format!("{}", outcome.result),
        Err(err) => err.to_string(),
    };
    assert!(
        said.contains(SAMPLING_DECLINED),
        "the server hears why: {said}"
    );
    accepting.shutdown().await;

    let declining = open(Arc::new(Decline)).await;
    let outcome = declining
        .call_tool(
            "trigger-elicitation-request",
            None,
            Some(Duration::from_secs(30)),
        )
        .await
        .unwrap();
    assert!(
        text(&outcome).contains("User declined"),
        "{}",
        text(&outcome)
    );
    declining.shutdown().await;
}

#[tokio::test]
async fn url_elicitation_required_is_answered_then_the_call_is_retried() {
    use mcp_manager_connect::answer::{Answer, Answerer, Decline};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Accepts, and remembers which URLs it was sent to.
    #[derive(Default)]
    struct Visitor(std::sync::Mutex<Vec<String>>, AtomicUsize);
    impl Answerer for Visitor {
        fn elicit<'a>(
            &'a self,
            _server: &'a str,
            request: serde_json::Value,
        ) -> Answer<'a, serde_json::Value> {
            self.1.fetch_add(1, Ordering::SeqCst);
            self.0
                .lock()
                .unwrap()
                .push(request["url"].as_str().unwrap_or_default().to_string());
            Box::pin(async { json!({"action": "accept"}) })
        }
    }

    let config = support::everything_stdio();
    let visitor = Arc::new(Visitor::default());
    let connection = Connection::open_with(
        "everything",
        &config,
        &std::env::temp_dir(),
        Limits::connect(Duration::from_secs(30)),
        StderrLog::default(),
        visitor.clone(),
    )
    .await
    .unwrap();
    let args = json!({"url": "https://example.com/authorize", "errorPath": true})
        .as_object()
        .unwrap()
        .clone();
    let outcome = connection
        .call_tool(
            "trigger-url-elicitation",
            Some(args.clone()),
            Some(Duration::from_secs(30)),
        )
        .await
        .unwrap();
    assert!(!outcome.is_error, "{}", outcome.result);
    let visited = visitor.0.lock().unwrap().clone();
    assert_eq!(
        visited,
        [
            "https://modelcontextprotocol.io",
            "https://example.com/authorize"
        ],
        "first the prerequisite from the -32042 error, then the call's own URL on the retry"
    );
    connection.shutdown().await;

    let declining = Connection::open_with(
        "everything",
        &config,
        &std::env::temp_dir(),
        Limits::connect(Duration::from_secs(30)),
        StderrLog::default(),
        Arc::new(Decline),
    )
    .await
    .unwrap();
    let err = declining
        .call_tool(
            "trigger-url-elicitation",
            Some(args),
            Some(Duration::from_secs(30)),
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("-32042")
            || err.to_string().contains("browser-based authorization"),
        "{err}"
    );
    declining.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_calls_at_once_each_get_their_own_answer() {
    // Tool calls (written to the pipe by their callers) and lists (through rmcp) interleave
    // on one session; every answer must reach the caller that asked.
    let config = support::everything_stdio();
    let connection = std::sync::Arc::new(support::open(&config).await.unwrap());
    let calls = (0..200).map(|n| {
        let connection = std::sync::Arc::clone(&connection);
        tokio::spawn(async move {
            if n % 20 == 0 {
                let tools = connection.list_tools().await.unwrap();
                return (n, format!("{} tools", tools.len()));
            }
            let message = format!("message {n}");
            let outcome = connection
                .call_tool(
                    "echo",
                    Some(json!({ "message": message }).as_object().unwrap().clone()),
                    None,
                )
                .await
                .unwrap();
            (
                n,
                outcome.result["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
    });
    let answers = futures::future::join_all(calls).await;
    for answer in answers {
        let (n, text) = answer.unwrap();
        if n % 20 == 0 {
            assert!(text.ends_with(" tools") && text != "0 tools", "{text}");
        } else {
            assert_eq!(text, format!("Echo: message {n}"));
        }
    }
    std::sync::Arc::try_unwrap(connection)
        .unwrap()
        .shutdown()
        .await;
}

#[tokio::test]
async fn roots_are_the_project_until_set_and_every_session_hears_of_a_change() {
    use mcp_manager_connect::{Settings, Supervisor};
    use mcp_manager_core::config::catalog::Catalog;

    let world = support::World::with_servers(json!({
        "everything": {"command": "node", "args": [everything().display().to_string(), "stdio"]}
    }));
    let supervisor = Supervisor::new(world.locations.project.clone(), Settings::default());
    supervisor.start(&Catalog::load(&world.locations)).await;
    let connection = supervisor.connection("everything").expect("connected");
    // server-everything asks for the roots after initialize and on list_changed, and shows
    // what it last got.
    let roots_seen = || async {
        let outcome = connection
            .call_tool("get-roots-list", None, None)
            .await
            .unwrap();
        outcome.result["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let project = world.locations.project.display().to_string();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !roots_seen().await.contains(&project) {
        assert!(Instant::now() < deadline, "{}", roots_seen().await);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let other = tempfile::tempdir().unwrap();
    let folders = [
        world.locations.project.join("src"),
        other.path().join("with space"),
    ];
    supervisor.set_roots(&folders).await;
    assert_eq!(
        supervisor.roots(),
        [
            format!("file://{}/src", world.locations.project.display()),
            format!("file://{}/with%20space", other.path().display()),
        ]
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let seen = roots_seen().await;
        if seen.contains("with%20space") && seen.contains(&format!("{project}/src")) {
            assert!(seen.contains("(2 total)"), "{seen}");
            break;
        }
        assert!(Instant::now() < deadline, "the server asked again: {seen}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    supervisor.shutdown().await;
}

#[tokio::test]
async fn the_person_answers_elicitation_and_sampling_through_asks() {
    use mcp_manager_connect::asks::{AskKind, Asks, Reply};
    use std::sync::Arc;

    let asks = Asks::new();
    let connection = Arc::new(
        Connection::open_with(
            "everything",
            &support::everything_stdio(),
            &std::env::temp_dir(),
            Limits::connect(Duration::from_secs(30)),
            StderrLog::default(),
            Arc::new(asks.clone()),
        )
        .await
        .unwrap(),
    );
    let call = |tool: &'static str, arguments: serde_json::Value| {
        let connection = Arc::clone(&connection);
        tokio::spawn(async move {
            connection
                .call_tool(
                    tool,
                    arguments.as_object().cloned(),
                    Some(Duration::from_secs(30)),
                )
                .await
                .map(|outcome| outcome.result.to_string())
                .unwrap_or_else(|err| err.to_string())
        })
    };
    let next_ask = || async {
        let mut changes = asks.changes();
        loop {
            if let Some(ask) = asks.pending().into_iter().next() {
                return ask;
            }
            tokio::time::timeout(Duration::from_secs(20), changes.recv())
                .await
                .expect("the server asks")
                .unwrap();
        }
    };

    let elicited = call("trigger-elicitation-request", json!({}));
    let ask = next_ask().await;
    assert_eq!(
        (ask.kind, ask.server.as_str()),
        (AskKind::Form, "everything")
    );
    let request: serde_json::Value = serde_json::from_str(&ask.request).unwrap();
    assert!(
        request["requestedSchema"]["properties"]["name"].is_object(),
        "{request}"
    );
    asks.answer(
        ask.id,
        Reply::Accept {
            content: json!({"name": "Grace Hopper", "check": true}).to_string(),
        },
    )
    .unwrap();
    let said = elicited.await.unwrap();
    assert!(said.contains("Grace Hopper"), "{said}");
    assert!(asks.pending().is_empty());

    let sampled = call(
        "trigger-sampling-request",
        json!({"prompt": "capital of France?", "maxTokens": 20}),
    );
    let ask = next_ask().await;
    assert_eq!(ask.kind, AskKind::Sampling);
    assert!(
        ask.request.contains("capital of France?"),
        "{}",
        ask.request
    );
    asks.answer(
        ask.id,
        Reply::Complete {
            text: "Paris, written by hand".into(),
            model: "a person".into(),
        },
    )
    .unwrap();
    let said = sampled.await.unwrap();
    assert!(said.contains("Paris, written by hand"), "{said}");

    let refused = call(
        "trigger-sampling-request",
        json!({"prompt": "again?", "maxTokens": 5}),
    );
    let ask = next_ask().await;
    asks.answer(
        ask.id,
        Reply::Reject {
            reason: "no sampling today".into(),
        },
    )
    .unwrap();
    let said = refused.await.unwrap();
    assert!(
        said.contains("no sampling today"),
        "the server hears why: {said}"
    );
    connection.shutdown().await;
}
