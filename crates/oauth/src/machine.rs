//! Grants that need no person: OAuth client credentials (with `client_secret_basic`,
//! `client_secret_post` or `private_key_jwt`), enterprise-managed cross-app access (an
//! RFC 8693 token exchange of the identity provider's ID token for an ID-JAG, then the
//! RFC 7523 JWT bearer grant at the server's authorization server), and workload identity
//! federation (SEP-1933: the RFC 7523 JWT bearer grant with the token the workload's platform
//! issued it, from `oauth.assertionFile` or `oauth.assertionCommand`).
//!
//! A workload's token is sent only when it reads as a JWT: a file or command named by mistake
//! (a private key, a password file) is refused without its content being sent or shown. A
//! refused grant is said once and not retried, nor another grant tried (the extension's rule).
//!
//! Both end like a login: the token is saved in the server's keychain entry, where the
//! connection finds it. Their secrets (client secret, private key, ID token) are read from the
//! keychain too, never from the config file.

use std::sync::Arc;

use mcp_manager_core::secrets::Secret;
use oauth2::{ClientSecret, TokenResponse};
use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
};
use rmcp::transport::auth::{
    ClientCredentialsConfig, CredentialStore, JwtSigningAlgorithm, OAuthTokenResponse,
    StoredCredentials,
};

use super::store::{CLIENT_KEY, ID_TOKEN};
use super::{discover, manager, Granted, OAuthError, Recorder, Target};

/// `grantType` of client credentials.
pub const CLIENT_CREDENTIALS: &str = "client_credentials";
/// `grantType` of enterprise-managed cross-app access.
pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Whether `target` is authorized without a person.
pub fn is_machine(target: &Target) -> bool {
    matches!(
        target.oauth.machine.grant_type.as_deref(),
        Some(CLIENT_CREDENTIALS | JWT_BEARER)
    )
}

/// Obtains a token for `target` by its machine grant and stores it.
///
/// rmcp's exchanges hold a non-`Send` form encoder across an await, so the work runs on a
/// blocking thread of the same runtime: callers (the supervisor's pools) can stay `Send`.
pub async fn obtain(target: &Target, recorder: &Recorder) -> Result<Granted, OAuthError> {
    // A machine grant sends the client secret, key or ID token kept under this key: never for
    // another entry than the one they were used for.
    if let Some(why) = target.foreign().await? {
        return Err(OAuthError::Config(format!(
            "the client credentials in the keychain are not sent for this entry: {why}; log out of that entry, then store them again for this one"
        )));
    }
    let target = target.clone();
    let recorder = recorder.clone();
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || runtime.block_on(obtain_here(&target, &recorder)))
        .await
        .map_err(|err| OAuthError::Config(err.to_string()))?
}

async fn obtain_here(target: &Target, recorder: &Recorder) -> Result<Granted, OAuthError> {
    match target.oauth.machine.grant_type.as_deref() {
        Some(CLIENT_CREDENTIALS) => client_credentials(target, recorder).await,
        Some(JWT_BEARER) if target.oauth.machine.is_workload() => workload(target, recorder).await,
        Some(JWT_BEARER) => cross_app(target, recorder).await,
        other => Err(OAuthError::Config(format!(
            "`oauth.grantType` {other:?} needs a person to log in"
        ))),
    }
}

fn client_id(target: &Target) -> Result<String, OAuthError> {
    target
        .oauth
        .client_id
        .clone()
        .ok_or_else(|| OAuthError::Config("this grant needs `oauth.clientId`".into()))
}

async fn required(target: &Target, kind: &str, what: &str) -> Result<Secret, OAuthError> {
    target
        .secrets
        .secret(kind)
        .await?
        .ok_or_else(|| OAuthError::Config(format!("no {what} in the keychain for this server")))
}

fn algorithm(name: Option<&str>) -> Result<JwtSigningAlgorithm, OAuthError> {
    Ok(match name.unwrap_or("ES256") {
        "RS256" => JwtSigningAlgorithm::RS256,
        "RS384" => JwtSigningAlgorithm::RS384,
        "RS512" => JwtSigningAlgorithm::RS512,
        "ES256" => JwtSigningAlgorithm::ES256,
        "ES384" => JwtSigningAlgorithm::ES384,
        other => {
            return Err(OAuthError::Config(format!(
                "`oauth.signingAlgorithm` {other} is not supported"
            )))
        }
    })
}

