//! The judge: what Claude Code 2.1.332 really sends the model API, against our view of it.
//!
//! A stand-in for the model API listens on 127.0.0.1 (a plain `TcpListener` thread that keeps
//! every request body and answers `/v1/messages` with a canned message, streamed when asked).
//! The pinned `claude -p hi` runs in a sandbox HOME whose `~/.claude.json` holds user-scope
//! servers: our edge server (`tests/fixtures/servers/edge-server.mjs`, `EDGE_TOOLS_FROM`)
//! serving a given `tools/list`. With `ENABLE_TOOL_SEARCH=false` every tool's full definition
//! is in the request's `tools`; by default the deferred tools are named in a system text that
//! lists the tools ToolSearch can load. Both must equal `claude_code::view`, JSON for JSON.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use mcp_manager_clients::claude_code::{self, Knobs, Server, ToolSearch};
use serde_json::{json, Value};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
        .canonicalize()
        .unwrap_or_else(|_| panic!("{path} is missing: run `scripts/setup test`"))
}

fn claude() -> PathBuf {
    repo("tests/reference/node_modules/@anthropic-ai/claude-code/bin/claude.exe")
}

/// What the stand-in answers: by default "hello" to every message and a count of 1; with
/// `tool_use`, a call of that tool (name, input) to a request with tools that does not
/// carry a tool's result yet; `count` answers `/v1/messages/count_tokens` from its body.
#[derive(Clone)]
struct Script {
    tool_use: Option<(String, Value)>,
    count: fn(&Value) -> u64,
}

impl Default for Script {
    fn default() -> Script {
        Script {
            tool_use: None,
            count: |_| 1,
        }
    }
}

/// The stand-in model API: every request body it was sent, in order.
struct ModelApi {
    port: u16,
    bodies: Arc<Mutex<Vec<(String, Value)>>>,
}

impl ModelApi {
    fn start(script: Script) -> ModelApi {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = bodies.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = kept.clone();
                let script = script.clone();
                std::thread::spawn(move || serve(stream, &kept, &script));
            }
        });
        ModelApi { port, bodies }
    }

    /// The bodies of the `/v1/messages` requests that carried tools.
    fn messages(&self) -> Vec<Value> {
        self.bodies
            .lock()
            .unwrap()
            .iter()
            .filter(|(path, _)| path.starts_with("/v1/messages?") || path == "/v1/messages")
            .filter(|(_, body)| body.get("tools").is_some())
            .map(|(_, body)| body.clone())
            .collect()
    }
}

/// One connection: requests one after another (Claude Code keeps connections alive).
fn serve(stream: TcpStream, kept: &Mutex<Vec<(String, Value)>>, script: &Script) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
        let mut length = 0usize;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        kept.lock().unwrap().push((path.clone(), body.clone()));
        let (kind, answer) = if path.contains("count_tokens") {
            let count = (script.count)(&body);
            (
                "application/json",
                json!({"input_tokens": count}).to_string(),
            )
        } else if path.starts_with("/v1/messages") {
            answer_message(&body, script)
        } else {
            ("application/json", "{}".to_string())
        };
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\n\r\n",
            answer.len()
        );
        if writer.write_all(head.as_bytes()).is_err()
            || writer.write_all(answer.as_bytes()).is_err()
        {
            return;
        }
    }
}

/// Whether the request's last message carries a tool's result.
fn carries_tool_result(request: &Value) -> bool {
    request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_array())
        .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"))
}

/// A canned assistant message, as an SSE stream when the request asks: the script's tool
/// call when it has one and the request has not answered it yet, else "hello".
fn answer_message(request: &Value, script: &Script) -> (&'static str, String) {
    let model = request["model"].as_str().unwrap_or("claude");
    let usage = json!({"input_tokens": 1, "output_tokens": 1});
    let call = script
        .tool_use
        .as_ref()
        .filter(|_| request.get("tools").is_some() && !carries_tool_result(request));
    let (block, stop) = match call {
        Some((name, input)) => (
            json!({"type": "tool_use", "id": "toolu_judge", "name": name, "input": input}),
            "tool_use",
        ),
        None => (json!({"type": "text", "text": "hello"}), "end_turn"),
    };
    if request["stream"] != json!(true) {
        let message = json!({"id": "msg_judge", "type": "message", "role": "assistant",
            "model": model, "content": [block], "stop_reason": stop, "stop_sequence": null,
            "usage": usage});
        return ("application/json", message.to_string());
    }
    let (start, delta) = match call {
        Some((name, input)) => (
            json!({"type": "tool_use", "id": "toolu_judge", "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
        ),
        None => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": "hello"}),
        ),
    };
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_judge",
            "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": null, "stop_sequence": null, "usage": usage}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 1}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    let stream = events
        .iter()
        .map(|(event, data)| format!("event: {event}\ndata: {data}\n\n"))
        .collect();
    ("text/event-stream", stream)
}

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A server of the sandbox: its name, its `tools/list` result, its entry's `alwaysLoad`.
struct Served {
    name: String,
    listing: Value,
    always_load: Option<bool>,
}

