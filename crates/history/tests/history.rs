//! The history file for real: a SQLite file in a temporary folder, reopened, searched,
//! damaged and made unwritable.

use mcp_manager_history::{CallFilter, CallStatus, History, HistoryError, NewCall};
use serde_json::json;

fn call(tool: &str, arguments: serde_json::Value, status: CallStatus, at_ms: i64) -> NewCall {
    NewCall {
        server: "everything".into(),
        tool: tool.into(),
        arguments,
        result: (status != CallStatus::Failed)
            .then(|| json!({"content": [{"type": "text", "text": format!("{tool} done")}]})),
        status,
        error: (status == CallStatus::Failed).then(|| "no answer within 2 s".to_string()),
        duration_ms: 12,
        at_ms,
    }
}

#[tokio::test]
async fn calls_are_kept_across_reopening_searched_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data/history.sqlite");
    let history = History::open(&path).await.unwrap();
    let first = history
        .record(&call(
            "echo",
            json!({"message": "hello 100%_sure"}),
            CallStatus::Ok,
            1_000,
        ))
        .await
        .unwrap();
    history
        .record(&call(
            "get-sum",
            json!({"a": 1, "b": 2}),
            CallStatus::ToolError,
            2_000,
        ))
        .await
        .unwrap();
    history
        .record(&call("never", json!({}), CallStatus::Failed, 3_000))
        .await
        .unwrap();
    history.close().await;

    let history = History::open(&path).await.unwrap();
    let all = history.search(&CallFilter::default()).await.unwrap();
    assert_eq!(
        all.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(),
        ["never", "get-sum", "echo"],
        "newest first"
    );
    assert_eq!(all[0].error.as_deref(), Some("no answer within 2 s"));
    assert_eq!(all[0].result, None);

    let text = |t: &str| CallFilter {
        text: Some(t.into()),
        ..CallFilter::default()
    };
    let found = history.search(&text("100%_sure")).await.unwrap();
    assert_eq!(found.len(), 1, "% and _ are matched as typed");
    assert_eq!(found[0].id, first);
    assert_eq!(history.search(&text("100%%")).await.unwrap().len(), 0);
    assert_eq!(
        history.search(&text("sum done")).await.unwrap().len(),
        1,
        "the result is searched"
    );
    let light = CallFilter {
        without_results: true,
        ..text("sum done")
    };
    let light = history.search(&light).await.unwrap();
    assert_eq!(
        (light.len(), light[0].result.as_deref()),
        (1, None),
        "found by its result, listed without it"
    );
    let failed = CallFilter {
        status: Some(CallStatus::Failed),
        ..CallFilter::default()
    };
    assert_eq!(history.search(&failed).await.unwrap().len(), 1);
    let echo = CallFilter {
        tool: Some("echo".into()),
        ..CallFilter::default()
    };
    assert_eq!(
        history.search(&echo).await.unwrap()[0].arguments,
        r#"{"message":"hello 100%_sure"}"#
    );

    assert!(history.name(first, Some("greeting")).await.unwrap());
    let saved = CallFilter {
        saved: true,
        ..CallFilter::default()
    };
    let saved = history.search(&saved).await.unwrap();
    assert_eq!(
        (saved.len(), saved[0].name.as_deref()),
        (1, Some("greeting"))
    );
    assert!(!history.name(9999, Some("x")).await.unwrap());
    assert_eq!(history.get(first).await.unwrap().unwrap().tool, "echo");
    history.close().await;
    // WAL: the journal sits beside the file while it is open.
    assert!(path.exists());
}

#[tokio::test]
async fn a_damaged_file_is_reported_with_what_to_do_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite");
    let garbage = b"this is not a database, it was overwritten by accident\n".repeat(200);
    std::fs::write(&path, &garbage).unwrap();
    let err = History::open(&path).await.unwrap_err();
    let HistoryError::Open { hint, .. } = &err else {
        panic!("{err}")
    };
    assert!(
        hint.starts_with("move ") && hint.ends_with("aside and MCP Manager starts a new one"),
        "{err}"
    );
    assert!(
        err.to_string().contains("calls work, but are not kept"),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), garbage, "never overwritten");
}

