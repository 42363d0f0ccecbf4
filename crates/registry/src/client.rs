//! The v0.1 read API of an MCP registry (`/v0.1/servers`, a server's versions, one version).
//!
//! The base URL is the person's setting: the official registry, or a company's sub-registry
//! behind the same API. Only http(s) URLs are accepted; answers are read as data (at most
//! 8 MiB a page), every failure says which URL and what happened: not reachable, an error
//! status (with the registry's own `error` text), or an answer that is not the API's shape.

use std::time::Duration;

use mcp_manager_core::net::may_fetch;
use serde_json::Value;
use url::Url;

use crate::model::{parse_list, Listed};
use crate::RegistryError;

pub const DEFAULT_REGISTRY: &str = "https://registry.modelcontextprotocol.io";
/// The environment variable that names the registry (under `--registry`, over the settings).
pub const REGISTRY_VAR: &str = "MCP_MANAGER_REGISTRY";
const MAX_BODY: usize = 8 << 20;

/// The registry to use: `--registry`, else `MCP_MANAGER_REGISTRY`, else the window's setting,
/// else the official registry.
pub fn base_url(flag: Option<&str>, setting: Option<&str>) -> String {
    flag.map(str::to_string)
        .or_else(|| std::env::var(REGISTRY_VAR).ok().filter(|v| !v.is_empty()))
        .or_else(|| setting.filter(|s| !s.is_empty()).map(str::to_string))
        .unwrap_or_else(|| DEFAULT_REGISTRY.to_string())
}

/// A list request's parameters.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub search: Option<String>,
    pub cursor: Option<String>,
    pub limit: Option<u32>,
    pub latest_only: bool,
    pub updated_since: Option<String>,
    pub include_deleted: bool,
}

/// One page of a listing.
#[derive(Debug, Clone)]
pub struct Page {
    pub servers: Vec<Listed>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Client {
    base: Url,
    http: reqwest::Client,
}

impl Client {
    pub fn new(base: &str) -> Result<Client, RegistryError> {
        let mut url = Url::parse(base.trim())
            .map_err(|err| RegistryError::BadUrl(format!("\"{base}\": {err}")))?;
        if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
            return Err(RegistryError::BadUrl(format!(
                "\"{base}\": a registry is an http(s) address"
            )));
        }
        if !url.path().ends_with('/') {
            let path = format!("{}/", url.path());
            url.set_path(&path);
        }
        let registry = url.clone();
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            .user_agent(concat!("mcp-manager/", env!("CARGO_PKG_VERSION")))
            // Never from https down to http (an icon must stay on https to its end), never
            // where a document may not send us (`may_fetch`), and not endlessly.
            .redirect(reqwest::redirect::Policy::custom(move |attempt| {
                let downgrade = attempt.previous().iter().any(|u| u.scheme() == "https")
                    && attempt.url().scheme() != "https";
                let refused = may_fetch(&registry, attempt.url().as_str()).is_err();
                if downgrade || refused || attempt.previous().len() >= 5 {
                    attempt.stop()
                } else {
                    attempt.follow()
                }
            }))
            .build()
            .map_err(|err| RegistryError::BadUrl(err.to_string()))?;
        Ok(Client { base: url, http })
    }

