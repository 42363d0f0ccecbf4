//! What the index says about each server: calls, failures, durations, connections.
//!
//! A call's name is `mcp__<server>__<tool>` with both parts normalised (every character but
//! `A-Za-z0-9_-` made `_`), so the way back to a server goes through the names it could have
//! come from: the servers configured now (the caller's list, in Claude Code's names, plugin
//! servers as `plugin:<plugin>:<server>`) and the names Claude Code wrote beside its calls. Two
//! servers whose names normalise alike (`my.db` and `my_db`) share one prefix: their calls
//! cannot be told apart, and the report says so ([`ServerUsage::shares_prefix_with`]).
//!
//! A connection log is named after the server with every character but letters and digits
//! made `-` ([`crate::sources::slug`]): matched the same way.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use sqlx::Row;

use crate::index::{query_error, Index};
use crate::sources::slug;
use crate::UsageError;

const DAY_MS: i64 = 86_400_000;

/// Which records a report covers.
#[derive(Debug, Clone)]
pub struct Query {
    /// Only the sessions Claude Code ran in this folder; all folders when `None`.
    pub project: Option<String>,
    /// The longer window, in days (the shorter is 7).
    pub days: u32,
    /// Now, in milliseconds since the epoch.
    pub now_ms: i64,
}

/// Calls in a window.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Every call the model made, whatever became of it.
    pub calls: u32,
    /// The tool answered with an error.
    pub failures: u32,
    /// Refused by the person or a permission rule.
    pub denied: u32,
    /// Claude Code did not send it (no such tool, input it would not pass on).
    pub not_sent: u32,
}

impl Counts {
    fn add(&mut self, outcome: &str) {
        self.calls += 1;
        match outcome {
            "error" => self.failures += 1,
            "denied" => self.denied += 1,
            "not-sent" => self.not_sent += 1,
            _ => {}
        }
    }
}

/// One tool's use.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolUsage {
    /// The tool's name as the model called it (normalised).
    pub tool: String,
    pub week: Counts,
    pub month: Counts,
    /// Median time from the call to its result, of calls the server answered.
    pub median_ms: Option<u32>,
    pub last_used_ms: Option<f64>,
}

/// How Claude Code's connections to a server went, from its connection logs.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Connections {
    /// The Claude Code processes looked at: the last ten at most.
    pub sessions: u32,
    pub failed: u32,
    /// The latest failure: when, and what happened, in words.
    pub last_failure_ms: Option<f64>,
    pub last_failure: Option<String>,
    /// Tools Claude Code skipped in its latest connection, by name.
    pub skipped_tools: Vec<String>,
}

/// One server's use.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerUsage {
    /// Claude Code's name for it, or the normalised part of its tools' names when nothing
    /// configured now or written beside its calls gives the name.
    pub server: String,
    /// The `mcp__<prefix>__` its tools are named with.
    pub prefix: String,
    /// Configured now (in the caller's list).
    pub configured: bool,
    /// Other servers whose calls look the same: their names normalise to the same prefix.
    pub shares_prefix_with: Vec<String>,
    pub week: Counts,
    pub month: Counts,
    pub median_ms: Option<u32>,
    pub last_used_ms: Option<f64>,
    /// Most called first.
    pub tools: Vec<ToolUsage>,
    pub connections: Option<Connections>,
}

/// What Claude Code used, per server.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct UsageReport {
    /// The folder, or `None` for all of them.
    pub project: Option<String>,
    pub days: u32,
    /// Most called first; configured servers never called come last.
    pub servers: Vec<ServerUsage>,
    /// Configured servers not called in the window.
    pub never_used: Vec<String>,
    /// Sessions seen in the window.
    pub sessions: u32,
    /// Lines and files of the records that could not be read (passed over).
    pub skipped_lines: u32,
    /// The oldest call the index holds, so that "never" can be read against it.
    pub oldest_ms: Option<f64>,
}

struct Call {
    session: String,
    at_ms: i64,
    name: String,
    outcome: String,
    duration_ms: Option<i64>,
}

#[derive(Default)]
struct Tally {
    week: Counts,
    month: Counts,
    durations: Vec<i64>,
    last: Option<i64>,
}

impl Tally {
    fn add(&mut self, call: &Call, week_start: i64, month_start: i64) {
        if call.at_ms >= month_start {
            self.month.add(&call.outcome);
        }
        if call.at_ms >= week_start {
            self.week.add(&call.outcome);
        }
        if matches!(call.outcome.as_str(), "ok" | "error") {
            if let Some(d) = call.duration_ms {
                self.durations.push(d);
            }
        }
        self.last = self.last.max(Some(call.at_ms));
    }

