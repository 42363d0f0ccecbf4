//! A remote server's checks: the URL, DNS, TCP, TLS, the answer to `initialize` (or the login
//! it asks for), every OAuth document a login needs, the stored token, then the session.

use std::time::Duration;

use mcp_manager_core::config::entry::{ServerConfig, Transport, TransportKind};
use mcp_manager_core::Locations;
use serde_json::{json, Value};

use super::{session, Check, Checks, Verdict};

pub(crate) async fn examine(
    checks: &mut Checks,
    name: &str,
    raw: &ServerConfig,
    config: &ServerConfig,
    locations: &Locations,
    timeout: Duration,
) {
    let Transport::Remote { kind, url, headers } = &config.transport else {
        return;
    };
    let parsed = match url::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https" | "ws" | "wss") => parsed,
        Ok(parsed) => {
            checks.push(Check::failed(
                "url",
                "The URL parses",
                vec![format!(
                    "{url}: the scheme {} is not http(s) or ws(s)",
                    parsed.scheme()
                )],
                "Write the server's address as http://, https://, ws:// or wss:// in `url`.".into(),
            ));
            return;
        }
        Err(err) => {
            checks.push(Check::failed(
                "url",
                "The URL parses",
                vec![format!("{url}: {err}")],
                format!("Fix `url`: {err}."),
            ));
            return;
        }
    };
    let host = parsed
        .host_str()
        .unwrap_or("")
        .trim_matches(['[', ']'])
        .to_string();
    let port = parsed.port_or_known_default().unwrap_or(80);
    checks.push(Check::passed(
        "url",
        "The URL parses",
        vec![format!("{} host {host} port {port}", parsed.scheme())],
    ));

    let addresses: Vec<std::net::SocketAddr> =
        match tokio::time::timeout(timeout, tokio::net::lookup_host((host.as_str(), port))).await {
            Ok(Ok(found)) => found.collect(),
            Ok(Err(err)) => {
                checks.push(Check::failed(
                    "dns",
                    "The host name resolves",
                    vec![format!("{host}: {err}")],
                    format!("Check the host name `{host}` in `url`, and your network or VPN."),
                ));
                return;
            }
            Err(_) => Vec::new(),
        };
    if addresses.is_empty() {
        checks.push(Check::failed(
            "dns",
            "The host name resolves",
            vec![format!(
                "{host}: no address within {} s",
                timeout.as_secs_f64()
            )],
            format!("Check the host name `{host}` in `url`, and your network or VPN."),
        ));
        return;
    }
    let shown: Vec<String> = addresses.iter().map(|a| a.ip().to_string()).collect();
    checks.push(Check::passed(
        "dns",
        "The host name resolves",
        vec![format!("{host} → {}", shown.join(", "))],
    ));

    let connect_limit = timeout.min(Duration::from_secs(10));
    let mut tcp = None;
    let mut refusals = Vec::new();
    for address in &addresses {
        match tokio::time::timeout(connect_limit, tokio::net::TcpStream::connect(address)).await {
            Ok(Ok(stream)) => {
                tcp = Some((stream, *address));
                break;
            }
            Ok(Err(err)) => refusals.push(format!("{address}: {err}")),
            Err(_) => refusals.push(format!(
                "{address}: no answer within {} s",
                connect_limit.as_secs_f64()
            )),
        }
    }
    let Some((stream, address)) = tcp else {
        checks.push(Check::failed(
            "tcp",
            "A TCP connection opens",
            refusals,
            format!(
                "Nothing answers on {host}:{port}: start the server, or fix the port in `url`."
            ),
        ));
        return;
    };
    checks.push(Check::passed(
        "tcp",
        "A TCP connection opens",
        vec![format!("connected to {address}")],
    ));

    if matches!(parsed.scheme(), "https" | "wss")
        && !tls(checks, stream, &host, &address, connect_limit).await
    {
        return;
    }

    if *kind == TransportKind::Ws {
        return connect_session(checks, name, config, locations, None).await;
    }

    // The first request, as a client sends it, without a token.
    // The doctor reads documents the server names: it follows no redirect (a redirect is a
    // way to reach a host the policy below would refuse).
    let client = match reqwest::Client::builder()
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
    {
        Ok(client) => client,
        Err(err) => {
            checks.push(Check::failed(
                "initialize",
                "It answers initialize",
                vec![err.to_string()],
                "Report this: the HTTP client could not be built.".into(),
            ));
            return;
        }
    };
    let mut request = match kind {
        TransportKind::Sse => client.get(url.as_str()).header("accept", "text/event-stream"),
        _ => client
            .post(url.as_str())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "mcp-manager-doctor", "version": env!("CARGO_PKG_VERSION")}}})
                .to_string(),
            ),
    };
    for (key, value) in headers {
        request = request.header(key.as_str(), value.as_str());
    }
    let title = "It answers initialize, or asks for a login";
    let response = match request.send().await {
        Ok(response) => response,
        Err(err) => {
            checks.push(Check::failed(
                "initialize",
                title,
                vec![format!("{url}: {err}")],
                "The server took the connection but gave no HTTP answer: check that `url` points at its MCP endpoint and that it speaks HTTP there.".into(),
            ));
            return;
        }
    };
    let status = response.status();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    drop(response);
    match status.as_u16() {
        200..=299 => {
            checks.push(Check::passed(
                "initialize",
                title,
                vec![format!("{status} ({content_type})")],
            ));
            let target = stored_target(name, raw, url, locations).await;
            connect_session(checks, name, config, locations, target.as_ref()).await
        }
        401 | 403 => {
            let check = match &challenge {
                Some(challenge) => Check::passed(
                    "initialize",
                    title,
                    vec![format!("{status}: the server asks for a login"), format!("WWW-Authenticate: {challenge}")],
                ),
                None => Check::warning(
                    "initialize",
                    title,
                    vec![format!("{status} without a WWW-Authenticate header")],
                    "The server should say how to log in with WWW-Authenticate (RFC 9728 §5.1); the login falls back to well-known URLs.".into(),
                ),
            };
            checks.push(check);
            oauth(
                checks,
                name,
                raw,
                config,
                url,
                challenge.as_deref(),
                locations,
                &client,
            )
            .await
        }
        _ => {
            checks.push(Check::failed(
                "initialize",
                title,
                vec![format!("{status} ({content_type}) from {url}")],
                "Check the path in `url` (MCP endpoints are often /mcp, legacy SSE ones /sse) and the transport type.".into(),
            ));
        }
    }
}

