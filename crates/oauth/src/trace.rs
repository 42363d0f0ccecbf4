//! The OAuth debugger's record: every HTTP exchange of a login, a refresh or a logout, in
//! order, with what each step follows and every secret concealed.
//!
//! Why a record and not log lines: when a login fails, the person needs to see which step
//! failed, what the step expected and what the server sent, next to the steps that worked.
//! Each server (by its keychain key, so two projects naming the same server share it) has a
//! [`Journal`] of its last few [`Trace`]s. Every authorization manager this crate builds sends
//! its requests through a [`Recorder`] bound to one trace, and the few requests this crate
//! makes itself (configured metadata, the legacy root document, revocation) record through
//! [`Recorder::send`] too, so nothing of a login escapes the record.
//!
//! Secrets never enter a trace: tokens, codes, client secrets, verifiers, assertions and
//! `state` are replaced by their length and, for long values, their last 4 characters (enough
//! to tell two apart, useless to an attacker) before an exchange is stored ([`conceal`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rmcp::transport::auth::{OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRequest};
use serde::Serialize;

/// Which protocol step an exchange is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// The MCP request without a token, answered 401 with `WWW-Authenticate`.
    Challenge,
    /// `/.well-known/oauth-protected-resource`.
    ResourceMetadata,
    /// `/.well-known/oauth-authorization-server` or `openid-configuration`.
    ServerMetadata,
    /// Dynamic client registration.
    Registration,
    /// The authorization request, shown in the person's browser.
    Authorization,
    /// The redirect back to the loopback listener.
    Callback,
    /// A token request with an authorization code (or a machine grant).
    Token,
    /// A token request with a refresh token.
    Refresh,
    /// Token revocation.
    Revocation,
    /// Anything else an authorization server was asked.
    Other,
}

impl Step {
    /// Its name for a person.
    pub fn title(self) -> &'static str {
        match self {
            Step::Challenge => "Request without a token",
            Step::ResourceMetadata => "Protected resource metadata",
            Step::ServerMetadata => "Authorization server metadata",
            Step::Registration => "Dynamic client registration",
            Step::Authorization => "Authorization request (browser)",
            Step::Callback => "Authorization response (redirect)",
            Step::Token => "Token request",
            Step::Refresh => "Token refresh",
            Step::Revocation => "Token revocation",
            Step::Other => "Request",
        }
    }

    /// The specifications the step follows.
    pub fn rfc(self) -> &'static str {
        match self {
            Step::Challenge => "RFC 9728 §5.1",
            Step::ResourceMetadata => "RFC 9728 §3",
            Step::ServerMetadata => "RFC 8414 §3",
            Step::Registration => "RFC 7591 §3",
            Step::Authorization => "RFC 7636 (PKCE), RFC 8707 (resource)",
            Step::Callback => "RFC 9207 (iss)",
            Step::Token => "RFC 7636 (verifier), RFC 8707 (resource)",
            Step::Refresh => "RFC 6749 §6, RFC 8707 (resource)",
            Step::Revocation => "RFC 7009",
            Step::Other => "RFC 6749",
        }
    }

    /// What a good answer looks like.
    fn expected(self) -> &'static str {
        match self {
            Step::Challenge => "401 with a WWW-Authenticate: Bearer challenge",
            Step::ResourceMetadata => "200 with the protected resource's metadata (JSON)",
            Step::ServerMetadata => "200 with the authorization server's metadata (JSON)",
            Step::Registration => "201 with a client_id",
            Step::Authorization => "the browser redirected back with a code",
            Step::Callback => "a code and the same state",
            Step::Token | Step::Refresh => "200 with an access_token",
            Step::Revocation => "200",
            Step::Other => "a 2xx answer",
        }
    }
}

/// How an exchange went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum StepOutcome {
    Ok,
    /// Not there, and the next candidate is tried (a well-known URL that 404s).
    Miss,
    Failed,
}

/// One header, its value concealed where it carries a secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct Header {
    pub name: String,
    pub value: String,
}

/// One HTTP exchange (or, for the browser's part, one URL shown and one received).
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Exchange {
    pub step: Step,
    pub title: String,
    pub rfc: String,
    pub method: String,
    pub url: String,
    pub status: Option<u16>,
    pub request_headers: Vec<Header>,
    pub request_body: Option<String>,
    pub response_headers: Vec<Header>,
    pub response_body: Option<String>,
    pub outcome: StepOutcome,
    /// For a step that did not go well: what was expected, and what came.
    pub expected: Option<String>,
    pub came: Option<String>,
    pub millis: u32,
}