/// Runs `claude -p hi` with `servers` in a fresh HOME and `env`; the one request with tools.
fn claude_request(servers: &[Served], env: &[(&str, &str)]) -> Value {
    claude_request_with(servers, env, None)
}

/// [`claude_request`], with `settings` as the person's `~/.claude/settings.json`.
fn claude_request_with(
    servers: &[Served],
    env: &[(&str, &str)],
    settings: Option<&Value>,
) -> Value {
    let session = Session {
        settings: settings.cloned(),
        ..Session::default()
    };
    let api = claude_session(servers, env, &session);
    let mut messages = api.messages();
    assert_eq!(
        messages.len(),
        1,
        "claude -p hi makes one request with tools"
    );
    messages.remove(0)
}

/// One `claude -p` run: the person's settings, what the servers answer to `tools/call`
/// (`EDGE_RESULTS_FROM`: tool name → result), the stand-in's script, the allowed tools.
#[derive(Default)]
struct Session {
    settings: Option<Value>,
    results: Option<Value>,
    script: Script,
    allowed_tools: Option<String>,
}

/// Runs `claude -p hi` with `servers` in a fresh HOME and `env`; the stand-in, with every
/// request it was sent.
fn claude_session(servers: &[Served], env: &[(&str, &str)], session: &Session) -> ModelApi {
    let settings = session.settings.as_ref();
    let api = ModelApi::start(session.script.clone());
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    if let Some(settings) = settings {
        std::fs::write(home.join(".claude/settings.json"), settings.to_string()).unwrap();
    }
    let edge = repo("tests/fixtures/servers/edge-server.mjs");
    let mut entries = serde_json::Map::new();
    for served in servers {
        let file = dir.path().join(format!("{}.tools.json", served.name));
        std::fs::write(&file, served.listing.to_string()).unwrap();
        let mut entry = json!({"type": "stdio", "command": "node",
            "args": [edge.display().to_string()],
            "env": {"EDGE_TOOLS_FROM": file.display().to_string()}});
        if let Some(results) = &session.results {
            let answers = dir.path().join(format!("{}.results.json", served.name));
            std::fs::write(&answers, results.to_string()).unwrap();
            entry["env"]["EDGE_RESULTS_FROM"] = json!(answers.display().to_string());
        }
        if let Some(always) = served.always_load {
            entry["alwaysLoad"] = json!(always);
        }
        entries.insert(served.name.clone(), entry);
    }
    let config = json!({"hasCompletedOnboarding": true, "mcpServers": entries});
    std::fs::write(home.join(".claude.json"), config.to_string()).unwrap();
    let mut command = std::process::Command::new(claude());
    command
        .args(["-p", "hi"])
        .current_dir(&project)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env(
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", api.port),
        )
        .env("ANTHROPIC_API_KEY", "sk-ant-judge-not-a-key")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("MCP_TIMEOUT", "60000")
        // `-p` sends its first request once the servers that connected in time have: wait
        // for every one (Claude Code caps the wait), so that a slow machine judges the view
        // and not the race.
        .env("CLAUDE_CODE_MCP_STARTUP_WAIT_MS", "60000");
    if let Some(allowed) = &session.allowed_tools {
        command.args(["--allowedTools", allowed]);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    // One Claude Code at a time: each starts a node process per server.
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = command.output().expect("Claude Code runs");
    assert!(
        out.status.success(),
        "claude -p failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    api
}

/// The request's MCP tools, by name.
fn mcp_tools(request: &Value) -> Vec<Value> {
    let mut tools: Vec<Value> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"].as_str().is_some_and(|n| n.starts_with("mcp__")))
        .cloned()
        .collect();
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    tools
}

/// Numbers as JSON means them: `1.0` and `1` are one value (the server is JavaScript).
fn plain(value: &Value) -> Value {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9e15 && !n.is_i64() && !n.is_u64() => {
                json!(f as i64)
            }
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(plain).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), plain(v))).collect())
        }
        other => other.clone(),
    }
}