/// The TLS handshake, verified; on failure, the certificate read anyway for the evidence.
async fn tls(
    checks: &mut Checks,
    stream: tokio::net::TcpStream,
    host: &str,
    address: &std::net::SocketAddr,
    limit: Duration,
) -> bool {
    let title = "TLS is valid";
    let verified = native_tls::TlsConnector::new().map(tokio_native_tls::TlsConnector::from);
    let connector = match verified {
        Ok(connector) => connector,
        Err(err) => {
            return checks.push(Check::failed("tls", title, vec![err.to_string()], "The system's TLS library could not be set up: check OpenSSL and the CA certificates.".into()));
        }
    };
    match tokio::time::timeout(limit, connector.connect(host, stream)).await {
        Ok(Ok(session)) => {
            let evidence = session
                .get_ref()
                .peer_certificate()
                .ok()
                .flatten()
                .and_then(|cert| cert.to_der().ok())
                .map(|der| describe_certificate(&der))
                .unwrap_or_default();
            checks.push(Check::passed("tls", title, evidence))
        }
        Ok(Err(err)) => {
            let mut evidence = vec![format!("{host}: {err}")];
            evidence.extend(unverified_certificate(host, address, limit).await);
            checks.push(Check::failed(
                "tls",
                title,
                evidence,
                format!("The certificate of {host} is not trusted: use one from a trusted authority, or add its CA to the system's trust store."),
            ))
        }
        Err(_) => checks.push(Check::failed(
            "tls",
            title,
            vec![format!("no TLS handshake within {} s", limit.as_secs_f64())],
            "Check that the server speaks HTTPS on this port (or use http:// in `url`).".into(),
        )),
    }
}

