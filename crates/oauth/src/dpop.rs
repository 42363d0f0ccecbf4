//! DPoP (RFC 9449, SEP-1932): tokens bound to a key pair of this login, so that a stolen
//! access or refresh token is worth nothing without the private key.
//!
//! - When the authorization server's metadata offers `dpop_signing_alg_values_supported`
//!   with ES256, a login makes a P-256 key pair ([`DpopKey::generate`]) and keeps it in the
//!   keychain beside its tokens (`dpop-key`), never in a file. Claude Code's store has no
//!   place for one (its program parses the metadata fields and signs DPoP proofs only for
//!   AWS's own login), so a DPoP-bound login is kept in the keychain only.
//! - Every request to the token endpoint carries a proof ([`Proving`], around rmcp's OAuth
//!   HTTP client); every request to the MCP server carries `Authorization: DPoP <token>` and a
//!   proof with `ath`, the token's hash (`http_client::TimedPosts` in the connection engine).
//! - A server that answers `use_dpop_nonce` (400 at the token endpoint, 401 at the resource)
//!   with a `DPoP-Nonce` is asked once more with that nonce; the last nonce of each origin is
//!   kept for the next proof ([`DpopKey::note_nonce`]).
//! - Each proof has its own random `jti`, so no proof is ever sent twice: a server that keeps
//!   them refuses a replay, and the tests show it does.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use mcp_manager_core::secrets::Secret;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use rmcp::transport::auth::{OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRequest};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::OAuthError;

/// The keychain entry of a login's DPoP key (PKCS#8, base64url).
pub const DPOP_KEY: &str = "dpop-key";
/// The one algorithm we sign proofs with.
pub const ALGORITHM: &str = "ES256";

/// A login's DPoP key pair, and the nonces servers gave for it.
pub struct DpopKey {
    pair: EcdsaKeyPair,
    pkcs8: Vec<u8>,
    /// The public key as a JWK: `{"crv","kty","x","y"}`, members in RFC 7638 order.
    jwk: Value,
    /// The last `DPoP-Nonce` of each origin.
    nonces: Mutex<HashMap<String, String>>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("thumbprint", &self.thumbprint())
            .finish_non_exhaustive()
    }
}

fn failed(what: &str) -> OAuthError {
    OAuthError::Config(format!("DPoP: {what}"))
}

impl DpopKey {
    /// A new P-256 key pair.
    pub fn generate() -> Result<Self, OAuthError> {
        let document =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .map_err(|_| failed("could not make a key pair"))?;
        Self::from_pkcs8(document.as_ref().to_vec())
    }

    /// The key pair kept in the keychain ([`DpopKey::stored`]).
    pub fn from_stored(secret: &Secret) -> Result<Self, OAuthError> {
        let pkcs8 = URL_SAFE_NO_PAD
            .decode(secret.expose().trim())
            .map_err(|_| failed("the key in the keychain is not readable; log in again"))?;
        Self::from_pkcs8(pkcs8)
    }

