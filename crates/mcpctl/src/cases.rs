//! `mcpctl test`: runs collections of cases (crates/collections) against the project's
//! servers, started through the same supervisor as the app, only those the cases need.

use crate::failure;
use std::path::{Path, PathBuf};

use mcp_manager_collections::{
    junit, model, run_collection, CaseReport, CaseStatus, Collection, RunOptions,
};
use mcp_manager_connect::project::LiveProject;
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::{ApiError, Locations};

/// The collection files named, or every one of the project's folder.
fn files(locations: &Locations, names: &[String]) -> Result<Vec<PathBuf>, ApiError> {
    if !names.is_empty() {
        return Ok(names
            .iter()
            .map(|n| model::locate(&locations.project, n))
            .collect());
    }
    let folder = locations.project.join(model::PROJECT_FOLDER);
    let found = model::list(&folder);
    if found.is_empty() {
        return Err(failure(format!(
            "no collections in {}: keep a call with `mcpctl call SERVER TOOL --args JSON --save-to NAME`",
            folder.display()
        )));
    }
    Ok(found)
}

pub fn test(
    locations: &Locations,
    names: &[String],
    only: Option<&str>,
    junit_file: Option<&Path>,
    update_snapshots: bool,
    json: bool,
) -> Result<bool, ApiError> {
    let trusted = mcp_manager_core::config::trust::is_trusted(locations);
    let mut loaded = Vec::new();
    for path in files(locations, names)? {
        mcp_manager_collections::may_run(&path, &locations.project, trusted)?;
        let collection = Collection::load(&path, &locations.project)?;
        loaded.push((path, collection));
    }
    if let Some(only) = only {
        if !loaded
            .iter()
            .any(|(_, c)| c.cases.iter().any(|case| case.name == only))
        {
            return Err(failure(format!("no case is named \"{only}\"")));
        }
    }
    let mut servers: Vec<String> = loaded
        .iter()
        .flat_map(|(_, c)| c.cases.iter())
        .filter(|case| only.is_none_or(|only| only == case.name))
        .map(|case| case.server.clone())
        .collect();
    servers.sort();
    servers.dedup();
    let catalog = Catalog::load(locations);
    let started = std::time::Instant::now();
    let reports = crate::runtime::block_on(async {
        let project = LiveProject::open(locations.clone(), crate::runtime::settings());
        if !json {
            eout!("starting {}…", servers.join(", "));
        }
        project
            .supervisor()
            .start_selected(&catalog, Some(&servers))
            .await;
        let mut reports = Vec::new();
        let env = |name: &str| std::env::var(name).ok();
        let options = RunOptions { update_snapshots };
        for (path, collection) in loaded.iter_mut() {
            match run_collection(&project, path, collection, only, options, &env).await {
                Ok(done) => {
                    if !json {
                        done.iter().for_each(print_case);
                    }
                    reports.extend(done);
                }
                Err(err) => {
                    project.shutdown().await;
                    return Err(ApiError::from(err));
                }
            }
        }
        project.shutdown().await;
        Ok(reports)
    })?;
    let count = |status| reports.iter().filter(|r| r.status == status).count();
    let (passed, failed, not_run) = (
        count(CaseStatus::Passed),
        count(CaseStatus::Failed),
        count(CaseStatus::NotRun),
    );
    if let Some(file) = junit_file {
        use mcp_manager_core::files;
        let how = files::Write::new(files::Mode::SharedOrKept);
        files::write(file, junit::report(&reports).as_bytes(), &how)
            .map_err(|err| failure(format!("the report was not written: {err}")))?;
    }
    if json {
        crate::print_json(&serde_json::json!({
            "cases": reports,
            "passed": passed,
            "failed": failed,
            "notRun": not_run,
        }));
    } else {
        let updated = reports.iter().filter(|r| r.snapshot_updated).count();
        out!(
            "{passed} passed, {failed} failed, {not_run} not run{} ({} ms)",
            if updated > 0 {
                format!(", {updated} snapshots updated")
            } else {
                String::new()
            },
            started.elapsed().as_millis()
        );
    }
    Ok(failed == 0 && not_run == 0 && !reports.is_empty())
}

fn print_case(report: &CaseReport) {
    let title = format!(
        "{} › {} ({}, {})",
        report.collection, report.case, report.server, report.action
    );
    match report.status {
        CaseStatus::Passed if report.snapshot_updated => {
            out!("✔ {title} {} ms, snapshot updated", report.elapsed_ms)
        }
        CaseStatus::Passed => out!("✔ {title} {} ms", report.elapsed_ms),
        CaseStatus::NotRun => out!(
            "- {title} not run: {}",
            report.problem.as_deref().unwrap_or("")
        ),
        CaseStatus::Failed => {
            out!("✘ {title} {} ms", report.elapsed_ms);
            for failure in &report.failures {
                out!("    {}: expected {}", failure.check, failure.expected);
                out!(
                    "    {}  got {}",
                    " ".repeat(failure.check.chars().count()),
                    one_line(&failure.actual)
                );
                if let Some(diff) = &failure.diff {
                    for line in diff.lines() {
                        out!("      {line}");
                    }
                }
            }
        }
    }
}

/// A value on one line, cut at 200 characters.
fn one_line(text: &str) -> String {
    let flat = text.replace('\n', " ⏎ ");
    if flat.chars().count() > 200 {
        format!("{}…", flat.chars().take(200).collect::<String>())
    } else {
        flat
    }
}
