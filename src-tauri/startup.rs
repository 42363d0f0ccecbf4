//! Where the window's start-up time goes, for the window benchmark (`scripts/bench-window`).
//!
//! With `MCP_MANAGER_REPORT_READY` set, the app notes the moments of its start in Rust (main
//! entered, the plugins and the history opened, the project read, the page asked for and
//! loaded) and the window sends its own (the script running, the list of servers asked for
//! and received, the list painted) with its first-paint call; the app then prints them all
//! on one line, in milliseconds since `main`, on the window's clock mapped onto ours. Nothing
//! is noted when the variable is unset.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::Deserialize;

static BEGAN: OnceLock<Instant> = OnceLock::new();
static MARKS: Mutex<Vec<(String, Duration)>> = Mutex::new(Vec::new());

fn reporting() -> bool {
    std::env::var_os(crate::REPORT_READY).is_some()
}

/// `main` is entered: the clock starts (said at once, so the benchmark sees what the process
/// took to get there).
pub fn begin() {
    BEGAN.get_or_init(Instant::now);
    if reporting() {
        eprintln!("mcp-manager: main");
    }
}

/// Notes that `what` has just happened.
pub fn mark(what: &str) {
    if !reporting() {
        return;
    }
    let at = BEGAN.get_or_init(Instant::now).elapsed();
    MARKS
        .lock()
        .expect("startup marks lock")
        .push((what.to_string(), at));
}

/// A moment of the window's start, on its clock (`performance.now()`, in milliseconds).
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct WindowMark {
    pub name: String,
    pub at: f64,
}

/// What Rust noted, as [`report`] prints it (the empty window's start has nothing else).
pub fn report_own() {
    report_all(Vec::new());
}

/// The window's marks, and its clock when it sent them (`now`): mapped onto ours, with what
/// Rust noted, as "startup: main=0 plugins=12 … painted=640" in milliseconds.
pub fn report(window: &[WindowMark], now: f64) {
    if !reporting() {
        return;
    }
    let here = BEGAN.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0;
    // The window's clock starts `origin` ms after ours (the IPC call itself counts as nothing).
    let origin = here - now;
    let mut all = vec![("window-origin".to_string(), origin)];
    all.extend(
        window
            .iter()
            .map(|mark| (mark.name.clone(), origin + mark.at)),
    );
    report_all(all);
}

fn report_all(mut all: Vec<(String, f64)>) {
    if !reporting() {
        return;
    }
    let ours: Vec<(String, f64)> = MARKS
        .lock()
        .expect("startup marks lock")
        .iter()
        .map(|(name, at)| (name.clone(), at.as_secs_f64() * 1000.0))
        .collect();
    all.extend(ours);
    all.sort_by(|a, b| a.1.total_cmp(&b.1));
    let line: Vec<String> = all
        .iter()
        .map(|(name, at)| format!("{name}={at:.0}"))
        .collect();
    eprintln!("mcp-manager: startup {}", line.join(" "));
}
