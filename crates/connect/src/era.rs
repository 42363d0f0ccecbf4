//! Which protocol era a server speaks, found out per server and remembered.
//!
//! MCP has two eras: the `initialize` handshake (2024-11-05 to 2025-11-25) and the stateless
//! 2026-07-28 protocol (`server/discover`, per-request `_meta`, no session). A server may speak
//! either or both, and nothing in an entry says which, so every server is negotiated unless
//! its entry sets `"protocol"` (`"auto"`, `"2026-07-28"` or `"legacy"`, a key Claude Code
//! ignores). A local server's first start is `initialize` on one process, as Claude Code
//! starts every one; a server of 2026-07-28 only refuses it with -32022 and is sent
//! `server/discover` on the same process, and whether one that answered also speaks 2026-07-28
//! is asked in a second process beside its session, for the next start
//! (`connection/open/first_start.rs`, which says why: no fixed wait, no second start, one stderr, no
//! two processes sharing the CPU while the session starts). A remote server is probed on its
//! connection ([`Handshake::Probe`]: `server/discover` first; a correlated JSON-RPC error, or
//! no answer in 10 s, means the `initialize` era on the same connection). The opening
//! (`connection/open/mod.rs`) also recovers from what probing does to real servers: an HTTP server
//! that answers the probe 4xx is opened again with `initialize`, and a remembered era that no
//! longer opens is found out again. An authorization refusal (401, 403) is never taken as
//! evidence.
//!
//! The [`Verdict`] and its evidence ("server/discover → 2026-07-28", "legacy: -32601",
//! "legacy: the server exited (status 2) on server/discover", "legacy: no answer to
//! server/discover within 1710 ms (initialize answered in 1650 ms)", "initialize → -32022,
//! then 2026-07-28") are part of the connected status; a session opened before the answer
//! beside it came says "legacy: initialize answered in N ms; …". [`EraCache`] remembers each
//! verdict by the program the entry runs ([`ServerConfig::program_hash`]: its command and
//! arguments, or its URL), so an edit of its `env` or `timeout` keeps it, in the app's data
//! folder, shared by the window and `mcpctl`; a remembered verdict that fails is found out
//! again once.
//!
//! [`ServerConfig::program_hash`]: mcp_manager_core::config::entry::ServerConfig::program_hash

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rmcp::model::{ClientJsonRpcMessage, RequestId, ServerJsonRpcMessage};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol era of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum Era {
    /// The `initialize` handshake (2025-11-25 and before).
    Legacy,
    /// The stateless protocol of 2026-07-28 (`server/discover`).
    Modern,
}

impl Era {
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "2026-07-28",
        }
    }
}

/// How a session is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handshake {
    /// `initialize`, as every server before 2026-07-28 expects.
    Initialize,
    /// `server/discover` only.
    Discover,
    /// Either era, found out on the one connection. Remote: `server/discover`, falling back to
    /// `initialize`. Local: `initialize`, then `server/discover` after a -32022.
    Probe,
}

/// What was found, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub era: Era,
    /// In a few words: "server/discover → 2026-07-28", "legacy: -32601".
    pub evidence: String,
}

/// What a `server/discover` probe got back, watched on the wire ([`Witness`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum ProbeAnswer {
    /// No probe was sent, or nothing came back for it.
    #[default]
    Nothing,
    /// A result.
    Result,
    /// A JSON-RPC error with this code.
    Error(i64),
}

#[derive(Default)]
struct Probe {
    id: Option<RequestId>,
    answer: ProbeAnswer,
}

/// What a transport's probe got back, readable after the opening.
#[derive(Clone, Default)]
pub(crate) struct ProbeWatch(Arc<Mutex<Probe>>);

impl ProbeWatch {
    pub(crate) fn answer(&self) -> ProbeAnswer {
        self.0.lock().expect("probe lock").answer.clone()
    }

    pub(crate) fn sent(&self) -> bool {
        self.0.lock().expect("probe lock").id.is_some()
    }
}

/// A transport that notes the answer to the `server/discover` it carries.
pub(crate) struct Witness<T> {
    inner: T,
    watch: ProbeWatch,
}

pub(crate) fn witness<T>(inner: T) -> (Witness<T>, ProbeWatch) {
    let watch = ProbeWatch::default();
    (
        Witness {
            inner,
            watch: watch.clone(),
        },
        watch,
    )
}

