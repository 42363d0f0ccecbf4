//! `mcpctl doctor` and `mcpctl login --verbose`: the checkup and the OAuth record, printed as
//! the window shows them.

use mcp_manager_connect::Settings;
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::{ApiError, ConfigError, Locations};
use mcp_manager_doctor::{Checkup, Verdict};
use mcp_manager_oauth::trace::{StepOutcome, Trace};

/// `mcpctl doctor [SERVER]`: one server's checkup, or every configured server's; exit 1 when
/// any is unhealthy.
pub fn doctor(locations: &Locations, server: Option<&str>, json: bool) -> Result<bool, ApiError> {
    let names: Vec<String> = match server {
        Some(name) => vec![name.to_string()],
        None => {
            let catalog = Catalog::load(locations);
            catalog
                .entries
                .iter()
                .filter(|entry| entry.shadowed_by.is_none())
                .map(|entry| entry.name.clone())
                .collect()
        }
    };
    if names.is_empty() {
        return Err(ConfigError::ServerNotFound {
            name: "(any)".into(),
            scope: None,
        }
        .into());
    }
    let timeout = Settings::from_env().connect_timeout;
    let checkups: Vec<Checkup> = crate::runtime::block_on(async {
        let mut checkups = Vec::new();
        for name in &names {
            checkups.push(mcp_manager_doctor::examine(locations, name, timeout).await?);
        }
        Ok::<_, ApiError>(checkups)
    })?;
    if json {
        match server {
            Some(_) => crate::print_json(&checkups[0]),
            None => crate::print_json(&checkups),
        }
    } else {
        for (i, checkup) in checkups.iter().enumerate() {
            if i > 0 {
                out!();
            }
            print_checkup(checkup);
        }
    }
    Ok(checkups.iter().all(|c| c.healthy))
}

fn print_checkup(checkup: &Checkup) {
    out!("{} ({})", checkup.server, checkup.transport);
    for check in &checkup.checks {
        let mark = match check.verdict {
            Verdict::Passed => "ok  ",
            Verdict::Warning => "warn",
            Verdict::Failed => "FAIL",
        };
        out!("  {mark} {}", check.title);
        for fact in &check.evidence {
            out!("         {fact}");
        }
        if let Some(next) = &check.next {
            out!("       → {next}");
        }
    }
    if checkup.healthy {
        out!("  {} is healthy.", checkup.server);
    }
}

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