    fn median(&mut self) -> Option<u32> {
        if self.durations.is_empty() {
            return None;
        }
        self.durations.sort_unstable();
        let n = self.durations.len();
        let m = if n % 2 == 1 {
            self.durations[n / 2]
        } else {
            (self.durations[n / 2 - 1] + self.durations[n / 2]) / 2
        };
        Some(u32::try_from(m).unwrap_or(u32::MAX))
    }
}

/// The words for Claude Code's failure codes.
pub fn failure_words(code: &str) -> String {
    match code {
        "CONNECT_TIMEOUT" => "it did not answer in time".to_string(),
        "CONNECTION_CLOSED" => "it closed the connection (the process exited)".to_string(),
        "ECONNREFUSED" => "nothing answered at its address (connection refused)".to_string(),
        "ENOTFOUND" => "its host name was not found".to_string(),
        "ENOENT" => "its command was not found".to_string(),
        other => format!("Claude Code's code {other}"),
    }
}

impl Index {
    /// The report for `query`, with `configured` the servers configured now (Claude Code's
    /// names).
    pub async fn report(
        &self,
        query: &Query,
        configured: &[String],
    ) -> Result<UsageReport, UsageError> {
        let days = query.days.max(1);
        let month_start = query.now_ms - i64::from(days) * DAY_MS;
        let week_start = query.now_ms - 7 * DAY_MS;
        let rows = sqlx::query(
            "SELECT session, at_ms, name, outcome, duration_ms FROM calls \
             WHERE at_ms >= ? AND (? IS NULL OR project = ?)",
        )
        .bind(month_start.min(week_start))
        .bind(query.project.as_deref())
        .bind(query.project.as_deref())
        .fetch_all(&self.pool)
        .await
        .map_err(query_error)?;
        let calls: Vec<Call> = rows
            .into_iter()
            .map(|row| Call {
                session: row.get(0),
                at_ms: row.get(1),
                name: row.get(2),
                outcome: row.get(3),
                duration_ms: row.get(4),
            })
            .collect();

        // Every name a prefix may stand for: configured now first, then as Claude Code wrote
        // them beside calls.
        let mut names: BTreeMap<String, Vec<(String, bool)>> = BTreeMap::new();
        for name in configured {
            let entry = names
                .entry(mcp_manager_core::config::names::normalize(name))
                .or_default();
            if !entry.iter().any(|(n, _)| n == name) {
                entry.push((name.clone(), true));
            }
        }
        for row in sqlx::query("SELECT prefix, server FROM names")
            .fetch_all(&self.pool)
            .await
            .map_err(query_error)?
        {
            let (prefix, server): (String, String) = (row.get(0), row.get(1));
            let entry = names.entry(prefix).or_default();
            if !entry.iter().any(|(n, _)| *n == server) {
                entry.push((server, false));
            }
        }
        // Longest first, so that `a__b` is tried before `a`.
        let mut prefixes: Vec<&String> = names.keys().collect();
        prefixes.sort_by_key(|p| std::cmp::Reverse(p.len()));

        let mut servers: BTreeMap<String, (Tally, BTreeMap<String, Tally>)> = BTreeMap::new();
        let mut sessions = std::collections::HashSet::new();
        for call in &calls {
            if call.at_ms >= month_start {
                sessions.insert(call.session.as_str());
            }
            let Some(rest) = call.name.strip_prefix("mcp__") else {
                continue;
            };
            let (prefix, tool) = prefixes
                .iter()
                .find_map(|p| {
                    rest.strip_prefix(p.as_str())
                        .and_then(|t| t.strip_prefix("__"))
                        .map(|t| (p.to_string(), t))
                })
                .or_else(|| rest.split_once("__").map(|(p, t)| (p.to_string(), t)))
                .unwrap_or((rest.to_string(), ""));
            let (server, tools) = servers.entry(prefix).or_default();
            server.add(call, week_start, month_start);
            tools
                .entry(tool.to_string())
                .or_default()
                .add(call, week_start, month_start);
        }
        for name in configured {
            servers
                .entry(mcp_manager_core::config::names::normalize(name))
                .or_default();
        }

        let connections = self.connections(query).await?;
        let mut out: Vec<ServerUsage> = servers
            .into_iter()
            .map(|(prefix, (mut tally, tools))| {
                let known = names.get(&prefix).cloned().unwrap_or_default();
                let configured_here: Vec<&String> =
                    known.iter().filter(|(_, c)| *c).map(|(n, _)| n).collect();
                let server = configured_here
                    .first()
                    .map(|n| n.to_string())
                    .or_else(|| known.first().map(|(n, _)| n.clone()))
                    .unwrap_or_else(|| prefix.clone());
                let shares_prefix_with = configured_here
                    .iter()
                    .skip(1)
                    .map(|n| n.to_string())
                    .collect();
                let mut tools: Vec<ToolUsage> = tools
                    .into_iter()
                    .map(|(tool, mut t)| ToolUsage {
                        tool,
                        week: t.week,
                        month: t.month,
                        median_ms: t.median(),
                        last_used_ms: t.last.map(|v| v as f64),
                    })
                    .collect();
                tools.sort_by(|a, b| b.month.calls.cmp(&a.month.calls).then(a.tool.cmp(&b.tool)));
                ServerUsage {
                    connections: connections.get(&slug(&server)).cloned(),
                    configured: !configured_here.is_empty(),
                    server,
                    prefix,
                    shares_prefix_with,
                    week: tally.week,
                    month: tally.month,
                    median_ms: tally.median(),
                    last_used_ms: tally.last.map(|v| v as f64),
                    tools,
                }
            })
            .collect();
        // Servers Claude Code connected to (or tried to) that are neither configured now nor
        // called: named by their log's folder, unless a name written beside calls matches it.
        let matched: std::collections::HashSet<String> =
            out.iter().map(|s| slug(&s.server)).collect();
        for (folder, conn) in &connections {
            if matched.contains(folder) {
                continue;
            }
            let server = names
                .values()
                .flatten()
                .map(|(n, _)| n)
                .find(|n| slug(n) == *folder)
                .cloned()
                .unwrap_or_else(|| folder.clone());
            out.push(ServerUsage {
                prefix: mcp_manager_core::config::names::normalize(&server),
                server,
                configured: false,
                shares_prefix_with: Vec::new(),
                week: Counts::default(),
                month: Counts::default(),
                median_ms: None,
                last_used_ms: None,
                tools: Vec::new(),
                connections: Some(conn.clone()),
            });
        }
        out.sort_by(|a, b| {
            b.month
                .calls
                .cmp(&a.month.calls)
                .then(b.configured.cmp(&a.configured))
                .then(a.server.cmp(&b.server))
        });
        let never_used = out
            .iter()
            .filter(|s| s.configured && s.month.calls == 0)
            .flat_map(|s| std::iter::once(s.server.clone()).chain(s.shares_prefix_with.clone()))
            .collect();
        let skipped_lines: i64 = sqlx::query("SELECT COALESCE(SUM(skipped), 0) FROM files")
            .fetch_one(&self.pool)
            .await
            .map_err(query_error)?
            .get(0);
        let oldest: Option<i64> = sqlx::query("SELECT MIN(at_ms) FROM calls")
            .fetch_one(&self.pool)
            .await
            .map_err(query_error)?
            .get(0);
        Ok(UsageReport {
            project: query.project.clone(),
            days,
            servers: out,
            never_used,
            sessions: sessions.len() as u32,
            skipped_lines: u32::try_from(skipped_lines).unwrap_or(u32::MAX),
            oldest_ms: oldest.map(|v| v as f64),
        })
    }

