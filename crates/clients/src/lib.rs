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

pub use view::{Client, ClientTool, ClientView, Effect, Finding, Listed};

use claude_code::Knobs;

/// `client`'s view of the project's tools.
pub fn view_of(client: Client, servers: &[Listed<'_>], knobs: &Knobs) -> ClientView {
    match client {
        Client::ClaudeCode => view::claude_code_view(servers, knobs),
        Client::Vscode => crate::vscode::view(servers),
        Client::Codex => crate::codex::view(servers),
        Client::Gemini => crate::gemini::view(servers),
        Client::Zed => crate::zed::view(servers),
        Client::Cursor => crate::cursor::view(servers),
        Client::Windsurf => crate::windsurf::view(servers),
    }
}

/// Every client's view of the project's tools, Claude Code first. The views are
/// independent, so two threads share them (the costliest first, each taking the next when
/// done): a project of thousands of tools takes about half as long on two cores.
pub fn all(servers: &[Listed<'_>], knobs: &Knobs) -> Vec<ClientView> {
    // Costliest first, as measured by `benches/views.rs`.
    const ORDER: [Client; 7] = [
        Client::ClaudeCode,
        Client::Gemini,
        Client::Vscode,
        Client::Codex,
        Client::Zed,
        Client::Cursor,
        Client::Windsurf,
    ];
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(client) = ORDER.get(at) else {
                return done;
            };
            done.push(view_of(*client, servers, knobs));
        }
    };
    let mut every = std::thread::scope(|scope| {
        let helper = scope.spawn(work);
        let mut every = work();
        every.extend(
            helper
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        );
        every
    });
    every.sort_by_key(|view| Client::ALL.iter().position(|c| *c == view.client));
    every
}