async fn unverified_certificate(
    host: &str,
    address: &std::net::SocketAddr,
    limit: Duration,
) -> Vec<String> {
    let Ok(stream) = tokio::net::TcpStream::connect(address).await else {
        return Vec::new();
    };
    let Ok(connector) = native_tls::TlsConnector::builder()
        .danger_accept_invalid_certs(true)
        .danger_accept_invalid_hostnames(true)
        .build()
    else {
        return Vec::new();
    };
    let connector = tokio_native_tls::TlsConnector::from(connector);
    match tokio::time::timeout(limit, connector.connect(host, stream)).await {
        Ok(Ok(session)) => session
            .get_ref()
            .peer_certificate()
            .ok()
            .flatten()
            .and_then(|cert| cert.to_der().ok())
            .map(|der| describe_certificate(&der))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Issuer, subject, expiry and names of a DER certificate (read with a pure-Rust parser: no
/// OpenSSL to build on any platform).
fn describe_certificate(der: &[u8]) -> Vec<String> {
    use x509_parser::prelude::{FromDer, GeneralName, X509Certificate};
    let Ok((_, cert)) = X509Certificate::from_der(der) else {
        return Vec::new();
    };
    let name = |n: &x509_parser::x509::X509Name| {
        n.iter_attributes()
            .filter_map(|a| {
                let key = x509_parser::objects::oid2abbrev(
                    a.attr_type(),
                    x509_parser::objects::oid_registry(),
                )
                .ok()
                .map(str::to_string)
                .unwrap_or_else(|| a.attr_type().to_id_string());
                let value = a.as_str().ok()?;
                Some(format!("{key}={value}"))
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut facts = vec![
        format!("issuer: {}", name(cert.issuer())),
        format!("subject: {}", name(cert.subject())),
        format!("valid until: {}", cert.validity().not_after),
    ];
    if let Ok(Some(alternatives)) = cert.subject_alternative_name() {
        let names: Vec<String> = alternatives
            .value
            .general_names
            .iter()
            .filter_map(|n| match n {
                GeneralName::DNSName(dns) => Some(dns.to_string()),
                GeneralName::IPAddress(ip) => Some(format!("{ip:?}")),
                _ => None,
            })
            .collect();
        facts.push(format!("names: {}", names.join(", ")));
    }
    facts
}

/// The OAuth target of a remote entry, when a token is stored for it.
async fn stored_target(
    name: &str,
    raw: &ServerConfig,
    url: &str,
    locations: &Locations,
) -> Option<mcp_manager_oauth::Target> {
    let (store, _) = mcp_manager_core::secrets::configured_store();
    let stores = mcp_manager_oauth::claude_store::LoginStores::of(locations);
    let (expanded, _) = mcp_manager_core::config::expand::expand_config(
        raw,
        &mcp_manager_core::config::expand::process_env,
    );
    let kept = stores.store_of(name, raw, &expanded);
    let mut target = mcp_manager_oauth::Target::of(name, raw, url, store)?
        .kept_in(&stores, kept, name, raw, &expanded);
    if let Some(entry) = mcp_manager_core::config::catalog::Catalog::load(locations).effective(name)
    {
        target = target.from_entry(entry.scope, &entry.path);
    }
    target
        .secrets
        .has_tokens()
        .await
        .unwrap_or(false)
        .then_some(target)
}

#[allow(clippy::too_many_arguments)]
async fn oauth(
    checks: &mut Checks,
    name: &str,
    raw: &ServerConfig,
    config: &ServerConfig,
    url: &str,
    challenge: Option<&str>,
    locations: &Locations,
    client: &reqwest::Client,
) {
    let oauth = raw.oauth.clone().unwrap_or_default();
    let parsed = url::Url::parse(url).expect("checked");
    let mut refused: Vec<String> = Vec::new();
    let advertised = challenge
        .and_then(|c| mcp_manager_oauth::challenge_parameter(c, "resource_metadata"))
        .filter(|at| match metadata_url_allowed(&parsed, at) {
            Ok(()) => true,
            Err(why) => {
                refused.push(format!("resource_metadata {at} not followed: {why}"));
                false
            }
        });
    let path = parsed.path().trim_end_matches('/');
    let mut candidates: Vec<String> = advertised.iter().cloned().collect();
    let origin = parsed.origin().ascii_serialization();
    candidates.push(format!(
        "{origin}/.well-known/oauth-protected-resource{path}"
    ));
    candidates.push(format!("{origin}/.well-known/oauth-protected-resource"));
    candidates.dedup();
    let resource = first_json(client, &candidates).await;
    let mut issuers: Vec<String> = Vec::new();
    let title = "Protected resource metadata (RFC 9728)";
    match &resource {
        Some((at, document)) => {
            issuers = document["authorization_servers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_string))
                .filter(|issuer| match metadata_url_allowed(&parsed, issuer) {
                    Ok(()) => true,
                    Err(why) => {
                        refused.push(format!(
                            "authorization server {issuer} not contacted: {why}"
                        ));
                        false
                    }
                })
                .collect();
            let mut evidence = vec![format!("found at {at}")];
            evidence.extend(refused.iter().cloned());
            evidence.push(format!(
                "resource: {}",
                document["resource"].as_str().unwrap_or("(none)")
            ));
            evidence.push(format!("authorization servers: {}", issuers.join(", ")));
            if issuers.is_empty() {
                checks.push(Check::failed("resource-metadata", title, evidence, "The metadata names no authorization server: the server's operator must list one in `authorization_servers`.".into()));
                return;
            }
            checks.push(Check::passed("resource-metadata", title, evidence));
        }
        None if oauth.auth_server_metadata_url.is_some() => {
            checks.push(Check::warning(
                "resource-metadata",
                title,
                candidates
                    .iter()
                    .map(|c| format!("nothing at {c}"))
                    .collect(),
                "None published; the configured `oauth.authServerMetadataUrl` is used instead."
                    .into(),
            ));
        }
        None => {
            // The 2025-03-26 fallback: the authorization server at the server's own origin.
            let legacy = format!("{origin}/.well-known/oauth-authorization-server");
            if first_json(client, std::slice::from_ref(&legacy))
                .await
                .is_some()
            {
                checks.push(Check::warning(
                    "resource-metadata",
                    title,
                    candidates.iter().map(|c| format!("nothing at {c}")).collect(),
                    "None published; the 2025-03-26 fallback (metadata at the server's origin) is used. Ask the operator to publish RFC 9728 metadata.".into(),
                ));
                issuers.push(origin.clone());
            } else {
                checks.push(Check::failed(
                    "resource-metadata",
                    title,
                    candidates.iter().map(|c| format!("nothing at {c}")).collect(),
                    "The server asks for a login but publishes no OAuth metadata: ask its operator to publish it (RFC 9728), or set `oauth.authServerMetadataUrl`.".into(),
                ));
                return;
            }
        }
    }

    let title = "Authorization server metadata (RFC 8414)";
    let candidates: Vec<String> = match &oauth.auth_server_metadata_url {
        Some(configured) => vec![configured.clone()],
        None => issuers
            .iter()
            .flat_map(|issuer| server_metadata_urls(issuer))
            .collect(),
    };
    let Some((at, metadata)) = first_json(client, &candidates).await else {
        checks.push(Check::failed(
            "server-metadata",
            title,
            candidates.iter().map(|c| format!("nothing at {c}")).collect(),
            "The authorization server publishes no metadata where clients look: ask its operator, or set `oauth.authServerMetadataUrl` to where it is.".into(),
        ));
        return;
    };
    let field = |key: &str| metadata[key].as_str().unwrap_or("(none)").to_string();
    let pkce: Vec<&str> = metadata["code_challenge_methods_supported"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let evidence = vec![
        format!("found at {at}"),
        format!("issuer: {}", field("issuer")),
        format!(
            "authorization endpoint: {}",
            field("authorization_endpoint")
        ),
        format!("token endpoint: {}", field("token_endpoint")),
        format!(
            "PKCE methods: {}",
            if pkce.is_empty() {
                "(none listed)".to_string()
            } else {
                pkce.join(", ")
            }
        ),
    ];
    if !pkce.is_empty() && !pkce.contains(&"S256") {
        checks.push(Check::failed("server-metadata", title, evidence, "The authorization server does not offer PKCE with S256, which MCP requires: ask its operator to enable it.".into()));
        return;
    }
    checks.push(Check::passed("server-metadata", title, evidence));

    let title = "A client for this app";
    let registration = metadata["registration_endpoint"].as_str();
    let cimd = metadata["client_id_metadata_document_supported"]
        .as_bool()
        .unwrap_or(false);
    let check = if let Some(client_id) = &oauth.client_id {
        Check::passed(
            "registration",
            title,
            vec![format!("client id configured: {client_id}")],
        )
    } else if let (Some(document), true) = (&oauth.client_metadata_url, cimd) {
        Check::passed(
            "registration",
            title,
            vec![format!("client ID metadata document: {document}")],
        )
    } else if let Some(endpoint) = registration {
        Check::passed(
            "registration",
            title,
            vec![format!(
                "dynamic client registration (RFC 7591) at {endpoint}"
            )],
        )
    } else {
        Check::failed(
            "registration",
            title,
            vec!["no registration_endpoint, and no `oauth.clientId` configured".into()],
            "Register a client with the authorization server and set `oauth.clientId` (its secret goes to the keychain with `mcpctl add --client-secret`).".into(),
        )
    };
    if !checks.push(check) {
        return;
    }

    let title = "A token is stored";
    let Some(target) = stored_target(name, raw, url, locations).await else {
        checks.push(Check::failed(
            "token",
            title,
            vec!["no token in the keychain or in Claude Code's store for this server".into()],
            format!("Log in: press Log in, or run `mcpctl login {name}`."),
        ));
        return;
    };
    let state = mcp_manager_oauth::token_state(
        &target,
        mcp_manager_connect::login::where_kept(
            &target,
            &mcp_manager_core::secrets::configured_store().1,
        ),
    )
    .await;
    let evidence = match state {
        Ok(state) => vec![
            format!("kept in {} ({})", state.kept_in, state.account),
            format!(
                "scopes: {}",
                if state.scopes.is_empty() {
                    "(none)".into()
                } else {
                    state.scopes.join(" ")
                }
            ),
            format!(
                "refresh token: {}",
                if state.has_refresh_token { "yes" } else { "no" }
            ),
        ],
        Err(err) => vec![err.to_string()],
    };
    checks.push(Check::passed("token", title, evidence));
    connect_session(checks, name, config, locations, Some(&target)).await
}

/// Whether the doctor may fetch `candidate`, which the server at `base` named (its
/// `resource_metadata`, its `authorization_servers`): rmcp's policy for discovery, kept in
/// [`mcp_manager_core::net`]. A hostile server must not make the doctor probe the person's
/// network.
pub(crate) fn metadata_url_allowed(base: &url::Url, candidate: &str) -> Result<(), String> {
    mcp_manager_core::net::may_fetch(base, candidate)
        .map(drop)
        .map_err(|refused| refused.to_string())
}

/// Where an issuer's metadata may be: RFC 8414 (path inserted), then OpenID Connect.
fn server_metadata_urls(issuer: &str) -> Vec<String> {
    let Ok(parsed) = url::Url::parse(issuer) else {
        return Vec::new();
    };
    let origin = parsed.origin().ascii_serialization();
    let path = parsed.path().trim_end_matches('/');
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}{path}/.well-known/openid-configuration"));
    }
    urls
}

/// The first of `urls` that answers 200 with a JSON object.
async fn first_json(client: &reqwest::Client, urls: &[String]) -> Option<(String, Value)> {
    for url in urls {
        let Ok(response) = client
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
        else {
            continue;
        };
        if !response.status().is_success() {
            continue;
        }
        if let Ok(document) = response.json::<Value>().await {
            if document.is_object() {
                return Some((url.clone(), document));
            }
        }
    }
    None
}

/// A session as the app opens it: protocol, capabilities, tools, schemas.
async fn connect_session(
    checks: &mut Checks,
    name: &str,
    config: &ServerConfig,
    locations: &Locations,
    auth: Option<&mcp_manager_oauth::Target>,
) {
    let connection = match mcp_manager_connect::login::open_once(name, config, locations, auth)
        .await
    {
        Ok(connection) => connection,
        Err(err) => {
            let next = match &err {
                mcp_manager_connect::ConnectError::NeedsAuth { .. } => {
                    format!("Log in again: press Log in, or run `mcpctl login {name}`.")
                }
                _ => "Read the error: the server took the request but the session did not start."
                    .into(),
            };
            checks.push(Check::failed(
                "session",
                "A session starts",
                vec![err.to_string()],
                next,
            ));
            return;
        }
    };
    let info = connection.info().clone();
    let server = format!("{} {}", info.server_name, info.server_version);
    let offered = offered(&info.capabilities);
    let tools = if info.capabilities.tools {
        connection.list_tools().await.ok().map(|tools| {
            tools
                .into_iter()
                .map(|t| (t.name, t.input_schema))
                .collect::<Vec<_>>()
        })
    } else {
        None
    };
    connection.shutdown().await;
    if !session::protocol(checks, &info.protocol_version, &server) {
        return;
    }
    session::capabilities(checks, &offered);
    if let Some(tools) = tools {
        session::tools(checks, &tools);
    } else if info.capabilities.tools {
        checks.push(Check {
            id: "tools".into(),
            title: "Tools listed".into(),
            verdict: Verdict::Failed,
            evidence: vec!["tools/list failed".into()],
            next: Some("The server offers tools but could not list them: read its logs.".into()),
        });
    }
}

fn offered(capabilities: &mcp_manager_connect::status::Capabilities) -> Vec<String> {
    let mut names = Vec::new();
    for (on, name) in [
        (capabilities.tools, "tools"),
        (capabilities.resources, "resources"),
        (capabilities.prompts, "prompts"),
        (capabilities.logging, "logging"),
        (capabilities.completions, "completions"),
    ] {
        if on {
            names.push(name.to_string());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doctor_follows_metadata_only_where_discovery_would() {
        let public = url::Url::parse("https://mcp.example/mcp").unwrap();
        let local = url::Url::parse("http://127.0.0.1:3000/mcp").unwrap();
        let cases: [(&url::Url, &str, bool); 12] = [
            (
                &public,
                "https://mcp.example/.well-known/oauth-protected-resource",
                true,
            ),
            (&public, "/.well-known/oauth-protected-resource", true),
            (&public, "https://auth.example", true),
            (&public, "http://auth.example", false),
            (&public, "https://169.254.169.254/latest/meta-data", false),
            (&public, "https://10.0.0.5/", false),
            (&public, "https://192.168.1.1/", false),
            (&public, "https://localhost:8080/", false),
            (&public, "https://metadata.google.internal/", false),
            (&public, "https://[fe80::1]/", false),
            (&local, "http://localhost:4000/", true),
            (&local, "http://10.0.0.5/", false),
        ];
        for (base, candidate, allowed) in cases {
            assert_eq!(
                metadata_url_allowed(base, candidate).is_ok(),
                allowed,
                "{candidate} from {base}"
            );
        }
    }

    #[test]
    fn challenge_parameters_are_read_quoted_or_not() {
        let challenge = r#"Bearer error="invalid_token", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp""#;
        assert_eq!(
            mcp_manager_oauth::challenge_parameter(challenge, "resource_metadata").as_deref(),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            mcp_manager_oauth::challenge_parameter("Bearer scope=read", "scope").as_deref(),
            Some("read")
        );
        assert_eq!(
            mcp_manager_oauth::challenge_parameter("Bearer", "scope"),
            None
        );
    }

    #[test]
    fn issuers_with_a_path_are_looked_up_where_rfc_8414_and_openid_say() {
        assert_eq!(
            server_metadata_urls("https://as.example/tenant"),
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant",
                "https://as.example/.well-known/openid-configuration/tenant",
                "https://as.example/tenant/.well-known/openid-configuration",
            ]
        );
    }
}
