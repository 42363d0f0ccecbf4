//! Claude Code's records indexed, measured: 1 GiB of transcripts shaped as Claude Code 2.1.332
//! writes them (USAGE_BENCH_MIB to change the size; 400 sessions in 20 folders, one MCP call
//! in five turns, tool results of 2–40 KB as real sessions have), then
//! - the first pass (every byte read) and the report after it;
//! - a later pass after 1 MiB was appended to the newest sessions;
//! - the process's peak memory (VmHWM), which must not follow the size of the records;
//! - beside them, what a person would run instead to count their MCP calls:
//!   `grep -rhoE '"name":"mcp__[^"]*"' | sort | uniq -c`, which reads everything every time
//!   and knows nothing of results, failures or servers.
//!
//! With USAGE_BENCH_COLD=1 (as root), the kernel's page cache is dropped before the first pass
//! and before grep, so that both read from the disk as after a reboot.
//!
//! cargo bench -p mcp-manager-usage --bench index

use std::io::Write;
use std::time::Instant;

use mcp_manager_usage::synthetic::{mcp_call, plain_turn};
use mcp_manager_usage::{Index, Query, Sources};

const NOW: i64 = 1_796_505_037_415;
const SERVERS: [&str; 6] = [
    "github",
    "db.main",
    "linear",
    "sentry",
    "fs",
    "plugin:tools:git",
];

fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Writes sessions until `bytes` are written; the sessions' files.
fn write_records(root: &std::path::Path, bytes: u64) -> Vec<std::path::PathBuf> {
    let mut written = 0u64;
    let mut files = Vec::new();
    let mut n = 0u64;
    let sessions = 400u64;
    let per_session = bytes / sessions;
    for s in 0..sessions {
        let folder = root.join(format!("projects/-home-me-project{}", s % 20));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join(format!("session-{s:04}.jsonl"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let cwd = format!("/home/me/project{}", s % 20);
        let session = format!("session-{s:04}");
        let mut here = 0u64;
        while here < per_session {
            n += 1;
            let at = NOW - ((n * 7919) % (60 * 86_400_000 / 1000)) as i64 * 1000;
            let text = if n.is_multiple_of(5) {
                let server = SERVERS[(n % 6) as usize];
                mcp_call(
                    &session,
                    &cwd,
                    at,
                    &format!("toolu_{n}"),
                    server,
                    &format!("tool{}", n % 9),
                    n.is_multiple_of(23),
                )
            } else {
                plain_turn(
                    &session,
                    &cwd,
                    at,
                    &format!("toolu_{n}"),
                    2_000 + (n as usize * 37) % 38_000,
                )
            };
            out.write_all(text.as_bytes()).unwrap();
            here += text.len() as u64;
        }
        written += here;
        files.push(path);
    }
    let _ = written;
    files
}

/// Drops the kernel's page cache; whether it could.
fn drop_caches() -> bool {
    std::process::Command::new("sh")
        .args(["-c", "sync && echo 3 > /proc/sys/vm/drop_caches"])
        .status()
        .is_ok_and(|s| s.success())
}

#[tokio::main]
async fn main() {
    let mib: u64 = std::env::var("USAGE_BENCH_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files = write_records(root, mib << 20);
    let total: u64 = files.iter().map(|f| f.metadata().unwrap().len()).sum();
    let sources = Sources {
        transcripts: root.join("projects"),
        connection_logs: root.join("cache"),
    };
    let before = peak_kib();

    let index = Index::open(&root.join("data/usage.sqlite")).await.unwrap();
    let cold = std::env::var_os("USAGE_BENCH_COLD").is_some() && drop_caches();
    let started = Instant::now();
    let first = index.update(&sources).await.unwrap();
    let first_time = started.elapsed();
    let started = Instant::now();
    let query = Query {
        project: None,
        days: 30,
        now_ms: NOW,
    };
    let report = index.report(&query, &[]).await.unwrap();
    let report_time = started.elapsed();

    // 1 MiB more, spread over the ten newest sessions.
    let mut appended = 0u64;
    let mut n = 10_000_000u64;
    for path in files.iter().rev().take(10) {
        let mut out = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        while appended
            < (1 << 20) * (files.iter().rev().position(|p| p == path).unwrap() as u64 + 1) / 10
        {
            n += 1;
            let text = if n.is_multiple_of(5) {
                mcp_call(
                    "late",
                    "/home/me/project0",
                    NOW,
                    &format!("toolu_{n}"),
                    "github",
                    "search",
                    false,
                )
            } else {
                plain_turn(
                    "late",
                    "/home/me/project0",
                    NOW,
                    &format!("toolu_{n}"),
                    8_000,
                )
            };
            out.write_all(text.as_bytes()).unwrap();
            appended += text.len() as u64;
        }
    }
    let started = Instant::now();
    let later = index.update(&sources).await.unwrap();
    let later_time = started.elapsed();
    let peak = peak_kib();
    index.close().await;

    if cold {
        drop_caches();
    }
    let started = Instant::now();
    let grep = std::process::Command::new("sh")
        .arg("-c")
        .arg("grep -rhoE '\"name\":\"mcp__[^\"]*\"' projects | sort | uniq -c | wc -l")
        .current_dir(root)
        .output()
        .unwrap();
    let grep_time = started.elapsed();

    let calls: u32 = report.servers.iter().map(|s| s.month.calls).sum();
    println!(
        "page cache: {}",
        if cold {
            "dropped before the first pass and before grep"
        } else {
            "warm (the records were just written)"
        }
    );
    println!(
        "records: {:.0} MiB in {} files; {} MCP calls, {} in the last 30 days",
        total as f64 / 1048576.0,
        files.len(),
        first.calls,
        calls
    );
    println!(
        "first pass:  {:>8.2} s  ({:.0} MiB/s)",
        first_time.as_secs_f64(),
        total as f64 / 1048576.0 / first_time.as_secs_f64()
    );
    println!(
        "report:      {:>8.1} ms",
        report_time.as_secs_f64() * 1000.0
    );
    println!(
        "later pass:  {:>8.1} ms  ({:.2} MiB new, {} files read, {} calls)",
        later_time.as_secs_f64() * 1000.0,
        appended as f64 / 1048576.0,
        later.files_read,
        later.calls
    );
    println!(
        "peak memory: {:>8.1} MiB  (before indexing: {:.1} MiB)",
        peak as f64 / 1024.0,
        before as f64 / 1024.0
    );
    println!(
        "grep | sort | uniq over the same records: {:.2} s ({} distinct names), every time",
        grep_time.as_secs_f64(),
        String::from_utf8_lossy(&grep.stdout).trim()
    );
}
