//! `conformance-client URL`: the client the official MCP conformance suite runs for each
//! client scenario (`MCP_CONFORMANCE_SCENARIO`, with `MCP_CONFORMANCE_CONTEXT` as JSON for
//! some). It is the product's code — `Connection`, `oauth::login`, the handler — with one
//! difference: its browser ([`Headless`]) sends a GET to the authorization URL and reads the
//! code from `Location`, since the suite's authorization server redirects at once. Tokens go
//! to an in-memory secret store instead of the keychain.
//!
//! Flow: connect; on a 401, log in and connect again; list the tools and call each with
//! arguments made from its schema, or with those the scenario names (`toolCalls` in its
//! context); on a 403 `insufficient_scope`, log in again for the challenged scope (at most 3
//! authorizations in all) and retry the call. A `json_schema_echo` tool is sent back the
//! inputSchema we hold for the scenario's focal tool, as that scenario asks, so it can see
//! what our parsing kept.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcp_manager_connect::answer::{Answer, Answerer};
use mcp_manager_connect::stderr::StderrLog;
use mcp_manager_connect::{ConnectError, Connection, Limits};
use mcp_manager_core::config::entry::{OAuthConfig, ServerConfig, TransportKind};
use mcp_manager_core::secrets::{Secret, SecretStore};
use mcp_manager_oauth as oauth;
use mcp_manager_oauth::{Headless, Target};
use serde_json::{json, Map, Value};

/// Where the suite's authorization server sends the browser (nothing listens: the headless
/// browser reads the redirect instead of following it).
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// A Client ID Metadata Document URL, used when the authorization server supports them.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
/// Authorizations allowed in one run: the first, and step-ups after a 403.
const AUTHORIZATIONS: usize = 3;

/// Accepts every elicitation; the handler fills in the schema's defaults.
struct Accept;

impl Answerer for Accept {
    fn elicit<'a>(&'a self, _server: &'a str, _request: Value) -> Answer<'a, Value> {
        Box::pin(async { json!({"action": "accept", "content": {}}) })
    }
}

fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance-client URL");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let outcome = runtime.block_on(run(&url, &scenario, &context));
    let _ = std::fs::remove_file(workload_token_file());
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("conformance-client ({scenario}): {err}");
            ExitCode::FAILURE
        }
    }
}

/// Where a workload identity scenario's token is put for the grant to read.
fn workload_token_file() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("conformance-wif-{}.jwt", std::process::id()))
}

fn text(context: &Value, key: &str) -> Option<String> {
    context.get(key).and_then(Value::as_str).map(str::to_string)
}