/// The pages the edge server answers `tools/list` with: three tools each.
fn edge_pages(listing: &Value) -> Vec<Value> {
    let tools = listing["tools"].as_array().unwrap();
    if tools.is_empty() {
        return vec![json!({"tools": []})];
    }
    tools.chunks(3).map(|page| json!({"tools": page})).collect()
}

/// Our view of every server, for `knobs`.
fn our_views<'a>(servers: &'a [Served], knobs: &Knobs) -> Vec<claude_code::View<'a>> {
    servers
        .iter()
        .map(|s| {
            let server = Server {
                always_load: s.always_load,
                ..Server::named(&s.name)
            };
            claude_code::view_pages(&server, &edge_pages(&s.listing), knobs).into_owned()
        })
        .collect()
}

/// Compares the request's MCP tools with our `sent`, tool by tool, JSON for JSON.
fn judge_upfront(servers: &[Served]) -> Vec<claude_code::View<'_>> {
    let request = claude_request(servers, &[("ENABLE_TOOL_SEARCH", "false")]);
    let knobs = Knobs {
        tool_search: ToolSearch::Off,
        ..Knobs::defaults()
    };
    let views = our_views(servers, &knobs);
    let mut ours: Vec<Value> = views
        .iter()
        .flat_map(|v| v.sent.iter().map(|t| serde_json::to_value(t).unwrap()))
        .collect();
    ours.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let theirs = mcp_tools(&request);
    let names = |tools: &[Value]| -> Vec<String> {
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let (ours_names, their_names) = (names(&ours), names(&theirs));
    let only_ours: Vec<&String> = ours_names
        .iter()
        .filter(|n| !their_names.contains(n))
        .collect();
    let only_theirs: Vec<&String> = their_names
        .iter()
        .filter(|n| !ours_names.contains(n))
        .collect();
    assert_eq!(
        ours_names, their_names,
        "the tools Claude Code sends are the tools our view says it sends; only in our view: \
         {only_ours:?}; only in Claude Code's request: {only_theirs:?}"
    );
    for (our, their) in ours.iter().zip(&theirs) {
        assert_eq!(
            plain(our),
            plain(their),
            "{}: our view of the tool differs from what Claude Code sends",
            our["name"]
        );
    }
    views
}

fn corpus() -> Vec<Served> {
    let dir = repo("tests/fixtures/schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".tools.json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "the corpus of published servers' tools is there"
    );
    files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            let listing: Value = serde_json::from_str(&text).unwrap();
            let name = path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".tools.json", "");
            Served {
                name,
                listing: json!({"tools": listing["tools"]}),
                always_load: None,
            }
        })
        .collect()
}

#[test]
fn every_published_servers_tools_are_sent_as_our_view_says() {
    let corpus = corpus();
    let views = judge_upfront(&corpus);
    let sent: usize = views.iter().map(|v| v.sent.len()).sum();
    assert!(sent > 200, "the corpus sends its tools ({sent})");
}

