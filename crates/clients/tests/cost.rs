//! The budget of Claude Code's view of published servers' tools, and exact counts against a
//! loopback stand-in for the model API's token counting endpoint.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use mcp_manager_clients::claude_code::{self, Knobs, Server, ToolSearch, View};
use mcp_manager_clients::cost::exact::{ApiKey, CountError, Counter};
use mcp_manager_clients::cost::{self, estimate, Counting};
use serde_json::{json, Value};

fn listing(file: &str) -> Value {
    let path = format!(
        "{}/../../tests/fixtures/schemas/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn views(knobs: &Knobs) -> Vec<View<'static>> {
    [
        ("github", "server-github.tools.json"),
        ("time", "mcp-server-time.tools.json"),
        ("playwright", "playwright-mcp.tools.json"),
    ]
    .iter()
    .map(|(name, file)| claude_code::view(&Server::named(name), &listing(file), knobs).into_owned())
    .collect()
}

#[test]
fn deferred_tools_cost_their_name_and_upfront_tools_their_definition() {
    let knobs = Knobs::defaults();
    let mut views = views(&knobs);
    // The time server's tools load always: full definitions upfront.
    views[1] = claude_code::view(
        &Server {
            always_load: Some(true),
            ..Server::named("time")
        },
        &listing("mcp-server-time.tools.json"),
        &knobs,
    )
    .into_owned();
    let budget = cost::budget(&views, &knobs, &Counting::estimate());
    assert!(!budget.exact);
    assert!(budget.tokenizer.contains("o200k_base") && budget.tokenizer.contains('%'));
    let time = budget.servers.iter().find(|s| s.server == "time").unwrap();
    assert_eq!(time.deferred_tools, 0);
    let time_tools: u64 = views[1].sent.iter().map(estimate::tool).sum();
    assert_eq!(time.upfront, time_tools);
    let github = budget
        .servers
        .iter()
        .find(|s| s.server == "github")
        .unwrap();
    assert_eq!(github.upfront_tools, 0);
    let names: u64 = views[0]
        .sent
        .iter()
        .map(|t| estimate::deferred_name(&t.name))
        .sum();
    assert_eq!(github.upfront, names);
    assert!(github.loaded > 10 * github.upfront, "{github:?}");
    // Heaviest first, and each server's absence is the total less its own part.
    assert!(budget.tools.windows(2).all(|w| w[0].loaded >= w[1].loaded));
    assert!(budget
        .servers
        .windows(2)
        .all(|w| w[0].upfront >= w[1].upfront));
    for server in &budget.servers {
        assert_eq!(server.without, budget.total_upfront - server.upfront);
    }
    assert_eq!(
        budget.total_loaded,
        budget.tools.iter().map(|t| t.loaded).sum::<u64>()
    );
    let json = serde_json::to_value(&budget).unwrap();
    assert!(json["servers"][0].get("deferredTools").is_some());
    assert!(json.get("totalUpfront").is_some());
}

#[test]
fn a_description_past_4096_costs_less_upfront_than_loaded() {
    let long = json!({"tools": [{"name": "t", "description": "word ".repeat(2000), "inputSchema": {"type": "object"}}]});
    let knobs = Knobs::defaults();
    let view = claude_code::view(&Server::named("s"), &long, &knobs);
    let budget = cost::budget(&[view], &knobs, &Counting::estimate());
    let tool = &budget.tools[0];
    assert!(tool.deferred);
    assert!(tool.upfront < tool.loaded, "{tool:?}");
}

#[test]
fn auto_defers_only_past_the_threshold_and_is_decided_again_without_a_server() {
    // auto:2 → 4,000 tokens of a 200,000 window.
    let knobs = Knobs {
        tool_search: ToolSearch::parse(Some("auto:2")),
        ..Knobs::defaults()
    };
    let views = views(&knobs);
    let budget = cost::budget(&views, &knobs, &Counting::estimate());
    let auto = budget.auto.clone().unwrap();
    assert_eq!(auto.threshold, 4_000);
    assert!(auto.deferred, "{auto:?}");
    assert!(budget.tools.iter().all(|t| t.deferred));
    // Without github and playwright the time server alone stays under it: loaded upfront.
    let time_only = cost::budget(&views[1..2], &knobs, &Counting::estimate());
    assert!(!time_only.auto.as_ref().unwrap().deferred);
    assert!(time_only.tools.iter().all(|t| !t.deferred));
    let upfront: u64 = time_only.tools.iter().map(|t| t.upfront).sum();
    assert_eq!(time_only.total_upfront, upfront);
    // And "without" recomputes it: github off leaves playwright + time, still above?
    let playwright_and_time = cost::budget(
        &[views[1].clone(), views[2].clone()],
        &knobs,
        &Counting::estimate(),
    );
    let github = budget
        .servers
        .iter()
        .find(|s| s.server == "github")
        .unwrap();
    assert_eq!(github.without, playwright_and_time.total_upfront);
}

/// A stand-in for the model API: checks the headers, records each body, answers
/// `input_tokens` as our estimate of the body (or `status` with `answer`).
struct StandIn {
    url: String,
    bodies: Arc<Mutex<Vec<Value>>>,
}

fn stand_in(key: &'static str, status: u16, answer: &'static str) -> StandIn {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let recorded = bodies.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            assert_eq!(line.trim_end(), "POST /v1/messages/count_tokens HTTP/1.1");
            let mut headers = std::collections::HashMap::new();
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                let (k, v) = h.split_once(':').unwrap();
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
            let length: usize = headers["content-length"].parse().unwrap();
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap();
            let reply = if headers.get("x-api-key").map(String::as_str) != Some(key)
                || headers.get("anthropic-version").map(String::as_str) != Some("2023-06-01")
                || headers.get("content-type").map(String::as_str) != Some("application/json")
            {
                (401, r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#.to_string())
            } else if status != 200 {
                (status, answer.to_string())
            } else {
                (
                    200,
                    json!({"input_tokens": estimate::estimate_request(&body)}).to_string(),
                )
            };
            recorded.lock().unwrap().push(body);
            let _ = write!(
                stream,
                "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                reply.0,
                reply.1.len(),
                reply.1
            );
        }
    });
    StandIn { url, bodies }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn exact_counts_are_differences_of_the_endpoints_answers() {
    const KEY: &str = "sk-ant-test-0123456789";
    let standin = stand_in(KEY, 200, "");
    let knobs = Knobs::defaults();
    let views = views(&knobs);
    let tools: Vec<_> = views.iter().flat_map(|v| v.sent.clone()).collect();
    let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    let counter = Counter::new(ApiKey::new(KEY), Some(&standin.url), None);
    let counts = runtime().block_on(counter.counts(&tools, &names)).unwrap();
    // The stand-in answers our estimate of each body, so the differences give back the
    // estimate's tool-use prompt and each tool's estimate (± rounding).
    assert!(
        counts.overhead.abs_diff(estimate::tool_prompt()) <= 2,
        "{}",
        counts.overhead
    );
    for tool in &tools {
        assert!(
            counts.tool(tool).abs_diff(estimate::tool(tool)) <= 2,
            "{}",
            tool.name
        );
    }
    let bodies = standin.bodies.lock().unwrap();
    assert_eq!(bodies.len(), 4 + tools.len() + names.len());
    assert!(bodies
        .iter()
        .all(|b| b["model"] == "claude-sonnet-4-5" && b["messages"][0]["role"] == "user"));
    let with_tools: Vec<&Value> = bodies.iter().filter(|b| b.get("tools").is_some()).collect();
    assert_eq!(with_tools.len(), 3 + tools.len());
    // And the budget takes them as they are.
    let exact = Counting {
        tool: &|t| counts.tool(t),
        name: &|n| counts.name(n),
        overhead: counts.overhead,
        tokenizer: format!("exact, model API count_tokens ({})", counter.model()),
        exact: true,
    };
    let budget = cost::budget(&views, &knobs, &exact);
    assert!(budget.exact);
    assert_eq!(
        budget.total_loaded,
        tools.iter().map(|t| counts.tool(t)).sum::<u64>()
    );
}