async fn run(url: &str, scenario: &str, context: &Value) -> Result<(), String> {
    let secrets: Arc<dyn SecretStore> = Arc::new(mcp_manager_core::secrets::InMemory::default());
    let mut oauth_config = OAuthConfig {
        client_metadata_url: Some(CLIENT_METADATA_URL.into()),
        ..OAuthConfig::default()
    };
    if let Some(client_id) = text(context, "client_id") {
        oauth_config.client_id = Some(client_id);
    }
    // What a person would write in `oauth` for these servers.
    let machine = &mut oauth_config.machine;
    if scenario.starts_with("auth/client-credentials") {
        machine.grant_type = Some(oauth::machine::CLIENT_CREDENTIALS.into());
        if context.get("private_key_pem").is_some() {
            machine.token_endpoint_auth_method = Some("private_key_jwt".into());
            machine.signing_algorithm = text(context, "signing_algorithm");
        }
    }
    if context.get("idp_id_token").is_some() {
        machine.grant_type = Some(oauth::machine::JWT_BEARER.into());
        machine.idp_issuer = text(context, "idp_issuer");
        machine.idp_token_endpoint = text(context, "idp_token_endpoint");
        machine.idp_client_id = text(context, "idp_client_id");
    }
    // Workload identity federation: the workload's token, mounted as a file as platforms do.
    if let Some(jwt) = text(context, "valid_jwt") {
        let file = workload_token_file();
        let how = mcp_manager_core::files::Write::private();
        mcp_manager_core::files::write(&file, jwt.as_bytes(), &how).map_err(|e| e.to_string())?;
        machine.grant_type = Some(oauth::machine::JWT_BEARER.into());
        machine.assertion_file = Some(file.display().to_string());
    }
    let mut config = ServerConfig::remote(TransportKind::Http, url, vec![]);
    config.oauth = Some(oauth_config);
    let target = Target::of("conformance", &config, url, Arc::clone(&secrets))
        .expect("a remote server has a target");
    // What a person would have put in the keychain.
    for (kind, key) in [
        (oauth::store::CLIENT_SECRET, "client_secret"),
        (oauth::store::CLIENT_KEY, "private_key_pem"),
        (oauth::store::ID_TOKEN, "idp_id_token"),
    ] {
        if let Some(value) = text(context, key) {
            target
                .secrets
                .set_secret(kind, Secret::new(value))
                .await
                .map_err(|e| e.to_string())?;
        }
    }
    let browser = Headless::new(REDIRECT_URI);
    let mut authorizations = 0;
    let mut connection = connect(&config, &target, &browser, &mut authorizations).await?;
    // The Skills extension: list (reading nothing), and for the verify scenarios load the
    // skill, as a person's "Load" does: its SKILL.md checked before any other file is read.
    if scenario.starts_with("sep-2640-") {
        let skills = connection.list_skills().await.map_err(|e| e.to_string())?;
        if scenario != "sep-2640-client-no-prefetch" {
            for skill in skills {
                let loaded = connection.load_skill(skill).await;
                if !loaded.verified {
                    let why: Vec<String> = loaded
                        .files
                        .iter()
                        .filter_map(|f| match &f.check {
                            mcp_manager_connect::skills::FileCheck::Failed { why } => {
                                Some(format!("{}: {why}", f.uri))
                            }
                            _ => None,
                        })
                        .collect();
                    connection.shutdown().await;
                    return Err(format!("the skill was not loaded: {}", why.join("; ")));
                }
            }
        }
        connection.shutdown().await;
        return Ok(());
    }
    // A 401 or 403 can come on any request, not only initialize.
    let tools = loop {
        match connection.list_tools().await {
            Ok(tools) => break tools,
            Err(err) => {
                reauthorize(&err, &target, &browser, &mut authorizations).await?;
                connection.shutdown().await;
                connection = connect(&config, &target, &browser, &mut authorizations).await?;
            }
        }
    };
    // The calls the scenario names, when it names them; else each tool once.
    let named: Vec<(String, Map<String, Value>)> = context
        .get("toolCalls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .filter_map(|call| {
                    Some((
                        call.get("name")?.as_str()?.to_string(),
                        call.get("arguments")?.as_object()?.clone(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let calls: Vec<(String, Map<String, Value>)> = if named.is_empty() {
        tools
            .iter()
            .map(|tool| {
                let arguments = match tool.name.as_str() {
                    "json_schema_echo" => {
                        let focal = tools
                            .iter()
                            .find(|t| t.name == "json_schema_2020_12_tool")
                            .map(|t| t.input_schema.clone())
                            .unwrap_or_else(|| json!({}));
                        Map::from_iter([("schema".to_string(), focal)])
                    }
                    _ => arguments_for(&tool.input_schema),
                };
                (tool.name.clone(), arguments)
            })
            .collect()
    } else {
        named
    };
    for (name, arguments) in calls {
        loop {
            let called = connection
                .call_tool(
                    &name,
                    Some(arguments.clone()),
                    Some(Duration::from_secs(30)),
                )
                .await;
            match called {
                Ok(_) => break,
                Err(err) if err.auth_challenge().is_none() => {
                    eprintln!("{name}: {err}");
                    break;
                }
                Err(err) => {
                    reauthorize(&err, &target, &browser, &mut authorizations).await?;
                    connection.shutdown().await;
                    connection = connect(&config, &target, &browser, &mut authorizations).await?;
                }
            }
        }
    }
    connection.shutdown().await;
    Ok(())
}

/// After a request was refused with a challenge: log in again, for the challenged scope when
/// it was a 403 `insufficient_scope`. Fails when the request failed otherwise, or when
/// [`AUTHORIZATIONS`] were used up.
async fn reauthorize(
    err: &rmcp::ServiceError,
    target: &Target,
    browser: &Headless,
    authorizations: &mut usize,
) -> Result<(), String> {
    let Some(challenge) = err.auth_challenge() else {
        return Err(err.to_string());
    };
    if *authorizations >= AUTHORIZATIONS {
        return Err(format!(
            "still refused after {AUTHORIZATIONS} authorizations: {err}"
        ));
    }
    *authorizations += 1;
    let scopes = if challenge.contains("insufficient_scope") {
        challenged_scopes(challenge)
    } else {
        Vec::new()
    };
    oauth::authorize(target, browser, Some(challenge), &scopes)
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Opens the session, logging in when the server answers 401.
async fn connect(
    config: &ServerConfig,
    target: &Target,
    browser: &Headless,
    authorizations: &mut usize,
) -> Result<Connection, String> {
    loop {
        let opened = Connection::open_authorized(
            "conformance",
            config,
            &std::env::temp_dir(),
            Limits::connect(Duration::from_secs(30)),
            StderrLog::default(),
            Arc::new(Accept),
            mcp_manager_connect::Roots::of(&[std::env::temp_dir()]),
            Some(target),
        )
        .await;
        match opened {
            Ok(connection) => return Ok(connection),
            Err(ConnectError::NeedsAuth { challenge }) if *authorizations < AUTHORIZATIONS => {
                *authorizations += 1;
                oauth::authorize(target, browser, challenge.as_deref(), &[])
                    .await
                    .map_err(|e| e.to_string())?;
            }
            Err(err) => return Err(err.to_string()),
        }
    }
}

/// The `scope` of a `WWW-Authenticate` challenge.
fn challenged_scopes(challenge: &str) -> Vec<String> {
    let Some(start) = challenge.find("scope=\"") else {
        return Vec::new();
    };
    let rest = &challenge[start + 7..];
    rest[..rest.find('"').unwrap_or(rest.len())]
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Arguments for a tool: every property of its schema with a value of its type.
fn arguments_for(schema: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            out.insert(name.clone(), sample(property));
        }
    }
    out
}

fn sample(schema: &Value) -> Value {
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("number") | Some("integer") => json!(1),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("object") => Value::Object(arguments_for(schema)),
        _ => json!("test"),
    }
}
