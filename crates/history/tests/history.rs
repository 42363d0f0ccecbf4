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
