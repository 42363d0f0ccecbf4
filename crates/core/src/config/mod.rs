//! The config engine: Claude Code's MCP configuration, read and written as Claude Code does.
//!
//! - [`entry`]: one server entry, parsed under Claude Code's rules and written in the key order
//!   `claude mcp add` writes.
//! - [`document`]: a JSON file kept as a `serde_json::Value` with key order preserved, written
//!   back atomically under Claude Code's lock (`<file>.lock`) as a read-modify-write of the
//!   latest bytes on disk, so nothing another program wrote meanwhile is lost.
//! - [`draft`]: a server entry as the window's form holds it, checked as typed, previewed as
//!   a diff and saved through [`document`].
//! - [`expand`]: `${VAR}` and `${VAR:-default}` expansion with warnings for unset variables.
//! - [`names`]: server-name rules, normalisation and `mcp__server__tool` names.
//! - [`approval`]: approval of project (`.mcp.json`) servers through Claude Code's settings.
//! - [`review`]: a project server's whole entry and its risks, shown before approving it.
//! - [`trust`]: workspace trust, without which a project's own approvals do not count.
//! - [`folder`]: what trusting a folder would let run or count, shown before the person
//!   decides.
//! - [`policy`]: enterprise policy: allow and deny lists, `managedMcpServers`, plugin-only.
//! - [`plugins`]: Claude Code plugins and the servers they declare.
//! - [`marketplace_names`]: which marketplaces may call themselves Anthropic's.
//! - [`permissions`]: Allow / Ask / Deny rules for MCP tools in Claude Code's settings files.
//! - [`catalog`]: every scope resolved into one view with precedence, shadowing, approval,
//!   enablement and a content hash per entry.
//! - [`watch`]: notices changes on disk and reports which servers really changed.
//! - [`interop`]: import from and export to other MCP clients' files.

pub mod agent_moves;
pub mod agents;
pub mod approval;
pub mod catalog;
pub mod document;
pub mod draft;
pub mod entry;
pub mod expand;
pub mod folder;
pub mod interop;
pub mod marketplace_names;

mod lock;
pub mod names;
pub mod permissions;
pub mod plugins;
pub mod policy;
pub mod profiles;
pub mod review;
pub mod settings_env;
pub mod skills;
pub mod snippet;
pub mod trust;
pub mod watch;

pub use entry::*;