/// Tools that each meet one of Claude Code's rules.
fn edge_cases() -> Vec<Served> {
    let object = json!({"type": "object"});
    let tool = |name: &str, schema: Value| json!({"name": name, "description": format!("{name} tool"), "inputSchema": schema});
    let tools = vec![
        // Names: 128 characters in all is sent, 129 is not (mcp__edge__ is 11).
        tool(&"n".repeat(117), object.clone()),
        tool(&"m".repeat(118), object.clone()),
        tool("dotted.name/with spaces", object.clone()),
        // Two tools that meet once renamed, and a name listed twice.
        tool(
            "same.name",
            json!({"type": "object", "properties": {"first": {"type": "string"}}}),
        ),
        tool(
            "same_name",
            json!({"type": "object", "properties": {"second": {"type": "string"}}}),
        ),
        tool(
            "twice",
            json!({"type": "object", "properties": {"one": {"type": "string"}}}),
        ),
        tool(
            "twice",
            json!({"type": "object", "properties": {"two": {"type": "string"}}}),
        ),
        // Descriptions: cut upfront at 4,096, a surrogate pair at the cut, none at all.
        json!({"name": "long_description", "description": "x".repeat(5000), "inputSchema": object}),
        json!({"name": "pair_at_cut", "description": format!("{}😀tail{}", "y".repeat(4095), "z".repeat(10)), "inputSchema": object}),
        json!({"name": "exactly_4096", "description": "w".repeat(4096), "inputSchema": object}),
        json!({"name": "no_description", "inputSchema": object}),
        json!({"name": "hidden\u{200B}chars", "description": "Reads\u{200B} a \u{202E}file\u{FEFF} \u{FB01}ne ①", "inputSchema": object}),
        // Root combinators.
        tool(
            "root_any_of",
            json!({"type": "object", "anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "string"}}, "required": ["b", "a"]}]}),
        ),
        tool(
            "root_one_of_refs",
            json!({"type": "object", "title": "Find",
            "$defs": {"byId": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
                      "byName": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
            "oneOf": [{"$ref": "#/$defs/byId"}, {"$ref": "#/$defs/byName"}, {"$ref": "#/$defs/byId"}]}),
        ),
        tool(
            "root_all_of",
            json!({"type": "object", "properties": {"base": {"type": "string"}}, "required": ["base"],
            "additionalProperties": false,
            "allOf": [{"properties": {"x": {"type": "string"}}, "required": ["x"]}, {"properties": {"y": {"type": "boolean"}}}]}),
        ),
        tool(
            "any_of_spellings",
            json!({"type": "object", "anyOf": [
            {"properties": {"v": {"type": "number"}}, "required": ["v"]},
            {"properties": {"v": {"type": "string"}}, "required": ["v"]}]}),
        ),
        tool(
            "any_of_no_groups",
            json!({"type": "object", "anyOf": [{"type": "object"}, {"type": "object"}]}),
        ),
        json!({"name": "combinator_without_description", "inputSchema": {"type": "object", "allOf": [{"properties": {"q": {"type": "string"}}}]}}),
        tool(
            "any_of_not_array",
            json!({"type": "object", "anyOf": {"properties": {}}}),
        ),
        // Schema checks.
        tool(
            "refused_key",
            json!({"type": "object", "properties": {"has space": {"type": "string"}}}),
        ),
        tool(
            "key_too_long",
            json!({"type": "object", "properties": {"k".repeat(65): {"type": "string"}}}),
        ),
        tool(
            "nested_odd_key_is_fine",
            json!({"type": "object", "properties": {"outer": {"type": "object", "properties": {"in ner": {"type": "string"}}}}}),
        ),
        tool(
            "invalid_type",
            json!({"type": "object", "properties": {"a": {"type": "text"}}}),
        ),
        tool(
            "invalid_required_item",
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}),
        ),
        tool(
            "old_schema_unchecked",
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {"type": "text"}}}),
        ),
        tool(
            "new_schema_checked",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"a": {"type": "text"}}}),
        ),
        tool(
            "null_root_keys",
            json!({"type": "object", "description": null, "properties": {"a": {"type": "string"}}}),
        ),
        // Kept from the model by its own _meta.
        json!({"name": "app_only", "description": "d", "inputSchema": object, "_meta": {"ui": {"visibility": ["app"]}}}),
        json!({"name": "model_and_app", "description": "d", "inputSchema": object, "_meta": {"ui": {"visibility": ["model", "app"]}}}),
    ];
    let broken = |name: &str, bad: Value| Served {
        name: name.into(),
        listing: json!({"tools": [tool("fine", object.clone()), bad]}),
        always_load: None,
    };
    vec![
        Served {
            name: "edge".into(),
            listing: json!({"tools": tools}),
            always_load: None,
        },
        broken(
            "required-null",
            tool("bad", json!({"type": "object", "required": null})),
        ),
        broken(
            "no-object-type",
            tool("bad", json!({"anyOf": [{"type": "object"}]})),
        ),
        broken(
            "description-null",
            json!({"name": "bad", "description": null, "inputSchema": {"type": "object"}}),
        ),
        Served {
            name: "server.with dots".into(),
            listing: json!({"tools": [tool("t", object.clone())]}),
            always_load: None,
        },
    ]
}

#[test]
fn edge_cases_are_sent_dropped_and_cut_as_our_view_says() {
    let edge_cases = edge_cases();
    let views = judge_upfront(&edge_cases);
    let edge = &views[0];
    let dropped: Vec<&str> = edge.dropped.iter().map(|d| d.tool.as_str()).collect();
    for expected in [
        "refused_key",
        "key_too_long",
        "invalid_type",
        "new_schema_checked",
        "app_only",
        "any_of_not_array",
    ] {
        assert!(
            dropped.contains(&expected),
            "{expected} is dropped: {dropped:?}"
        );
    }
    assert!(edge
        .dropped
        .iter()
        .any(|d| d.words.contains("the API accepts at most 128")));
    for broken in &views[1..4] {
        assert!(
            broken.sent.is_empty(),
            "{}: one bad tool loses the server every tool",
            broken.server
        );
        assert!(
            broken
                .dropped
                .iter()
                .all(|d| d.words.contains("tool \"bad\"")),
            "{:?}",
            broken.dropped
        );
    }
    assert_eq!(
        edge.collisions.len(),
        1,
        "same.name and same_name meet: {:?}",
        edge.collisions
    );
}

