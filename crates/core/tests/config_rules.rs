//! The config engine's rules, one table-driven case per rule, named after the rule.

use mcp_manager_core::config::approval::Approval;
use mcp_manager_core::config::entry::{
    parse_entry_value, ProtocolChoice, ServerConfig, TransportKind,
};
use mcp_manager_core::config::expand::{expand_config, expand_str};
use mcp_manager_core::config::names::{
    normalize, parse_qualified, qualified_tool_name, validate_new_name, NameError,
};

#[test]
fn new_names_match_the_claude_code_pattern() {
    let long = "a".repeat(64);
    let too_long = "a".repeat(65);
    /// (rule, name, the error expected, if any)
    type Case<'a> = (&'a str, &'a str, Option<fn(&NameError) -> bool>);
    let cases: &[Case] = &[
        (
            "letters_digits_dash_underscore_are_fine",
            "my-server_2",
            None,
        ),
        ("sixty_four_characters_are_fine", &long, None),
        (
            "empty_is_refused",
            "",
            Some(|e| matches!(e, NameError::Empty)),
        ),
        (
            "sixty_five_characters_are_refused",
            &too_long,
            Some(|e| matches!(e, NameError::TooLong(_))),
        ),
        (
            "a_space_is_refused",
            "my server",
            Some(|e| matches!(e, NameError::Invalid(_))),
        ),
        (
            "a_dot_is_refused",
            "my.server",
            Some(|e| matches!(e, NameError::Invalid(_))),
        ),
        (
            "a_slash_is_refused",
            "a/b",
            Some(|e| matches!(e, NameError::Invalid(_))),
        ),
        (
            "non_ascii_is_refused",
            "sérveur",
            Some(|e| matches!(e, NameError::Invalid(_))),
        ),
    ];
    for (rule, name, expected) in cases {
        match (validate_new_name(name), expected) {
            (Ok(()), None) => {}
            (Err(err), Some(check)) => {
                assert!(check(&err), "{rule}: wrong error {err:?}");
                assert!(!err.to_string().is_empty(), "{rule}: a clear message");
            }
            (got, _) => panic!("{rule}: got {got:?}"),
        }
    }
    assert!(
        validate_new_name("my server")
            .unwrap_err()
            .to_string()
            .contains("letters, numbers, hyphens and underscores"),
        "the message says what is allowed"
    );
}

#[test]
fn normalisation_and_qualified_tool_names() {
    let cases = [
        ("plain_names_stay", "github", "github"),
        (
            "every_other_character_becomes_underscore",
            "my.server/x y",
            "my_server_x_y",
        ),
        ("dash_and_underscore_stay", "a-b_c", "a-b_c"),
        (
            "claude_ai_connectors_collapse_underscores",
            "claude.ai Google Drive",
            "claude_ai_Google_Drive",
        ),
        (
            "claude_ai_trailing_underscores_go",
            "claude.ai  x!",
            "claude_ai_x",
        ),
    ];
    for (rule, input, want) in cases {
        assert_eq!(normalize(input), want, "{rule}");
    }
    assert_eq!(
        qualified_tool_name("my.srv", "get-file"),
        "mcp__my_srv__get-file"
    );
    let parses = [
        (
            "server_and_tool",
            "mcp__github__create_issue",
            Some(("github", Some("create_issue"))),
        ),
        ("server_only", "mcp__github", Some(("github", None))),
        (
            "tool_names_may_contain_double_underscores",
            "mcp__s__a__b",
            Some(("s", Some("a__b"))),
        ),
        ("not_mcp_prefixed", "github__x", None),
        ("empty_server", "mcp____x", None),
    ];
    for (rule, input, want) in parses {
        let got = parse_qualified(input);
        let got = got.as_ref().map(|q| (q.server.as_str(), q.tool.as_deref()));
        assert_eq!(got, want, "{rule}");
    }
    let name = qualified_tool_name("srv", "do_it");
    let back = parse_qualified(&name).unwrap();
    assert_eq!(
        (back.server.as_str(), back.tool.as_deref()),
        ("srv", Some("do_it")),
        "round trip"
    );
}