/// What a trace was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum TraceKind {
    Login,
    /// A connection with the stored token: its discovery, and any refresh.
    Connect,
    Logout,
    /// A refresh ahead of expiry, or asked for (the keeper, `mcpctl refresh`, Refresh now).
    Refresh,
}

/// Where a login is, for the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "phase", rename_all = "kebab-case")]
pub enum Phase {
    Discovering,
    Registering,
    /// The authorization URL is shown; `opened` says whether a browser took it.
    WaitingForBrowser {
        url: String,
        opened: bool,
    },
    Exchanging,
    /// The token is stored; the server is being started with it.
    Connecting,
    Connected,
    Failed {
        message: String,
    },
    Cancelled,
}

/// One login, logout or authorized connect, as recorded.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    pub id: u32,
    pub kind: TraceKind,
    /// Milliseconds since the Unix epoch.
    pub started_ms: f64,
    pub phase: Option<Phase>,
    pub exchanges: Vec<Exchange>,
}

/// How many traces a server keeps.
const KEPT: usize = 8;
/// How much of a body is kept.
const BODY_LIMIT: usize = 16 * 1024;

/// One server's recent traces.
#[derive(Default)]
pub struct Journal {
    traces: Mutex<Vec<Trace>>,
    key: String,
}

type Changes = tokio::sync::broadcast::Sender<String>;

fn registry() -> &'static Mutex<HashMap<String, Arc<Journal>>> {
    static JOURNALS: OnceLock<Mutex<HashMap<String, Arc<Journal>>>> = OnceLock::new();
    JOURNALS.get_or_init(Default::default)
}

fn changes_sender() -> &'static Changes {
    static CHANGES: OnceLock<Changes> = OnceLock::new();
    CHANGES.get_or_init(|| tokio::sync::broadcast::channel(256).0)
}

/// The keys of journals as they change (a new trace, exchange or phase).
pub fn changes() -> tokio::sync::broadcast::Receiver<String> {
    changes_sender().subscribe()
}

/// The journal of the server whose keychain key is `key`.
pub fn journal(key: &str) -> Arc<Journal> {
    let mut journals = registry().lock().expect("journals");
    Arc::clone(journals.entry(key.to_string()).or_insert_with(|| {
        Arc::new(Journal {
            traces: Mutex::default(),
            key: key.to_string(),
        })
    }))
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as f64)
        .unwrap_or(0.0)
}

impl Journal {
    /// Starts a trace and returns the recorder that fills it.
    pub fn begin(self: &Arc<Self>, kind: TraceKind) -> Recorder {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        {
            let mut traces = self.traces.lock().expect("traces");
            traces.push(Trace {
                id,
                kind,
                started_ms: now_ms(),
                phase: None,
                exchanges: Vec::new(),
            });
            let excess = traces.len().saturating_sub(KEPT);
            traces.drain(..excess);
        }
        self.changed();
        Recorder {
            journal: Arc::clone(self),
            id,
        }
    }

    /// The kept traces, oldest first.
    pub fn traces(&self) -> Vec<Trace> {
        self.traces.lock().expect("traces").clone()
    }

    /// The newest login's phase.
    pub fn login_phase(&self) -> Option<Phase> {
        self.traces
            .lock()
            .expect("traces")
            .iter()
            .rev()
            .find(|trace| trace.kind == TraceKind::Login)
            .and_then(|trace| trace.phase.clone())
    }

    /// Sets the phase of the newest login.
    pub fn set_login_phase(&self, phase: Phase) {
        let mut traces = self.traces.lock().expect("traces");
        if let Some(trace) = traces
            .iter_mut()
            .rev()
            .find(|trace| trace.kind == TraceKind::Login)
        {
            trace.phase = Some(phase);
        }
        drop(traces);
        self.changed();
    }

    fn update(&self, id: u32, change: impl FnOnce(&mut Trace)) {
        let mut traces = self.traces.lock().expect("traces");
        if let Some(trace) = traces.iter_mut().find(|trace| trace.id == id) {
            change(trace);
        }
        drop(traces);
        self.changed();
    }

    /// Announces that this server's login changed (a store chosen, a registration
    /// forgotten), for whoever shows it.
    pub fn changed(&self) {
        let _ = changes_sender().send(self.key.clone());
    }
}

