//! `mcpctl usage`: which MCP servers and tools Claude Code's sessions really called, how the
//! calls ended, and how its connections went, from Claude Code's own records (read, never
//! written), indexed in the app's data folder beside the history.

use mcp_manager_core::{ApiError, Locations};
use mcp_manager_usage::{day_and_time, Counts, Index, Query, Sources, UsageReport, FILE_NAME};

use crate::failure;

/// Indexes what is new in the records, then reports on the last `days` days, for this
/// project or for `all` of them.
pub fn run(locations: &Locations, days: u32, all: bool, json: bool) -> Result<bool, ApiError> {
    crate::runtime::block_on(async {
        let index = Index::open(&locations.app_data_dir().join(FILE_NAME))
            .await
            .map_err(|err| failure(err.to_string()))?;
        let pass = index
            .update(&Sources::of(locations))
            .await
            .map_err(|err| failure(err.to_string()))?;
        let query = Query {
            project: (!all).then(|| locations.project.display().to_string()),
            days,
            now_ms: mcp_manager_usage::now_ms(),
        };
        let report = index
            .report(
                &query,
                &mcp_manager_usage::configured_with_agents(locations),
            )
            .await
            .map_err(|err| failure(err.to_string()))?;
        index.close().await;
        if json {
            crate::print_json(&report);
        } else {
            print_text(&on_one_line(report), pass.skipped_files);
        }
        Ok(true)
    })
}

/// The report with every name on one line ([`crate::one_line`]).
fn on_one_line(mut report: UsageReport) -> UsageReport {
    let clean = |v: &mut String| *v = crate::one_line(v);
    for server in &mut report.servers {
        clean(&mut server.server);
        server.shares_prefix_with.iter_mut().for_each(clean);
        for tool in &mut server.tools {
            clean(&mut tool.tool);
        }
        if let Some(c) = &mut server.connections {
            c.skipped_tools.iter_mut().for_each(clean);
            if let Some(words) = &mut c.last_failure {
                clean(words);
            }
        }
    }
    report.never_used.iter_mut().for_each(clean);
    report
}

fn counts(c: &Counts) -> String {
    let mut text = format!("{}", c.calls);
    let mut also = Vec::new();
    if c.failures > 0 {
        also.push(format!("{} failed", c.failures));
    }
    if c.denied > 0 {
        also.push(format!("{} denied", c.denied));
    }
    if c.not_sent > 0 {
        also.push(format!("{} not sent", c.not_sent));
    }
    if !also.is_empty() {
        text += &format!(" ({})", also.join(", "));
    }
    text
}

fn print_text(report: &UsageReport, skipped_files: u32) {
    let place = report
        .project
        .as_deref()
        .map_or("all folders".to_string(), |p| p.to_string());
    out!(
        "Claude Code's MCP calls in {place}, last {} days: {} session(s)",
        report.days,
        report.sessions
    );
    out!(
        "{:<28} {:>22} {:>26} {:>9}  {}",
        "server / tool",
        "calls, 7 days",
        format!("calls, {} days", report.days),
        "median",
        "last used (UTC)"
    );
    for server in &report.servers {
        if server.month.calls == 0 {
            continue;
        }
        let mut name = server.server.clone();
        if !server.configured {
            name += " (not configured here)";
        }
        shown!(
            "{:<28} {:>22} {:>26} {:>9}  {}",
            name,
            counts(&server.week),
            counts(&server.month),
            server
                .median_ms
                .map_or("-".to_string(), |m| format!("{m} ms")),
            server
                .last_used_ms
                .map_or("-".to_string(), |t| day_and_time(t as i64))
        );
        for tool in &server.tools {
            shown!(
                "  {:<26} {:>22} {:>26} {:>9}  {}",
                tool.tool,
                counts(&tool.week),
                counts(&tool.month),
                tool.median_ms
                    .map_or("-".to_string(), |m| format!("{m} ms")),
                tool.last_used_ms
                    .map_or("-".to_string(), |t| day_and_time(t as i64))
            );
        }
        if !server.shares_prefix_with.is_empty() {
            shown!(
                "  (its tools are named like those of {}: their calls cannot be told apart)",
                server.shares_prefix_with.join(", ")
            );
        }
    }
    if !report.never_used.is_empty() {
        shown!(
            "Never called in {} days: {}",
            report.days,
            report.never_used.join(", ")
        );
    }
    for server in &report.servers {
        let Some(conn) = &server.connections else {
            continue;
        };
        if conn.failed > 0 {
            shown!(
                "Claude Code could not connect to {} in {} of its last {} session(s){}",
                server.server,
                conn.failed,
                conn.sessions,
                conn.last_failure
                    .as_deref()
                    .map(|w| format!(": {w}"))
                    .unwrap_or_default()
            );
        }
        if !conn.skipped_tools.is_empty() {
            shown!(
                "Claude Code skipped tools of {} at its last connection: {}",
                server.server,
                conn.skipped_tools.join(", ")
            );
        }
    }
    if report.skipped_lines > 0 || skipped_files > 0 {
        out!(
            "{} line(s) and {} file(s) of Claude Code's records could not be read and were passed over",
            report.skipped_lines,
            skipped_files
        );
    }
}