#[test]
fn variable_expansion_rules() {
    let env = |name: &str| match name {
        "SET" => Some("value".to_string()),
        "EMPTY" => Some(String::new()),
        _ => None,
    };
    let cases = [
        (
            "set_variable_is_replaced",
            "a-${SET}-b",
            "a-value-b",
            vec![],
        ),
        (
            "default_used_when_unset",
            "${NOPE:-fallback}",
            "fallback",
            vec![],
        ),
        (
            "set_variable_beats_default",
            "${SET:-fallback}",
            "value",
            vec![],
        ),
        (
            "set_but_empty_beats_default_as_in_claude_code",
            "${EMPTY:-fallback}",
            "",
            vec![],
        ),
        (
            "unset_without_default_stays_literal_and_warns",
            "x${NOPE}y",
            "x${NOPE}y",
            vec!["NOPE"],
        ),
        ("empty_default_is_a_default", "${NOPE:-}", "", vec![]),
        (
            "only_the_first_default_counts_as_in_claude_code",
            "${NOPE:-a:-b}",
            "a",
            vec![],
        ),
        ("empty_braces_stay", "${}", "${}", vec![]),
        ("unterminated_stays", "${SET", "${SET", vec![]),
        (
            "several_in_one_string",
            "${SET}/${NOPE:-d}/${SET}",
            "value/d/value",
            vec![],
        ),
        ("dollar_without_brace_stays", "$SET", "$SET", vec![]),
    ];
    for (rule, input, want, missing_vars) in cases {
        let mut missing = Vec::new();
        let got = expand_str(input, &env, "url", &mut missing);
        assert_eq!(got, want, "{rule}");
        let names: Vec<&str> = missing.iter().map(|m| m.variable.as_str()).collect();
        assert_eq!(names, missing_vars, "{rule}");
    }
}

#[test]
fn expansion_covers_command_args_env_url_headers_and_names_the_field() {
    let env = |name: &str| (name == "HOME_DIR").then(|| "/home/ada".to_string());
    let stdio = ServerConfig::stdio(
        "${HOME_DIR}/bin/srv",
        vec!["--root".into(), "${ROOT}".into()],
        vec![("TOKEN".into(), "${TOKEN}".into())],
    );
    let (expanded, missing) = expand_config(&stdio, &env);
    assert_eq!(expanded.target(), "/home/ada/bin/srv --root ${ROOT}");
    let fields: Vec<String> = missing
        .iter()
        .map(|m| format!("{}@{}", m.variable, m.field))
        .collect();
    assert_eq!(fields, ["ROOT@args[1]", "TOKEN@env.TOKEN"]);
    assert!(missing[0].to_string().contains("ROOT") && missing[0].to_string().contains("args[1]"));

    let remote = ServerConfig::remote(
        TransportKind::Http,
        "https://${HOST:-example.com}/mcp",
        vec![("Authorization".into(), "Bearer ${API_KEY}".into())],
    );
    let (expanded, missing) = expand_config(&remote, &env);
    assert_eq!(expanded.target(), "https://example.com/mcp");
    assert_eq!(missing.len(), 1);
    assert_eq!(
        (missing[0].variable.as_str(), missing[0].field.as_str()),
        ("API_KEY", "headers.Authorization")
    );
}

#[test]
fn content_hash_changes_only_with_what_affects_the_connection() {
    let base = ServerConfig::stdio(
        "node",
        vec!["s.js".into()],
        vec![("A".into(), "1".into()), ("B".into(), "2".into())],
    );
    let reordered_env = ServerConfig::stdio(
        "node",
        vec!["s.js".into()],
        vec![("B".into(), "2".into()), ("A".into(), "1".into())],
    );
    let other_arg = ServerConfig::stdio("node", vec!["t.js".into()], vec![]);
    let mut always_load = base.clone();
    always_load.always_load = Some(true);
    let mut timeout = base.clone();
    timeout.timeout = Some(5000);
    assert_eq!(
        base.content_hash(),
        reordered_env.content_hash(),
        "env order does not matter"
    );
    assert_eq!(
        base.content_hash(),
        always_load.content_hash(),
        "alwaysLoad does not change the connection"
    );
    assert_ne!(base.content_hash(), other_arg.content_hash(), "args matter");
    assert_ne!(
        base.content_hash(),
        timeout.content_hash(),
        "timeout matters"
    );
    let http = ServerConfig::remote(TransportKind::Http, "http://a/mcp", vec![]);
    let sse = ServerConfig::remote(TransportKind::Sse, "http://a/mcp", vec![]);
    assert_ne!(
        http.content_hash(),
        sse.content_hash(),
        "the transport matters"
    );
    assert_eq!(base.content_hash().len(), 64, "SHA-256 in hex");
}