#[test]
fn deferred_tools_are_the_ones_our_view_defers() {
    let object = json!({"type": "object"});
    let servers = vec![
        Served {
            name: "lazy".into(),
            listing: json!({"tools": [
                {"name": "plain", "description": "d", "inputSchema": object},
                {"name": "eager", "description": "e".repeat(5000), "inputSchema": object, "_meta": {"anthropic/alwaysLoad": true}},
                {"name": "hinted", "description": "h", "inputSchema": object, "_meta": {"anthropic/searchHint": "find things"}},
            ]}),
            always_load: None,
        },
        Served {
            name: "always".into(),
            listing: json!({"tools": [{"name": "one", "description": "o", "inputSchema": object}]}),
            always_load: Some(true),
        },
        Served {
            name: "never".into(),
            listing: json!({"tools": [{"name": "opted", "description": "o", "inputSchema": object,
                "_meta": {"anthropic/alwaysLoad": true}}]}),
            always_load: Some(false),
        },
    ];
    let request = claude_request(&servers, &[]);
    let views = our_views(&servers, &Knobs::from_env(|_| None));
    let mut ours: Vec<String> = views.iter().flat_map(|v| v.deferred.clone()).collect();
    ours.sort();
    let mut theirs = deferred_names(&request);
    theirs.sort();
    assert_eq!(
        ours, theirs,
        "the names Claude Code defers behind ToolSearch"
    );
    assert!(!ours.is_empty());
    // What loads upfront is sent whole, as our view says.
    let mut upfront: Vec<Value> = views
        .iter()
        .flat_map(|v| v.sent.iter().filter(|t| !v.deferred.contains(&t.name)))
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    upfront.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    assert_eq!(
        upfront.iter().map(plain).collect::<Vec<_>>(),
        mcp_tools(&request).iter().map(plain).collect::<Vec<_>>(),
        "tools that load always are sent upfront with the upfront cut"
    );
}

/// The MCP names in the request's list of tools ToolSearch can load.
fn deferred_names(request: &Value) -> Vec<String> {
    const LEAD: &str = "to load tool schemas before calling them:\n";
    let mut texts = Vec::new();
    collect_strings(request, &mut texts);
    let lists: Vec<&str> = texts
        .iter()
        .filter_map(|t| t.find(LEAD).map(|at| &t[at + LEAD.len()..]))
        .collect();
    assert!(
        !lists.is_empty(),
        "the request lists the tools ToolSearch can load"
    );
    let mut found: Vec<String> = lists
        .iter()
        .flat_map(|list| list.split("\n\n").next().unwrap_or("").lines())
        .filter(|name| name.starts_with("mcp__"))
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    found
}

fn collect_strings(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::String(s) => into.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| collect_strings(i, into)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, into)),
        _ => {}
    }
}

#[test]
fn a_description_length_override_moves_the_cut() {
    let servers = vec![Served {
        name: "short".into(),
        listing: json!({"tools": [{"name": "t", "description": "abcdefghij".repeat(30), "inputSchema": {"type": "object"}}]}),
        always_load: None,
    }];
    let request = claude_request(
        &servers,
        &[
            ("ENABLE_TOOL_SEARCH", "false"),
            ("CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH", "100"),
        ],
    );
    let knobs = Knobs::from_env(|name| match name {
        "ENABLE_TOOL_SEARCH" => Some("false".into()),
        "CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH" => Some("100".into()),
        _ => None,
    });
    let views = our_views(&servers, &knobs);
    assert_eq!(
        plain(&serde_json::to_value(&views[0].sent).unwrap()),
        plain(&Value::Array(mcp_tools(&request))),
    );
}

