//! Collections in the window: one-line doors onto crates/collections, run against the open
//! project's live servers.

use mcp_manager_collections::{
    run_collection, AddedCase, Case, CaseReport, Collection, CollectionView, RunOptions, Shelf,
};
use mcp_manager_core::ApiError;
use serde_json::Value;

use crate::Context;

impl Context {
    /// The history of the open project, or why there is none.
    fn open_history(&self) -> Result<mcp_manager_history::History, ApiError> {
        self.project().history().ok_or_else(|| ApiError {
            code: mcp_manager_core::ErrorCode::InvalidRequest,
            message: "the history is not open".into(),
        })
    }

    fn shelf(&self) -> Shelf {
        let project = self.project();
        let locations = project.locations();
        let trusted = mcp_manager_core::config::trust::is_trusted(locations);
        Shelf::new(&locations.project, &locations.app_data_dir(), trusted)
    }

    pub fn collections(&self) -> Vec<CollectionView> {
        self.shelf().all()
    }

    #[allow(clippy::too_many_arguments)]
    pub async fn add_to_collection(
        &self,
        collection: &str,
        shared: bool,
        case_name: Option<&str>,
        server: &str,
        tool: &str,
        arguments: &str,
        result: Option<&str>,
        failure: Option<&str>,
    ) -> Result<AddedCase, ApiError> {
        let arguments: serde_json::Map<String, Value> =
            serde_json::from_str(arguments).map_err(|err| {
                mcp_manager_collections::CollectionError::Invalid(format!(
                    "the arguments are not a JSON object: {err}"
                ))
            })?;
        // The tool's schema says which arguments are secret (a server that is gone: by name).
        let schema = match self.project().tools(server).await {
            Ok(tools) => tools
                .into_iter()
                .find(|t| t.name == tool)
                .and_then(|t| serde_json::from_str(&t.input_schema).ok())
                .unwrap_or(Value::Null),
            Err(_) => Value::Null,
        };
        let parsed: Option<Value> = result.and_then(|r| serde_json::from_str(r).ok());
        let outcome = match (&parsed, failure) {
            (Some(result), _) => Ok(result),
            (None, failure) => Err(failure.unwrap_or("the call failed")),
        };
        let mut added = self.shelf().add_call(
            collection, shared, case_name, server, tool, &arguments, &schema, outcome,
        )?;
        added.runs_after_trust =
            mcp_manager_collections::store::runs_after_trust(self.project().locations(), server);
        Ok(added)
    }

    /// Keeps call `id` of the history as a case (its secret arguments, stored as
    /// "[not stored]", become `${VAR}`s).
    pub async fn add_history_call_to_collection(
        &self,
        id: u32,
        collection: &str,
        shared: bool,
        case_name: Option<&str>,
    ) -> Result<AddedCase, ApiError> {
        let history = self.open_history()?;
        let call = history
            .get(id)
            .await
            .map_err(|err| mcp_manager_collections::CollectionError::Invalid(err.to_string()))?
            .ok_or_else(|| {
                mcp_manager_collections::CollectionError::Invalid(format!(
                    "no call {id} in the history"
                ))
            })?;
        self.add_to_collection(
            collection,
            shared,
            case_name.or(call.name.as_deref()),
            &call.server,
            &call.tool,
            &call.arguments,
            call.result.as_deref(),
            call.error.as_deref(),
        )
        .await
    }

    /// Runs one case, one collection, or every collection, in order.
    pub async fn run_collections(
        &self,
        path: Option<&str>,
        case: Option<&str>,
    ) -> Result<Vec<CaseReport>, ApiError> {
        let shelf = self.shelf();
        let paths: Vec<std::path::PathBuf> = match path {
            Some(path) => vec![shelf.held(path)?],
            None => shelf
                .all()
                .into_iter()
                .filter(|c| c.problem.is_none())
                .map(|c| c.path.into())
                .collect(),
        };
        let project = self.project();
        let trusted = mcp_manager_core::config::trust::is_trusted(project.locations());
        for path in &paths {
            mcp_manager_collections::may_run(path, &project.locations().project, trusted)?;
        }
        let env = |name: &str| std::env::var(name).ok();
        let mut reports = Vec::new();
        for path in paths {
            let mut collection = Collection::load(&path, &project.locations().project)?;
            reports.extend(
                run_collection(
                    &project,
                    &path,
                    &mut collection,
                    case,
                    RunOptions::default(),
                    &env,
                )
                .await?,
            );
        }
        Ok(reports)
    }

    pub fn update_case(&self, path: &str, name: &str, case: Case) -> Result<(), ApiError> {
        Ok(self.shelf().update(path, name, case)?)
    }

    pub fn accept_snapshot(&self, path: &str, name: &str, result: &str) -> Result<(), ApiError> {
        Ok(self.shelf().accept(path, name, result)?)
    }

    pub fn remove_case(&self, path: &str, name: &str) -> Result<(), ApiError> {
        Ok(self.shelf().remove(path, name)?)
    }
}

impl Context {
    /// Removes the history's unnamed calls.
    pub async fn clear_history(&self) -> Result<mcp_manager_history::Cleared, ApiError> {
        let history = self.open_history()?;
        history.clear(None).await.map_err(|err| ApiError {
            code: mcp_manager_core::ErrorCode::InvalidRequest,
            message: err.to_string(),
        })
    }
}
