//! `mcpctl verify`, `mcpctl pin` and `mcpctl accept`: each running server against the tool
//! definitions pinned when it was approved, with the same checks the window makes
//! (`LiveProject::check_pin`). Exit 1 on drift, so a script or a hook can stop there.

use crate::failure;
use mcp_manager_connect::project::pins::PinCheck;
use mcp_manager_connect::project::LiveProject;
use mcp_manager_connect::ServerStatus;
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::permissions::SettingsFile;
use mcp_manager_core::{ApiError, Locations};
use mcp_manager_guard::pins::DriftKind;

/// The three verbs.
pub enum Verb {
    Verify { quarantine: Option<SettingsFile> },
    Pin,
    Accept { tool: Option<String> },
}

/// Runs `verb` on `server`, or on every server that starts. `Ok(false)` (exit 1) when a
/// server drifted from its pin or could not be checked.
pub fn run(
    locations: &Locations,
    server: Option<&str>,
    verb: Verb,
    json: bool,
) -> Result<bool, ApiError> {
    let catalog = Catalog::load(locations);
    let names: Vec<String> = match server {
        Some(name) => {
            let entry = catalog.require(name)?;
            if !entry.will_start() {
                return Err(failure(format!(
                    "\"{name}\" does not start here (not approved, disabled or waiting for trust): see `mcpctl get {name}`"
                )));
            }
            vec![name.to_string()]
        }
        None => catalog
            .entries
            .iter()
            .filter(|e| e.will_start())
            .map(|e| e.name.clone())
            .collect(),
    };
    crate::runtime::block_on(async {
        let project = LiveProject::open(locations.clone(), crate::runtime::settings());
        project
            .supervisor()
            .start_selected(&catalog, Some(&names))
            .await;
        let mut checks: Vec<Result<PinCheck, (String, String)>> = Vec::new();
        for name in &names {
            let outcome = match &verb {
                Verb::Verify { quarantine } => project.check_pin(name, *quarantine).await,
                Verb::Pin => project.pin_now(name).await,
                Verb::Accept { tool } => project.accept_change(name, tool.as_deref()).await,
            };
            checks.push(outcome.map_err(|err| {
                let status = project
                    .supervisor()
                    .statuses()
                    .into_iter()
                    .find(|s| &s.server == name)
                    .map(|s| match s.status {
                        ServerStatus::Failed { error } => format!("failed: {error}"),
                        ServerStatus::NeedsAuth => {
                            format!("needs authentication: run `mcpctl login {name}`")
                        }
                        ServerStatus::Connected(_) => err.message.clone(),
                        other => other.label().to_string(),
                    })
                    .unwrap_or(err.message);
                (name.clone(), status)
            }));
        }
        project.shutdown().await;
        let clean = checks
            .iter()
            .all(|c| c.as_ref().is_ok_and(|c| c.drift.is_empty()));
        if json {
            let value: Vec<serde_json::Value> = checks
                .iter()
                .map(|c| match c {
                    Ok(check) => serde_json::to_value(check).unwrap_or_default(),
                    Err((server, error)) => serde_json::json!({ "server": server, "error": error }),
                })
                .collect();
            crate::print_json(&serde_json::json!({ "servers": value, "drift": !clean }));
        } else {
            for check in &checks {
                print(check);
            }
        }
        Ok(clean)
    })
}

fn print(check: &Result<PinCheck, (String, String)>) {
    let check = match check {
        Ok(check) => check,
        Err((server, error)) => {
            shown!("{server}: could not be checked: {error}");
            return;
        }
    };
    let server = &check.server;
    if check.pinned_now {
        shown!("{server}: pinned now ({} tools)", check.tools);
    } else if check.drift.is_empty() {
        shown!("{server}: serves what was pinned");
    } else {
        shown!("{server}: {} change(s) since it was pinned; `mcpctl accept {server} [TOOL]` accepts them", check.drift.len());
    }
    for drift in &check.drift {
        let what = drift
            .tool
            .as_deref()
            .map_or("the server's instructions".to_string(), |t| {
                format!("tool {t}")
            });
        let how = match drift.how {
            DriftKind::Added => "new",
            DriftKind::Removed => "removed",
            DriftKind::Changed => "changed",
        };
        shown!("  {how}: {what}");
        for line in drift.lines.iter().filter(|l| l.sign != " ") {
            shown!("    {} {}", line.sign, line.text);
        }
    }
    for entry in &check.denied {
        shown!("  denied in Claude Code until accepted: {entry}");
    }
    for finding in &check.findings {
        let level = match finding.level {
            mcp_manager_guard::lint::LintLevel::Warning => "warning",
            mcp_manager_guard::lint::LintLevel::Note => "note",
        };
        let rule = finding.rule.info().id;
        let tool = finding.tool.as_deref().unwrap_or("(instructions)");
        shown!(
            "  {level} [{rule}] {tool} {} {}..{}: {}: …{}»{}«{}…",
            finding.field,
            finding.start,
            finding.end,
            finding.message,
            finding.before,
            finding.matched,
            finding.after
        );
    }
}
