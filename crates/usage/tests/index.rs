//! The index over files shaped as Claude Code writes them: a later pass reads only what was
//! added, a call whose result arrives in a later pass is completed, a file replaced by a
//! shorter one is read again from its start, and the report's figures follow.

use mcp_manager_usage::synthetic::{mcp_call, plain_turn, time};
use mcp_manager_usage::{Index, Query, Sources};

const NOW: i64 = 1_796_505_037_415;
const DAY: i64 = 86_400_000;

fn sources(root: &std::path::Path) -> Sources {
    Sources {
        transcripts: root.join("projects"),
        connection_logs: root.join("cache"),
    }
}

#[tokio::test]
async fn passes_read_only_what_was_added_and_complete_calls_across_them() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("projects/-p");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("s1.jsonl");
    let index = Index::open(&dir.path().join("data/usage.sqlite"))
        .await
        .unwrap();
    let src = sources(dir.path());

    let first = plain_turn("s1", "/p", NOW - 40 * DAY, "r1", 2000)
        + &mcp_call("s1", "/p", NOW - 20 * DAY, "c1", "db.main", "query", false)
        + &mcp_call("s1", "/p", NOW - 2 * DAY, "c2", "db.main", "query", true);
    std::fs::write(&file, &first).unwrap();
    let pass = index.update(&src).await.unwrap();
    assert_eq!((pass.files_read, pass.calls), (1, 2));
    assert_eq!(pass.bytes as usize, first.len());
    assert_eq!(
        index.update(&src).await.unwrap().files_read,
        0,
        "nothing new, nothing read"
    );

    // A call written, its result not yet (and half a line still being written).
    let call = mcp_call("s1", "/p", NOW - DAY, "c3", "db.main", "schema", false);
    let mut lines = call.lines();
    let (use_line, result_line) = (lines.next().unwrap(), lines.next().unwrap());
    let added = format!("{use_line}\n");
    let half = &result_line[..20];
    std::fs::write(&file, format!("{first}{added}{half}")).unwrap();
    let pass = index.update(&src).await.unwrap();
    assert_eq!(
        pass.bytes as usize,
        added.len(),
        "only the new whole line is read"
    );
    std::fs::write(&file, format!("{first}{added}{result_line}\n")).unwrap();
    index.update(&src).await.unwrap();

    let query = Query {
        project: Some("/p".into()),
        days: 30,
        now_ms: NOW,
    };
    let report = index
        .report(&query, &["db.main".into(), "spare".into()])
        .await
        .unwrap();
    let db = &report.servers[0];
    assert_eq!(db.server, "db.main");
    assert_eq!(
        (db.month.calls, db.month.failures, db.week.calls),
        (3, 1, 2)
    );
    assert_eq!(db.median_ms, Some(25));
    let schema = db.tools.iter().find(|t| t.tool == "schema").unwrap();
    assert_eq!(schema.month.calls, 1);
    assert_eq!(report.never_used, ["spare"]);
    assert_eq!(report.oldest_ms, Some((NOW - 20 * DAY) as f64));

    // Another folder's calls count only for all folders.
    let other = dir.path().join("projects/-q");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("s2.jsonl"),
        mcp_call("s2", "/q", NOW - DAY, "d1", "db.main", "query", false),
    )
    .unwrap();
    index.update(&src).await.unwrap();
    assert_eq!(
        index.report(&query, &[]).await.unwrap().servers[0]
            .month
            .calls,
        3
    );
    let all = Query {
        project: None,
        ..query.clone()
    };
    assert_eq!(
        index.report(&all, &[]).await.unwrap().servers[0]
            .month
            .calls,
        4
    );

    // The file replaced by a shorter one: read again from its start, its old calls gone.
    std::fs::remove_file(&file).unwrap();
    std::fs::write(
        &file,
        mcp_call("s1", "/p", NOW - DAY, "e1", "db.main", "query", false),
    )
    .unwrap();
    index.update(&src).await.unwrap();
    assert_eq!(
        index.report(&query, &[]).await.unwrap().servers[0]
            .month
            .calls,
        1
    );
}