#[test]
fn the_key_is_in_no_error_and_not_in_debug() {
    const KEY: &str = "sk-ant-secret-key-987654";
    let tools = vec![];
    // Refused: the stand-in expects another key.
    let standin = stand_in("another", 200, "");
    let err = runtime()
        .block_on(Counter::new(ApiKey::new(KEY), Some(&standin.url), None).counts(&tools, &[]))
        .unwrap_err();
    assert!(matches!(err, CountError::Refused { status: 401 }));
    assert!(
        err.to_string().starts_with("The model API refused the key"),
        "{err}"
    );
    // An error answer that echoes the key back.
    let echo = stand_in(
        KEY,
        400,
        r#"{"error":{"message":"bad request for sk-ant-secret-key-987654"}}"#,
    );
    let err = runtime()
        .block_on(Counter::new(ApiKey::new(KEY), Some(&echo.url), None).counts(&tools, &[]))
        .unwrap_err();
    assert!(matches!(err, CountError::Failed { status: 400, .. }));
    // Unreachable: a port nobody listens on.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let unreachable = runtime()
        .block_on(Counter::new(ApiKey::new(KEY), Some(&url), None).counts(&tools, &[]))
        .unwrap_err();
    assert!(
        unreachable.to_string().contains("could not be reached"),
        "{unreachable}"
    );
    let counter = Counter::new(ApiKey::new(KEY), Some(&url), None);
    for text in [
        err.to_string(),
        format!("{err:?}"),
        unreachable.to_string(),
        format!("{unreachable:?}"),
        format!("{counter:?}"),
        format!("{:?}", ApiKey::new(KEY)),
    ] {
        assert!(!text.contains(KEY), "the key shows in: {text}");
        assert!(!text.contains("987654"), "part of the key shows in: {text}");
    }
}

