//! Transcript lines shaped as Claude Code 2.1.332 writes them (the fields and their order
//! copied from its own `claude -p` sessions), for the tests and the benchmark: a session of
//! prompts, tool calls of its own tools and of MCP tools, results and answers, padded with
//! text as real sessions are.

/// The three lines of one MCP call: the model's `tool_use`, its result, the answer after it
/// (which names the server, as Claude Code does).
pub fn mcp_call(
    session: &str,
    cwd: &str,
    at_ms: i64,
    id: &str,
    server: &str,
    tool: &str,
    failed: bool,
) -> String {
    let name = format!(
        "mcp__{}__{}",
        mcp_manager_core::config::names::normalize(server),
        mcp_manager_core::config::names::normalize(tool)
    );
    let call = serde_json::json!({
        "parentUuid": "p", "isSidechain": false,
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
            "content": [{"type": "tool_use", "id": id, "name": name, "input": {"query": "some words"}}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}},
        "type": "assistant", "uuid": "u1", "timestamp": time(at_ms),
        "userType": "external", "entrypoint": "cli", "cwd": cwd, "sessionId": session,
        "version": "2.1.332", "gitBranch": "main"
    });
    let result = if failed {
        serde_json::json!([{"type": "tool_result", "content": "it broke", "is_error": true, "tool_use_id": id}])
    } else {
        serde_json::json!([{"tool_use_id": id, "type": "tool_result", "content": [{"type": "text", "text": "an answer"}]}])
    };
    let answer = serde_json::json!({
        "parentUuid": "u1", "isSidechain": false, "type": "user",
        "message": {"role": "user", "content": result},
        "uuid": "u2", "timestamp": time(at_ms + 25), "toolUseResult": "an answer",
        "sourceToolAssistantUUID": "u1",
        "permissionDecision": {"decision": "accept", "source": "config"},
        "userType": "external", "entrypoint": "cli", "cwd": cwd, "sessionId": session,
        "version": "2.1.332", "gitBranch": "main"
    });
    let after = serde_json::json!({
        "parentUuid": "u2", "isSidechain": false,
        "message": {"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
            "content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn"},
        "attributionMcpServer": server, "attributionMcpTool": tool,
        "type": "assistant", "uuid": "u3", "timestamp": time(at_ms + 40),
        "cwd": cwd, "sessionId": session, "version": "2.1.332"
    });
    format!("{call}\n{answer}\n{after}\n")
}

/// A turn with no MCP call: a prompt, a call of Claude Code's own `Read` and its result of
/// `bytes` bytes of text, and an answer.
pub fn plain_turn(session: &str, cwd: &str, at_ms: i64, id: &str, bytes: usize) -> String {
    let text: String = "lorem ipsum dolor sit amet, consectetur adipiscing elit; "
        .chars()
        .cycle()
        .take(bytes)
        .collect();
    let prompt = serde_json::json!({
        "parentUuid": null, "isSidechain": false, "type": "user",
        "message": {"role": "user", "content": "please read the file and explain it"},
        "uuid": "v1", "timestamp": time(at_ms), "cwd": cwd, "sessionId": session, "version": "2.1.332"
    });
    let call = serde_json::json!({
        "parentUuid": "v1", "isSidechain": false, "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": "/src/main.rs"}}]},
        "uuid": "v2", "timestamp": time(at_ms + 5), "cwd": cwd, "sessionId": session, "version": "2.1.332"
    });
    let result = serde_json::json!({
        "parentUuid": "v2", "isSidechain": false, "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": id, "type": "tool_result", "content": text}]},
        "uuid": "v3", "timestamp": time(at_ms + 9), "toolUseResult": {"type": "text", "file": {"content": text}},
        "cwd": cwd, "sessionId": session, "version": "2.1.332"
    });
    let answer = serde_json::json!({
        "parentUuid": "v3", "isSidechain": false, "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "It reads its arguments and starts."}]},
        "uuid": "v4", "timestamp": time(at_ms + 30), "cwd": cwd, "sessionId": session, "version": "2.1.332"
    });
    format!("{prompt}\n{call}\n{result}\n{answer}\n")
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn time(ms: i64) -> String {
    let day = crate::day_and_time(ms);
    let (date, hm) = day.split_once(' ').unwrap_or((&day, "00:00"));
    format!(
        "{date}T{hm}:{:02}.{:03}Z",
        ms.rem_euclid(60_000) / 1000,
        ms.rem_euclid(1000)
    )
}