/// Fills one trace. Cloning shares the trace.
#[derive(Clone)]
pub struct Recorder {
    journal: Arc<Journal>,
    id: u32,
}

impl Recorder {
    /// Appends `exchange`, and moves a login's phase along by what the step means.
    pub fn record(&self, exchange: Exchange) {
        let phase = match exchange.step {
            Step::ResourceMetadata | Step::ServerMetadata => Some(Phase::Discovering),
            Step::Registration => Some(Phase::Registering),
            Step::Token => Some(Phase::Exchanging),
            _ => None,
        };
        self.journal.update(self.id, |trace| {
            if let Some(phase) = phase.filter(|_| trace.kind == TraceKind::Login) {
                trace.phase = Some(phase);
            }
            trace.exchanges.push(exchange);
        });
    }

    /// Marks the newest exchange failed with `came` when it is a `step` (a step whose failure
    /// shows only after it was recorded).
    pub fn fail_last(&self, step: Step, came: String) {
        self.journal.update(self.id, |trace| {
            if let Some(last) = trace.exchanges.last_mut().filter(|e| e.step == step) {
                last.outcome = StepOutcome::Failed;
                last.expected = Some(step.expected().to_string());
                last.came = Some(came);
            }
        });
    }

    pub fn set_phase(&self, phase: Phase) {
        self.journal
            .update(self.id, |trace| trace.phase = Some(phase));
    }

    /// The trace as recorded so far.
    pub fn trace(&self) -> Option<Trace> {
        self.journal
            .traces()
            .into_iter()
            .find(|trace| trace.id == self.id)
    }

    /// Sends `request` with the shared HTTP client and records the exchange.
    pub(crate) async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<(http::StatusCode, http::HeaderMap, Vec<u8>), reqwest::Error> {
        let (client, request) = request.build_split();
        let request = request?;
        let start = Instant::now();
        let method = request.method().to_string();
        let url = request.url().to_string();
        let request_headers = request.headers().clone();
        let body = request
            .body()
            .and_then(|body| body.as_bytes())
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        let answer = client.execute(request).await;
        let millis = start.elapsed().as_millis() as u32;
        match answer {
            Ok(response) => {
                let status = response.status();
                let headers = response.headers().clone();
                let bytes = response.bytes().await?.to_vec();
                self.record(exchange(
                    &method,
                    &url,
                    &request_headers,
                    &body,
                    Ok((status.as_u16(), &headers, &bytes)),
                    millis,
                ));
                Ok((status, headers, bytes))
            }
            Err(err) => {
                self.record(exchange(
                    &method,
                    &url,
                    &request_headers,
                    &body,
                    Err(&err.to_string()),
                    millis,
                ));
                Err(err)
            }
        }
    }
}

/// rmcp's OAuth HTTP client, recording every exchange into one trace.
pub(crate) struct Recording {
    pub(crate) inner: Arc<dyn OAuthHttpClient>,
    pub(crate) recorder: Recorder,
}

impl OAuthHttpClient for Recording {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let start = Instant::now();
            let method = request.request.method().to_string();
            let url = request.request.uri().to_string();
            let headers = request.request.headers().clone();
            let body = request.request.body().clone();
            let answer = self.inner.execute(request).await;
            let millis = start.elapsed().as_millis() as u32;
            let recorded = match &answer {
                Ok(response) => exchange(
                    &method,
                    &url,
                    &headers,
                    &body,
                    Ok((
                        response.status().as_u16(),
                        response.headers(),
                        response.body(),
                    )),
                    millis,
                ),
                Err(err) => exchange(
                    &method,
                    &url,
                    &headers,
                    &body,
                    Err(&err.to_string()),
                    millis,
                ),
            };
            self.recorder.record(recorded);
            answer
        })
    }
}