#[test]
fn the_program_hash_survives_env_and_timeout_edits_and_not_a_changed_command_or_url() {
    let base = ServerConfig::stdio("uvx", vec!["mcp-server-time".into()], vec![]);
    let mut edited = ServerConfig::stdio(
        "uvx",
        vec!["mcp-server-time".into()],
        vec![("TZ".into(), "Europe/Paris".into())],
    );
    edited.timeout = Some(5000);
    assert_ne!(base.content_hash(), edited.content_hash());
    assert_eq!(
        base.program_hash(),
        edited.program_hash(),
        "env and timeout"
    );
    for other in [
        ServerConfig::stdio("npx", vec!["mcp-server-time".into()], vec![]),
        ServerConfig::stdio("uvx", vec!["mcp-server-git".into()], vec![]),
        ServerConfig::stdio("uvx", vec![], vec![]),
    ] {
        assert_ne!(base.program_hash(), other.program_hash(), "{other:?}");
    }
    let http = ServerConfig::remote(TransportKind::Http, "http://a/mcp", vec![]);
    let with_header = ServerConfig::remote(
        TransportKind::Http,
        "http://a/mcp",
        vec![("Authorization".into(), "Bearer x".into())],
    );
    let moved = ServerConfig::remote(TransportKind::Http, "http://b/mcp", vec![]);
    assert_eq!(http.program_hash(), with_header.program_hash());
    assert_ne!(http.program_hash(), moved.program_hash());
    assert_eq!(base.program_hash().len(), 64, "SHA-256 in hex");
}

#[test]
fn approval_rules() {
    use mcp_manager_core::Locations;
    use serde_json::json;
    let cases = [
        ("nobody_decided_is_pending", json!({}), Approval::Pending),
        (
            "enabled_by_name_is_approved",
            json!({"enabledMcpjsonServers": ["srv"]}),
            Approval::Approved,
        ),
        (
            "disabled_by_name_is_rejected",
            json!({"disabledMcpjsonServers": ["srv"]}),
            Approval::Rejected,
        ),
        (
            "rejection_wins_over_approval",
            json!({"enabledMcpjsonServers": ["srv"], "disabledMcpjsonServers": ["srv"]}),
            Approval::Rejected,
        ),
        (
            "enable_all_approves",
            json!({"enableAllProjectMcpServers": true}),
            Approval::Approved,
        ),
        (
            "rejection_wins_over_enable_all",
            json!({"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["srv"]}),
            Approval::Rejected,
        ),
        (
            "other_names_do_not_count",
            json!({"enabledMcpjsonServers": ["other"]}),
            Approval::Pending,
        ),
    ];
    for (rule, settings, want) in cases {
        for file in ["settings.local.json", "settings.json"] {
            let dir = tempfile::tempdir().unwrap();
            let project = dir.path().join("p");
            std::fs::create_dir_all(project.join(".claude")).unwrap();
            std::fs::write(project.join(".claude").join(file), settings.to_string()).unwrap();
            let locations = Locations::new(dir.path().join("home"), None, &project).unwrap();
            // Untrusted: the project's own files approve nothing, and their rejections count.
            let untrusted = mcp_manager_core::config::approval::ApprovalSettings::load(&locations);
            let want_untrusted = if want == Approval::Approved {
                Approval::Pending
            } else {
                want
            };
            assert_eq!(
                untrusted.status("srv"),
                want_untrusted,
                "{rule} in {file}, folder not trusted"
            );
            assert_eq!(
                untrusted.waiting_for_trust("srv").is_some(),
                want == Approval::Approved,
                "{rule} in {file}: the approval that waits for trust is named"
            );
            mcp_manager_core::config::trust::trust(&locations).unwrap();
            let trusted = mcp_manager_core::config::approval::ApprovalSettings::load(&locations);
            assert_eq!(
                trusted.status("srv"),
                want,
                "{rule} in {file}, folder trusted"
            );
        }
    }
    // Names compare after normalisation, and every settings file counts.
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    let home = dir.path().join("home");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        json!({"enabledMcpjsonServers": ["my.srv"]}).to_string(),
    )
    .unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        json!({"disabledMcpjsonServers": ["bad"]}).to_string(),
    )
    .unwrap();
    let locations = Locations::new(home, None, &project).unwrap();
    mcp_manager_core::config::trust::trust(&locations).unwrap();
    let settings = mcp_manager_core::config::approval::ApprovalSettings::load(&locations);
    assert_eq!(
        settings.status("my_srv"),
        Approval::Approved,
        "compared after normalisation"
    );
    assert_eq!(
        settings.status("bad"),
        Approval::Rejected,
        "the user's settings count too"
    );
}

