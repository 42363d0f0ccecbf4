//! MCP Manager's connection engine: one supervised `rmcp` client per configured server.
//!
//! - [`answer`] and [`asks`]: requests a server makes of us (elicitation, sampling); the
//!   window's [`asks::Asks`] holds them until the person answers.
//! - [`status`]: the public, serializable status of a server, and the event sent on every
//!   change of it.
//! - [`supervisor`]: owns every server's state machine; [`supervisor::Supervisor::start`]
//!   connects what the configuration says should run, in two pools (local processes, remote
//!   servers), and every transition goes through one function that stores the new state and
//!   emits exactly one event.
//! - [`connection`]: a live session with one server — discovery, tool calls, shutdown.
//! - [`era`]: which protocol era a server speaks (`initialize` or 2026-07-28), negotiated per
//!   server and remembered.
//! - [`login`]: logging in to a server through the person's browser, for both doors.
//! - [`project`]: one project's configuration with its supervisor, as the app hosts it and
//!   `mcpctl` builds it for one command.
//! - [`param_headers`]: tools left out for their `x-mcp-header` annotations, and why.
//! - [`protocol_log`]: every JSON-RPC message of a session, in a bounded ring per server.
//! - [`stderr`]: the bounded tail of a stdio server's stderr.
//! - [`sanitize`]: control and format characters stripped from what servers describe.
//! - [`words`]: a failure to open a server, said as what happened at which URL and what to try.
//!
//! Logins and their tokens are `mcp_manager_oauth`'s, which this crate builds on; the doctor
//! (`mcp_manager_doctor`) builds on both. This crate never links Tauri: the app forwards its
//! events, `mcpctl` prints them.

pub mod answer;
pub mod asks;
pub mod connection;
pub mod era;
mod handler;
pub mod headers;
pub mod http_client;
pub mod keeper;
pub mod login;
pub mod needs_auth;
pub mod param_headers;
pub mod project;
pub mod protocol_log;
pub mod sanitize;
pub mod sse;
pub mod status;
pub mod stderr;
pub mod stdio;
pub mod supervisor;
pub mod words;
pub mod ws;

pub use connection::skills;
pub use connection::{CallOutcome, ConnectError, Connection, Limits, ServerLogs, ToolSummary};
pub use handler::Roots;
pub use status::{
    ConnectedInfo, ListChanged, ListCounts, ListKind, Progress, ServerStatus, StatusEvent,
};
pub use supervisor::{Reconciled, Settings, Supervisor};