    fn from_pkcs8(pkcs8: Vec<u8>) -> Result<Self, OAuthError> {
        let pair = EcdsaKeyPair::from_pkcs8(
            &ECDSA_P256_SHA256_FIXED_SIGNING,
            &pkcs8,
            &SystemRandom::new(),
        )
        .map_err(|_| failed("the key in the keychain is not a P-256 key; log in again"))?;
        // An uncompressed point: 0x04, then x and y of 32 bytes each.
        let point = pair.public_key().as_ref();
        if point.len() != 65 || point[0] != 4 {
            return Err(failed("unexpected public key"));
        }
        let jwk = json!({
            "crv": "P-256",
            "kty": "EC",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        Ok(DpopKey {
            pair,
            pkcs8,
            jwk,
            nonces: Mutex::new(HashMap::new()),
        })
    }

    /// What the keychain keeps of this key.
    pub fn stored(&self) -> Secret {
        Secret::new(URL_SAFE_NO_PAD.encode(&self.pkcs8))
    }

    /// The public key as a JWK.
    pub fn jwk(&self) -> &Value {
        &self.jwk
    }

    /// The RFC 7638 thumbprint of the public key (SHA-256, base64url): the `jkt` a bound
    /// token's `cnf` names.
    pub fn thumbprint(&self) -> String {
        // serde_json keeps object members sorted, which is RFC 7638's required order here.
        let canonical = self.jwk.to_string();
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    }

    /// A fresh proof for a `method` request to `url`, with `ath` for `access_token` when one
    /// is presented, and the origin's last nonce if it gave one.
    pub fn proof(&self, method: &str, url: &str, access_token: Option<&str>) -> String {
        let header = json!({"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.jwk});
        let mut jti = [0u8; 18];
        let _ = SystemRandom::new().fill(&mut jti);
        let iat = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let mut claims = json!({
            "jti": URL_SAFE_NO_PAD.encode(jti),
            "htm": method.to_ascii_uppercase(),
            "htu": htu(url),
            "iat": iat,
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = self.nonce_for(url) {
            claims["nonce"] = json!(nonce);
        }
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .map(|s| URL_SAFE_NO_PAD.encode(s.as_ref()))
            .unwrap_or_default();
        format!("{signing_input}.{signature}")
    }

    fn nonce_for(&self, url: &str) -> Option<String> {
        let origin = origin(url)?;
        self.nonces.lock().ok()?.get(&origin).cloned()
    }

    /// Keeps the `DPoP-Nonce` an answer from `url` carries, if any; whether it carried one
    /// that is new.
    pub fn note_nonce(&self, url: &str, headers: &http::HeaderMap) -> bool {
        let Some(nonce) = headers
            .get("dpop-nonce")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
        else {
            return false;
        };
        let Some(origin) = origin(url) else {
            return false;
        };
        let Ok(mut nonces) = self.nonces.lock() else {
            return false;
        };
        nonces.insert(origin, nonce.clone()) != Some(nonce)
    }
}

/// `htu`: the request's URL without query and fragment (RFC 9449 §4.2).
pub fn htu(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_string(),
    }
}

fn origin(url: &str) -> Option<String> {
    Some(url::Url::parse(url).ok()?.origin().ascii_serialization())
}

/// Whether an answer asks for the request again with a nonce: `use_dpop_nonce` as the OAuth
/// error of a 400 (the token endpoint) or in a 401's `WWW-Authenticate` (a resource).
pub fn wants_nonce(status: u16, headers: &http::HeaderMap, body: &[u8]) -> bool {
    if !headers.contains_key("dpop-nonce") {
        return false;
    }
    match status {
        400 => serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_string))
            .is_some_and(|e| e == "use_dpop_nonce"),
        401 => headers
            .get_all("www-authenticate")
            .iter()
            .any(|v| v.to_str().is_ok_and(|v| v.contains("use_dpop_nonce"))),
        _ => false,
    }
}

/// Whether an authorization server's metadata offers DPoP with our algorithm.
pub fn offered(metadata: &rmcp::transport::auth::AuthorizationMetadata) -> bool {
    metadata
        .additional_fields
        .get("dpop_signing_alg_values_supported")
        .and_then(Value::as_array)
        .is_some_and(|algs| algs.iter().any(|a| a.as_str() == Some(ALGORITHM)))
}

/// rmcp's OAuth HTTP client with a DPoP proof on every POST (the token, refresh and
/// revocation requests), asked once more with the server's nonce when it wants one (that
/// second request goes out on the shared client, and into the same trace).
pub(crate) struct Proving {
    pub(crate) inner: Arc<dyn OAuthHttpClient>,
    pub(crate) key: Arc<DpopKey>,
    pub(crate) recorder: crate::Recorder,
}

impl OAuthHttpClient for Proving {
    fn execute(&self, mut request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            if request.request.method() != http::Method::POST {
                return self.inner.execute(request).await;
            }
            let url = request.request.uri().to_string();
            self.prove(request.request.headers_mut(), &url);
            let headers = request.request.headers().clone();
            let body = request.request.body().clone();
            let answer = self.inner.execute(request).await?;
            let new_nonce = self.key.note_nonce(&url, answer.headers());
            if !(new_nonce
                && wants_nonce(answer.status().as_u16(), answer.headers(), answer.body()))
            {
                return Ok(answer);
            }
            self.again(&url, headers, body).await
        })
    }
}

impl Proving {
    fn prove(&self, headers: &mut http::HeaderMap, url: &str) {
        let proof = self.key.proof("POST", url, None);
        if let Ok(value) = http::HeaderValue::from_str(&proof) {
            headers.insert("dpop", value);
        }
    }

