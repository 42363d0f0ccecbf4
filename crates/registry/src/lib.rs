//! MCP Manager's door to MCP registries: find a published server and write the entry that
//! runs it, exactly as Claude Code will run it.
//!
//! A registry (the official one, or a company's sub-registry with the same v0.1 API) lists
//! `server.json` documents: packages on npm, PyPI, NuGet, OCI and MCPB, and remote endpoints,
//! with the arguments, environment variables and headers each needs and which are secret.
//! Claude Code has no such browser; this crate is the part of MCP Manager that has one,
//! without Tauri: [`client`] speaks the API, [`model`] reads and checks documents (nothing is
//! installed from one that fails), [`cache`] keeps the last listing for offline use and asks
//! only for what changed, and [`install`] turns a document and a person's answers into an
//! entry whose secrets stay out of shared files; [`preflight`] says, before a package
//! starts, what it will fetch, whether that version is fixed, and what the registry says of it.

pub mod cache;
pub mod client;
pub mod install;
pub mod model;
pub mod preflight;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

pub use client::{base_url, Client, Query, DEFAULT_REGISTRY, REGISTRY_VAR};
pub use model::{Listed, ServerJson, Status};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("the registry address {0} cannot be used")]
    BadUrl(String),
    #[error("the registry at {url} could not be reached ({detail}); check the address and your connection")]
    Unreachable { url: String, detail: String },
    #[error("the registry answered {status} to {url}: {said}")]
    Status {
        url: String,
        status: u16,
        said: String,
    },
    #[error("the registry's answer to {url} is not what its API describes: {detail}")]
    Malformed { url: String, detail: String },
    #[error("the registry has no server {name}{}", version.as_ref().map(|v| format!(" version {v}")).unwrap_or_default())]
    NotFound {
        name: String,
        version: Option<String>,
    },
    #[error("{name} {version} is not installed: {problem}")]
    Invalid {
        name: String,
        version: String,
        problem: String,
    },
    #[error("{name} {version} was deleted from the registry{}; it is not installed", message.as_ref().map(|m| format!(" ({m})")).unwrap_or_default())]
    Deleted {
        name: String,
        version: String,
        message: Option<String>,
    },
}

/// A listing as the browser shows it.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    pub registry: String,
    pub servers: Vec<Listed>,
    /// The cursor of the next page, when the registry has more.
    pub next_cursor: Option<String>,
    /// Set when this came from the cache: the time of its last refresh.
    pub as_of: Option<String>,
    /// Why the cache was used (the registry could not be reached, …).
    pub offline: Option<String>,
}

/// What a refresh brought.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Refreshed {
    pub changed: u32,
    pub held: u32,
    pub as_of: String,
    /// Whether only changes were asked for (`updated_since`).
    pub incremental: bool,
}

/// A registry and its cache.
#[derive(Debug, Clone)]
pub struct Registry {
    pub client: Client,
    pub cache: cache::Cache,
}

