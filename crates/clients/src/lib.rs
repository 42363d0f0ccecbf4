//! What an AI client makes of a server's tools before its model sees them.
//!
//! A server lists tools; a client renames them, cuts their descriptions, rewrites or refuses
//! their schemas, drops some and defers others behind a search tool. This crate computes
//! that view from the server's `tools/list` result alone, with no connection and no window,
//! so that the CLI (`mcpctl compat`), the app and the tests share one answer.
//!
//! - [`claude_code`]: Claude Code 2.1.332, read from its program and judged against the
//!   request it sends a stand-in model API (`crates/clients/tests/judge.rs`).
//! - [`cost`]: what that view costs in Claude's context, estimated offline with a measured
//!   error or counted exactly through the model API with the person's key.
//! - [`view`]: the shape every client's view takes ([`ClientView`], [`Finding`]), and
//!   [`all`] / [`view_of`] over a whole project.
//! - [`vscode`], [`codex`], [`gemini`], [`zed`]: read from each client's source, at the
//!   commit each module names; [`cursor`], [`windsurf`]: closed source, from their documents.

pub mod claude_code;
pub mod codex;
pub mod cost;
pub mod cursor;
pub mod gemini;
pub mod meta_schema;
pub mod view;
pub mod vscode;
pub mod windsurf;
pub mod zed;

pub use view::{all, view_of, Client, ClientTool, ClientView, Effect, Finding, Listed};