#[cfg(unix)]
#[tokio::test]
async fn a_folder_that_cannot_be_written_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    if unsafe { libc_geteuid() } == 0 {
        // root writes anywhere: make the folder a file instead, which nobody can write into.
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("data");
        std::fs::write(&blocker, "a file where the folder should be").unwrap();
        let err = History::open(&blocker.join("history.sqlite"))
            .await
            .unwrap_err();
        assert!(matches!(err, HistoryError::Open { .. }), "{err}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o500)).unwrap();
    let err = History::open(&dir.path().join("history.sqlite"))
        .await
        .unwrap_err();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let HistoryError::Open { hint, .. } = &err else {
        panic!("{err}")
    };
    assert!(hint.starts_with("make "), "{err}");
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

#[tokio::test]
async fn only_its_owner_can_read_the_history() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("data");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = folder.join("history.sqlite");
    let history = History::open(&path).await.unwrap();
    // A write makes SQLite create its -wal and -shm files.
    history
        .record(&call("t", json!({}), CallStatus::Ok, 1))
        .await
        .unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&folder), 0o700, "the folder");
    for suffix in ["", "-wal", "-shm"] {
        let file = std::path::PathBuf::from(format!("{}{suffix}", path.display()));
        if file.exists() {
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
    }
    drop(history);
    // A file an older version left readable by others is narrowed when opened.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let _again = History::open(&path).await.unwrap();
    assert_eq!(mode(&path), 0o600);
}

#[tokio::test]
async fn a_surface_is_kept_only_when_it_changed_per_project_and_server() {
    let dir = tempfile::tempdir().unwrap();
    let history = mcp_manager_history::History::open(&dir.path().join("h.sqlite"))
        .await
        .unwrap();
    use mcp_manager_history::Kept;
    assert_eq!(
        history
            .keep_surface("/p", "s", "{\"v\":1}", 10)
            .await
            .unwrap(),
        Kept::First
    );
    assert_eq!(
        history
            .keep_surface("/p", "s", "{\"v\":1}", 11)
            .await
            .unwrap(),
        Kept::Unchanged
    );
    assert_eq!(
        history
            .keep_surface("/q", "s", "{\"v\":1}", 12)
            .await
            .unwrap(),
        Kept::First,
        "another project"
    );
    match history
        .keep_surface("/p", "s", "{\"v\":2}", 13)
        .await
        .unwrap()
    {
        Kept::Changed { previous, .. } => assert_eq!(
            (previous.at_ms, previous.surface.as_str()),
            (10.0, "{\"v\":1}")
        ),
        other => panic!("{other:?}"),
    }
    let kept = history.surfaces("/p", "s", 10).await.unwrap();
    assert_eq!(
        kept.iter().map(|s| s.surface.as_str()).collect::<Vec<_>>(),
        ["{\"v\":2}", "{\"v\":1}"]
    );
}

fn big(tool: &str, text: String, at_ms: i64) -> NewCall {
    NewCall {
        server: "s".into(),
        tool: tool.into(),
        arguments: json!({}),
        result: Some(json!({"content": [{"type": "text", "text": text}]})),
        status: CallStatus::Ok,
        error: None,
        duration_ms: 1,
        at_ms,
    }
}