async fn client_credentials(target: &Target, recorder: &Recorder) -> Result<Granted, OAuthError> {
    let mut manager = manager(&target.url, &target.secrets, recorder).await?;
    let metadata = discover(&manager, &target.oauth, &target.url, None, recorder).await?;
    manager.set_metadata(metadata.clone());
    target.bind(&metadata, None).await?;
    let client_id = client_id(target)?;
    let scopes = target.oauth.scopes.clone().unwrap_or_default();
    let resource = Some(target.url.clone());
    let config = match target.oauth.machine.token_endpoint_auth_method.as_deref() {
        Some("private_key_jwt") => ClientCredentialsConfig::PrivateKeyJwt {
            client_id: client_id.clone(),
            signing_key: required(target, CLIENT_KEY, "private key")
                .await?
                .expose()
                .as_bytes()
                .to_vec(),
            signing_algorithm: algorithm(target.oauth.machine.signing_algorithm.as_deref())?,
            token_endpoint_audience: None,
            scopes,
            resource,
        },
        _ => ClientCredentialsConfig::ClientSecret {
            client_id: client_id.clone(),
            client_secret: required(target, super::store::CLIENT_SECRET, "client secret")
                .await?
                .expose()
                .to_string(),
            scopes,
            resource,
        },
    };
    manager.validate_client_credentials_metadata(&config)?;
    manager.configure_client_credentials(&config)?;
    let token = manager.exchange_client_credentials(&config).await?;
    Ok(Granted {
        client_id,
        scopes: token
            .scopes()
            .map(|s| s.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default(),
    })
}

async fn cross_app(target: &Target, recorder: &Recorder) -> Result<Granted, OAuthError> {
    let machine = &target.oauth.machine;
    let need = |value: &Option<String>, key: &str| {
        value
            .clone()
            .ok_or_else(|| OAuthError::Config(format!("cross-app access needs `oauth.{key}`")))
    };
    let idp = EmaAuthorizationServer::new(
        need(&machine.idp_issuer, "idpIssuer")?,
        need(&machine.idp_token_endpoint, "idpTokenEndpoint")?,
        need(&machine.idp_client_id, "idpClientId")?,
    );
    let manager = manager(&target.url, &target.secrets, recorder).await?;
    let metadata = discover(&manager, &target.oauth, &target.url, None, recorder).await?;
    let issuer = metadata.issuer.clone().ok_or_else(|| {
        OAuthError::Config("the authorization server's metadata names no issuer".into())
    })?;
    let client_id = client_id(target)?;
    let secret = ClientSecret::new(
        required(target, super::store::CLIENT_SECRET, "client secret")
            .await?
            .expose()
            .to_string(),
    );
    let authentication = match machine.token_endpoint_auth_method.as_deref() {
        Some("client_secret_post") => EmaClientAuthentication::ClientSecretPost(secret),
        _ => EmaClientAuthentication::ClientSecretBasic(secret),
    };
    target.bind(&metadata, None).await?;
    let resource_as =
        EmaAuthorizationServer::new(issuer, metadata.token_endpoint.clone(), &client_id)
            .with_client_authentication(authentication);
    let id_token = required(target, ID_TOKEN, "identity-provider ID token").await?;
    let http = super::recording(recorder)?;
    let mut request =
        EmaExchangeRequest::new_with_id_token(idp, resource_as, &target.url, id_token.expose());
    if let Some(scopes) = &target.oauth.scopes {
        request = request.with_scopes(scopes.clone());
    }
    let token = request
        .exchange(&*http, &*http)
        .await
        .map_err(|err| OAuthError::Config(format!("cross-app access: {err}")))?;
    let scopes: Vec<String> = token.scopes.iter().cloned().collect();
    let mut response: OAuthTokenResponse = serde_json::from_value(serde_json::json!({
        "access_token": token.access_token.secret(),
        "token_type": "Bearer",
    }))
    .map_err(|err| OAuthError::Config(err.to_string()))?;
    response.set_expires_in(token.expires_in.as_ref());
    let received = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .ok();
    target
        .secrets
        .credential_store()
        .save(
            StoredCredentials::new(client_id.clone(), Some(response), scopes.clone(), received)
                .with_issuer(metadata.issuer),
        )
        .await?;
    Ok(Granted { client_id, scopes })
}

/// The most a workload's token may be: platforms' tokens are a few KiB.
const MAX_ASSERTION: u64 = 64 * 1024;
/// How long an `assertionCommand` may take.
const ASSERTION_COMMAND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Workload identity federation: the workload's JWT, as the assertion of the JWT bearer grant.
async fn workload(target: &Target, recorder: &Recorder) -> Result<Granted, OAuthError> {
    let manager = manager(&target.url, &target.secrets, recorder).await?;
    let metadata = discover(&manager, &target.oauth, &target.url, None, recorder).await?;
    let assertion = workload_assertion(&target.oauth.machine).await?;
    target.bind(&metadata, None).await?;
    let mut form: Vec<(&str, String)> = vec![
        ("grant_type", JWT_BEARER.into()),
        ("assertion", assertion.expose().to_string()),
        ("resource", target.url.clone()),
    ];
    if let Some(client_id) = &target.oauth.client_id {
        form.push(("client_id", client_id.clone()));
    }
    if let Some(scopes) = &target.oauth.scopes {
        form.push(("scope", scopes.join(" ")));
    }
    // No redirect followed: a 307 would carry the workload's token to wherever it points.
    let request = crate::unredirected_client()
        .post(&metadata.token_endpoint)
        .header(http::header::ACCEPT, "application/json")
        .form(&form);
    let (status, _, body) = recorder
        .send(request)
        .await
        .map_err(|err| OAuthError::Config(format!("the token endpoint did not answer: {err}")))?;
    let answer: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    if let Some(error) = answer.get("error").and_then(|e| e.as_str()) {
        let described = answer
            .get("error_description")
            .and_then(|d| d.as_str())
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        let next = match error {
            "invalid_grant" => "the workload's token was refused (expired, or for another audience): check what issues it",
            "invalid_scope" => "check `oauth.scopes`",
            "unauthorized_client" => "this workload is not allowed this grant: ask the server's operator",
            _ => "check the entry's `oauth` settings",
        };
        return Err(OAuthError::Config(format!(
            "workload identity: the authorization server refused the token request: {error}{described}; {next}"
        )));
    }
    if !status.is_success() || answer.get("access_token").is_none() {
        return Err(OAuthError::Config(format!(
            "workload identity: the token endpoint answered HTTP {status} without a token"
        )));
    }
    let response: OAuthTokenResponse = serde_json::from_value(answer).map_err(|err| {
        OAuthError::Config(format!(
            "workload identity: the token answer is not usable: {err}"
        ))
    })?;
    let scopes: Vec<String> = response
        .scopes()
        .map(|s| s.iter().map(|s| s.to_string()).collect())
        .unwrap_or_default();
    let received = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .ok();
    let client_id = target.oauth.client_id.clone().unwrap_or_default();
    target
        .secrets
        .credential_store()
        .save(
            StoredCredentials::new(client_id.clone(), Some(response), scopes.clone(), received)
                .with_issuer(metadata.issuer),
        )
        .await?;
    Ok(Granted { client_id, scopes })
}

/// The workload's token, from its file or its command, checked to be a JWT.
async fn workload_assertion(
    machine: &mcp_manager_core::config::entry::MachineGrant,
) -> Result<Secret, OAuthError> {
    let (text, source) = match (&machine.assertion_file, &machine.assertion_command) {
        (Some(path), _) => {
            let path = expand_home(path);
            let text = mcp_manager_core::files::read_text(&path, MAX_ASSERTION)
                .map_err(|err| OAuthError::Config(format!("`oauth.assertionFile`: {err}")))?
                .ok_or_else(|| {
                    OAuthError::Config(format!(
                        "`oauth.assertionFile`: {} does not exist (is the workload's token mounted there?)",
                        path.display()
                    ))
                })?;
            (text, format!("the file {}", path.display()))
        }
        (None, Some(command)) => (run_assertion_command(command).await?, "the command".into()),
        (None, None) => {
            return Err(OAuthError::Config(
                "workload identity needs `oauth.assertionFile` or `oauth.assertionCommand`".into(),
            ))
        }
    };
    let token = text.trim().to_string();
    if !looks_like_jwt(&token) {
        // Never the content: a file named by mistake may hold anything.
        return Err(OAuthError::Config(format!(
            "workload identity: what {source} holds is not a JWT (three base64url parts, a header naming its algorithm), so it is not sent"
        )));
    }
    Ok(Secret::new(token))
}

fn expand_home(path: &str) -> std::path::PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => std::env::home_dir().unwrap_or_default().join(rest),
        None => std::path::PathBuf::from(path),
    }
}