/// How many pages a first refresh reads at most (100 servers each).
const FIRST_REFRESH_PAGES: usize = 50;
const PAGE: u32 = 30;

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl Registry {
    pub fn open(base: &str, data_dir: &Path) -> Result<Registry, RegistryError> {
        let client = Client::new(base)?;
        let cache = cache::Cache::new(data_dir, client.base());
        Ok(Registry { client, cache })
    }

    /// From the cache only: instant, offline.
    pub fn cached(&self, search: &str) -> Listing {
        let stored = self.cache.load();
        Listing {
            registry: self.client.base().to_string(),
            servers: stored.search(search),
            next_cursor: None,
            as_of: Some(stored.refreshed_at.unwrap_or_default()),
            offline: None,
        }
    }

    /// One page of the registry's own search (latest versions, deleted ones included so they
    /// show as such). When the registry cannot be reached or fails, the cache answers, with
    /// its time and the reason.
    pub async fn search(&self, search: &str, cursor: Option<String>) -> Listing {
        let query = Query {
            search: Some(search.to_string()),
            cursor,
            limit: Some(PAGE),
            latest_only: true,
            include_deleted: true,
            ..Query::default()
        };
        match self.client.list(&query).await {
            Ok(page) => {
                let base = self.client.base().to_string();
                let _ = self.cache.update(|stored| {
                    stored.base_url = base;
                    stored.merge(&page.servers, false);
                });
                Listing {
                    registry: self.client.base().to_string(),
                    servers: page.servers,
                    next_cursor: page.next_cursor,
                    as_of: None,
                    offline: None,
                }
            }
            Err(err) => Listing {
                offline: Some(err.to_string()),
                ..self.cached(search)
            },
        }
    }

    /// Brings the cache up to date: what changed since its newest entry, or (the first time)
    /// every server's latest version.
    pub async fn refresh(&self) -> Result<Refreshed, RegistryError> {
        let since = self.cache.load().newest_update;
        let incremental = since.is_some();
        let mut query = Query {
            limit: Some(100),
            latest_only: !incremental,
            updated_since: since,
            ..Query::default()
        };
        let mut read = Vec::new();
        for _ in 0..FIRST_REFRESH_PAGES {
            let page = self.client.list(&query).await?;
            read.extend(page.servers);
            match page.next_cursor {
                Some(next) => query.cursor = Some(next),
                None => break,
            }
        }
        let as_of = now();
        let base = self.client.base().to_string();
        let stored = self
            .cache
            .update(|stored| {
                stored.base_url = base;
                stored.merge(&read, true);
                stored.refreshed_at = Some(as_of.clone());
            })
            .map_err(|detail| RegistryError::Malformed {
                url: self.cache.path().display().to_string(),
                detail,
            })?;
        Ok(Refreshed {
            changed: read.len() as u32,
            held: stored.servers.len() as u32,
            as_of,
            incremental,
        })
    }

    /// Every version of a server, newest first.
    pub async fn versions(&self, name: &str) -> Result<Vec<Listed>, RegistryError> {
        self.client.versions(name).await
    }

    /// One version (`None`: the latest), checked: it must be valid and not deleted to be
    /// installed from.
    pub async fn installable(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> Result<(ServerJson, model::Official), RegistryError> {
        match self
            .client
            .version(name, version.unwrap_or("latest"))
            .await?
        {
            Listed::Invalid {
                name,
                version,
                problem,
                ..
            } => Err(RegistryError::Invalid {
                name,
                version,
                problem,
            }),
            Listed::Valid { server, official } if official.status == Status::Deleted => {
                Err(RegistryError::Deleted {
                    name: server.name,
                    version: server.version,
                    message: official.status_message,
                })
            }
            Listed::Valid { server, official } => Ok((server, official)),
        }
    }
}

/// Whether a document's link (repository, website) may be opened in the browser: http(s)
/// only, never `file:`, `javascript:` or an app's own scheme.
pub fn link_allowed(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

/// The keychain account that holds a server's secret headers (a JSON object), read by
/// `mcpctl secret-header NAME`.
pub fn secret_headers_account(server: &str) -> String {
    format!("headers|{server}")
}

/// The headers as the keychain holds them.
pub fn secret_headers_value(headers: &BTreeMap<String, String>) -> String {
    serde_json::to_string(headers).expect("a map of strings serialises")
}

/// The `mcpctl` a `headersHelper` runs: `mcpctl` when the PATH has it (as the package installs
/// it), else the one beside this program (or this program, when it is `mcpctl`).
pub fn mcpctl_command() -> String {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("mcpctl").is_file()));
    if on_path {
        return "mcpctl".into();
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            if exe.file_name().is_some_and(|n| n == "mcpctl") {
                Some(exe)
            } else {
                exe.parent()
                    .map(|dir| dir.join("mcpctl"))
                    .filter(|p| p.is_file())
            }
        })
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "mcpctl".into())
}

