//! `mcpctl cost`: what Claude Code's view of the project's tools costs in Claude's context.
//!
//! The views are `mcpctl compat`'s (the same servers started, the same tools listed); the
//! arithmetic is [`mcp_manager_clients::cost::budget`]. Offline each figure is an estimate,
//! said so with its tokenizer and error; `--exact` counts with the model API's token counting
//! endpoint and the person's key (`ANTHROPIC_API_KEY`, else the keychain), which never
//! reaches the output.

use mcp_manager_clients::claude_code::{Knobs, View};
use mcp_manager_clients::cost::{self, Budget, Counting};
use mcp_manager_core::ApiError;

/// Counts and prints the budget of `views` under Claude Code's `knobs`, exactly with
/// `counter` (the model API's, found before any server started), else estimated; `Ok(true)`
/// when it was counted.
pub async fn print(
    views: &[View<'_>],
    knobs: &Knobs,
    counter: Option<cost::exact::Counter>,
    json: bool,
) -> Result<bool, ApiError> {
    let budget = if let Some(counter) = counter {
        cost::exact_budget(views, knobs, &counter)
            .await
            .map_err(mcp_manager_connect::project::clients::count_failure)?
    } else {
        cost::budget(views, knobs, &Counting::estimate())
    };
    if json {
        crate::print_json(&budget);
    } else {
        print_text(&budget);
    }
    Ok(true)
}

fn print_text(budget: &Budget) {
    let how = if budget.exact {
        "tokens"
    } else {
        "tokens, estimated"
    };
    out!(
        "Claude Code {}: {} {how} upfront for MCP tools, {} with every tool loaded",
        mcp_manager_clients::claude_code::VERSION,
        budget.total_upfront,
        budget.total_loaded
    );
    out!(
        "  + {} for the tool-use system prompt, paid once (Claude Code pays it for its own tools anyway)",
        budget.overhead
    );
    if let Some(auto) = &budget.auto {
        out!(
            "  ENABLE_TOOL_SEARCH=auto:{}: deferrable tools count {} against {} ({}% of {}): {}",
            auto.percent,
            auto.deferrable_tokens,
            auto.threshold,
            auto.percent,
            auto.context_window,
            if auto.deferred {
                "deferred behind ToolSearch"
            } else {
                "loaded upfront"
            }
        );
    }
    out!("");
    out!(
        "{:<28} {:>9} {:>9} {:>9} {:>7} {:>15}",
        "server",
        "upfront",
        "loaded",
        "deferred",
        "upfront",
        "project without"
    );
    for s in &budget.servers {
        out!(
            "{:<28} {:>9} {:>9} {:>9} {:>7} {:>15}",
            s.server,
            s.upfront,
            s.loaded,
            s.deferred_tools,
            s.upfront_tools,
            s.without
        );
    }
    out!("");
    out!(
        "{:<60} {:>9} {:>9} {:>7}  paid upfront",
        "tool (heaviest first)",
        "upfront",
        "loaded",
        "name"
    );
    for t in &budget.tools {
        out!(
            "{:<60} {:>9} {:>9} {:>7}  {}",
            t.name,
            t.upfront,
            t.loaded,
            t.name_only,
            if t.deferred {
                "name only (deferred)"
            } else {
                "definition"
            }
        );
    }
    out!("");
    out!("Counted by: {}", budget.tokenizer);
}
