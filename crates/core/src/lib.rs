//! MCP Manager's core: everything the app and `mcpctl` share, with no dependency on Tauri.
//!
//! The app (`src-tauri/`) and the command-line tool (`crates/mcpctl`) are two thin doors onto
//! the operations in [`api`]: each takes a [`Locations`] (where the files are) and returns plain,
//! serializable data or an [`ApiError`] `{ code, message }`. Keeping Tauri out of this crate
//! keeps its tests quick to build and lets one handler run in the window, on the command line
//! and in a test with a temporary home folder. CI checks that no crate under `crates/` depends
//! on `tauri`.

pub mod api;
pub mod autostart;
pub mod config;
pub mod error;
pub mod files;
pub mod locations;
pub mod net;
pub mod private;
pub mod scope;
pub mod secrets;

pub use api::{list_servers, ConfigProblem, ServerList, ServerSummary};
pub use config::approval::Approval;
pub use config::{ServerConfig, Transport, TransportKind};
pub use error::{ApiError, ConfigError, ErrorCode};
pub use locations::Locations;
pub use scope::Scope;
