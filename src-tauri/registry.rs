//! The registry browser in the window: one-line doors onto crates/registry, with the
//! registry named by the window's setting (under `MCP_MANAGER_REGISTRY`), the cache in the
//! app's data folder, and a remote's secret headers handed to the OS keychain after the entry
//! is saved. Links of a registry document open in the browser from Rust, http(s) only.

use std::collections::BTreeMap;

use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::entry::Transport;
use mcp_manager_core::config::snippet::{self, PastedDrafts};
use mcp_manager_core::secrets::{configured_store, Secret};
use mcp_manager_core::{ApiError, ErrorCode, Scope};
use mcp_manager_registry::install::{self, Answers, Choice};
use mcp_manager_registry::preflight::{self, Preflight};
use mcp_manager_registry::{
    self as registry, InstallDraft, InstallForm, Listed, Listing, Refreshed, Registry,
};
use serde::Serialize;
use tauri::AppHandle;
use tauri_plugin_opener::OpenerExt;

use crate::Context;

fn refused(message: impl ToString) -> ApiError {
    ApiError {
        code: ErrorCode::InvalidRequest,
        message: message.to_string(),
    }
}

/// The registry in use and where that comes from.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RegistrySetting {
    /// The registry used now.
    pub url: String,
    /// The window's setting (empty: the default).
    pub setting: String,
    /// `MCP_MANAGER_REGISTRY` is set and wins over the setting.
    pub from_environment: bool,
    pub default_url: String,
}

impl Context {
    fn registry(&self) -> Result<Registry, ApiError> {
        let data = self.project().locations().app_data_dir();
        let base = registry::base_url(None, registry::setting(&data).as_deref());
        Registry::open(&base, &data).map_err(refused)
    }

    pub fn registry_setting(&self) -> RegistrySetting {
        let data = self.project().locations().app_data_dir();
        let setting = registry::setting(&data).unwrap_or_default();
        RegistrySetting {
            url: registry::base_url(None, Some(&setting)),
            setting,
            from_environment: std::env::var(registry::REGISTRY_VAR).is_ok_and(|v| !v.is_empty()),
            default_url: registry::DEFAULT_REGISTRY.into(),
        }
    }

    pub fn set_registry(&self, url: &str) -> Result<RegistrySetting, ApiError> {
        registry::set_setting(&self.project().locations().app_data_dir(), url).map_err(refused)?;
        Ok(self.registry_setting())
    }

    /// Before a package starts: what server `name`'s entry will fetch, the version its running
    /// processes really are, and what the registry says; `None` for an entry that runs no
    /// package.
    pub async fn preflight(&self, name: &str) -> Result<Option<Preflight>, ApiError> {
        let project = self.project();
        let catalog = Catalog::load(project.locations());
        let entry = catalog.require(name)?;
        let Transport::Stdio { command, args, .. } = &entry.config.transport else {
            return Ok(None);
        };
        let pid = project.supervisor().connection(name).and_then(|c| c.pid());
        Ok(preflight::preflight(&self.registry()?, name, command, args, pid).await)
    }

    pub fn registry_cached(&self, search: &str) -> Result<Listing, ApiError> {
        Ok(self.registry()?.cached(search))
    }

    pub async fn registry_search(
        &self,
        search: &str,
        cursor: Option<String>,
    ) -> Result<Listing, ApiError> {
        Ok(self.registry()?.search(search, cursor).await)
    }

    pub async fn registry_refresh(&self) -> Result<Refreshed, ApiError> {
        self.registry()?.refresh().await.map_err(refused)
    }

    pub async fn registry_versions(&self, name: &str) -> Result<Vec<Listed>, ApiError> {
        self.registry()?.versions(name).await.map_err(refused)
    }

    pub async fn registry_install_form(
        &self,
        name: &str,
        version: &str,
        choice: Choice,
    ) -> Result<InstallForm, ApiError> {
        let (server, official) = self
            .registry()?
            .installable(name, Some(version))
            .await
            .map_err(refused)?;
        InstallForm::new(server, official, choice).map_err(refused)
    }

    #[allow(clippy::too_many_arguments)]
    pub async fn registry_install_draft(
        &self,
        name: &str,
        version: &str,
        choice: Choice,
        scope: Scope,
        entry_name: &str,
        answers: &Answers,
    ) -> Result<InstallDraft, ApiError> {
        let (server, _) = self
            .registry()?
            .installable(name, Some(version))
            .await
            .map_err(refused)?;
        registry::install_draft(
            &server,
            choice,
            scope,
            entry_name,
            answers,
            &registry::mcpctl_command(),
        )
        .map_err(refused)
    }

    /// Keeps a remote's secret headers in the keychain, for the `headersHelper` the entry has.
    pub async fn registry_keep_headers(
        &self,
        name: &str,
        version: &str,
        choice: Choice,
        entry_name: &str,
        answers: &Answers,
    ) -> Result<Vec<String>, ApiError> {
        let (server, _) = self
            .registry()?
            .installable(name, Some(version))
            .await
            .map_err(refused)?;
        let values: BTreeMap<String, String> =
            install::keychain_values(&server, choice, answers).map_err(refused)?;
        let (store, _) = configured_store();
        store
            .set(
                &registry::secret_headers_account(entry_name),
                &Secret::new(registry::secret_headers_value(&values)),
            )
            .map_err(|err| ApiError {
                code: ErrorCode::Keychain,
                message: format!("the headers could not be kept in the keychain: {err}"),
            })?;
        Ok(values.into_keys().collect())
    }

    pub async fn registry_icon(&self, url: &str) -> Result<String, ApiError> {
        self.registry()?.client.icon(url).await.map_err(refused)
    }

    pub fn paste_snippet(&self, text: &str, scope: Scope) -> Result<PastedDrafts, ApiError> {
        snippet::drafts(text, scope).map_err(ApiError::from)
    }

    /// A registry document's repository or website, in the browser: http(s) only.
    pub fn open_registry_link(&self, app: &AppHandle, url: &str) -> Result<(), ApiError> {
        if !registry::link_allowed(url) {
            return Err(refused(format!(
                "only http(s) links are opened, not \"{url}\""
            )));
        }
        app.opener()
            .open_url(url, None::<&str>)
            .map_err(|err| refused(format!("the browser could not be opened: {err}")))
    }
}
