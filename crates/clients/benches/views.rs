//! Every client's view of 5,000 tools, and what they cost: the time to compute them.
//!
//! The tools are the published servers' (`tests/fixtures/schemas/`) repeated under distinct
//! server names until there are 5,000, as a person with many servers has them. Each figure
//! is the median of 15 runs (after one to warm up), in the release profile; the goal is
//! 50 ms for every client's view, computed as the window computes it (`all`: the clients
//! shared between two threads; each client's own line is one thread's time). Beside it, the same tools through `claude_code::view` alone
//! and the offline token estimate of every tool Claude Code sends.
//!
//!     cargo bench -p mcp-manager-clients --bench views

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcp_manager_clients::claude_code::{self, Knobs, Server};
use mcp_manager_clients::cost::{self, Counting};
use mcp_manager_clients::{all, view_of, Client, Listed};
use serde_json::Value;

const TOOLS: usize = 5000;
const RUNS: usize = 15;

fn fixtures() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/schemas");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .expect("the fixtures folder")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let stem = path
                .file_name()?
                .to_str()?
                .strip_suffix(".tools.json")?
                .to_string();
            let value = serde_json::from_str(&std::fs::read_to_string(&path).ok()?).ok()?;
            Some((stem, value))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn time<T>(mut work: impl FnMut() -> T) -> Duration {
    work();
    median(
        (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(work());
                started.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let fixtures = fixtures();
    let mut servers = Vec::new();
    let mut total = 0;
    let mut i = 0;
    while total < TOOLS {
        let (stem, listing) = &fixtures[i % fixtures.len()];
        total += listing["tools"].as_array().map_or(0, Vec::len);
        servers.push((format!("{stem}-{i}"), listing.clone()));
        i += 1;
    }
    let listed: Vec<Listed> = servers.iter().map(|(n, v)| Listed::plain(n, v)).collect();
    let knobs = Knobs::defaults();
    println!(
        "{total} tools of {} servers, median of {RUNS} runs",
        servers.len()
    );
    println!("{:<34} {:>10}", "", "time");
    let every = time(|| all(&listed, &knobs));
    println!(
        "{:<34} {:>8.1} ms   (goal 50 ms)",
        "every client's view",
        ms(every)
    );
    for client in Client::ALL {
        let took = time(|| view_of(client, &listed, &knobs));
        println!(
            "{:<34} {:>8.1} ms",
            format!("  {}", client.label()),
            ms(took)
        );
    }
    // `-- views` (as for a profiler): the views alone.
    if std::env::args().skip(1).any(|a| a == "views") {
        return;
    }
    let views: Vec<claude_code::View> = servers
        .iter()
        .map(|(name, listing)| claude_code::view(&Server::named(name), listing, &knobs))
        .collect();
    let estimate = time(|| cost::budget(&views, &knobs, &Counting::estimate()));
    println!(
        "{:<34} {:>8.1} ms",
        "offline cost of Claude Code's view",
        ms(estimate)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
