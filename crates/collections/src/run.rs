//! Running cases against the servers of a live project, in order, one at a time.
//!
//! A case whose server is not connected, whose `${VAR}` is not set, or that is not valid is
//! not run, and says why; it counts as a failure for `mcpctl test`. A tool case is one
//! `tools/call` through the project (so it is in the protocol log and the history like any
//! call by hand), its `structuredContent` checked against the tool's `outputSchema` as the
//! window does.

use std::collections::HashMap;
use std::path::Path;

use mcp_manager_connect::project::LiveProject;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::check::{check, Failure, Observed};
use crate::model::{Case, Collection, Expect, Outcome};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum CaseStatus {
    Passed,
    Failed,
    /// Not run: its server is not connected, a variable is not set, or the case is invalid.
    NotRun,
}

/// What became of one case.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CaseReport {
    /// The collection's name (its file's stem) and file.
    pub collection: String,
    pub path: String,
    pub case: String,
    pub server: String,
    /// `tool get-sum`, `resource demo://x`, `prompt greet`.
    pub action: String,
    pub status: CaseStatus,
    pub elapsed_ms: u32,
    pub failures: Vec<Failure>,
    /// Why it was not run.
    pub problem: Option<String>,
    /// The result that came (JSON text), to accept as the new snapshot.
    pub result: Option<String>,
    /// The snapshot was replaced by this result (`--update-snapshots`).
    pub snapshot_updated: bool,
}

/// What a run may change.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    /// A case that fails on its snapshot alone takes the new result as its snapshot, and the
    /// file is saved.
    pub update_snapshots: bool,
}

/// Whether the collection at `path` may run. A collection inside a project folder the person
/// has not trusted is the repository's word, not theirs: its `${VAR}`s would send the
/// person's environment (tokens, keys) to whatever tools it names. It runs once the folder is
/// trusted, as the folder's servers start only then.
pub fn may_run(path: &Path, project: &Path, trusted: bool) -> Result<(), crate::CollectionError> {
    crate::model::trusted_or(
        path,
        project,
        trusted,
        "so it is not run: its cases could send your environment variables to servers",
        "",
    )
}