#[test]
fn numbers_survive_a_write_unchanged() {
    use mcp_manager_core::config::document::{parse, render, Layout};
    // Found by the fuzzer: without exact float parsing, 6.66666e43 came back as
    // 6.666659999999999e43 after a save that did not touch it.
    for text in [
        "6.66666e43",
        "0.1",
        "1e-7",
        "123456789012345678",
        "-0.0",
        "2.5",
    ] {
        let path = std::path::Path::new("n.json");
        let value = parse(path, &format!("{{\"n\": {text}}}")).unwrap();
        let again = parse(path, &render(&value, &Layout::default())).unwrap();
        assert_eq!(again, value, "{text} must round-trip");
    }
}

#[test]
fn the_protocol_key_is_read_counts_for_the_connection_and_is_written_back_as_it_was() {
    let entry = serde_json::json!({"type": "stdio", "command": "node", "args": ["s.js"], "protocol": "2026-07-28"});
    let config = parse_entry_value(&entry).unwrap();
    assert_eq!(config.protocol, ProtocolChoice::Modern);
    let auto =
        parse_entry_value(&serde_json::json!({"command": "node", "args": ["s.js"]})).unwrap();
    assert_eq!(auto.protocol, ProtocolChoice::Auto);
    assert_ne!(
        config.content_hash(),
        auto.content_hash(),
        "the era opened in matters"
    );
    let said =
        parse_entry_value(&serde_json::json!({"command": "node", "protocol": "2025"})).unwrap_err();
    assert_eq!(
        said,
        "unknown `protocol` \"2025\": use auto, 2026-07-28 or legacy"
    );
    // Claude Code does not know the key; a write keeps it where it was, as any such key.
    let extra = entry.as_object().unwrap().clone();
    assert_eq!(
        serde_json::to_string(&config.to_json(&extra)).unwrap(),
        r#"{"type":"stdio","command":"node","args":["s.js"],"env":{},"protocol":"2026-07-28"}"#
    );
}

