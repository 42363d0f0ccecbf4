//! GitHub Copilot reads `.mcp.json` too, with keys of its own on an entry: `tools` (an
//! allow-list), `type: "local"` and `timeout`. Our writes must keep them, whichever entry we
//! edit, and the window must be able to say they are Copilot's. Real files in a temporary
//! folder, written through the window's own save path (`draft::save`).

use std::fs;

use mcp_manager_clients::vscode::copilot_keys;
use mcp_manager_core::config::draft::{self, EntryRef};
use mcp_manager_core::config::entry::parse_entry_value;
use mcp_manager_core::{Locations, Scope};
use serde_json::{json, Value};

const ORIGINAL: &str = r#"{
  "mcpServers": {
    "copilot": {
      "type": "stdio",
      "command": "node",
      "args": [
        "server.js"
      ],
      "tools": [
        "search",
        "fetch"
      ],
      "timeout": 30000
    },
    "shared": {
      "command": "uvx",
      "args": [
        "mcp-server-git"
      ],
      "tools": [
        "*"
      ]
    },
    "local": {
      "type": "local",
      "command": "npx",
      "args": [
        "-y",
        "some-server"
      ],
      "tools": [
        "*"
      ],
      "timeout": 5000
    }
  }
}"#;

fn entry_text(file: &str, name: &str) -> String {
    // The entry's lines as written: from its key to the closing brace at its indent.
    let start = file.find(&format!("    \"{name}\": {{")).unwrap();
    let end = start + file[start..].find("\n    }").unwrap() + "\n    }".len();
    file[start..end].to_string()
}

#[test]
fn copilot_keys_survive_an_edit_of_their_entry_and_of_another() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, project) = (root.join("home"), root.join("repo"));
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(project.join(".git")).unwrap();
    let path = project.join(".mcp.json");
    fs::write(&path, ORIGINAL).unwrap();
    let mut locations = Locations::new(home.clone(), None, &project).unwrap();
    locations.managed_dir = home.join("managed");

    let before: Value = serde_json::from_str(ORIGINAL).unwrap();
    let keys = |name: &str| -> Vec<String> {
        copilot_keys(&before["mcpServers"][name])
            .into_iter()
            .map(|k| k.key)
            .collect()
    };
    assert_eq!(keys("copilot"), ["tools", "timeout"]);
    assert_eq!(keys("shared"), ["tools"]);
    assert_eq!(keys("local"), ["tools", "type", "timeout"]);
    // Claude Code 2.1.332 skips a `type: "local"` entry ("[Warning] [local] mcpServers.local:
    // Skipped — unknown MCP server type \"local\"", `claude mcp list`); so do we, saying why.
    let refused = parse_entry_value(&before["mcpServers"]["local"]).unwrap_err();
    assert!(refused.contains("Claude Code skips the entry"), "{refused}");
    assert!(parse_entry_value(&before["mcpServers"]["shared"]).is_ok());

    // Edit the entry that carries Copilot's keys.
    let entry = EntryRef {
        name: "copilot".into(),
        scope: Scope::Project,
    };
    let mut edit = draft::draft_of(&locations, &entry).unwrap();
    edit.args = vec!["server.js".into(), "--verbose".into()];
    draft::save(&locations, &edit, Some(&entry)).unwrap();

    let text = fs::read_to_string(&path).unwrap();
    let after: Value = serde_json::from_str(&text).unwrap();
    let copilot = &after["mcpServers"]["copilot"];
    assert_eq!(copilot["tools"], json!(["search", "fetch"]), "{text}");
    assert_eq!(copilot["timeout"], json!(30000));
    assert_eq!(copilot["args"], json!(["server.js", "--verbose"]));
    // The other entries, the Copilot-only one included, are untouched to the byte.
    for name in ["shared", "local"] {
        assert_eq!(
            entry_text(&text, name),
            entry_text(ORIGINAL, name),
            "{name}"
        );
    }

    // Edit another entry: the edited one keeps its Copilot keys again, the rest its bytes.
    let entry = EntryRef {
        name: "shared".into(),
        scope: Scope::Project,
    };
    let mut edit = draft::draft_of(&locations, &entry).unwrap();
    edit.args = vec!["mcp-server-git".into(), "--repository".into(), ".".into()];
    draft::save(&locations, &edit, Some(&entry)).unwrap();
    let second = fs::read_to_string(&path).unwrap();
    let after: Value = serde_json::from_str(&second).unwrap();
    assert_eq!(after["mcpServers"]["shared"]["tools"], json!(["*"]));
    assert_eq!(entry_text(&second, "copilot"), entry_text(&text, "copilot"));
    assert_eq!(entry_text(&second, "local"), entry_text(ORIGINAL, "local"));
}
