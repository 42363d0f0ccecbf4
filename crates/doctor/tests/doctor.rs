//! The doctor against real servers that fail in the ways servers do: each checkup must end at
//! the step that is wrong, with the evidence and the sentence that says what to do.

#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::time::Duration;

use mcp_manager_doctor as doctor;
use mcp_manager_doctor::{Checkup, Verdict};
use serde_json::json;
use support::{EdgeHttp, OAuthServer, World};

const PATIENCE: Duration = Duration::from_secs(20);

async fn checkup(entry: serde_json::Value) -> Checkup {
    let world = World::with_servers(json!({ "patient": entry }));
    doctor::examine(&world.locations, "patient", PATIENCE)
        .await
        .unwrap()
}

/// The step the checkup ended at (the failed one), with its evidence and next step.
fn ended_at(checkup: &Checkup) -> (&str, Verdict, String, String) {
    let last = checkup.checks.last().expect("at least one check");
    (
        last.id.as_str(),
        last.verdict,
        last.evidence.join("\n"),
        last.next.clone().unwrap_or_default(),
    )
}

fn edge(fault: &str) -> serde_json::Value {
    json!({"command": "node", "args": [support::edge()], "env": {"EDGE_FAULT": fault}})
}

#[tokio::test]
async fn a_healthy_stdio_server_passes_every_step() {
    let checkup =
        checkup(json!({"command": "node", "args": [support::everything(), "stdio"]})).await;
    assert!(checkup.healthy, "{checkup:#?}");
    let ids: Vec<&str> = checkup.checks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "variables",
            "command",
            "folder",
            "start",
            "initialize",
            "stdout",
            "protocol",
            "capabilities",
            "tools",
            "schemas"
        ]
    );
    let tools = &checkup.checks[8].evidence[0];
    assert!(
        tools.ends_with(" tools") && !tools.starts_with("0 "),
        "{tools}"
    );
}

#[tokio::test]
async fn a_missing_variable_is_named() {
    let checkup = checkup(json!({"command": "node", "args": ["${DOCTOR_SURELY_UNSET}"]})).await;
    let (id, verdict, evidence, next) = ended_at(&checkup);
    assert_eq!((id, verdict), ("variables", Verdict::Failed));
    assert!(evidence.contains("DOCTOR_SURELY_UNSET"), "{evidence}");
    assert!(
        next.starts_with("Set DOCTOR_SURELY_UNSET in the environment"),
        "{next}"
    );
}

#[tokio::test]
async fn a_missing_command_ends_at_the_command() {
    let checkup = checkup(json!({"command": "no-such-mcp-server-xyz"})).await;
    let (id, verdict, evidence, next) = ended_at(&checkup);
    assert_eq!((id, verdict), ("command", Verdict::Failed));
    assert!(evidence.contains("folders of PATH"), "{evidence}");
    assert_eq!(
        next,
        "Install `no-such-mcp-server-xyz`, or write its full path in the entry's `command`."
    );
    assert!(!checkup.healthy);
}

#[tokio::test]
async fn a_server_that_exits_at_once_shows_its_status_and_stderr() {
    let checkup = checkup(edge("exit")).await;
    let (id, verdict, evidence, next) = ended_at(&checkup);
    assert_eq!((id, verdict), ("start", Verdict::Failed), "{checkup:#?}");
    assert!(evidence.contains("exited with status 3"), "{evidence}");
    assert!(
        evidence.contains("stderr: edge-server: EDGE_API_KEY is not set"),
        "{evidence}"
    );
    assert!(
        next.starts_with("Run `node ")
            && next.ends_with("` in a terminal to see why it stops, and fix that."),
        "{next}"
    );
}

#[tokio::test]
async fn garbage_on_stdout_is_counted_and_shown() {
    let checkup = checkup(edge("garbage")).await;
    let (id, verdict, evidence, next) = ended_at(&checkup);
    assert_eq!((id, verdict), ("stdout", Verdict::Failed), "{checkup:#?}");
    assert!(
        evidence.starts_with("2 lines on stdout were not JSON-RPC"),
        "{evidence}"
    );
    assert!(
        evidence.contains("stdout: Starting edge server v1.0.0..."),
        "{evidence}"
    );
    assert!(
        next.starts_with("Make the server write its logs to stderr"),
        "{next}"
    );
}

#[tokio::test]
async fn the_first_tool_schema_that_does_not_compile_is_named() {
    let checkup = checkup(edge("bad-schema")).await;
    let (id, verdict, evidence, next) = ended_at(&checkup);
    assert_eq!((id, verdict), ("schemas", Verdict::Failed), "{checkup:#?}");
    assert!(evidence.starts_with("broken: "), "{evidence}");
    assert!(next.contains("tool `broken`"), "{next}");
}