    /// The POST once more, with a proof that carries the nonce just given.
    async fn again(
        &self,
        url: &str,
        mut headers: http::HeaderMap,
        body: Vec<u8>,
    ) -> Result<http::Response<Vec<u8>>, rmcp::transport::auth::OAuthHttpClientError> {
        self.prove(&mut headers, url);
        let start = std::time::Instant::now();
        let response = crate::unredirected_client()
            .post(url)
            .headers(headers.clone())
            .body(body.clone())
            .timeout(std::time::Duration::from_secs(30))
            .send()
            .await?;
        let status = response.status();
        let answer_headers = response.headers().clone();
        let bytes = response.bytes().await?.to_vec();
        self.key.note_nonce(url, &answer_headers);
        self.recorder.record(crate::trace::exchange(
            "POST",
            url,
            &headers,
            &body,
            Ok((status.as_u16(), &answer_headers, &bytes)),
            start.elapsed().as_millis() as u32,
        ));
        let mut answer = http::Response::new(bytes);
        *answer.status_mut() = status;
        *answer.headers_mut() = answer_headers;
        // As the process's own client does: an OAuth error in a 200 is a 400.
        if status == http::StatusCode::OK && crate::is_oauth_error(answer.body()) {
            *answer.status_mut() = http::StatusCode::BAD_REQUEST;
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_is_a_signed_jwt_with_the_claims_rfc_9449_names() {
        let key = DpopKey::generate().unwrap();
        let proof = key.proof("post", "https://as.example/token?x=1#f", Some("the-token"));
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        let claims: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://as.example/token");
        assert_eq!(
            claims["ath"],
            URL_SAFE_NO_PAD.encode(Sha256::digest(b"the-token"))
        );
        // The signature verifies with the public key in the header.
        let point = [
            vec![4u8],
            URL_SAFE_NO_PAD
                .decode(header["jwk"]["x"].as_str().unwrap())
                .unwrap(),
            URL_SAFE_NO_PAD
                .decode(header["jwk"]["y"].as_str().unwrap())
                .unwrap(),
        ]
        .concat();
        let public = ring::signature::UnparsedPublicKey::new(
            &ring::signature::ECDSA_P256_SHA256_FIXED,
            point,
        );
        let signed = format!("{}.{}", parts[0], parts[1]);
        public
            .verify(
                signed.as_bytes(),
                &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
            )
            .expect("the proof's signature verifies");
        // Each proof is new.
        let again = key.proof("POST", "https://as.example/token", None);
        let claims_again: Value = serde_json::from_slice(
            &URL_SAFE_NO_PAD
                .decode(again.split('.').nth(1).unwrap())
                .unwrap(),
        )
        .unwrap();
        assert_ne!(claims["jti"], claims_again["jti"]);
        assert!(claims_again.get("ath").is_none());
    }

    #[test]
    fn the_key_survives_the_keychain_and_its_thumbprint_is_rfc_7638() {
        let key = DpopKey::generate().unwrap();
        let back = DpopKey::from_stored(&key.stored()).unwrap();
        assert_eq!(key.jwk(), back.jwk());
        assert_eq!(key.thumbprint(), back.thumbprint());
        // RFC 7638 §3.1's members, in lexicographic order, no spaces.
        let canonical = key.jwk().to_string();
        assert!(canonical.starts_with("{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\""));
        assert!(DpopKey::from_stored(&Secret::new("not a key")).is_err());
    }

    #[test]
    fn a_nonce_is_kept_per_origin_and_sent_in_the_next_proof() {
        let key = DpopKey::generate().unwrap();
        let mut headers = http::HeaderMap::new();
        headers.insert("dpop-nonce", "n-1".parse().unwrap());
        assert!(key.note_nonce("https://rs.example/mcp", &headers));
        assert!(
            !key.note_nonce("https://rs.example/other", &headers),
            "not new"
        );
        let claims = |proof: String| -> Value {
            serde_json::from_slice(
                &URL_SAFE_NO_PAD
                    .decode(proof.split('.').nth(1).unwrap())
                    .unwrap(),
            )
            .unwrap()
        };
        assert_eq!(
            claims(key.proof("POST", "https://rs.example/mcp", None))["nonce"],
            "n-1"
        );
        assert!(claims(key.proof("POST", "https://as.example/token", None))
            .get("nonce")
            .is_none());
        let mut challenge = headers.clone();
        challenge.insert(
            "www-authenticate",
            "DPoP error=\"use_dpop_nonce\"".parse().unwrap(),
        );
        assert!(wants_nonce(401, &challenge, b""));
        assert!(wants_nonce(400, &headers, br#"{"error":"use_dpop_nonce"}"#));
        assert!(!wants_nonce(400, &headers, br#"{"error":"invalid_grant"}"#));
        // The debugger's view: header and claims, never the signature.
        let proof = key.proof("POST", "https://x/", None);
        let view = crate::trace::shown_proof(&proof);
        assert!(
            view.contains("\"htm\":\"POST\"") && view.contains("dpop+jwt"),
            "{view}"
        );
        assert!(view.ends_with("(signature concealed)"));
        assert!(!view.contains(proof.rsplit('.').next().unwrap()));
        let mut headers = http::HeaderMap::new();
        headers.insert("dpop", proof.parse().unwrap());
        let kept = crate::trace::exchange("POST", "https://x/token", &headers, b"", Err("none"), 1);
        let shown_there = serde_json::to_string(&kept).unwrap();
        assert!(
            !shown_there.contains(proof.rsplit('.').next().unwrap()),
            "{shown_there}"
        );
        assert!(shown_there.contains("signature concealed"), "{shown_there}");
    }
}