/// Whether `token` is a compact JWS: three base64url parts, the first a JSON header with `alg`.
pub fn looks_like_jwt(token: &str) -> bool {
    use base64::Engine;
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 || parts.iter().take(2).any(|p| p.is_empty()) {
        return false;
    }
    let base64url = |p: &str| {
        p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if !parts.iter().all(|p| base64url(p)) {
        return false;
    }
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(parts[0])
        .ok()
        .and_then(|h| serde_json::from_slice::<serde_json::Value>(&h).ok())
        .is_some_and(|h| h.get("alg").is_some_and(|a| a.is_string()))
}

/// Runs `oauth.assertionCommand` (by the shell, as `headersHelper` is) and returns what it
/// printed. Its stderr is not shown: a token helper may print secrets there.
async fn run_assertion_command(command: &str) -> Result<String, OAuthError> {
    let mut process = if cfg!(windows) {
        let mut c = tokio::process::Command::new("cmd");
        c.arg("/C").arg(command);
        c
    } else {
        let mut c = tokio::process::Command::new("sh");
        c.arg("-c").arg(command);
        c
    };
    process
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let mut child = process.spawn().map_err(|err| {
        OAuthError::Config(format!("`oauth.assertionCommand` could not start: {err}"))
    })?;
    // Its output, read as it comes and never more than a token's worth: the command's end is
    // awaited, not the pipe's (a process it left behind may hold the pipe open).
    let printed = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let reading = {
        let printed = Arc::clone(&printed);
        tokio::spawn(async move {
            use tokio::io::AsyncReadExt;
            let mut chunk = [0u8; 8192];
            while let Ok(n) = stdout.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                let mut printed = printed.lock().expect("not poisoned");
                printed.extend_from_slice(&chunk[..n]);
                if printed.len() as u64 > MAX_ASSERTION {
                    break;
                }
            }
        })
    };
    let status = match tokio::time::timeout(ASSERTION_COMMAND_TIMEOUT, child.wait()).await {
        Ok(Ok(status)) => status,
        Ok(Err(err)) => {
            reading.abort();
            return Err(OAuthError::Config(format!(
                "`oauth.assertionCommand` failed: {err}"
            )));
        }
        Err(_) => {
            reading.abort();
            let _ = child.kill().await;
            return Err(OAuthError::Config(format!(
                "`oauth.assertionCommand` did not finish within {} s",
                ASSERTION_COMMAND_TIMEOUT.as_secs()
            )));
        }
    };
    // What it printed before it ended, given a moment to arrive.
    let _ = tokio::time::timeout(std::time::Duration::from_millis(500), reading).await;
    let printed = std::mem::take(&mut *printed.lock().expect("not poisoned"));
    if printed.len() as u64 > MAX_ASSERTION {
        return Err(OAuthError::Config(
            "`oauth.assertionCommand` printed more than a token".into(),
        ));
    }
    if !status.success() {
        return Err(OAuthError::Config(format!(
            "`oauth.assertionCommand` exited with {status}"
        )));
    }
    Ok(String::from_utf8_lossy(&printed).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_jwt_is_taken_for_a_workload_token() {
        // {"alg":"ES256"} . {} . sig
        assert!(looks_like_jwt("eyJhbGciOiJFUzI1NiJ9.e30.c2ln"));
        assert!(!looks_like_jwt("-----BEGIN PRIVATE KEY-----"));
        assert!(!looks_like_jwt("a.b"));
        assert!(!looks_like_jwt("e30.e30.c2ln"), "a header without alg");
        assert!(!looks_like_jwt("eyJhbGciOiJFUzI1NiJ9.e30.c2ln\nmore"));
    }

    #[tokio::test]
    async fn a_file_or_a_command_that_holds_no_jwt_is_refused_without_its_content() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("id_rsa");
        std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-body\n").unwrap();
        let machine = mcp_manager_core::config::entry::MachineGrant {
            assertion_file: Some(key.display().to_string()),
            ..Default::default()
        };
        let err = workload_assertion(&machine).await.unwrap_err().to_string();
        assert!(err.contains("not a JWT"), "{err}");
        assert!(!err.contains("secret-body"), "{err}");
        let jwt = dir.path().join("token");
        std::fs::write(&jwt, "eyJhbGciOiJFUzI1NiJ9.e30.c2ln\n").unwrap();
        let machine = mcp_manager_core::config::entry::MachineGrant {
            assertion_file: Some(jwt.display().to_string()),
            ..Default::default()
        };
        assert_eq!(
            workload_assertion(&machine).await.unwrap().expose(),
            "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"
        );
        let machine = mcp_manager_core::config::entry::MachineGrant {
            assertion_command: Some("echo eyJhbGciOiJFUzI1NiJ9.e30.c2ln".into()),
            ..Default::default()
        };
        assert_eq!(
            workload_assertion(&machine).await.unwrap().expose(),
            "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"
        );
        let machine = mcp_manager_core::config::entry::MachineGrant {
            assertion_command: Some("echo hunter2; echo leaked >&2".into()),
            ..Default::default()
        };
        let err = workload_assertion(&machine).await.unwrap_err().to_string();
        assert!(
            err.contains("not a JWT") && !err.contains("hunter2"),
            "{err}"
        );
    }
}
