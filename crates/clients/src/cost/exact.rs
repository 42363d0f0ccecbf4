//! Exact token counts through the model API's token counting endpoint, with the person's own
//! key: `POST {ANTHROPIC_BASE_URL or https://api.anthropic.com}/v1/messages/count_tokens`.
//!
//! The endpoint counts a whole request, so a tool's cost is a difference: the request with the
//! tool, less the same request with no tools, less the tool-use system prompt the API adds
//! once any tool is present. That prompt is measured once per run with two tiny probe tools
//! (`a + b − (a and b together)`) and reported as the project's fixed overhead; in Claude Code
//! it is paid anyway, for its own tools. A deferred tool's name is counted as the line it is
//! in the system text that lists deferred tools.
//!
//! The key comes from `ANTHROPIC_API_KEY` or the keychain entry
//! [`MODEL_API_KEY_ACCOUNT`](mcp_manager_core::secrets::MODEL_API_KEY_ACCOUNT), never from a
//! file of ours; it is held in a [`Secret`] (whose `Debug` prints nothing of it), sent only in
//! the `x-api-key` header, and taken out of every error text.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_manager_core::secrets::{self, Secret};
use serde_json::{json, Value};

use crate::claude_code::SentTool;

/// The API version header the endpoint is called with.
pub const API_VERSION: &str = "2023-06-01";
/// Where the model API is unless `ANTHROPIC_BASE_URL` says otherwise.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The model whose tokenizer counts, unless `ANTHROPIC_MODEL` names another.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";
/// Requests in flight at once.
pub const CONCURRENCY: usize = 4;

/// The person's model API key. `Debug` shows `[redacted]`; nothing serializes it.
#[derive(Debug, Clone)]
pub struct ApiKey(Secret);

/// Where the key was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    Environment,
    Keychain,
}

impl ApiKey {
    pub fn new(value: impl Into<String>) -> ApiKey {
        ApiKey(Secret::new(value))
    }

    /// `ANTHROPIC_API_KEY`, else the keychain's entry; `None` when neither holds one.
    pub fn find(
        env: impl Fn(&str) -> Option<String>,
        store: &dyn secrets::SecretStore,
    ) -> Result<Option<(ApiKey, KeySource)>, CountError> {
        if let Some(key) = env("ANTHROPIC_API_KEY").filter(|k| !k.trim().is_empty()) {
            return Ok(Some((ApiKey::new(key.trim()), KeySource::Environment)));
        }
        match store.get(secrets::MODEL_API_KEY_ACCOUNT) {
            Ok(found) => Ok(found.map(|secret| (ApiKey(secret), KeySource::Keychain))),
            Err(err) => Err(CountError::Keychain(err.to_string())),
        }
    }
}

/// Why an exact count failed, in words for a person. No message holds the key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CountError {
    #[error(
        "No model API key: set ANTHROPIC_API_KEY, or keep the key in the OS keychain (entry \
         \"{}\" of MCP Manager). Without one the costs are estimates.",
        secrets::MODEL_API_KEY_ACCOUNT
    )]
    NoKey,
    #[error("The model API key could not be read from the keychain: {0}")]
    Keychain(String),
    #[error(
        "The model API refused the key (HTTP {status}): check ANTHROPIC_API_KEY or the key in \
         the keychain. Nothing was counted."
    )]
    Refused { status: u16 },
    #[error(
        "The model API at {url} could not be reached ({reason}). Check the network, or \
         ANTHROPIC_BASE_URL if you set it."
    )]
    Unreachable { url: String, reason: String },
    #[error("The model API answered HTTP {status} to a token count: {message}")]
    Failed { status: u16, message: String },
    #[error("The model API's answer to a token count holds no input_tokens: {0}")]
    Unreadable(String),
}

/// `url` as an error may show it: without a user, password or query.
fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.to_string()
        }
        Err(_) => "the address ANTHROPIC_BASE_URL gives".to_string(),
    }
}

/// A token counter on the model API.
#[derive(Debug, Clone)]
pub struct Counter {
    http: reqwest::Client,
    url: String,
    key: ApiKey,
    model: String,
}

/// The exact counts of a set of tools.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    /// The tool-use system prompt, paid once when any tool is present.
    pub overhead: u64,
    /// Each definition's tokens, keyed by its compact JSON.
    pub tools: HashMap<String, u64>,
    /// Each deferred name's line, keyed by the name.
    pub names: HashMap<String, u64>,
}

impl Counts {
    pub fn tool(&self, tool: &SentTool) -> u64 {
        self.tools
            .get(&super::estimate::definition_text(tool))
            .copied()
            .unwrap_or_default()
    }

    pub fn name(&self, name: &str) -> u64 {
        self.names.get(name).copied().unwrap_or_default()
    }
}

impl Counter {
    /// A counter at `base_url` (`None`: [`DEFAULT_BASE_URL`]) for `model` (`None`:
    /// [`DEFAULT_MODEL`]).
    pub fn new(key: ApiKey, base_url: Option<&str>, model: Option<&str>) -> Counter {
        let base = base_url
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .unwrap_or(DEFAULT_BASE_URL)
            .trim_end_matches('/');
        Counter {
            // The key goes to ANTHROPIC_BASE_URL only: a redirect elsewhere is an answer, not
            // followed (reqwest would carry the x-api-key header across hosts).
            http: reqwest::Client::builder()
                .timeout(std::time::Duration::from_secs(30))
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap_or_default(),
            url: format!("{base}/v1/messages/count_tokens"),
            key,
            model: model
                .filter(|m| !m.trim().is_empty())
                .unwrap_or(DEFAULT_MODEL)
                .to_string(),
        }
    }

