//! Grants that need no person: OAuth client credentials (with `client_secret_basic`,
//! `client_secret_post` or `private_key_jwt`), and enterprise-managed cross-app access (an
//! RFC 8693 token exchange of the identity provider's ID token for an ID-JAG, then the
//! RFC 7523 JWT bearer grant at the server's authorization server).
//!
//! Both end like a login: the token is saved in the server's keychain entry, where the
//! connection finds it. Their secrets (client secret, private key, ID token) are read from the
//! keychain too, never from the config file.

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
    target.bind(&metadata).await?;
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
    target.bind(&metadata).await?;
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
