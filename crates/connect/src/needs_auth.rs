//! Claude Code's needs-auth cache: a remote server that asked for authorization within the
//! last 15 minutes is shown as needing it at start-up without being asked again, so that
//! starting does not knock on every door that was closed a moment ago. Only a start-up skips
//! it; restarting a server (the person asking) and logging in go through.
//!
//! The file is Claude Code's own, `mcp-needs-auth-cache.json` in its config folder
//! (`~/.claude`, or `$CLAUDE_CONFIG_DIR`): `{"<server>": {"timestamp": <ms since epoch>}}`, so
//! both programs share what they learned.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

/// How long an answer "needs authorization" is trusted: 15 minutes, as Claude Code.
pub const FRESH_FOR: Duration = Duration::from_secs(15 * 60);

/// The cache file.
#[derive(Debug, Clone)]
pub struct NeedsAuthCache {
    path: PathBuf,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl NeedsAuthCache {
    /// The cache in Claude Code's config folder.
    pub fn in_dir(claude_dir: &Path) -> Self {
        NeedsAuthCache {
            path: claude_dir.join("mcp-needs-auth-cache.json"),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Map<String, Value> {
        mcp_manager_core::files::read_text(&self.path, mcp_manager_core::files::READ_LIMIT)
            .ok()
            .flatten()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    fn write(&self, map: &Map<String, Value>) {
        // Best effort, as Claude Code's: the cache only saves a request.
        // Claude Code's own file, in its own mode (a new one: the umask's default).
        use mcp_manager_core::files;
        let _ = files::write(
            &self.path,
            Value::Object(map.clone()).to_string().as_bytes(),
            &files::Write::new(files::Mode::SharedOrKept),
        );
    }

    /// Whether `server` asked for authorization less than [`FRESH_FOR`] ago.
    pub fn is_fresh(&self, server: &str) -> bool {
        self.read()
            .get(server)
            .and_then(|entry| entry.get("timestamp"))
            .and_then(Value::as_u64)
            .is_some_and(|at| now_ms().saturating_sub(at) < FRESH_FOR.as_millis() as u64)
    }

    /// Records that `server` asked for authorization now.
    pub fn mark(&self, server: &str) {
        let mut map = self.read();
        map.insert(server.to_string(), json!({ "timestamp": now_ms() }));
        self.write(&map);
    }

    /// Forgets `server` (it connected, or the person logged in).
    pub fn clear(&self, server: &str) {
        let mut map = self.read();
        if map.remove(server).is_some() {
            self.write(&map);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_for_fifteen_minutes_then_stale_and_other_servers_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cache = NeedsAuthCache::in_dir(dir.path());
        assert!(!cache.is_fresh("a"));
        cache.mark("a");
        cache.mark("b");
        assert!(cache.is_fresh("a"));
        // Claude Code's format, with an entry written 16 minutes ago.
        let old = now_ms() - 16 * 60 * 1000;
        let mut map = cache.read();
        map.insert("a".into(), json!({ "timestamp": old }));
        cache.write(&map);
        assert!(!cache.is_fresh("a"), "older than 15 minutes");
        assert!(cache.is_fresh("b"));
        cache.clear("b");
        assert!(!cache.is_fresh("b"));
        assert!(cache.read().contains_key("a"), "others are kept");
    }
}