/// The `headersHelper` that prints a server's secret headers: `mcpctl` when it is on the
/// PATH (as the package installs it), else the `mcpctl` beside this program.
pub fn helper_command(server: &str, mcpctl: &str) -> String {
    let quoted = if server
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        server.to_string()
    } else {
        format!("'{}'", server.replace('\'', "'\\''"))
    };
    format!("{mcpctl} secret-header {quoted}")
}

/// The registry the window's settings name (`<data>/registry.json`, `{"url": …}`).
pub fn setting(data_dir: &Path) -> Option<String> {
    let bytes = mcp_manager_core::files::read(
        &data_dir.join("registry.json"),
        mcp_manager_core::files::READ_LIMIT,
    )
    .ok()??;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    value.get("url")?.as_str().map(str::to_string)
}

/// Keeps the window's setting; an empty URL goes back to the default.
pub fn set_setting(data_dir: &Path, url: &str) -> Result<(), RegistryError> {
    if !url.trim().is_empty() {
        Client::new(url)?;
    }
    mcp_manager_core::private::dir(data_dir).map_err(|e| RegistryError::BadUrl(e.to_string()))?;
    mcp_manager_core::private::write(
        &data_dir.join("registry.json"),
        serde_json::json!({ "url": url.trim() })
            .to_string()
            .as_bytes(),
    )
    .map_err(|e| RegistryError::BadUrl(e.to_string()))
}

/// What the window's install form needs for one choice of one version.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct InstallForm {
    pub server: ServerJson,
    pub official: model::Official,
    pub fields: Vec<install::Field>,
    /// The fields as a JSON Schema, for the tools' form engine.
    pub schema: String,
    /// The entry's name by default: the part of the registry name after the slash.
    pub suggested_name: String,
}

/// An install as the window's editor shows it before it is saved.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct InstallDraft {
    pub draft: mcp_manager_core::config::draft::ServerDraft,
    pub plan: install::Plan,
}

impl InstallForm {
    pub fn new(
        server: ServerJson,
        official: model::Official,
        choice: install::Choice,
    ) -> Result<InstallForm, install::InstallError> {
        let fields = install::fields(&server, choice)?;
        let schema = install::form_schema(&fields).to_string();
        let suggested_name = server
            .name
            .rsplit('/')
            .next()
            .unwrap_or(&server.name)
            .to_string();
        Ok(InstallForm {
            server,
            official,
            fields,
            schema,
            suggested_name,
        })
    }
}

/// The plan for these answers as a draft of the editor.
pub fn install_draft(
    server: &ServerJson,
    choice: install::Choice,
    scope: mcp_manager_core::Scope,
    entry_name: &str,
    answers: &install::Answers,
    mcpctl: &str,
) -> Result<InstallDraft, install::InstallError> {
    let helper = helper_command(entry_name, mcpctl);
    let plan = install::plan(server, choice, scope, answers, entry_name, &helper)?;
    let config = mcp_manager_core::config::entry::parse_entry_value(&plan.entry)
        .map_err(install::InstallError::Unsupported)?;
    let draft = mcp_manager_core::config::draft::draft_from_config(entry_name, scope, &config);
    Ok(InstallDraft { draft, plan })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_links_are_opened_and_icons_come_from_https_only() {
        assert!(link_allowed(
            "https://github.com/domdomegg/airtable-mcp-server.git"
        ));
        for refused in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "mcpapp://x/",
            "tauri://localhost",
            "https://",
        ] {
            assert!(!link_allowed(refused), "{refused}");
        }
        let client = Client::new("http://127.0.0.1:9").unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        for refused in [
            "http://airtable.com/favicon.png",
            "file:///etc/passwd",
            "data:image/png;base64,AA",
        ] {
            let err = runtime.block_on(client.icon(refused)).unwrap_err();
            assert!(
                err.to_string().contains("https only")
                    || err.to_string().contains("cannot be used"),
                "{refused}: {err}"
            );
        }
    }
}