/// Runs `cases` (indices into `collection`, in order) of the collection at `path`.
pub async fn run_collection(
    project: &LiveProject,
    path: &Path,
    collection: &mut Collection,
    only: Option<&str>,
    options: RunOptions,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<Vec<CaseReport>, crate::CollectionError> {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut reports = Vec::new();
    let mut schemas = OutputSchemas::default();
    let mut changed = false;
    for case in collection.cases.iter_mut() {
        if only.is_some_and(|only| only != case.name) {
            continue;
        }
        let mut report = run_case(project, case, env, &mut schemas).await;
        report.collection = name.clone();
        report.path = path.display().to_string();
        if options.update_snapshots
            && report.status == CaseStatus::Failed
            && report.failures.iter().all(|f| f.check == "snapshot")
        {
            if let Some(result) = report
                .result
                .as_deref()
                .and_then(|r| serde_json::from_str(r).ok())
            {
                case.expect.snapshot = Some(result);
                report.status = CaseStatus::Passed;
                report.failures.clear();
                report.snapshot_updated = true;
                changed = true;
            }
        }
        reports.push(report);
    }
    if changed {
        let root = crate::model::write_root(path, &project.locations().project);
        let private = !path.starts_with(&project.locations().project);
        collection.save(path, &root, private)?;
    }
    Ok(reports)
}

/// Whether each tool of a server declares an `outputSchema`, listed once per run.
#[derive(Default)]
struct OutputSchemas(HashMap<String, HashMap<String, bool>>);

impl OutputSchemas {
    async fn declared(&mut self, project: &LiveProject, server: &str, tool: &str) -> bool {
        if !self.0.contains_key(server) {
            let tools = project.tools(server).await.unwrap_or_default();
            self.0.insert(
                server.into(),
                tools
                    .into_iter()
                    .map(|t| (t.name, t.output_schema.is_some()))
                    .collect(),
            );
        }
        self.0[server].get(tool).copied().unwrap_or(false)
    }
}

fn not_run(case: &Case, action: String, problem: String) -> CaseReport {
    CaseReport {
        collection: String::new(),
        path: String::new(),
        case: case.name.clone(),
        server: case.server.clone(),
        action,
        status: CaseStatus::NotRun,
        elapsed_ms: 0,
        failures: Vec::new(),
        problem: Some(problem),
        result: None,
        snapshot_updated: false,
    }
}

async fn run_case(
    project: &LiveProject,
    case: &Case,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    schemas: &mut OutputSchemas,
) -> CaseReport {
    let (kind, target) = match case.action() {
        Ok(action) => action,
        Err(err) => return not_run(case, String::new(), err.to_string()),
    };
    let action = format!("{kind} {target}");
    if project.supervisor().connection(&case.server).is_none() {
        let state = project
            .statuses()
            .into_iter()
            .find(|s| s.server == case.server)
            .map(|s| match s.status {
                mcp_manager_connect::ServerStatus::Failed { error } => format!("failed: {error}"),
                other => other.label().to_string(),
            })
            .unwrap_or_else(|| "not configured in this project".into());
        return not_run(
            case,
            action,
            format!("\"{}\" is not connected ({state})", case.server),
        );
    }
    let arguments = match crate::model::resolve(&case.arguments, env) {
        Ok(arguments) => Value::Object(arguments).to_string(),
        Err(missing) => {
            return not_run(
                case,
                action,
                format!(
                    "set {} in the environment: the arguments use it",
                    missing.join(", ")
                ),
            )
        }
    };
    let started = std::time::Instant::now();
    let observed = match kind {
        "tool" => match project.call_tool(&case.server, target, &arguments).await {
            Ok(call) => {
                let declared = schemas.declared(project, &case.server, target).await;
                Observed {
                    result: serde_json::from_str(&call.result).map_err(|err| err.to_string()),
                    elapsed_ms: call.elapsed_ms,
                    schema_errors: declared.then_some(call.schema_errors),
                }
            }
            Err(err) => Observed {
                result: Err(err.message),
                elapsed_ms: elapsed(started),
                schema_errors: None,
            },
        },
        "resource" => observed(project.read_resource(&case.server, target).await, started),
        _ => observed(
            project.get_prompt(&case.server, target, &arguments).await,
            started,
        ),
    };
    let failures = check(&case.expect, &observed);
    CaseReport {
        collection: String::new(),
        path: String::new(),
        case: case.name.clone(),
        server: case.server.clone(),
        action,
        status: if failures.is_empty() {
            CaseStatus::Passed
        } else {
            CaseStatus::Failed
        },
        elapsed_ms: observed.elapsed_ms,
        failures,
        problem: None,
        result: observed.result.as_ref().ok().map(Value::to_string),
        snapshot_updated: false,
    }
}

fn elapsed(started: std::time::Instant) -> u32 {
    u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX)
}

fn observed(
    answer: Result<String, mcp_manager_core::ApiError>,
    started: std::time::Instant,
) -> Observed {
    Observed {
        result: answer
            .map_err(|err| err.message)
            .and_then(|text| serde_json::from_str(&text).map_err(|err| err.to_string())),
        elapsed_ms: elapsed(started),
        schema_errors: None,
    }
}

/// A case made from a call tried by hand: its outcome, and its result as the snapshot (or,
/// for a call that failed, that it fails). Secret arguments become `${VAR}`s
/// ([`crate::model::protect`]); the variables introduced are returned with it.
pub fn case_from_call(
    name: &str,
    server: &str,
    tool: &str,
    arguments: &Map<String, Value>,
    input_schema: &Value,
    result: Result<&Value, &str>,
) -> (Case, Vec<String>) {
    let (arguments, introduced) = crate::model::protect(arguments, input_schema);
    let expect = match result {
        Ok(result) => Expect {
            outcome: Some(
                if result
                    .get("isError")
                    .and_then(Value::as_bool)
                    .unwrap_or(false)
                {
                    Outcome::ToolError
                } else {
                    Outcome::Ok
                },
            ),
            snapshot: Some(result.clone()),
            ..Expect::default()
        },
        Err(_) => Expect {
            outcome: Some(Outcome::Fails),
            ..Expect::default()
        },
    };
    (
        Case {
            name: name.into(),
            server: server.into(),
            tool: Some(tool.into()),
            resource: None,
            prompt: None,
            arguments,
            expect,
        },
        introduced,
    )
}

/// A name for a new case of `tool` that `collection` does not have yet: `tool`, `tool 2`, …
pub fn fresh_name(collection: &Collection, tool: &str) -> String {
    let taken = |name: &str| collection.cases.iter().any(|c| c.name == name);
    if !taken(tool) {
        return tool.to_string();
    }
    (2..)
        .map(|n| format!("{tool} {n}"))
        .find(|name| !taken(name))
        .expect("a free name")
}