/// The `env` of the person's settings file wins over the process's: tool search turned off
/// there is off, though the shell says `true` (what `ClaudeEnv` in core reads for the window
/// and `mcpctl compat`).
#[test]
fn a_settings_file_env_wins_over_the_process_env() {
    let servers = vec![Served {
        name: "settled".into(),
        listing: json!({"tools": [
            {"name": "a", "description": "first", "inputSchema": {"type": "object"}},
            {"name": "b", "description": "second", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}
        ]}),
        always_load: None,
    }];
    let settings = json!({"env": {"ENABLE_TOOL_SEARCH": "false"}});
    let request = claude_request_with(&servers, &[("ENABLE_TOOL_SEARCH", "true")], Some(&settings));
    let mut texts = Vec::new();
    collect_strings(&request, &mut texts);
    assert!(
        !texts
            .iter()
            .any(|t| t.contains("to load tool schemas before calling them")),
        "nothing is deferred behind ToolSearch"
    );

    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/settings.json"), settings.to_string()).unwrap();
    let locations = mcp_manager_core::Locations {
        home,
        claude_config_dir: None,
        project: dir.path().to_path_buf(),
        managed_dir: dir.path().join("managed"),
    };
    let env = mcp_manager_core::config::settings_env::ClaudeEnv::read(
        &locations,
        false,
        &["ENABLE_TOOL_SEARCH"],
        |name| (name == "ENABLE_TOOL_SEARCH").then(|| "true".to_string()),
    );
    let knobs = Knobs::from_env(|name| env.get(name).map(str::to_string));
    assert_eq!(knobs.tool_search, ToolSearch::Off);
    let views = our_views(&servers, &knobs);
    assert_eq!(
        plain(&serde_json::to_value(&views[0].sent).unwrap()),
        plain(&Value::Array(mcp_tools(&request))),
    );
}

/// The stand-in's count of a `count_tokens` body: a quarter of its messages' text, as a
/// tokenizer of about four characters a token would.
fn quarter_of_text(body: &Value) -> u64 {
    fn chars(value: &Value) -> usize {
        match value {
            Value::Object(map) if map.get("type") == Some(&json!("text")) => {
                map["text"].as_str().map_or(0, |t| t.encode_utf16().count())
            }
            Value::Object(map) => map.values().map(chars).sum(),
            Value::Array(items) => items.iter().map(chars).sum(),
            Value::String(s) => s.encode_utf16().count(),
            _ => 0,
        }
    }
    (chars(&body["messages"]) / 4) as u64
}

