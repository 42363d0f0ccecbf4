//! `headersHelper` rules, each case a real shell command.

use std::time::Duration;

use mcp_manager_connect::headers::run_helper;

#[tokio::test]
async fn helper_rules() {
    let dir = tempfile::tempdir().unwrap();
    let run = |helper: &'static str, timeout: u64| {
        let project = dir.path().to_path_buf();
        async move {
            run_helper(
                helper,
                "srv",
                "https://x.example/mcp",
                &project,
                Duration::from_secs(timeout),
                mcp_manager_connect::headers::Environment::Inherited,
            )
            .await
        }
    };
    assert_eq!(
        run(r#"printf '{"Authorization": "Bearer %s", "X-Server": "%s"}' tok "$CLAUDE_CODE_MCP_SERVER_NAME""#, 10).await.unwrap(),
        vec![("Authorization".to_string(), "Bearer tok".to_string()), ("X-Server".to_string(), "srv".to_string())],
        "prints_a_json_object_and_sees_the_server_name"
    );
    let cases: [(&str, &'static str, u64, &str); 4] = [
        (
            "not_json_is_refused",
            "echo not-json",
            10,
            "must print a JSON object",
        ),
        (
            "non_string_values_are_refused",
            r#"echo '{"X": 1}'"#,
            10,
            "must be a string",
        ),
        (
            "a_failing_helper_says_how",
            "echo 'vault locked' >&2; exit 7",
            10,
            "vault locked",
        ),
        (
            "a_slow_helper_times_out",
            "sleep 5",
            1,
            "did not finish within 1s",
        ),
    ];
    for (rule, helper, timeout, fragment) in cases {
        let err = run(helper, timeout).await.unwrap_err();
        assert!(err.contains(fragment), "{rule}: {err}");
    }
}

/// A variable the app set for its own window (as `main` does for WebKit's) reaches no helper,
/// in either environment it runs in; the person's own variables still do.
#[tokio::test]
async fn what_the_app_set_for_itself_reaches_no_helper() {
    use mcp_manager_connect::headers::Environment;
    std::env::set_var("MCP_TEST_HELPER_OWN", "the app's");
    std::env::set_var("MCP_TEST_HELPER_PERSON", "the person's");
    mcp_manager_connect::connection::keep_from_servers("MCP_TEST_HELPER_OWN");
    let dir = tempfile::tempdir().unwrap();
    for environment in [Environment::Inherited, Environment::Scrubbed] {
        let headers = run_helper(
            r#"printf '{"X-Own": "%s", "X-Person": "%s"}' "${MCP_TEST_HELPER_OWN-unset}" "$MCP_TEST_HELPER_PERSON""#,
            "srv",
            "https://x.example/mcp",
            dir.path(),
            Duration::from_secs(10),
            environment,
        )
        .await
        .unwrap();
        assert_eq!(
            headers,
            vec![
                ("X-Own".to_string(), "unset".to_string()),
                ("X-Person".to_string(), "the person's".to_string())
            ],
            "{environment:?}"
        );
    }
}