    /// The last ten connections of each server (by the slug of its name) in the project.
    async fn connections(&self, query: &Query) -> Result<HashMap<String, Connections>, UsageError> {
        let rows = sqlx::query(
            "SELECT slug, at_ms, outcome, code, skipped_tools FROM connections \
             WHERE (? IS NULL OR project = ?) ORDER BY at_ms DESC",
        )
        .bind(query.project.as_deref())
        .bind(query.project.as_deref())
        .fetch_all(&self.pool)
        .await
        .map_err(query_error)?;
        let mut out: HashMap<String, Connections> = HashMap::new();
        for row in rows {
            let slug: String = row.get(0);
            let entry = out.entry(slug).or_insert_with(|| Connections {
                sessions: 0,
                failed: 0,
                last_failure_ms: None,
                last_failure: None,
                skipped_tools: serde_json::from_str(&row.get::<String, _>(4)).unwrap_or_default(),
            });
            if entry.sessions >= 10 {
                continue;
            }
            entry.sessions += 1;
            let outcome: String = row.get(2);
            if outcome == "failed" {
                entry.failed += 1;
                if entry.last_failure.is_none() {
                    let at: i64 = row.get(1);
                    let code: Option<String> = row.get(3);
                    entry.last_failure_ms = Some(at as f64);
                    entry.last_failure = Some(failure_words(code.as_deref().unwrap_or("")));
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_and_even_counts() {
        let mut t = Tally {
            durations: vec![30, 10, 20],
            ..Tally::default()
        };
        assert_eq!(t.median(), Some(20));
        t.durations.push(40);
        assert_eq!(t.median(), Some(25));
        assert_eq!(Tally::default().median(), None);
    }
}
