//! The history kept bounded, measured: 10,000 calls with 1 MB results each (HISTORY_CALLS to
//! change the number) recorded with the default limits (results cut to 1 MiB, 256 MiB of data
//! at most), then the file's size and how long searches take: through the trigram index, as
//! the window and `mcpctl history --search` search now, and beside it the way they searched
//! before (`LIKE` over whole results), on the same file.
//!
//! cargo bench -p mcp-manager-history --bench bounded

use std::time::{Duration, Instant};

use mcp_manager_history::{CallFilter, CallStatus, History, NewCall};
use serde_json::json;

const WORDS: [&str; 16] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa",
];

/// About `bytes` of text of words, different for each `seed`, starting with a marker.
fn text(seed: u64, bytes: usize) -> String {
    let mut out = format!("marker-{seed:05} ");
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    while out.len() < bytes {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push_str(WORDS[(state >> 60) as usize]);
        out.push(' ');
    }
    out
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

#[tokio::main]
async fn main() {
    let calls: u64 = std::env::var("HISTORY_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite");
    let history = History::open(&path)
        .await
        .unwrap()
        .with_limits(mcp_manager_history::Limits::default());
    let limits = history.limits();
    println!(
        "recording {calls} calls with 1 MB results (results cut to {} bytes, at most {} MiB of data)…",
        limits.result_bytes,
        limits.cap_bytes / (1024 * 1024)
    );
    let started = Instant::now();
    for n in 0..calls {
        let call = NewCall {
            server: format!("server-{}", n % 50),
            tool: format!("tool-{}", n % 200),
            arguments: json!({ "n": n, "query": WORDS[(n % 16) as usize] }),
            result: Some(json!({ "content": [{ "type": "text", "text": text(n, 1_000_000) }] })),
            status: CallStatus::Ok,
            error: None,
            duration_ms: 5,
            at_ms: n as i64,
        };
        history.record(&call).await.unwrap();
        if n > 0 && n % 1000 == 0 {
            println!("  {n} calls, {:.0} s", started.elapsed().as_secs_f64());
        }
    }
    let recorded = started.elapsed();
    let file = std::fs::metadata(&path).unwrap().len();
    let wal = std::fs::metadata(dir.path().join("history.sqlite-wal"))
        .map(|m| m.len())
        .unwrap_or(0);
    let used = history.used_bytes().await.unwrap();
    let kept = history
        .search(&CallFilter {
            limit: 100_000,
            without_results: true,
            ..CallFilter::default()
        })
        .await
        .unwrap()
        .len();

    // The newest calls' markers (kept) and an older one's (dropped), and a word in every result.
    let newest = calls - 1;
    let queries = [
        format!("marker-{newest:05}"),
        format!("marker-{:05}", newest - 100),
        "foxtrot golf".to_string(),
        "tool-17".to_string(),
    ];
    let mut indexed = Vec::new();
    let mut scanned = Vec::new();
    for query in &queries {
        let mut these = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            let found = history
                .search(&CallFilter {
                    text: Some(query.clone()),
                    limit: 50,
                    without_results: true,
                    ..CallFilter::default()
                })
                .await
                .unwrap();
            these.push(t.elapsed());
            std::hint::black_box(found);
        }
        println!(
            "  {query:?}: {}",
            these
                .iter()
                .map(|t| format!("{:.1}", t.as_secs_f64() * 1e3))
                .collect::<Vec<_>>()
                .join(" ms, ")
                + " ms"
        );
        indexed.extend(these);
        // Before: LIKE over whole results, straight on the file.
        let t = Instant::now();
        let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        let _: Vec<(i64,)> = sqlx::query_as("SELECT c.id FROM calls c LEFT JOIN call_results r ON r.id = c.id WHERE c.tool LIKE ?1 OR c.server LIKE ?1 OR c.arguments LIKE ?1 OR r.result LIKE ?1 OR c.name LIKE ?1 ORDER BY c.at_ms DESC LIMIT 50")
            .bind(format!("%{query}%"))
            .fetch_all(&pool)
            .await
            .unwrap();
        scanned.push(t.elapsed());
        pool.close().await;
    }
    println!();
    println!("recorded {calls} calls in {:.1} s", recorded.as_secs_f64());
    println!("calls kept: {kept} (the oldest unnamed ones dropped at the cap)");
    println!(
        "history.sqlite: {:.1} MiB (data {:.1} MiB, WAL {:.1} MiB), cap {} MiB",
        file as f64 / 1048576.0,
        used as f64 / 1048576.0,
        wal as f64 / 1048576.0,
        limits.cap_bytes / 1048576
    );
    println!(
        "search, trigram index (now):      median {:.2} ms, max {:.2} ms over {} searches",
        median(indexed.clone()).as_secs_f64() * 1e3,
        indexed.iter().max().unwrap().as_secs_f64() * 1e3,
        indexed.len()
    );
    println!(
        "search, LIKE over whole results (before): median {:.1} ms, max {:.1} ms over {} searches",
        median(scanned.clone()).as_secs_f64() * 1e3,
        scanned.iter().max().unwrap().as_secs_f64() * 1e3,
        scanned.len()
    );
}
