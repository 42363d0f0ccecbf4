//! Every client's view of the published servers' tools (`tests/fixtures/schemas/`): no panic,
//! every tool accounted for, and the rules that real names meet.

use std::path::PathBuf;

use mcp_manager_clients::claude_code::Knobs;
use mcp_manager_clients::{all, view_of, Client, Effect, Listed};
use serde_json::Value;

fn fixtures() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/schemas");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the fixtures folder") {
        let path = entry.expect("a fixture").path();
        let Some(stem) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(stem) = stem.strip_suffix(".tools.json") else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("a readable fixture");
        let value: Value = serde_json::from_str(&text).expect("a JSON fixture");
        out.push((stem.to_string(), value));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 20, "the fixtures are there");
    out
}

fn tool_count(listing: &Value) -> usize {
    listing["tools"].as_array().map_or(0, Vec::len)
}

#[test]
fn every_client_accounts_for_every_published_tool() {
    let fixtures = fixtures();
    let listed: Vec<Listed> = fixtures.iter().map(|(n, v)| Listed::plain(n, v)).collect();
    let total: usize = fixtures.iter().map(|(_, v)| tool_count(v)).sum();
    let views = all(&listed, &Knobs::defaults());
    assert_eq!(
        views.iter().map(|v| v.client).collect::<Vec<_>>(),
        Client::ALL
    );
    for view in &views {
        assert_eq!(
            view.tools.len(),
            total,
            "{:?} lists every tool",
            view.client
        );
        for finding in &view.findings {
            assert!(
                !finding.words.is_empty() && !finding.fix.is_empty(),
                "{finding:?}"
            );
            assert_eq!(finding.client, view.client);
        }
        let named: Vec<_> = view
            .tools
            .iter()
            .filter_map(|t| t.name.as_deref())
            .collect();
        let distinct: std::collections::HashSet<_> = named.iter().collect();
        if view.client != Client::Cursor && view.client != Client::Windsurf {
            assert_eq!(
                distinct.len(),
                named.len(),
                "{:?} gives distinct names",
                view.client
            );
        }
    }
    // Claude Code defers by default: one note for the project, not one per tool.
    let claude = &views[0];
    let hidden: Vec<_> = claude
        .findings
        .iter()
        .filter(|f| f.effect == Effect::Hidden)
        .collect();
    assert_eq!(hidden.len(), 1);
    assert!(hidden[0].server.is_empty() && hidden[0].tool.is_none());
    // The whole corpus is well over every client's count limit.
    for client in [Client::Vscode, Client::Codex, Client::Windsurf] {
        let view = views.iter().find(|v| v.client == client).unwrap();
        assert!(
            view.findings
                .iter()
                .any(|f| f.server.is_empty() && f.effect == Effect::Hidden),
            "{client:?} hides tools of a {total}-tool project"
        );
    }
    // Zed: server-filesystem's read_file meets Zed's own read_file.
    let zed = views.iter().find(|v| v.client == Client::Zed).unwrap();
    let read_file = zed
        .tools
        .iter()
        .find(|t| t.server == "server-filesystem" && t.tool == "read_file")
        .unwrap();
    assert_eq!(
        read_file.name.as_deref(),
        Some("server-filesystem_read_file")
    );
}

#[test]
fn a_long_server_alias_cuts_github_and_chrome_devtools_names_in_gemini_and_codex() {
    let fixtures = fixtures();
    let alias = "github-enterprise-production-mirror";
    for stem in ["server-github", "chrome-devtools-mcp"] {
        let (_, listing) = fixtures.iter().find(|(n, _)| n == stem).unwrap();
        let listed = [Listed::plain(alias, listing)];
        let knobs = Knobs::defaults();

        // Gemini CLI: mcp_<alias>_<tool> over 63 characters keeps 30 + "..." + 30.
        let gemini = view_of(Client::Gemini, &listed, &knobs);
        let cut: Vec<_> = gemini
            .findings
            .iter()
            .filter(|f| f.effect == Effect::Cut)
            .collect();
        assert!(!cut.is_empty(), "{stem}: Gemini CLI cuts some names");
        assert!(gemini.tools.iter().flatten_names().all(|n| n.len() <= 63));
        assert!(gemini
            .tools
            .iter()
            .flatten_names()
            .any(|n| n.contains("...")));

        // Codex: mcp__<alias>__<tool> over 64 bytes is cut and hashed.
        let codex = view_of(Client::Codex, &listed, &knobs);
        assert!(codex.findings.iter().any(|f| f.effect == Effect::Cut));
        assert!(codex.tools.iter().flatten_names().all(|n| n.len() <= 64));

        // VS Code clips the alias to 13 characters first, so these names stay whole.
        let vscode = view_of(Client::Vscode, &listed, &knobs);
        assert!(vscode.findings.iter().all(|f| f.effect != Effect::Cut));
        assert!(vscode
            .tools
            .iter()
            .flatten_names()
            .all(|n| n.starts_with("mcp_github-enterp_")));
    }
}

trait Names<'a> {
    fn flatten_names(self) -> Box<dyn Iterator<Item = &'a str> + 'a>;
}

impl<'a, I: Iterator<Item = &'a mcp_manager_clients::ClientTool> + 'a> Names<'a> for I {
    fn flatten_names(self) -> Box<dyn Iterator<Item = &'a str> + 'a> {
        Box::new(self.filter_map(|t| t.name.as_deref()))
    }
}

/// Every client's view of 5,000 tools accounts for every tool (the time it takes is the
/// benchmark's: `cargo bench -p mcp-manager-clients --bench views`).
#[test]
fn five_thousand_tools_are_each_accounted_for() {
    let fixtures = fixtures();
    let mut aliases = Vec::new();
    let mut total = 0;
    let mut i = 0;
    while total < 5000 {
        let (stem, listing) = &fixtures[i % fixtures.len()];
        aliases.push((format!("{stem}-{i}"), listing));
        total += tool_count(listing);
        i += 1;
    }
    let listed: Vec<Listed> = aliases.iter().map(|(n, v)| Listed::plain(n, v)).collect();
    let views = all(&listed, &Knobs::defaults());
    assert_eq!(views.len(), Client::ALL.len());
    assert!(views.iter().all(|v| v.tools.len() == total));
}