/// The `tool_result` the model was sent, in the last request.
fn sent_tool_result(api: &ModelApi) -> Value {
    let messages = api.messages();
    let last = messages.last().expect("a request with tools");
    last["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .find(|b| b["type"] == "tool_result")
        .unwrap_or_else(|| panic!("the tool's result is sent back: {last}"))
        .clone()
}

/// The file paths in Claude Code's messages, written `<file>`.
fn without_paths(text: &str) -> String {
    let lead = "Full output saved to: ";
    match text.find(lead) {
        Some(at) => {
            let from = at + lead.len();
            let to = text[from..].find('\n').map_or(text.len(), |e| from + e);
            format!("{}<file>{}", &text[..from], &text[to..])
        }
        None => text.to_string(),
    }
}

/// A result case: its name, the result, the environment, the tool's `_meta`, its fate.
type ResultCase = (
    &'static str,
    Value,
    Vec<(&'static str, &'static str)>,
    Option<Value>,
    &'static str,
);

/// A result's fate in Claude Code: each case's result goes through `claude -p` (the stand-in
/// calls the tool, then reads the `tool_result` sent back) and must be what
/// `results::result_fate` says, text for text where the text is known.
#[test]
fn results_reach_the_model_as_result_fate_says() {
    use claude_code::results::{self, Fate};
    let text = |n: usize, c: &str| json!({"content": [{"type": "text", "text": c.repeat(n)}]});
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let sized = json!({"anthropic/maxResultSizeChars": 200_000});
    // (case, result, env, tool _meta, the fate expected)
    let cases: Vec<ResultCase> = vec![
        ("small", text(1_000, "x"), vec![], None, "kept"),
        (
            "just within the character limit",
            text(49_999, "x"),
            vec![],
            None,
            "kept",
        ),
        (
            "over the character limit",
            text(50_001, "x"),
            vec![],
            None,
            "savedOverChars",
        ),
        (
            "counted over the token limit",
            text(110_000, "x"),
            vec![],
            None,
            "savedOverTokens",
        ),
        (
            "over four times the token limit",
            text(500_000, "x"),
            vec![],
            None,
            "savedOverTokens",
        ),
        (
            "files turned off",
            text(500_000, "x"),
            vec![("ENABLE_MCP_LARGE_OUTPUT_FILES", "false")],
            None,
            "truncatedThenSaved",
        ),
        (
            "a lower token limit, files off",
            json!({"content": [{"type": "text", "text": "a".repeat(3_000)}, {"type": "text", "text": "b".repeat(3_000)}]}),
            vec![
                ("MAX_MCP_OUTPUT_TOKENS", "1000"),
                ("ENABLE_MCP_LARGE_OUTPUT_FILES", "0"),
            ],
            None,
            "truncated",
        ),
        (
            "a lower token limit, counted within",
            text(3_900, "x"),
            vec![("MAX_MCP_OUTPUT_TOKENS", "1000")],
            None,
            "kept",
        ),
        (
            "an image over a lower limit",
            json!({"content": [{"type": "text", "text": "y".repeat(20_000)}, {"type": "image", "data": png, "mimeType": "image/png"}]}),
            vec![("MAX_MCP_OUTPUT_TOKENS", "1000")],
            None,
            "truncated",
        ),
        (
            "sized, within its size",
            text(70_000, "x"),
            vec![],
            Some(sized.clone()),
            "kept",
        ),
        (
            "sized, over its size",
            text(500_000, "x"),
            vec![],
            Some(sized),
            "savedOverChars",
        ),
        (
            "structured content",
            json!({"content": [{"type": "text", "text": "hello"}], "structuredContent": {"a": 1, "b": "x", "c": [1, 2.5]}}),
            vec![],
            None,
            "kept",
        ),
        ("empty", json!({"content": []}), vec![], None, "kept"),
    ];
    for (case, result, env, meta, expected) in cases {
        let mut tool =
            json!({"name": "big", "description": "d", "inputSchema": {"type": "object"}});
        if let Some(meta) = &meta {
            tool["_meta"] = meta.clone();
        }
        let servers = vec![Served {
            name: "edge".into(),
            listing: json!({"tools": [tool]}),
            always_load: None,
        }];
        let mut env = env.clone();
        env.push(("ENABLE_TOOL_SEARCH", "false"));
        let session = Session {
            results: Some(json!({"big": result})),
            script: Script {
                tool_use: Some(("mcp__edge__big".into(), json!({}))),
                count: quarter_of_text,
            },
            allowed_tools: Some("mcp__edge__big".into()),
            ..Session::default()
        };
        let api = claude_session(&servers, &env, &session);
        let sent = sent_tool_result(&api);
        let counted: Vec<u64> = api
            .bodies
            .lock()
            .unwrap()
            .iter()
            .filter(|(path, _)| path.contains("count_tokens"))
            .map(|(_, body)| quarter_of_text(body))
            .collect();
        let lookup = |name: &str| {
            env.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        };
        let knobs = Knobs::from_env(lookup);
        let view = &our_views(&servers, &knobs)[0];
        let limits = view
            .results
            .iter()
            .find(|r| r.name == "mcp__edge__big")
            .unwrap();
        let files = results::large_output_files(lookup("ENABLE_MCP_LARGE_OUTPUT_FILES").as_deref());
        let fate = results::result_fate(&result, limits, files, counted.first().copied());
        let kind = serde_json::to_value(&fate.fate).unwrap()["kind"].clone();
        assert_eq!(kind, expected, "{case}: {}", fate.words);
        assert!(
            !matches!(fate.fate, Fate::DependsOnCount { .. }),
            "{case}: Claude Code asked the model API to count {} times; our band says it must",
            counted.len()
        );
        let theirs = &sent["content"];
        match fate.fate {
            Fate::SavedOverTokens => {
                let said = theirs.as_str().unwrap_or("");
                let lead = format!(
                    "Error: result ({} characters",
                    results::thousands(fate.chars as u64)
                );
                assert!(
                    said.starts_with(&lead)
                        && said
                            .contains("exceeds maximum allowed tokens. Output has been saved to "),
                    "{case}: {said}"
                );
            }
            Fate::SavedOverChars | Fate::TruncatedThenSaved => assert_eq!(
                Some(without_paths(theirs.as_str().unwrap_or(""))),
                fate.sent
                    .as_ref()
                    .and_then(Value::as_str)
                    .map(str::to_string),
                "{case}: the general layer's message"
            ),
            _ => assert_eq!(Some(theirs), fate.sent.as_ref(), "{case}: the content sent"),
        }
    }
}

/// Tools loaded through ToolSearch: the stand-in asks for them (`select:`), and the next
/// request names them in `tool_reference` blocks and sends their definitions in `tools`
/// (`defer_loading: true`), with the description cut at 16,384, as our view's `sent` says.
#[test]
fn tools_loaded_through_tool_search_are_sent_as_our_view_says() {
    let object = json!({"type": "object"});
    let servers = vec![Served {
        name: "edge".into(),
        listing: json!({"tools": [
            {"name": "mid", "description": "m".repeat(10_000), "inputSchema": object},
            {"name": "long", "description": format!("{}😀{}", "l".repeat(16_383), "t".repeat(4_000)), "inputSchema": object},
        ]}),
        always_load: None,
    }];
    let session = Session {
        script: Script {
            tool_use: Some((
                "ToolSearch".into(),
                json!({"query": "select:mcp__edge__mid,mcp__edge__long"}),
            )),
            ..Script::default()
        },
        allowed_tools: Some("ToolSearch".into()),
        ..Session::default()
    };
    let api = claude_session(&servers, &[], &session);
    let messages = api.messages();
    assert_eq!(
        messages.len(),
        2,
        "a request, then one with ToolSearch's result"
    );
    assert!(
        mcp_tools(&messages[0]).is_empty(),
        "nothing of the server is sent before it is loaded"
    );
    let references: Vec<Value> = sent_tool_result(&api)["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["tool_name"].clone())
        .collect();
    assert_eq!(
        references,
        [json!("mcp__edge__mid"), json!("mcp__edge__long")]
    );
    let theirs: Vec<Value> = mcp_tools(&messages[1])
        .into_iter()
        .map(|mut tool| {
            assert_eq!(tool["defer_loading"], json!(true));
            tool.as_object_mut().unwrap().remove("defer_loading");
            plain(&tool)
        })
        .collect();
    let view = &our_views(&servers, &Knobs::defaults())[0];
    assert_eq!(view.deferred, ["mcp__edge__mid", "mcp__edge__long"]);
    let mut ours: Vec<Value> = view
        .sent
        .iter()
        .map(|t| plain(&serde_json::to_value(t).unwrap()))
        .collect();
    ours.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    assert_eq!(ours, theirs);
    assert!(ours[0]["description"]
        .as_str()
        .unwrap()
        .ends_with(claude_code::text::TRUNCATION_MARKER));
}

/// `ENABLE_TOOL_SEARCH=auto:5`: Claude Code asks the stand-in to count the deferrable tools
/// and defers them once the count, less 500, reaches 5% of claude-opus-5-5's 1,000,000
/// (its debug log: "Auto tool search enabled: 50000 tokens (threshold: 50000, 5% of
/// context)"). Just under, the MCP tools are sent upfront; at the threshold, deferred, as
/// `auto_deferral` says.
#[test]
fn auto_defers_as_auto_deferral_says() {
    use claude_code::{auto_deferral, ToolsMeasure};
    let servers = vec![Served {
        name: "edge".into(),
        listing: json!({"tools": [{"name": "a", "description": "d", "inputSchema": {"type": "object"}}]}),
        always_load: None,
    }];
    let knobs = Knobs::from_env(|n| (n == "ENABLE_TOOL_SEARCH").then(|| "auto:5".into()));
    let view = &our_views(&servers, &knobs)[0];
    assert_eq!(view.deferred_above_percent, Some(5));
    fn under(body: &Value) -> u64 {
        if body.get("tools").is_some() {
            50_499
        } else {
            1
        }
    }
    fn at(body: &Value) -> u64 {
        if body.get("tools").is_some() {
            50_500
        } else {
            1
        }
    }
    for (count, answer) in [(50_499, under as fn(&Value) -> u64), (50_500, at)] {
        let session = Session {
            script: Script {
                tool_use: None,
                count: answer,
            },
            ..Session::default()
        };
        let api = claude_session(&servers, &[("ENABLE_TOOL_SEARCH", "auto:5")], &session);
        let counted: Vec<Value> = api
            .bodies
            .lock()
            .unwrap()
            .iter()
            .filter(|(path, body)| path.contains("count_tokens") && body.get("tools").is_some())
            .map(|(_, body)| body.clone())
            .collect();
        assert_eq!(counted.len(), 1, "Claude Code counts the tools once");
        assert!(counted[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "mcp__edge__a"));
        let request = api.messages().remove(0);
        assert_eq!(
            request["model"], "claude-opus-5-5",
            "the window below is this model's"
        );
        let ours = auto_deferral(
            view.deferred_above_percent.unwrap(),
            ToolsMeasure::Count(count),
            1_000_000,
        );
        let upfront = !mcp_tools(&request).is_empty();
        assert_eq!(upfront, !ours.defers, "{count}: {}", ours.words);
        if ours.defers {
            assert_eq!(deferred_names(&request), view.deferred);
        }
    }
}