    /// From `ANTHROPIC_BASE_URL` and `ANTHROPIC_MODEL` read through `env`.
    pub fn from_env(key: ApiKey, env: impl Fn(&str) -> Option<String>) -> Counter {
        Counter::new(
            key,
            env("ANTHROPIC_BASE_URL").as_deref(),
            env("ANTHROPIC_MODEL").as_deref(),
        )
    }

    /// The model whose counts these are.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Input tokens of one request: `text` as the user's message, `tools` as its tools.
    pub async fn count(&self, text: &str, tools: &[Value]) -> Result<u64, CountError> {
        let mut body = json!({
            "model": self.model,
            "messages": [{"role": "user", "content": text}],
        });
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools.to_vec());
        }
        let conceal =
            |text: String| secrets::conceal_values(&text, &[self.key.0.expose().to_string()]);
        let response = self
            .http
            .post(&self.url)
            .header("x-api-key", self.key.0.expose())
            .header("anthropic-version", API_VERSION)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|err| CountError::Unreachable {
                url: conceal(shown_url(&self.url)),
                reason: conceal(plain_reason(&err)),
            })?;
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        if status == 401 || status == 403 {
            return Err(CountError::Refused { status });
        }
        let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        // Only the API's own error message is quoted, decoded, the key hidden in it whole
        // before it is shortened; any other body is described, never quoted (it could echo
        // the key in a form the hiding does not recognise).
        let described = || {
            format!(
                "an answer of {} bytes that is not the model API's",
                text.len()
            )
        };
        if (300..400).contains(&status) {
            return Err(CountError::Failed {
                status,
                message: "a redirect, not followed: the key is sent to ANTHROPIC_BASE_URL only"
                    .into(),
            });
        }
        if !(200..300).contains(&status) {
            let message = match answer.pointer("/error/message").and_then(Value::as_str) {
                Some(message) => conceal(message.to_string()).chars().take(300).collect(),
                None => described(),
            };
            return Err(CountError::Failed { status, message });
        }
        answer["input_tokens"]
            .as_u64()
            .ok_or_else(|| CountError::Unreadable(described()))
    }

    /// The exact cost of each tool and each name, and the tool-use overhead, with at most
    /// [`CONCURRENCY`] requests in flight.
    pub async fn counts(
        &self,
        tools: &[SentTool<'_>],
        names: &[String],
    ) -> Result<Counts, CountError> {
        const TEXT: &str = "x";
        let probe = |name: &str| json!({"name": name, "description": "", "input_schema": {"type": "object"}});
        let (a, b) = (probe("a"), probe("b"));
        let mut jobs: Vec<(Job, String, Vec<Value>)> = vec![
            (Job::Bare, TEXT.into(), vec![]),
            (Job::ProbeA, TEXT.into(), vec![a.clone()]),
            (Job::ProbeB, TEXT.into(), vec![b.clone()]),
            (Job::ProbeBoth, TEXT.into(), vec![a, b]),
        ];
        let mut seen = std::collections::HashSet::new();
        for tool in tools {
            let key = super::estimate::definition_text(tool);
            if seen.insert(key.clone()) {
                let value = serde_json::to_value(tool).expect("a tool serializes");
                jobs.push((Job::Tool(key), TEXT.into(), vec![value]));
            }
        }
        for name in names {
            if seen.insert(format!("name:{name}")) {
                jobs.push((Job::Name(name.clone()), format!("{TEXT}\n{name}"), vec![]));
            }
        }
        let gate = Arc::new(tokio::sync::Semaphore::new(CONCURRENCY));
        let mut running = tokio::task::JoinSet::new();
        for (job, text, tools) in jobs {
            let counter = self.clone();
            let gate = gate.clone();
            running.spawn(async move {
                let _permit = gate.acquire_owned().await;
                counter.count(&text, &tools).await.map(|n| (job, n))
            });
        }
        let mut answers = Vec::new();
        while let Some(done) = running.join_next().await {
            match done {
                Ok(Ok(answer)) => answers.push(answer),
                Ok(Err(err)) => {
                    running.abort_all();
                    return Err(err);
                }
                Err(err) => return Err(CountError::Unreadable(err.to_string())),
            }
        }
        let find = |wanted: &Job| {
            answers
                .iter()
                .find(|(job, _)| job == wanted)
                .map(|(_, n)| *n)
                .unwrap_or_default()
        };
        let bare = find(&Job::Bare);
        let (one, other, both) = (
            find(&Job::ProbeA),
            find(&Job::ProbeB),
            find(&Job::ProbeBoth),
        );
        // a + b − (a and b) = the overhead counted twice less once.
        let overhead = (one + other).saturating_sub(both).saturating_sub(bare);
        let mut counts = Counts {
            overhead,
            ..Counts::default()
        };
        for (job, n) in answers {
            match job {
                Job::Tool(key) => {
                    counts
                        .tools
                        .insert(key, n.saturating_sub(bare).saturating_sub(overhead));
                }
                Job::Name(name) => {
                    counts.names.insert(name, n.saturating_sub(bare));
                }
                _ => {}
            }
        }
        Ok(counts)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Job {
    Bare,
    ProbeA,
    ProbeB,
    ProbeBoth,
    Tool(String),
    Name(String),
}

/// A transport failure in words, without the request (whose headers hold the key).
fn plain_reason(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        "no answer within 30 seconds".into()
    } else if err.is_connect() {
        "the connection was refused or the host is unknown".into()
    } else {
        let mut reason = err.to_string();
        let mut source = std::error::Error::source(err);
        while let Some(inner) = source {
            reason = format!("{reason}: {inner}");
            source = inner.source();
        }
        reason
    }
}