#[tokio::test]
async fn two_servers_named_alike_are_said_to_share_their_calls() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("projects/-p");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("s.jsonl"),
        mcp_call("s", "/p", NOW - DAY, "c", "my.db", "q", false),
    )
    .unwrap();
    let index = Index::open(&dir.path().join("usage.sqlite")).await.unwrap();
    index.update(&sources(dir.path())).await.unwrap();
    let query = Query {
        project: None,
        days: 30,
        now_ms: NOW,
    };
    let report = index
        .report(&query, &["my.db".into(), "my_db".into()])
        .await
        .unwrap();
    assert_eq!(report.servers[0].server, "my.db");
    assert_eq!(report.servers[0].shares_prefix_with, ["my_db"]);
    assert!(time(NOW).starts_with("2026-12-05T21:10:37.415Z"));
}

#[tokio::test]
async fn a_file_rewritten_in_place_is_read_again_and_calls_span_stretches_of_reading() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("projects/-p");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("s.jsonl");
    // Two calls a stretch: the third call's result comes in the stretch after its call.
    let index = Index::open(&dir.path().join("usage.sqlite"))
        .await
        .unwrap()
        .with_batch(2);
    let src = sources(dir.path());
    let calls: String = (0..5)
        .map(|i| {
            mcp_call(
                "s",
                "/p",
                NOW - DAY + i,
                &format!("c{i}"),
                "db",
                "q",
                i == 2,
            )
        })
        .collect();
    std::fs::write(&file, &calls).unwrap();
    let pass = index.update(&src).await.unwrap();
    assert_eq!((pass.files_read, pass.calls), (1, 5));
    let query = Query {
        project: None,
        days: 30,
        now_ms: NOW,
    };
    let db = index.report(&query, &[]).await.unwrap().servers[0].clone();
    assert_eq!((db.month.calls, db.month.failures), (5, 1));
    assert_eq!(
        db.median_ms,
        Some(25),
        "every result was matched to its call"
    );

    // Rewritten in place (same inode), longer than before: read again from its start.
    let other: String = (0..6)
        .map(|i| {
            mcp_call(
                "s",
                "/p",
                NOW - DAY + i,
                &format!("d{i}"),
                "cache",
                "get",
                false,
            )
        })
        .collect();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, other.as_bytes()))
        .unwrap();
    index.update(&src).await.unwrap();
    let report = index.report(&query, &[]).await.unwrap();
    let names: Vec<(&str, u32)> = report
        .servers
        .iter()
        .map(|s| (s.server.as_str(), s.month.calls))
        .collect();
    assert_eq!(
        names,
        [("cache", 6)],
        "the old calls are gone, the new ones all read"
    );
}

#[tokio::test]
async fn a_line_with_hundreds_of_calls_is_not_kept_and_a_short_window_still_counts_its_week() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("projects/-p");
    std::fs::create_dir_all(&folder).unwrap();
    let blocks: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"type":"tool_use","id":"x{i}","name":"mcp__db__q","input":{{}}}}"#))
        .collect();
    let flood = format!(
        r#"{{"type":"assistant","message":{{"content":[{}]}},"timestamp":"{}","cwd":"/p","sessionId":"s"}}"#,
        blocks.join(","),
        time(NOW - DAY)
    );
    let text = format!(
        "{flood}\n{}",
        mcp_call("s", "/p", NOW - 3 * DAY, "c", "db", "q", false)
    );
    std::fs::write(folder.join("s.jsonl"), text).unwrap();
    let index = Index::open(&dir.path().join("usage.sqlite")).await.unwrap();
    let pass = index.update(&sources(dir.path())).await.unwrap();
    assert_eq!((pass.calls, pass.skipped_lines), (1, 1));
    let query = Query {
        project: None,
        days: 1,
        now_ms: NOW,
    };
    let report = index.report(&query, &[]).await.unwrap();
    assert_eq!(
        report.servers[0].week.calls, 1,
        "three days ago is within 7 days"
    );
    assert_eq!(report.servers[0].month.calls, 0, "but not within 1");
    assert_eq!(report.days, 1);
}