/// Which step a request is, from its URL, headers and body. A request that carries
/// `MCP-Protocol-Version` is one to the MCP server itself, sent to provoke its challenge.
fn classify(method: &str, url: &str, headers: &http::HeaderMap, body: &[u8]) -> Step {
    let path = url::Url::parse(url)
        .map(|u| u.path().to_string())
        .unwrap_or_default();
    if path.contains("/.well-known/oauth-protected-resource") {
        return Step::ResourceMetadata;
    }
    if path.contains("/.well-known/oauth-authorization-server")
        || path.contains("/.well-known/openid-configuration")
    {
        return Step::ServerMetadata;
    }
    // rmcp asks the documents above with the header too; anything else that carries it goes to
    // the MCP server itself.
    if headers.contains_key("mcp-protocol-version") {
        return Step::Challenge;
    }
    if method != "POST" {
        return Step::Other;
    }
    let text = String::from_utf8_lossy(body);
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) {
        if json.get("redirect_uris").is_some() || json.get("client_name").is_some() {
            return Step::Registration;
        }
        return Step::Other;
    }
    let form: HashMap<String, String> = url::form_urlencoded::parse(body).into_owned().collect();
    match form.get("grant_type").map(String::as_str) {
        Some("refresh_token") => Step::Refresh,
        Some(_) => Step::Token,
        None if form.contains_key("token") => Step::Revocation,
        None => Step::Other,
    }
}

/// Builds the record of one exchange, concealing every secret.
pub(crate) fn exchange(
    method: &str,
    url: &str,
    request_headers: &http::HeaderMap,
    request_body: &[u8],
    answer: Result<(u16, &http::HeaderMap, &[u8]), &str>,
    millis: u32,
) -> Exchange {
    let step = classify(method, url, request_headers, request_body);
    let (status, response_headers, response_body, outcome, came) = match answer {
        Ok((status, headers, body)) => {
            let outcome = judge(step, status);
            let came = (outcome != StepOutcome::Ok).then(|| describe(status, body));
            (
                Some(status),
                kept_headers(headers),
                Some(body_text(body)),
                outcome,
                came,
            )
        }
        Err(error) => (
            None,
            Vec::new(),
            None,
            StepOutcome::Failed,
            Some(format!("no answer: {error}")),
        ),
    };
    Exchange {
        step,
        title: step.title().into(),
        rfc: step.rfc().into(),
        method: method.into(),
        url: conceal_url(url),
        status,
        request_headers: kept_headers(request_headers),
        request_body: (!request_body.is_empty()).then(|| body_text(request_body)),
        response_headers,
        response_body,
        outcome,
        expected: (outcome != StepOutcome::Ok).then(|| step.expected().to_string()),
        came,
        millis,
    }
}

/// A step without an HTTP exchange of ours: the browser's part, or an MCP request's challenge.
pub(crate) fn shown(
    step: Step,
    method: &str,
    url: &str,
    outcome: StepOutcome,
    came: Option<String>,
) -> Exchange {
    Exchange {
        step,
        title: step.title().into(),
        rfc: step.rfc().into(),
        method: method.into(),
        url: conceal_url(url),
        status: None,
        request_headers: Vec::new(),
        request_body: None,
        response_headers: Vec::new(),
        response_body: None,
        outcome,
        expected: (outcome != StepOutcome::Ok).then(|| step.expected().to_string()),
        came,
        millis: 0,
    }
}

/// The 401 (or 403) an MCP request without a token got, as its challenge told it.
pub(crate) fn challenged(url: &str, challenge: &str) -> Exchange {
    let mut exchange = shown(Step::Challenge, "POST", url, StepOutcome::Ok, None);
    exchange.response_headers.push(Header {
        name: "www-authenticate".into(),
        value: challenge.to_string(),
    });
    exchange
}

fn judge(step: Step, status: u16) -> StepOutcome {
    match (step, status) {
        (Step::Challenge, 401 | 403) => StepOutcome::Ok,
        // No challenge there: discovery goes on at the well-known URLs.
        (Step::Challenge, _) => StepOutcome::Miss,
        (Step::ResourceMetadata | Step::ServerMetadata, 404) => StepOutcome::Miss,
        (_, 200..=299) => StepOutcome::Ok,
        _ => StepOutcome::Failed,
    }
}

/// What came, in one line: the status and an OAuth error's code and description.
fn describe(status: u16, body: &[u8]) -> String {
    let reason = http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    let mut text = format!("{status} {reason}").trim_end().to_string();
    if let Ok(json) = serde_json::from_slice::<serde_json::Value>(body) {
        if let Some(error) = json.get("error").and_then(|e| e.as_str()) {
            text.push_str(&format!(": {error}"));
            if let Some(description) = json.get("error_description").and_then(|e| e.as_str()) {
                text.push_str(&format!(" ({description})"));
            }
        }
    }
    text
}