#[test]
fn policy_rules() {
    use mcp_manager_core::config::catalog::{Catalog, Standing};
    use mcp_manager_core::{Locations, Scope};
    use serde_json::json;
    /// (rule, managed settings, project .claude/settings.json, user settings,
    /// [(server, starts)])
    type Case<'a> = (
        &'a str,
        serde_json::Value,
        serde_json::Value,
        serde_json::Value,
        &'a [(&'a str, bool)],
    );
    let cases: &[Case] = &[
        (
            "no_policy_allows_all",
            json!({}),
            json!({}),
            json!({}),
            &[("mine", true), ("remote", true)],
        ),
        (
            "an_empty_allow_list_allows_nothing",
            json!({"allowedMcpServers": []}),
            json!({}),
            json!({}),
            &[("mine", false), ("remote", false)],
        ),
        (
            "allow_lists_from_every_file_are_joined",
            json!({"allowedMcpServers": [{"serverName": "mine"}]}),
            json!({}),
            json!({"allowedMcpServers": [{"serverName": "remote"}]}),
            &[("mine", true), ("remote", true)],
        ),
        (
            "allow_managed_only_ignores_the_persons_allow_list",
            json!({"allowedMcpServers": [{"serverName": "mine"}], "allowManagedMcpServersOnly": true}),
            json!({}),
            json!({"allowedMcpServers": [{"serverName": "remote"}]}),
            &[("mine", true), ("remote", false)],
        ),
        (
            "a_url_rule_means_a_remote_server_must_match_a_url",
            json!({"allowedMcpServers": [{"serverName": "remote"}, {"serverUrl": "https://*.corp.example/*"}]}),
            json!({}),
            json!({}),
            &[("remote", false), ("mine", false)],
        ),
        (
            "a_command_rule_is_the_exact_command_line",
            json!({"allowedMcpServers": [{"serverCommand": ["node", "server.js"]}]}),
            json!({}),
            json!({}),
            &[("mine", true), ("remote", false)],
        ),
        (
            "deny_from_the_persons_settings_counts",
            json!({}),
            json!({}),
            json!({"deniedMcpServers": [{"serverName": "mine"}]}),
            &[("mine", false), ("remote", true)],
        ),
        (
            "a_project_deny_does_not_block_the_organizations_server_but_a_managed_one_does",
            json!({"managedMcpServers": {"org": {"type": "http", "url": "https://org.example/mcp"}}}),
            json!({"deniedMcpServers": [{"serverName": "org"}, {"serverName": "remote"}]}),
            json!({}),
            &[("org", true), ("remote", false)],
        ),
        (
            "managed_servers_need_no_allow_entry",
            json!({"managedMcpServers": {"org": {"type": "sse", "url": "https://org.example/sse"}}, "allowedMcpServers": []}),
            json!({}),
            json!({}),
            &[("org", true), ("mine", false)],
        ),
        (
            "strict_plugin_only_keeps_no_configured_server",
            json!({"strictPluginOnlyCustomization": ["mcp"]}),
            json!({}),
            json!({}),
            &[("mine", false), ("remote", false)],
        ),
    ];
    for (rule, managed, project, user, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project_dir) = (root.join("home"), root.join("project"));
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(project_dir.join(".claude")).unwrap();
        std::fs::create_dir_all(root.join("managed")).unwrap();
        let key = project_dir.to_str().unwrap().to_string();
        std::fs::write(
            home.join(".claude.json"),
            json!({
                "mcpServers": {
                    "mine": {"command": "node", "args": ["server.js"]},
                    "remote": {"type": "http", "url": "https://remote.example/mcp"},
                    "org": {"type": "http", "url": "https://mine.example/mcp"}
                },
                "projects": {key: {"hasTrustDialogAccepted": true}}
            })
            .to_string(),
        )
        .unwrap();
        std::fs::write(
            root.join("managed/managed-settings.json"),
            managed.to_string(),
        )
        .unwrap();
        std::fs::write(
            project_dir.join(".claude/settings.json"),
            project.to_string(),
        )
        .unwrap();
        std::fs::write(home.join(".claude/settings.json"), user.to_string()).unwrap();
        let mut locations = Locations::new(home, None, &project_dir).unwrap();
        locations.managed_dir = root.join("managed");
        let catalog = Catalog::load(&locations);
        for (name, starts) in *expected {
            let entry = catalog.effective(name).unwrap();
            assert_eq!(
                entry.will_start(),
                *starts,
                "{rule}: {name} {:?}",
                entry.blocked
            );
            if !starts {
                assert_eq!(entry.standing(), Standing::Blocked, "{rule}: {name}");
            }
            if *name == "org" {
                assert_eq!(
                    entry.scope,
                    Scope::Managed,
                    "{rule}: managedMcpServers win over a same-named entry"
                );
            }
        }
    }
}

#[test]
fn a_timeout_below_claude_codes_minimum_is_ignored() {
    let entry = |timeout: u64| {
        parse_entry_value(&serde_json::json!({"command": "x", "timeout": timeout})).unwrap()
    };
    assert_eq!(entry(500).tool_timeout(), None);
    assert_eq!(
        entry(1000).tool_timeout(),
        Some(std::time::Duration::from_secs(1))
    );
    assert_eq!(
        entry(90_000).tool_timeout(),
        Some(std::time::Duration::from_secs(90))
    );
}

