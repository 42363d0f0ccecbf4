//! Collections: calls tried by hand, kept as test cases and run again.
//!
//! Why a crate of its own: a collection is a file format ([`model`]), a set of checks
//! ([`check`]), a runner over a live project ([`run`]) and reports ([`junit`]); the window
//! and `mcpctl test` use the same ones, and nothing here needs Tauri. It depends on
//! `connect` (to run cases) and `history` (to scrub secrets the same way); neither depends on
//! it.

pub mod check;
pub mod diff;
pub mod junit;
pub mod model;
pub mod run;
pub mod store;
pub mod surface;

pub use check::{Failure, Observed};
pub use model::{Case, Collection, Expect, Outcome, ValueCheck, PRIVATE_FOLDER, PROJECT_FOLDER};
pub use run::{
    case_from_call, fresh_name, may_run, run_collection, CaseReport, CaseStatus, RunOptions,
};
pub use store::{AddedCase, CollectionView, Shelf};

/// What can go wrong with a collection file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CollectionError {
    #[error("{path} could not be read ({reason})")]
    Unreadable { path: String, reason: String },
    #[error("{path} is not a valid collection (line {line}, column {column}): {reason}; it was left as it is")]
    Syntax {
        path: String,
        line: usize,
        column: usize,
        reason: String,
    },
    #[error("{path} could not be written ({reason}); it is unchanged")]
    Unwritable { path: String, reason: String },
    #[error("{0}")]
    Invalid(String),
}

impl From<CollectionError> for mcp_manager_core::ApiError {
    fn from(err: CollectionError) -> Self {
        mcp_manager_core::ApiError {
            code: match err {
                CollectionError::Syntax { .. } => mcp_manager_core::ErrorCode::ConfigSyntax,
                _ => mcp_manager_core::ErrorCode::InvalidRequest,
            },
            message: err.to_string(),
        }
    }
}
