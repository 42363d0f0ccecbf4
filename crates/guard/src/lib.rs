//! What was approved stays what runs.
//!
//! Approving a server approves a command line or a URL; what the model then reads is the
//! server's tool list, which the server can change at any time (the "rug pull" and "tool
//! poisoning" of the OWASP MCP Top 10). This crate keeps what was approved and says what
//! changed:
//! - [`pins`]: each tool's definition pinned at approval (RFC 8785 JSON and its SHA-256, in
//!   the app's private data) and the drift of what is served now, as a diff;
//! - [`quarantine`]: a changed tool kept from Claude Code by a `deny` rule we record, so that
//!   accepting removes exactly it;
//! - [`lint`]: what the model will read, checked for hidden text, instructions to the model,
//!   references to other servers' tools, data sent out, shadowing names and encoded blobs.
//!
//! It knows files and JSON, not connections: `mcp_manager_connect` hands it listings.

pub mod canonical;
pub mod lint;
pub mod pins;
pub mod quarantine;
pub mod visible;