#[test]
fn the_key_comes_from_the_environment_then_the_keychain() {
    use mcp_manager_core::secrets::{InMemory, Secret, SecretStore, MODEL_API_KEY_ACCOUNT};
    let store = InMemory::default();
    assert!(ApiKey::find(|_| None, &store).unwrap().is_none());
    store
        .set(MODEL_API_KEY_ACCOUNT, &Secret::new("kept"))
        .unwrap();
    let (_, from) = ApiKey::find(|_| None, &store).unwrap().unwrap();
    assert_eq!(from, cost::exact::KeySource::Keychain);
    let (_, from) = ApiKey::find(|n| (n == "ANTHROPIC_API_KEY").then(|| "env".into()), &store)
        .unwrap()
        .unwrap();
    assert_eq!(from, cost::exact::KeySource::Environment);
}

/// A server that answers every request with `reply` (a whole HTTP response) and counts the
/// requests it got and those that carried `key`.
fn answering(reply: String, key: &'static str) -> (String, Arc<Mutex<(usize, usize)>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new((0, 0)));
    let counted = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut length, mut keyed) = (0usize, false);
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
                    break;
                }
                let lower = h.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                keyed |= h.contains(key);
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            {
                let mut seen = counted.lock().unwrap();
                seen.0 += 1;
                seen.1 += usize::from(keyed);
            }
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (url, seen)
}

fn response(status: u16, headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status} X\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn an_answer_that_echoes_the_key_or_sends_it_elsewhere_gets_nothing() {
    const KEY: &str = "sk-ant-REVIEWKEY-0123456789abcdef";
    let count = |url: &str| {
        runtime()
            .block_on(Counter::new(ApiKey::new(KEY), Some(url), None).count("x", &[]))
            .unwrap_err()
    };
    let shows_none = |err: &CountError| {
        let text = format!("{err} {err:?}");
        // Nor any part of it: its first or last 12 characters.
        assert!(
            !text.contains(&KEY[..12]) && !text.contains(&KEY[KEY.len() - 12..]),
            "{text}"
        );
    };
    // A body that ends with the key but its last character, where a cut at 200 would fall.
    let body = format!("{}{}", "x".repeat(200 - KEY.len() + 1), KEY);
    let (url, _) = answering(response(500, "", &body), KEY);
    shows_none(&count(&url));
    // The key in JSON escapes, in an error without a message, and in a 200 without a count.
    let escaped: String = KEY
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    for (status, body) in [
        (400, format!(r#"{{"error":{{"detail":"{escaped}"}}}}"#)),
        (
            400,
            format!(r#"{{"error":{{"message":"bad key {escaped}"}}}}"#),
        ),
        (200, format!(r#"{{"echo":"{KEY}"}}"#)),
    ] {
        let (url, _) = answering(
            response(status, "content-type: application/json\r\n", &body),
            KEY,
        );
        shows_none(&count(&url));
    }
    // A redirect to another host is not followed: that host never sees the key.
    let (elsewhere, got) = answering(response(200, "", r#"{"input_tokens":1}"#), KEY);
    for status in [301, 302, 307, 308] {
        let location = format!("location: {elsewhere}/v1/messages/count_tokens\r\n");
        let (url, _) = answering(response(status, &location, ""), KEY);
        let err = count(&url);
        assert!(err.to_string().contains("redirect, not followed"), "{err}");
    }
    assert_eq!(
        *got.lock().unwrap(),
        (0, 0),
        "the other host was never asked"
    );
    // Credentials in ANTHROPIC_BASE_URL are not shown.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let err = count(&format!(
        "http://proxyuser:PROXYPASS-s3cret@127.0.0.1:{port}"
    ));
    assert!(err.to_string().contains("could not be reached"), "{err}");
    assert!(
        !err.to_string().contains("PROXYPASS") && !err.to_string().contains("proxyuser"),
        "{err}"
    );
}