impl<T> rmcp::transport::Transport<rmcp::service::RoleClient> for Witness<T>
where
    T: rmcp::transport::Transport<rmcp::service::RoleClient>,
{
    type Error = T::Error;

    fn name() -> std::borrow::Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ClientJsonRpcMessage::Request(request) = &item {
            let value = serde_json::to_value(&request.request).unwrap_or_default();
            if value.get("method").and_then(Value::as_str) == Some("server/discover") {
                let mut probe = self.watch.0.lock().expect("probe lock");
                probe.id = Some(request.id.clone());
                probe.answer = ProbeAnswer::Nothing;
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        let message = self.inner.receive().await;
        if let Some(message) = &message {
            let mut probe = self.watch.0.lock().expect("probe lock");
            if let Some(id) = probe.id.clone() {
                match message {
                    ServerJsonRpcMessage::Response(response) if response.id == id => {
                        probe.answer = ProbeAnswer::Result;
                    }
                    ServerJsonRpcMessage::Error(error) if error.id.as_ref() == Some(&id) => {
                        probe.answer = ProbeAnswer::Error(i64::from(error.error.code.0));
                    }
                    _ => {}
                }
            }
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

/// The verdicts remembered, by the program's hash: `eras.json` in the app's data folder,
/// `{"<hash>": {"era": "legacy", "evidence": "legacy: -32601"}}`. Shared by the window and
/// `mcpctl`; a file that cannot be read is an empty memory, and one that cannot be written
/// only means the next start probes again.
#[derive(Debug, Clone)]
pub struct EraCache {
    path: PathBuf,
}

static WRITING: Mutex<()> = Mutex::new(());

/// The cache's file name in the app's data folder.
pub const FILE_NAME: &str = "eras.json";

impl EraCache {
    /// The cache in `folder` (the app's data folder).
    pub fn in_dir(folder: &Path) -> EraCache {
        EraCache {
            path: folder.join(FILE_NAME),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Map<String, Value> {
        mcp_manager_core::files::read(&self.path, mcp_manager_core::files::READ_LIMIT)
            .ok()
            .flatten()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// The verdict remembered for the program of this hash.
    pub fn get(&self, hash: &str) -> Option<Verdict> {
        serde_json::from_value(self.read().get(hash)?.clone()).ok()
    }

    /// Remembers `verdict` for the program of this hash (another command line has another).
    pub fn put(&self, hash: &str, verdict: &Verdict) {
        // Servers connect at once: their verdicts are written one at a time in a process.
        let _turn = WRITING.lock().expect("era cache lock");
        let mut all = self.read();
        if all
            .get(hash)
            .and_then(|v| serde_json::from_value::<Verdict>(v.clone()).ok())
            == Some(verdict.clone())
        {
            return;
        }
        all.insert(
            hash.to_string(),
            serde_json::to_value(verdict).unwrap_or_default(),
        );
        self.write(&all);
    }

    /// Forgets the verdict of this hash.
    pub fn forget(&self, hash: &str) {
        let _turn = WRITING.lock().expect("era cache lock");
        let mut all = self.read();
        if all.remove(hash).is_some() {
            self.write(&all);
        }
    }

    fn write(&self, all: &Map<String, Value>) {
        let Some(folder) = self.path.parent() else {
            return;
        };
        if mcp_manager_core::private::dir(folder).is_err() {
            return;
        }
        // Written whole or not at all, 0600: a reader never sees half a file.
        let bytes = serde_json::to_vec_pretty(all).unwrap_or_default();
        let _ = mcp_manager_core::private::write(&self.path, &bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_is_remembered_by_hash_and_a_bad_file_is_an_empty_memory() {
        let dir = tempfile::tempdir().unwrap();
        let cache = EraCache::in_dir(dir.path());
        assert_eq!(cache.get("abc"), None);
        let modern = Verdict {
            era: Era::Modern,
            evidence: "server/discover → 2026-07-28".into(),
        };
        cache.put("abc", &modern);
        cache.put(
            "def",
            &Verdict {
                era: Era::Legacy,
                evidence: "legacy: -32601".into(),
            },
        );
        assert_eq!(cache.get("abc"), Some(modern));
        assert_eq!(cache.get("def").unwrap().era, Era::Legacy);
        cache.forget("abc");
        assert_eq!(cache.get("abc"), None);
        std::fs::write(cache.path(), "{ not json").unwrap();
        assert_eq!(cache.get("def"), None);
        cache.put(
            "def",
            &Verdict {
                era: Era::Legacy,
                evidence: "x".into(),
            },
        );
        assert_eq!(cache.get("def").unwrap().evidence, "x");
    }

    #[test]
    fn the_memory_is_only_its_owner_s() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let cache = EraCache::in_dir(&dir.path().join("data"));
        let verdict = Verdict {
            era: Era::Legacy,
            evidence: "legacy: -32601".into(),
        };
        cache.put("abc", &verdict);
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode(cache.path()),
            0o600,
            "eras.json names every command run"
        );
        assert_eq!(mode(cache.path().parent().unwrap()), 0o700);
    }
}