    pub fn base(&self) -> &str {
        self.base.as_str().trim_end_matches('/')
    }

    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty();
            for segment in segments {
                path.push(segment);
            }
        }
        url
    }

    async fn get(&self, url: Url) -> Result<String, RegistryError> {
        let shown = url.to_string();
        let response = self
            .http
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|err| RegistryError::Unreachable {
                url: shown.clone(),
                detail: root_cause(&err),
            })?;
        let status = response.status();
        let mut body = Vec::new();
        let mut response = response;
        while let Some(chunk) =
            response
                .chunk()
                .await
                .map_err(|err| RegistryError::Unreachable {
                    url: shown.clone(),
                    detail: root_cause(&err),
                })?
        {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_BODY {
                return Err(RegistryError::Malformed {
                    url: shown,
                    detail: "the answer is larger than 8 MiB".into(),
                });
            }
        }
        let text = String::from_utf8_lossy(&body).into_owned();
        if !status.is_success() {
            let said = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_else(|| text.chars().take(200).collect());
            return Err(RegistryError::Status {
                url: shown,
                status: status.as_u16(),
                said,
            });
        }
        Ok(text)
    }

    /// `GET /v0.1/servers`.
    pub async fn list(&self, query: &Query) -> Result<Page, RegistryError> {
        let mut url = self.url(&["v0.1", "servers"]);
        {
            let mut pairs = url.query_pairs_mut();
            if let Some(search) = query.search.as_deref().filter(|s| !s.is_empty()) {
                pairs.append_pair("search", search);
            }
            if let Some(cursor) = &query.cursor {
                pairs.append_pair("cursor", cursor);
            }
            if let Some(limit) = query.limit {
                pairs.append_pair("limit", &limit.to_string());
            }
            if query.latest_only {
                pairs.append_pair("version", "latest");
            }
            if let Some(since) = &query.updated_since {
                pairs.append_pair("updated_since", since);
            }
            if query.include_deleted {
                pairs.append_pair("include_deleted", "true");
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        let shown = url.to_string();
        let body = self.get(url).await?;
        let (servers, next_cursor) =
            parse_list(&body).map_err(|detail| RegistryError::Malformed { url: shown, detail })?;
        Ok(Page {
            servers,
            next_cursor,
        })
    }

    /// `GET /v0.1/servers/{name}/versions`, newest first.
    pub async fn versions(&self, name: &str) -> Result<Vec<Listed>, RegistryError> {
        let mut url = self.url(&["v0.1", "servers", name, "versions"]);
        url.set_query(Some("include_deleted=true"));
        let shown = url.to_string();
        let body = self
            .get(url)
            .await
            .map_err(|err| not_found(err, name, None))?;
        parse_list(&body)
            .map(|(servers, _)| servers)
            .map_err(|detail| RegistryError::Malformed { url: shown, detail })
    }

    /// `GET /v0.1/servers/{name}/versions/{version}` (`latest` for the latest).
    pub async fn version(&self, name: &str, version: &str) -> Result<Listed, RegistryError> {
        let mut url = self.url(&["v0.1", "servers", name, "versions", version]);
        url.set_query(Some("include_deleted=true"));
        let shown = url.to_string();
        let body = self
            .get(url)
            .await
            .map_err(|err| not_found(err, name, Some(version)))?;
        let value: Value = serde_json::from_str(&body).map_err(|err| RegistryError::Malformed {
            url: shown,
            detail: err.to_string(),
        })?;
        Ok(Listed::from_response(&value))
    }
}

/// The largest icon fetched.
const MAX_ICON: usize = 256 << 10;

impl Client {
    /// A server's icon as a `data:` URL, so that the window's CSP can keep refusing every
    /// remote image (tool results' Markdown must never load one). Only https, only raster and
    /// SVG images by their answered type, at most 256 KiB; an SVG is shown through `<img>`,
    /// which never runs its scripts.
    ///
    /// The document names the icon's address, so the fetch follows the doctor's policy
    /// ([`mcp_manager_core::net::may_fetch`], with the registry as the document's place):
    /// no loopback, private or link-local host, no cloud metadata endpoint, unless the
    /// registry itself is on this computer; each redirect is judged the same way (by the
    /// client's redirect policy).
    pub async fn icon(&self, url: &str) -> Result<String, RegistryError> {
        use base64::Engine;
        let parsed =
            Url::parse(url).map_err(|err| RegistryError::BadUrl(format!("\"{url}\": {err}")))?;
        if parsed.scheme() != "https" {
            return Err(RegistryError::BadUrl(format!(
                "\"{url}\": icons load from https only"
            )));
        }
        let parsed = may_fetch(&self.base, parsed.as_str()).map_err(|refused| {
            RegistryError::BadUrl(format!("\"{url}\": the icon is not fetched: {refused}"))
        })?;
        let mut response =
            self.http
                .get(parsed)
                .send()
                .await
                .map_err(|err| RegistryError::Unreachable {
                    url: url.into(),
                    detail: root_cause(&err),
                })?;
        let mime = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !response.status().is_success()
            || !matches!(
                mime.as_str(),
                "image/png" | "image/jpeg" | "image/webp" | "image/gif" | "image/svg+xml"
            )
        {
            return Err(RegistryError::Malformed {
                url: url.into(),
                detail: format!("not an image ({mime})"),
            });
        }
        let mut body = Vec::new();
        while let Some(chunk) =
            response
                .chunk()
                .await
                .map_err(|err| RegistryError::Unreachable {
                    url: url.into(),
                    detail: root_cause(&err),
                })?
        {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_ICON {
                return Err(RegistryError::Malformed {
                    url: url.into(),
                    detail: "the icon is larger than 256 KiB".into(),
                });
            }
        }
        Ok(format!(
            "data:{mime};base64,{}",
            base64::engine::general_purpose::STANDARD.encode(body)
        ))
    }
}

fn not_found(err: RegistryError, name: &str, version: Option<&str>) -> RegistryError {
    match err {
        RegistryError::Status { status: 404, .. } => RegistryError::NotFound {
            name: name.to_string(),
            version: version.map(str::to_string),
        },
        other => other,
    }
}

fn root_cause(err: &dyn std::error::Error) -> String {
    let mut source = err;
    while let Some(next) = source.source() {
        source = next;
    }
    source.to_string()
}
