//! The last listing of a registry, on disk, so that the browser opens at once and works
//! offline ("as of …").
//!
//! One file per registry (`<data>/registry/<16 hex of sha256(base URL)>.json`) holds the
//! latest version of every server seen, with the time of the last refresh. A refresh asks only
//! for what changed since the newest `updatedAt` it holds (`updated_since`, the registry's own
//! clock, so the machine's clock cannot make it miss a change), which also brings deleted
//! entries so they are marked rather than left looking alive.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::model::Listed;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stored {
    pub base_url: String,
    /// When the last refresh ended, this machine's time (RFC 3339).
    pub refreshed_at: Option<String>,
    /// The newest `updatedAt` among the entries (the registry's time).
    pub newest_update: Option<String>,
    /// The latest version of each server, by name.
    pub servers: BTreeMap<String, Listed>,
}

#[derive(Debug, Clone)]
pub struct Cache {
    path: PathBuf,
}

impl Cache {
    pub fn new(data_dir: &Path, base_url: &str) -> Cache {
        let digest = Sha256::digest(base_url.as_bytes());
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        Cache {
            path: data_dir.join("registry").join(format!("{hex}.json")),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is on disk; an unreadable file counts as empty (it is only a cache).
    pub fn load(&self) -> Stored {
        mcp_manager_core::files::read(&self.path, 4 * mcp_manager_core::files::READ_LIMIT)
            .ok()
            .flatten()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Loads, changes and saves the file as one step: a search's page and a refresh running at
    /// once (the window does both) each keep what the other wrote.
    pub fn update(&self, change: impl FnOnce(&mut Stored)) -> Result<Stored, String> {
        static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = WRITING
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut stored = self.load();
        change(&mut stored);
        self.save(&stored)?;
        Ok(stored)
    }

    fn save(&self, stored: &Stored) -> Result<(), String> {
        let dir = self.path.parent().expect("the cache file has a folder");
        mcp_manager_core::private::dir(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
        let bytes = serde_json::to_vec(stored).map_err(|err| err.to_string())?;
        mcp_manager_core::private::write(&self.path, &bytes)
            .map_err(|err| format!("{}: {err}", self.path.display()))
    }
}

impl Stored {
    /// Takes in what a listing brought: the latest version of a server replaces the one held;
    /// a change to the version held (a status) replaces it too. Only a refresh, which reads
    /// everything that changed, moves the time the next refresh starts from (`complete`); a
    /// search's page must not, or the next refresh would skip what it did not show.
    pub fn merge(&mut self, entries: &[Listed], complete: bool) {
        for entry in entries {
            if let Some(updated) = entry.official().updated_at.as_ref().filter(|_| complete) {
                if self.newest_update.as_ref().is_none_or(|n| updated > n) {
                    self.newest_update = Some(updated.clone());
                }
            }
            let name = entry.name().to_string();
            let replace = match self.servers.get(&name) {
                None => entry.official().is_latest,
                Some(held) => entry.official().is_latest || held.version() == entry.version(),
            };
            if replace && !name.is_empty() {
                self.servers.insert(name, entry.clone());
            }
        }
    }

    /// The held servers whose name, title or description contains `text` (any case).
    pub fn search(&self, text: &str) -> Vec<Listed> {
        let needle = text.to_lowercase();
        self.servers
            .values()
            .filter(|entry| {
                needle.is_empty()
                    || match entry {
                        Listed::Valid { server, .. } => [
                            Some(&server.name),
                            server.title.as_ref(),
                            Some(&server.description),
                        ]
                        .into_iter()
                        .flatten()
                        .any(|t| t.to_lowercase().contains(&needle)),
                        Listed::Invalid { name, .. } => name.to_lowercase().contains(&needle),
                    }
            })
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_and_the_setting_are_their_owner_s_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let cache = Cache::new(&data, "https://registry.example");
        cache.update(|_| {}).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(cache.path()), 0o600);
        assert_eq!(mode(cache.path().parent().unwrap()), 0o700);
        crate::set_setting(&data, "").unwrap();
        assert_eq!(mode(&data.join("registry.json")), 0o600);
    }
}