/// A proof as the OAuth debugger shows it: its header and claims, the signature concealed.
pub(crate) fn shown_proof(proof: &str) -> String {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    let mut parts = proof.split('.');
    let decode = |part: Option<&str>| {
        part.and_then(|p| URL_SAFE_NO_PAD.decode(p).ok())
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .unwrap_or_else(|| "(not readable)".into())
    };
    let header = decode(parts.next());
    let claims = decode(parts.next());
    format!("{header} . {claims} . (signature concealed)")
}

/// The headers that matter to OAuth, values concealed where secret.
fn kept_headers(headers: &http::HeaderMap) -> Vec<Header> {
    const KEPT_NAMES: [&str; 7] = [
        "authorization",
        "www-authenticate",
        "content-type",
        "location",
        "mcp-protocol-version",
        "dpop",
        "dpop-nonce",
    ];
    headers
        .iter()
        .filter(|(name, _)| KEPT_NAMES.contains(&name.as_str()))
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            let value = match name.as_str() {
                // A proof shows what it proves; only its signature is concealed.
                "dpop" => shown_proof(&value),
                "authorization" => match value.split_once(' ') {
                    Some((scheme, credential)) => format!("{scheme} {}", conceal(credential)),
                    None => conceal(&value),
                },
                "location" => conceal_url(&value),
                _ => value,
            };
            Header {
                name: name.as_str().to_string(),
                value,
            }
        })
        .collect()
}

/// Parameter names whose values are secrets.
const SECRET_KEYS: [&str; 14] = [
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "code",
    "code_verifier",
    "client_assertion",
    "assertion",
    "subject_token",
    "actor_token",
    "token",
    "registration_access_token",
    "state",
    "password",
];

fn is_secret(key: &str) -> bool {
    SECRET_KEYS.contains(&key) || mcp_manager_core::secrets::name_says_secret(key)
}

/// A secret as its length and, when long enough not to give it away, its last 4 characters.
pub fn conceal(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() >= 16 {
        let tail: String = chars[chars.len() - 4..].iter().collect();
        format!("[secret: {} chars, …{tail}]", chars.len())
    } else {
        format!("[secret: {} chars]", chars.len())
    }
}