#[tokio::test]
async fn older_results_are_cut_with_their_size_and_hash_and_named_ones_stay_whole() {
    use sha2::Digest;
    let dir = tempfile::tempdir().unwrap();
    let history = History::open(&dir.path().join("h.sqlite"))
        .await
        .unwrap()
        .with_limits(mcp_manager_history::Limits {
            result_bytes: 1000,
            cap_bytes: 1 << 30,
        });
    let text = "é".repeat(3000); // 6,000 bytes of text
    let first = history
        .record(&big("large", text.clone(), 1))
        .await
        .unwrap();
    let named = history.record(&big("kept", text.clone(), 2)).await.unwrap();
    history.name(named, Some("keep me")).await.unwrap();
    let whole = history.get(first).await.unwrap().unwrap();
    assert_eq!(
        whole.cut_sha256, None,
        "the newest calls keep their results whole"
    );
    for n in 0..mcp_manager_history::KEPT_WHOLE {
        history
            .record(&big("small", "x".into(), 10 + n))
            .await
            .unwrap();
    }
    let cut = history.get(first).await.unwrap().unwrap();
    let full = json!({"content": [{"type": "text", "text": text}]}).to_string();
    assert_eq!(cut.result_bytes, Some(full.len() as f64));
    let kept = cut.result.unwrap();
    assert!(kept.len() <= 1000 && kept.len() >= 998, "{}", kept.len());
    assert!(full.starts_with(&kept));
    let digest: String = sha2::Sha256::digest(&full.as_bytes()[kept.len()..])
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        cut.cut_sha256.as_deref(),
        Some(digest.as_str()),
        "the hash of what was cut"
    );
    let named = history.get(named).await.unwrap().unwrap();
    assert_eq!(
        named.result.unwrap(),
        full,
        "a named call keeps its result whole"
    );
    assert_eq!(named.cut_sha256, None);
}

#[tokio::test]
async fn the_file_stays_under_its_cap_dropping_the_oldest_unnamed_calls_first() {
    let dir = tempfile::tempdir().unwrap();
    let cap = 3 * 1024 * 1024;
    let history = History::open(&dir.path().join("h.sqlite"))
        .await
        .unwrap()
        .with_limits(mcp_manager_history::Limits {
            result_bytes: 1 << 20,
            cap_bytes: cap,
        });
    let first = history
        .record(&big("first", "a".repeat(200_000), 1))
        .await
        .unwrap();
    history.name(first, Some("the first")).await.unwrap();
    let second = history
        .record(&big("second", "b".repeat(200_000), 2))
        .await
        .unwrap();
    for n in 0..40 {
        history
            .record(&big(
                "filler",
                format!("{n} {}", "c".repeat(200_000)),
                10 + n,
            ))
            .await
            .unwrap();
        assert!(
            history.used_bytes().await.unwrap() <= cap,
            "over the cap after {n}"
        );
    }
    assert!(
        history.get(first).await.unwrap().is_some(),
        "a named call stays"
    );
    assert!(
        history.get(second).await.unwrap().is_none(),
        "the oldest unnamed call went first"
    );
    let size = std::fs::metadata(dir.path().join("h.sqlite"))
        .unwrap()
        .len();
    assert!(
        size <= cap + 512 * 1024,
        "the file itself stays near the cap: {size}"
    );
}

#[tokio::test]
async fn search_finds_any_substring_of_a_result_without_reading_it_whole_and_clear_keeps_named() {
    let dir = tempfile::tempdir().unwrap();
    let history = History::open(&dir.path().join("h.sqlite")).await.unwrap();
    let a = history
        .record(&big("lookup", "The Quick Brown Fox".into(), 1_000))
        .await
        .unwrap();
    history
        .record(&big("other", "nothing here".into(), 2_000))
        .await
        .unwrap();
    let found = |text: &str| {
        let history = history.clone();
        let text = text.to_string();
        async move {
            history
                .search(&CallFilter {
                    text: Some(text),
                    ..CallFilter::default()
                })
                .await
                .unwrap()
                .into_iter()
                .map(|c| c.tool)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        found("quick brown").await,
        ["lookup"],
        "case aside, across words"
    );
    assert_eq!(found("ick Bro").await, ["lookup"], "inside words");
    assert_eq!(
        found("\"fox").await,
        Vec::<String>::new(),
        "quotes are text, not syntax"
    );
    assert_eq!(
        found("lo").await,
        ["lookup"],
        "short words: the tool, server, arguments and name"
    );
    history.name(a, Some("mine")).await.unwrap();
    assert_eq!(
        found("mine").await,
        ["lookup"],
        "a name is found once given"
    );
    let cleared = history.clear(None).await.unwrap();
    assert_eq!((cleared.removed, cleared.kept_named), (1, 1));
    assert_eq!(found("quick").await, ["lookup"]);
    assert_eq!(
        history.clear(Some(500)).await.unwrap().removed,
        0,
        "before a time: only older calls"
    );
}
