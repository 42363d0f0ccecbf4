//! What Claude Code really used: which MCP servers and tools its sessions called, how those
//! calls ended, and how its connections to each server went, read from Claude Code's own
//! records and never written to them.
//!
//! Why read Claude Code's records rather than watch the servers: Claude Code starts its own
//! server processes, so nothing here sees its calls; but it writes every message of a session
//! to a transcript and every server's connection to a log ([`sources`] says where, [`records`]
//! what a line holds). Those records are untrusted data: they are parsed for names, times and
//! outcomes only, and nothing of a conversation (prompts, inputs, results, error texts) is
//! kept, shown or sent.
//!
//! The records are indexed into the app's own SQLite file ([`index`]), incrementally by byte
//! offset, streaming and bounded in memory; [`report`] turns the index into figures per server
//! and per tool. The index can be deleted at any time: the next pass rebuilds it.
//!
//! This crate knows Claude Code's files and the core's names; it knows nothing of
//! connections, the window or the client view (whose costs the window puts beside these
//! figures).

pub mod index;
pub mod records;
pub mod report;
pub mod sources;
#[doc(hidden)]
pub mod synthetic;

pub use index::{Index, Pass, FILE_NAME};
pub use report::{Connections, Counts, Query, ServerUsage, ToolUsage, UsageReport};
pub use sources::Sources;

/// What can go wrong with the index.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UsageError {
    #[error("the usage index in {path} cannot be used ({reason}); move it aside and MCP Manager builds a new one from Claude Code's records")]
    Open { path: String, reason: String },
    #[error("the usage index could not be read or written: {0}")]
    Query(String),
}

/// The servers configured for the project now, in Claude Code's names: every entry of every
/// scope, and every server of a plugin (`plugin:<plugin>:<server>`), on or off. With
/// `agents`, also the servers subagents define in their frontmatter.
pub fn configured(locations: &mcp_manager_core::Locations) -> Vec<String> {
    let list = mcp_manager_core::api::list_servers(locations);
    let mut names: Vec<String> = list
        .servers
        .into_iter()
        .filter(|s| s.scope != mcp_manager_core::Scope::Agent)
        .map(|s| s.name)
        .collect();
    names.extend(list.plugins.into_iter().flat_map(|p| p.servers));
    names.sort();
    names.dedup();
    names
}

/// [`configured`], and the servers subagents define in their frontmatter (they connect while
/// their subagent runs, and their calls are in the subagent's transcript).
pub fn configured_with_agents(locations: &mcp_manager_core::Locations) -> Vec<String> {
    use mcp_manager_core::config::{agents, plugins::PluginSet};
    let mut names = configured(locations);
    let plugins = PluginSet::load(locations).plugins;
    // The agents Claude Code runs (not one another file of the same name overrides), and of
    // each the servers it would start.
    let (files, _) = agents::read_agents(locations, &plugins);
    names.extend(
        files
            .iter()
            .flat_map(agents::inline_servers)
            .map(|(name, _)| name),
    );
    names.sort();
    names.dedup();
    names
}

/// Now, in milliseconds since the epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default()
}

/// A moment as `YYYY-MM-DD HH:MM` UTC.
pub fn day_and_time(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let minutes = ms.rem_euclid(86_400_000) / 60_000;
    // The civil date of a day number (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        minutes / 60,
        minutes % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn moments_are_written_as_dates() {
        assert_eq!(super::day_and_time(0), "1970-01-01 00:00");
        assert_eq!(super::day_and_time(1_796_505_037_415), "2026-12-05 21:10");
    }
}