/// `url` with the values of secret query parameters concealed.
pub fn conceal_url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_string();
    };
    if parsed.query().is_none() {
        return url.to_string();
    }
    let pairs: Vec<(String, String)> = parsed
        .query_pairs()
        .map(|(k, v)| {
            let v = if is_secret(&k) {
                conceal(&v)
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    parsed.query_pairs_mut().clear().extend_pairs(pairs);
    parsed.to_string()
}

/// A body as text, secrets concealed: JSON by key, forms by parameter, else as is (cut).
fn body_text(body: &[u8]) -> String {
    if let Ok(mut json) = serde_json::from_slice::<serde_json::Value>(body) {
        conceal_json(&mut json);
        let text = serde_json::to_string_pretty(&json).unwrap_or_default();
        return cut(text);
    }
    let text = String::from_utf8_lossy(body);
    if !text.is_empty() && !text.contains(char::is_whitespace) && text.contains('=') {
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(body)
            .map(|(k, v)| {
                let v = if is_secret(&k) {
                    conceal(&v)
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        return cut(pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&"));
    }
    cut(text.into_owned())
}

fn conceal_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    serde_json::Value::String(text) if is_secret(key) => {
                        *text = conceal(text);
                    }
                    _ => conceal_json(value),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(conceal_json),
        _ => {}
    }
}

fn cut(mut text: String) -> String {
    if text.len() > BODY_LIMIT {
        let mut end = BODY_LIMIT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let total = text.len();
        text.truncate(end);
        text.push_str(&format!("\n… ({total} bytes in all)"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "eyJhbGciOiJIUzI1NiJ9.payload.signature-XYZW";

    #[test]
    fn secrets_show_only_their_length_and_last_four() {
        assert_eq!(
            conceal(TOKEN),
            format!("[secret: {} chars, …XYZW]", TOKEN.len())
        );
        assert_eq!(conceal("abc123"), "[secret: 6 chars]");
    }

    #[test]
    fn token_answers_and_requests_are_concealed_wherever_the_secret_sits() {
        let mut headers = http::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
        headers.insert("x-other", "kept out".parse().unwrap());
        let request = format!("grant_type=authorization_code&code={TOKEN}&code_verifier={TOKEN}&redirect_uri=http%3A%2F%2Flocalhost%3A1%2Fcallback");
        let answer = format!(
            r#"{{"access_token":"{TOKEN}","refresh_token":"{TOKEN}","token_type":"Bearer","scope":"read"}}"#
        );
        let recorded = exchange(
            "POST",
            &format!("https://as.example/token?state={TOKEN}"),
            &headers,
            request.as_bytes(),
            Ok((200, &http::HeaderMap::new(), answer.as_bytes())),
            5,
        );
        let shown = serde_json::to_string(&recorded).unwrap();
        assert!(!shown.contains("payload.signature"), "{shown}");
        assert!(shown.contains("…XYZW"), "{shown}");
        assert!(
            shown.contains("redirect_uri=http://localhost:1/callback"),
            "{shown}"
        );
        assert!(
            !shown.contains("x-other"),
            "only the headers that matter: {shown}"
        );
        assert_eq!(recorded.step, Step::Token);
        assert_eq!(recorded.outcome, StepOutcome::Ok);
    }

    #[test]
    fn steps_are_told_apart_and_failures_say_what_was_expected_and_what_came() {
        let none = http::HeaderMap::new();
        let miss = exchange(
            "GET",
            "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp",
            &none,
            b"",
            Ok((404, &none, b"")),
            1,
        );
        assert_eq!(
            (miss.step, miss.outcome),
            (Step::ResourceMetadata, StepOutcome::Miss)
        );
        let registration = exchange(
            "POST",
            "http://127.0.0.1:1/register",
            &none,
            br#"{"client_name":"MCP Manager","redirect_uris":["http://localhost:1/callback"]}"#,
            Ok((
                400,
                &none,
                br#"{"error":"invalid_redirect_uri","error_description":"no"}"#,
            )),
            1,
        );
        assert_eq!(registration.step, Step::Registration);
        assert_eq!(registration.outcome, StepOutcome::Failed);
        assert_eq!(
            registration.expected.as_deref(),
            Some("201 with a client_id")
        );
        assert_eq!(
            registration.came.as_deref(),
            Some("400 Bad Request: invalid_redirect_uri (no)")
        );
        let refresh = exchange(
            "POST",
            "http://127.0.0.1:1/token",
            &none,
            b"grant_type=refresh_token&refresh_token=abc",
            Err("connection refused"),
            1,
        );
        assert_eq!(
            (refresh.step, refresh.outcome),
            (Step::Refresh, StepOutcome::Failed)
        );
        assert_eq!(
            refresh.came.as_deref(),
            Some("no answer: connection refused")
        );
        let revoke = exchange(
            "POST",
            "http://127.0.0.1:1/revoke",
            &none,
            b"token=abc&token_type_hint=access_token",
            Ok((200, &none, b"")),
            1,
        );
        assert_eq!(revoke.step, Step::Revocation);
        let mut mcp = http::HeaderMap::new();
        mcp.insert("mcp-protocol-version", "2025-11-25".parse().unwrap());
        let probe = exchange(
            "GET",
            "http://127.0.0.1:1/mcp",
            &mcp,
            b"",
            Ok((405, &none, b"")),
            1,
        );
        assert_eq!(
            (probe.step, probe.outcome),
            (Step::Challenge, StepOutcome::Miss)
        );
        let metadata = exchange(
            "GET",
            "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp",
            &mcp,
            b"",
            Ok((200, &none, b"{}")),
            1,
        );
        assert_eq!(metadata.step, Step::ResourceMetadata);
        assert_eq!(probe.came.as_deref(), Some("405 Method Not Allowed"));
    }

    #[test]
    fn a_journal_keeps_its_last_traces_and_a_login_moves_through_its_phases() {
        let journal = journal("trace-test|0000");
        let first = journal.begin(TraceKind::Login);
        let none = http::HeaderMap::new();
        first.record(exchange(
            "GET",
            "http://127.0.0.1:1/.well-known/oauth-authorization-server",
            &none,
            b"",
            Ok((200, &none, b"{}")),
            1,
        ));
        assert_eq!(journal.login_phase(), Some(Phase::Discovering));
        for _ in 0..KEPT {
            journal.begin(TraceKind::Connect);
        }
        let traces = journal.traces();
        assert_eq!(traces.len(), KEPT);
        assert!(traces.iter().all(|trace| trace.id != first.id));
    }
}