#[tokio::test]
async fn an_unreachable_port_ends_at_tcp() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let checkup =
        checkup(json!({"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")})).await;
    let (id, verdict, evidence, next) = ended_at(&checkup);
    assert_eq!((id, verdict), ("tcp", Verdict::Failed), "{checkup:#?}");
    assert!(evidence.to_lowercase().contains("refused"), "{evidence}");
    assert_eq!(
        next,
        format!("Nothing answers on 127.0.0.1:{port}: start the server, or fix the port in `url`.")
    );
}

#[tokio::test]
async fn a_host_that_does_not_resolve_ends_at_dns() {
    let checkup = checkup(json!({"type": "http", "url": "http://no-such-host.invalid/mcp"})).await;
    let (id, verdict, _, next) = ended_at(&checkup);
    assert_eq!((id, verdict), ("dns", Verdict::Failed), "{checkup:#?}");
    assert!(next.contains("`no-such-host.invalid`"), "{next}");
}

#[tokio::test]
async fn a_self_signed_certificate_ends_at_tls_with_its_details() {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let identity = native_tls::Identity::from_pkcs8(
        certified.cert.pem().as_bytes(),
        certified.signing_key.serialize_pem().as_bytes(),
    )
    .unwrap();
    let acceptor =
        tokio_native_tls::TlsAcceptor::from(native_tls::TlsAcceptor::new(identity).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let _ = acceptor.accept(stream).await;
            });
        }
    });
    let checkup =
        checkup(json!({"type": "http", "url": format!("https://localhost:{port}/mcp")})).await;
    let (id, verdict, evidence, next) = ended_at(&checkup);
    assert_eq!((id, verdict), ("tls", Verdict::Failed), "{checkup:#?}");
    assert!(
        evidence.contains("self-signed") || evidence.contains("self signed"),
        "{evidence}"
    );
    assert!(
        evidence.contains("issuer: CN=rcgen self signed cert"),
        "{evidence}"
    );
    assert!(evidence.contains("names: localhost"), "{evidence}");
    assert!(
        next.starts_with("The certificate of localhost is not trusted"),
        "{next}"
    );
}

#[tokio::test]
async fn a_protected_server_without_metadata_ends_at_the_resource_metadata() {
    // What some gateways do: 401 with a bare challenge, and no OAuth documents anywhere.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buffer = vec![0u8; 8192];
                let n = stream.read(&mut buffer).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&buffer[..n]).to_string();
                let answer = if request.starts_with("POST /mcp") {
                    "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"gateway\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                } else {
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                };
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    let checkup =
        checkup(json!({"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")})).await;
    let (id, verdict, evidence, next) = ended_at(&checkup);
    assert_eq!(
        (id, verdict),
        ("resource-metadata", Verdict::Failed),
        "{checkup:#?}"
    );
    assert!(
        evidence.contains(&format!(
            "nothing at http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
        )),
        "{evidence}"
    );
    assert!(
        next.starts_with("The server asks for a login but publishes no OAuth metadata"),
        "{next}"
    );
    let initialize = &checkup.checks[checkup.checks.len() - 2];
    assert!(initialize
        .evidence
        .iter()
        .any(|e| e == "WWW-Authenticate: Bearer realm=\"gateway\""));
}

#[tokio::test]
async fn a_protected_server_with_every_document_ends_at_the_login() {
    let server = OAuthServer::start(3600);
    let checkup = checkup(json!({"type": "http", "url": server.url()})).await;
    let ids: Vec<&str> = checkup.checks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "variables",
            "url",
            "dns",
            "tcp",
            "initialize",
            "resource-metadata",
            "server-metadata",
            "registration",
            "token"
        ],
        "{checkup:#?}"
    );
    let (_, verdict, _, next) = ended_at(&checkup);
    assert_eq!(verdict, Verdict::Failed);
    assert_eq!(next, "Log in: press Log in, or run `mcpctl login patient`.");
    let registration = &checkup.checks[7].evidence[0];
    assert!(
        registration.starts_with("dynamic client registration (RFC 7591) at "),
        "{registration}"
    );
}

#[tokio::test]
async fn a_healthy_http_server_passes_through_to_its_tools() {
    let server = EdgeHttp::start();
    let checkup = checkup(json!({"type": "http", "url": server.url()})).await;
    assert!(checkup.healthy, "{checkup:#?}");
    assert_eq!(checkup.checks.last().unwrap().id, "schemas");
}
