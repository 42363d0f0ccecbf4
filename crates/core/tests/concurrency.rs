//! Another program rewrites `~/.claude.json` in a loop, as Claude Code does, while we add and
//! remove servers: 1,000 rounds, and nothing is lost on either side.
//!
//! The other writer is a Node process that behaves like Claude Code's config save: it takes
//! `~/.claude.json.lock` (a directory made with `mkdir`, the `proper-lockfile` convention),
//! re-reads the file, changes its own key, writes a temporary file and renames it over.

use std::io::Read;
use std::process::{Command, Stdio};

use mcp_manager_core::api;
use mcp_manager_core::config::entry::ServerConfig;
use mcp_manager_core::{Locations, Scope};
use serde_json::Value;

const OTHER_WRITER: &str = r#"
const fs = require("fs");
const [file, stopFile] = process.argv.slice(1);
const lock = file + ".lock";
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
let rounds = 0;
while (!fs.existsSync(stopFile)) {
  for (;;) {
    try { fs.mkdirSync(lock); break; } catch (e) { if (e.code !== "EEXIST") throw e; pause(1); }
  }
  try {
    const config = JSON.parse(fs.readFileSync(file, "utf8"));
    config.otherWriterRounds = (config.otherWriterRounds || 0) + 1;
    config.tipsHistory = { ...(config.tipsHistory || {}), ["tip" + (rounds % 50)]: rounds };
    const temp = `${file}.tmp.${process.pid}.${Date.now()}`;
    fs.writeFileSync(temp, JSON.stringify(config, null, 2));
    fs.renameSync(temp, file);
    rounds++;
  } finally {
    fs.rmdirSync(lock);
  }
  pause(1); // Claude Code writes often, but not in a tight loop.
}
process.stdout.write(String(rounds));
"#;

#[test]
fn a_thousand_rounds_against_a_concurrent_writer_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let claude_json = home.join(".claude.json");
    std::fs::write(&claude_json, r#"{"numStartups": 7, "mcpServers": {}}"#).unwrap();
    let stop = dir.path().join("stop");
    let mut other = Command::new("node")
        .arg("-e")
        .arg(OTHER_WRITER)
        .arg(&claude_json)
        .arg(&stop)
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs the other writer");

    let mut locations = Locations::new(home.clone(), None, &project).unwrap();
    locations.managed_dir = home.join("managed");
    let config = ServerConfig::stdio("node", vec!["server.js".into()], vec![]);
    const ROUNDS: usize = 1000;
    for round in 0..ROUNDS {
        api::add_server(
            &locations,
            &format!("srv-{round}"),
            Scope::User,
            &config,
            &Default::default(),
        )
        .unwrap_or_else(|err| panic!("round {round}: add failed: {err}"));
        if round % 2 == 1 {
            api::remove_server(&locations, &format!("srv-{}", round - 1), Some(Scope::User))
                .unwrap_or_else(|err| panic!("round {round}: remove failed: {err}"));
        }
    }
    std::fs::write(&stop, "").unwrap();
    let mut their_rounds = String::new();
    other
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut their_rounds)
        .unwrap();
    assert!(other.wait().unwrap().success(), "the other writer failed");
    let their_rounds: u64 = their_rounds
        .trim()
        .parse()
        .expect("the other writer's count");

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&claude_json).unwrap()).unwrap();
    let servers = doc["mcpServers"].as_object().unwrap();
    let expected: Vec<String> = (0..ROUNDS)
        .filter(|r| r % 2 == 1)
        .map(|r| format!("srv-{r}"))
        .collect();
    let got: Vec<&String> = servers.keys().collect();
    assert_eq!(
        got,
        expected.iter().collect::<Vec<_>>(),
        "every add and remove of ours survived"
    );
    assert_eq!(
        doc["otherWriterRounds"].as_u64(),
        Some(their_rounds),
        "every one of the other writer's {their_rounds} updates survived"
    );
    assert!(their_rounds > 0, "the other writer really ran concurrently");
    assert_eq!(doc["numStartups"], 7, "keys nobody touched are kept");
    eprintln!(
        "concurrency: our {ROUNDS} rounds interleaved with {their_rounds} of the other writer"
    );
}
