//! A login's OAuth record, printed for a person: what `mcpctl login --verbose` shows of each
//! exchange.

use mcp_manager_oauth::trace::{StepOutcome, Trace};

/// Prints a login's record: each exchange with its step, RFC, status, the headers and bodies
/// that matter (secrets concealed), and for a failed step what was expected and what came.
pub fn print_trace(trace: &Trace) {
    eout!("OAuth exchanges (secrets show only their length and last 4 characters):");
    for (i, exchange) in trace.exchanges.iter().enumerate() {
        let mark = match exchange.outcome {
            StepOutcome::Ok => "ok  ",
            StepOutcome::Miss => "miss",
            StepOutcome::Failed => "FAIL",
        };
        let status = exchange
            .status
            .map(|s| format!(" → {s}"))
            .unwrap_or_default();
        eout!("{:>2}. {mark} {} ({})", i + 1, exchange.title, exchange.rfc);
        eout!(
            "      {} {}{status} ({} ms)",
            exchange.method,
            exchange.url,
            exchange.millis
        );
        for header in &exchange.request_headers {
            eout!("      > {}: {}", header.name, header.value);
        }
        if let Some(body) = &exchange.request_body {
            for line in body.lines() {
                eout!("      > {line}");
            }
        }
        for header in &exchange.response_headers {
            eout!("      < {}: {}", header.name, header.value);
        }
        if let Some(body) = exchange.response_body.as_ref().filter(|b| !b.is_empty()) {
            for line in body.lines() {
                eout!("      < {line}");
            }
        }
        if let (Some(expected), Some(came)) = (&exchange.expected, &exchange.came) {
            eout!("      expected: {expected}");
            eout!("      came:     {came}");
        }
    }
}
