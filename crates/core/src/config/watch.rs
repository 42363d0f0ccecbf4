//! Notices configuration changes on disk — by an editor, by Claude Code, or by us — and
//! reports which servers really changed.
//!
//! Every folder a configuration file can appear in is watched without recursion (the home or
//! `CLAUDE_CONFIG_DIR` folder, `~/.claude`, each folder from the project up to the root for
//! `.mcp.json`, the project root's `.claude`, and the managed folder). Events are debounced for
//! a moment, because editors and atomic writers produce bursts, then the catalog is reloaded
//! and compared with the last one by each server's content hash and whether it would start.
//! Changes that touch no server (Claude Code bumping `numStartups`) produce no event; one burst
//! produces one event. A shadowed entry added, edited or removed produces an event naming no
//! server: nothing to reconcile, but the window lists it.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};
use serde::Serialize;

use super::catalog::Catalog;
use crate::error::ConfigError;
use crate::locations::Locations;

/// Which servers changed on disk: added, removed, edited in a way that affects the
/// connection, or now starting / no longer starting (approval, enablement, shadowing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ConfigChange {
    /// Sorted server names. Empty when only what is listed changed, not what runs: the
    /// problems, or entries that another scope shadows.
    pub servers: Vec<String>,
}

/// How long a burst of file events may last before the change is reported.
const SETTLE: Duration = Duration::from_millis(150);
/// A burst longer than this is reported anyway, so a file rewritten without pause still shows.
const MAX_BURST: Duration = Duration::from_millis(800);

/// Watches until dropped.
pub struct ConfigWatcher {
    _watcher: Arc<Mutex<notify::RecommendedWatcher>>,
    _thread: std::thread::JoinHandle<()>,
}

/// Watches each folder of `watched_folders` that exists and is not watched yet; folders such
/// as `.claude` may appear later.
fn watch_new_folders(
    watcher: &Mutex<notify::RecommendedWatcher>,
    locations: &Locations,
    watched: &mut HashSet<PathBuf>,
) {
    let Ok(mut watcher) = watcher.lock() else {
        return;
    };
    for folder in watched_folders(locations) {
        if !watched.contains(&folder)
            && folder.is_dir()
            && watcher.watch(&folder, RecursiveMode::NonRecursive).is_ok()
        {
            watched.insert(folder);
        }
    }
}

/// What is compared between two loads.
/// What a change is judged by: each used server's hash and whether it starts; the problems;
/// and the entries listed but not used (shadowed), which the window shows too.
type Signature = (
    HashMap<String, (String, bool)>,
    Vec<String>,
    Vec<(String, String, String)>,
);

fn signature(catalog: &Catalog) -> Signature {
    let servers = catalog
        .entries
        .iter()
        .filter(|e| e.shadowed_by.is_none())
        .map(|e| (e.name.clone(), (e.hash.clone(), e.will_start())))
        .collect();
    let problems = catalog
        .problems
        .iter()
        .map(|p| p.error.to_string())
        .collect();
    let shadowed = catalog
        .entries
        .iter()
        .filter(|e| e.shadowed_by.is_some())
        .map(|e| (e.scope.as_str().to_string(), e.name.clone(), e.hash.clone()))
        .collect();
    (servers, problems, shadowed)
}

fn changed_names(before: &Signature, after: &Signature) -> Vec<String> {
    let mut names: Vec<String> = before
        .0
        .keys()
        .chain(after.0.keys())
        .filter(|name| before.0.get(*name) != after.0.get(*name))
        .cloned()
        .collect();
    names.sort();
    names.dedup();
    names
}

impl ConfigWatcher {
    /// Starts watching; `on_change` runs on the watcher's own thread.
    pub fn start(
        locations: Locations,
        on_change: impl Fn(ConfigChange) + Send + 'static,
    ) -> Result<ConfigWatcher, ConfigError> {
        let (events_tx, events) = mpsc::channel();
        let filter = locations.clone();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            // Reads (ours included) are access events; only writes, renames and removals of
            // configuration files count. Filtering here keeps unrelated activity in watched
            // folders (the home folder, /tmp above a project) from stretching a burst.
            match event {
                Ok(event)
                    if !matches!(event.kind, notify::EventKind::Access(_))
                        && is_relevant(&filter, &event.paths) =>
                {
                    let _ = events_tx.send(());
                }
                _ => {}
            }
        })
        .map_err(|err| {
            ConfigError::Invalid(format!("cannot watch the configuration files: {err}"))
        })?;
        let watcher = Arc::new(Mutex::new(watcher));
        let mut watched = HashSet::new();
        watch_new_folders(&watcher, &locations, &mut watched);
        let shared = Arc::clone(&watcher);
        // Taken before returning, so that nothing written after `start` is mistaken for the
        // starting point.
        let mut last = signature(&Catalog::load(&locations));
        let thread = std::thread::Builder::new()
            .name("config-watch".into())
            .spawn(move || {
                while events.recv().is_ok() {
                    // Drain the burst, but report at least every MAX_BURST while one lasts.
                    let started = Instant::now();
                    while started.elapsed() < MAX_BURST && events.recv_timeout(SETTLE).is_ok() {}
                    watch_new_folders(&shared, &locations, &mut watched);
                    let now = signature(&Catalog::load(&locations));
                    let servers = changed_names(&last, &now);
                    let listing_changed = last.1 != now.1 || last.2 != now.2;
                    last = now;
                    if !servers.is_empty() || listing_changed {
                        on_change(ConfigChange { servers });
                    }
                }
            })
            .map_err(|err| ConfigError::Invalid(format!("cannot start the watcher: {err}")))?;
        Ok(ConfigWatcher {
            _watcher: watcher,
            _thread: thread,
        })
    }
}

fn watched_folders(locations: &Locations) -> Vec<PathBuf> {
    let mut folders = vec![
        locations
            .claude_json()
            .parent()
            .map(PathBuf::from)
            .unwrap_or_default(),
        locations
            .user_settings()
            .parent()
            .map(PathBuf::from)
            .unwrap_or_default(),
        locations.project_root().join(".claude"),
        locations.project.join(".claude"),
        locations.project_root(),
        locations.managed_dir.clone(),
        locations.managed_dir.join("managed-settings.d"),
        super::plugins::plugins_root(locations),
        // Subagents' files (their own servers), and the app's approvals of those servers.
        locations.claude_dir().join("agents"),
        locations.project_root().join(".claude/agents"),
        locations.app_data_dir(),
    ];
    folders.extend(locations.project.ancestors().map(PathBuf::from));
    folders.sort();
    folders.dedup();
    folders
}

fn is_relevant(locations: &Locations, paths: &[PathBuf]) -> bool {
    let agents = [
        locations.claude_dir().join("agents"),
        locations.project_root().join(".claude/agents"),
    ];
    paths.iter().any(|path| {
        crate::api::is_config_file(locations, path)
            || path == &super::approval::approvals_file(locations)
            || path == &super::approval::agent_approvals_file(locations)
            || (path.extension().is_some_and(|e| e == "md")
                && agents.iter().any(|folder| path.starts_with(folder)))
            // A `.claude` folder appearing may bring settings with it.
            || path.file_name().is_some_and(|n| n == ".claude")
    })
}
