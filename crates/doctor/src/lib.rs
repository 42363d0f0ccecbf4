//! The doctor: why a server does not work, found by trying each thing it needs in order.
//!
//! It builds on the connection engine (`mcp_manager_connect`) and on the logins
//! (`mcp_manager_oauth`), and nothing builds on it but the app and `mcpctl`: the engine never
//! needs to know why a server fails beyond its own status.
//!
//! A failed connection says what broke last ("Transport closed", "connection refused"). A
//! person fixing it needs the first thing that is wrong, the evidence, and what to do. So the
//! doctor walks the server's path from the entry to a working session, one [`Check`] per step,
//! and stops at the first that fails: a stdio server from its `${VAR}`s, its command on
//! `PATH` and its folder to the process, its `initialize` answer and a clean stdout
//! ([`local`]); a remote one from its URL through DNS, TCP and TLS to the answer or the
//! login challenge and every OAuth document a login needs ([`remote`]); then, for both, the
//! protocol version, capabilities, tools and the first tool schema that does not compile
//! ([`session`]).
//!
//! The stdio path speaks JSON-RPC to the process itself rather than through rmcp: what rmcp
//! skips or hides (lines on stdout that are not JSON-RPC, the exit status of a process that
//! dies before answering) is the evidence. The remote path uses raw requests up to the
//! session, then the product's own [`Connection`](mcp_manager_connect::Connection) with the stored token,
//! so a server that passes the doctor connects in the app.

pub mod local;
pub mod remote;
pub mod session;

use std::time::Duration;

use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::entry::Transport;
use mcp_manager_core::{ApiError, Locations};
use serde::Serialize;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Passed,
    /// Works, but something is off (said in `next`).
    Warning,
    /// The server cannot work until this is fixed; the checkup stops here.
    Failed,
}

/// One step of a checkup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// A stable name: `variables`, `command`, `folder`, `start`, `initialize`, `stdout`, `url`,
    /// `dns`, `tcp`, `tls`, `challenge`, `resource-metadata`, `server-metadata`,
    /// `registration`, `token`, `protocol`, `capabilities`, `tools`, `schemas`.
    pub id: String,
    pub title: String,
    pub verdict: Verdict,
    /// What was seen, one fact per line.
    pub evidence: Vec<String>,
    /// For a warning or a failure: what to do, in one sentence.
    pub next: Option<String>,
}

impl Check {
    pub(crate) fn passed(id: &str, title: &str, evidence: Vec<String>) -> Check {
        Check {
            id: id.into(),
            title: title.into(),
            verdict: Verdict::Passed,
            evidence,
            next: None,
        }
    }

    pub(crate) fn failed(id: &str, title: &str, evidence: Vec<String>, next: String) -> Check {
        Check {
            id: id.into(),
            title: title.into(),
            verdict: Verdict::Failed,
            evidence,
            next: Some(next),
        }
    }

    pub(crate) fn warning(id: &str, title: &str, evidence: Vec<String>, next: String) -> Check {
        Check {
            id: id.into(),
            title: title.into(),
            verdict: Verdict::Warning,
            evidence,
            next: Some(next),
        }
    }
}

/// A server's checkup: the checks run, in order, up to the first failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Checkup {
    pub server: String,
    /// `stdio`, `http`, `sse` or `ws`.
    pub transport: String,
    pub checks: Vec<Check>,
    /// No check failed.
    pub healthy: bool,
}

/// The checks so far; [`Checks::push`] says whether to go on.
#[derive(Default)]
pub(crate) struct Checks(pub(crate) Vec<Check>);

impl Checks {
    /// Adds `check`; false when it failed (the checkup ends).
    pub(crate) fn push(&mut self, check: Check) -> bool {
        let going = check.verdict != Verdict::Failed;
        self.0.push(check);
        going
    }
}

/// Examines server `name` of an open project, with the connection timeout its sessions use.
pub async fn examine_in(
    project: &mcp_manager_connect::project::LiveProject,
    name: &str,
) -> Result<Checkup, ApiError> {
    let timeout = mcp_manager_connect::Settings::from_env().connect_timeout;
    examine(project.locations(), name, timeout).await
}

/// Examines server `name` of `locations`' project, waiting `timeout` at most for each answer.
pub async fn examine(
    locations: &Locations,
    name: &str,
    timeout: Duration,
) -> Result<Checkup, ApiError> {
    let catalog = Catalog::load(locations);
    let entry = catalog.require(name)?;
    let mut checks = Checks::default();
    let transport = match &entry.config.transport {
        Transport::Stdio { .. } => "stdio".to_string(),
        Transport::Remote { kind, .. } => kind.as_str().to_string(),
    };
    // The doctor runs the command and sends the URL and headers, as starting would: a server
    // that may not start (a project server nobody approved, above all) is not examined.
    if let Some(why) = entry.why_not_started() {
        checks.push(Check::failed(
            "allowed",
            "Allowed to start",
            vec![why],
            "Nothing was run or contacted. Approve the server (after trusting the folder, for a project server), then run the doctor again.".into(),
        ));
        return Ok(Checkup {
            server: name.to_string(),
            transport,
            checks: checks.0,
            healthy: false,
        });
    }
    let (expanded, missing) = entry.expanded();
    let variables = if missing.is_empty() {
        Check::passed(
            "variables",
            "${VAR}s are set",
            vec!["every ${VAR} has a value".into()],
        )
    } else {
        let names: Vec<String> = missing.iter().map(|m| m.variable.clone()).collect();
        Check::failed(
            "variables",
            "${VAR}s are set",
            missing.iter().map(ToString::to_string).collect(),
            format!(
                "Set {} in the environment MCP Manager is started from, or give a default with ${{VAR:-value}}.",
                names.join(", ")
            ),
        )
    };
    if checks.push(variables) {
        match &expanded.transport {
            Transport::Stdio { .. } => {
                local::examine(&mut checks, &expanded, &locations.project, timeout).await
            }
            Transport::Remote { .. } => {
                remote::examine(
                    &mut checks,
                    name,
                    &entry.config,
                    &expanded,
                    locations,
                    timeout,
                )
                .await
            }
        }
    }
    let healthy = checks.0.iter().all(|c| c.verdict != Verdict::Failed);
    // The evidence quotes command lines, URLs and errors: never with a secret in them.
    let secrets = entry.secret_values();
    let conceal = |text: &str| mcp_manager_core::secrets::conceal_values(text, &secrets);
    let checks = checks
        .0
        .into_iter()
        .map(|mut check| {
            check.evidence = check.evidence.iter().map(|e| conceal(e)).collect();
            check.next = check.next.as_deref().map(conceal);
            check
        })
        .collect();
    Ok(Checkup {
        server: name.to_string(),
        transport,
        checks,
        healthy,
    })
}