#[test]
fn a_plugins_options_are_put_in_and_its_sensitive_ones_only_when_it_starts() {
    use mcp_manager_core::config::catalog::Catalog;
    use mcp_manager_core::config::entry::Transport;
    use mcp_manager_core::Locations;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, project) = (root.join("home"), root.join("project"));
    let manifest = home.join(".claude/skills/sk/.claude-plugin/plugin.json");
    std::fs::create_dir_all(manifest.parent().unwrap()).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        &manifest,
        r#"{"name":"sk","mcpServers":{"s":{"command":"tool","args":["--region","${user_config.region}","${CLAUDE_PROJECT_DIR}"],"env":{"TOKEN":"${user_config.token}"}}}}"#,
    )
    .unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        // Kept under `NAME@skills-dir`, as Claude Code 2.1.332 keeps a skills folder plugin's.
        r#"{"pluginConfigs":{"sk@skills-dir":{"options":{"region":"eu"}}}}"#,
    )
    .unwrap();
    std::fs::write(
        home.join(".claude/.credentials.json"),
        r#"{"pluginSecrets":{"sk@skills-dir":{"token":"s3cret"}}}"#,
    )
    .unwrap();
    let mut locations = Locations::new(home, None, &project).unwrap();
    locations.managed_dir = root.join("managed");
    let catalog = Catalog::load(&locations);
    let entry = catalog
        .effective("plugin:sk:s")
        .expect("the plugin's server");
    let Transport::Stdio { args, env, .. } = &entry.config.transport else {
        panic!("stdio")
    };
    assert_eq!(args, &["--region", "eu", project.to_str().unwrap()]);
    let token = env.iter().find(|(k, _)| k == "TOKEN").unwrap();
    assert_eq!(token.1, "${user_config.token}", "shown as written");
    let listed = mcp_manager_core::list_servers(&locations);
    assert!(
        !format!("{listed:?}").contains("s3cret"),
        "never in what is listed"
    );
    assert!(
        !format!("{entry:?}").contains("s3cret"),
        "nor in a debug print"
    );
    let Transport::Stdio { env, .. } = entry.expanded().0.transport else {
        panic!("stdio")
    };
    assert!(
        env.contains(&("TOKEN".into(), "s3cret".into())),
        "put in when it starts"
    );
}

#[test]
fn plugin_only_policy_keeps_marketplace_plugin_servers_and_nothing_else() {
    use mcp_manager_core::config::catalog::{Catalog, Standing};
    use mcp_manager_core::Locations;
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, project) = (root.join("home"), root.join("project"));
    let write = |path: std::path::PathBuf, value: serde_json::Value| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, value.to_string()).unwrap();
    };
    let plugin = root.join("installed/mp");
    write(
        plugin.join(".mcp.json"),
        json!({"mcpServers": {"a": {"command": "market-server"}}}),
    );
    write(
        home.join(".claude/plugins/installed_plugins.json"),
        json!({"version": 2, "plugins": {"mp@mkt": [{"scope": "user", "installPath": plugin}]}}),
    );
    write(
        home.join(".claude/plugins/known_marketplaces.json"),
        json!({"mkt": {"source": {"source": "github", "repo": "o/r"}, "installLocation": root.join("mkt")}}),
    );
    write(
        home.join(".claude/skills/sk/.claude-plugin/plugin.json"),
        json!({"name": "sk", "mcpServers": {"b": {"command": "skills-server"}}}),
    );
    write(
        home.join(".claude/settings.json"),
        json!({"enabledPlugins": {"mp@mkt": true}}),
    );
    write(
        home.join(".claude.json"),
        json!({"mcpServers": {"mine": {"command": "mine"}}}),
    );
    write(
        root.join("managed/managed-settings.json"),
        json!({"strictPluginOnlyCustomization": true}),
    );
    std::fs::create_dir_all(&project).unwrap();
    let mut locations = Locations::new(home, None, &project).unwrap();
    locations.managed_dir = root.join("managed");
    let catalog = Catalog::load(&locations);
    let starts = |name: &str| catalog.effective(name).unwrap().will_start();
    assert!(starts("plugin:mp:a"), "a marketplace plugin's server runs");
    assert!(!starts("plugin:sk:b"), "a skills folder plugin's does not");
    assert!(!starts("mine"), "nor a configured one");
    assert_eq!(
        catalog.effective("mine").unwrap().standing(),
        Standing::Blocked
    );
}
