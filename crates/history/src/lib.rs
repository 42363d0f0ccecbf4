//! The history of tool calls made by hand, in a SQLite file of the app's data folder.
//!
//! Why SQLite (through sqlx): a person comes back to a call days later, searches by tool or by
//! a word of its arguments, runs it again, names the ones worth keeping; the window and
//! `mcpctl history` read the same file, at the same time (WAL lets one write while others
//! read). Migrations are embedded (`migrations/`), so a newer app upgrades an older file.
//!
//! What is not kept: the values of argument fields the tool marks `writeOnly` or
//! `format: "password"` ([`scrub`]); they are replaced before a call is recorded.
//!
//! A database that cannot be opened (damaged, locked, in a folder that cannot be written) is
//! a [`HistoryError::Open`] whose message says what happened and what to do; the callers go
//! on without history.

mod bounds;
mod scrub;
mod surfaces;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::Serialize;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::Row;

pub use bounds::{Cleared, Limits, DEFAULT_CAP_BYTES, DEFAULT_RESULT_BYTES, KEPT_WHOLE};
pub use scrub::{scrub, scrub_call, NOT_STORED};
pub use surfaces::{Kept, SurfaceRecord};

/// The file's name in the app's data folder.
pub const FILE_NAME: &str = "history.sqlite";

/// What can go wrong with the history.
#[derive(Debug, Clone, thiserror::Error)]
pub enum HistoryError {
    #[error("the history in {path} cannot be used ({reason}); calls work, but are not kept until it can: {hint}")]
    Open {
        path: String,
        reason: String,
        hint: String,
    },
    #[error("the history could not be read or written: {0}")]
    Query(String),
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum CallStatus {
    Ok,
    /// The tool answered with `isError`.
    ToolError,
    /// No result: a timeout, a server that exited, a refusal.
    Failed,
}

impl CallStatus {
    fn as_str(self) -> &'static str {
        match self {
            CallStatus::Ok => "ok",
            CallStatus::ToolError => "tool-error",
            CallStatus::Failed => "failed",
        }
    }

    fn parse(text: &str) -> CallStatus {
        match text {
            "ok" => CallStatus::Ok,
            "tool-error" => CallStatus::ToolError,
            _ => CallStatus::Failed,
        }
    }
}

/// A call to record.
#[derive(Debug, Clone)]
pub struct NewCall {
    pub server: String,
    pub tool: String,
    /// As sent; scrub it first ([`scrub`]).
    pub arguments: serde_json::Value,
    pub result: Option<serde_json::Value>,
    pub status: CallStatus,
    pub error: Option<String>,
    pub duration_ms: u32,
    /// Milliseconds since the Unix epoch.
    pub at_ms: i64,
}

/// A recorded call, as the window and `mcpctl` show it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CallRecord {
    pub id: u32,
    /// Milliseconds since the Unix epoch.
    pub at_ms: f64,
    pub server: String,
    pub tool: String,
    /// JSON text.
    pub arguments: String,
    /// JSON text of the CallToolResult; none for a failed call.
    pub result: Option<String>,
    pub status: CallStatus,
    pub error: Option<String>,
    pub duration_ms: u32,
    pub name: Option<String>,
    /// The whole result's size in bytes.
    pub result_bytes: Option<f64>,
    /// Set when the result kept was cut to the history's limit: the SHA-256 (hex) of what was
    /// cut off.
    pub cut_sha256: Option<String>,
}

/// Which calls to list, newest first.
#[derive(Debug, Clone, Default, serde::Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CallFilter {
    pub server: Option<String>,
    pub tool: Option<String>,
    /// A word of the tool, server, arguments, result or name.
    pub text: Option<String>,
    pub status: Option<CallStatus>,
    /// Only calls saved under a name.
    #[serde(default)]
    pub saved: bool,
    /// At most this many (100 when 0).
    #[serde(default)]
    pub limit: u32,
    /// Leave the results out (`result` is none): a list to show need not carry a 50 MB result
    /// across to the window every time it is refreshed.
    #[serde(default)]
    pub without_results: bool,
}

/// The history file, open.
#[derive(Debug, Clone)]
pub struct History {
    pub(crate) pool: SqlitePool,
    path: PathBuf,
    pub(crate) limits: Limits,
}

pub(crate) fn query_error(err: sqlx::Error) -> HistoryError {
    HistoryError::Query(err.to_string())
}

impl History {
    /// Opens (creating when missing) and migrates the history at `path`.
    pub async fn open(path: &Path) -> Result<History, HistoryError> {
        let failed = |reason: String| {
            let hint = if reason.contains("not a database") || reason.contains("malformed") {
                format!(
                    "move {} aside and MCP Manager starts a new one",
                    path.display()
                )
            } else if reason.contains("locked") || reason.contains("busy") {
                "another program holds it locked; close it, then restart MCP Manager".to_string()
            } else if reason.contains("readonly")
                || reason.contains("read-only")
                || reason.contains("unable to open")
                || reason.contains("ermission")
            {
                format!(
                    "make {} writable for you",
                    path.parent().unwrap_or(path).display()
                )
            } else {
                "restart MCP Manager; if it persists, move the file aside".to_string()
            };
            HistoryError::Open {
                path: path.display().to_string(),
                reason,
                hint,
            }
        };
        // Only its owner may read it: the folder 0700, the database 0600 before SQLite opens
        // it (SQLite gives its -wal and -shm files the database's mode), and files an older
        // version left wider are narrowed.
        if let Some(folder) = path.parent() {
            mcp_manager_core::private::dir(folder).map_err(|err| failed(err.to_string()))?;
        }
        if !path.exists() {
            mcp_manager_core::private::write(path, b"").map_err(|err| failed(err.to_string()))?;
        }
        for suffix in ["", "-wal", "-shm"] {
            mcp_manager_core::private::narrow(Path::new(&format!("{}{suffix}", path.display())));
        }
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
            .map_err(|err| failed(err.to_string()))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(3));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(options)
            .await
            .map_err(|err| failed(err.to_string()))?;
        sqlx::migrate!("./migrations")
            .run(&pool)
            .await
            .map_err(|err| failed(err.to_string()))?;
        Ok(History {
            pool,
            path: path.to_path_buf(),
            limits: Limits::from_env(),
        })
    }

    /// The same history with other bounds (tests, the benchmark).
    pub fn with_limits(mut self, limits: Limits) -> History {
        self.limits = limits;
        self
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records a call; returns its id.
    ///
    /// The history stays bounded ([`bounds`]): older results are cut to the limit, and the
    /// oldest unnamed calls go when the data would pass the cap.
    pub async fn record(&self, call: &NewCall) -> Result<u32, HistoryError> {
        let result = call.result.as_ref().map(|r| r.to_string());
        let bytes = result.as_ref().map(|r| r.len() as u64);
        self.prune(bytes.unwrap_or(0).min(self.limits.cap_bytes / 2))
            .await?;
        let arguments = call.arguments.to_string();
        let mut tx = self.pool.begin().await.map_err(query_error)?;
        let id = sqlx::query(
            "INSERT INTO calls (at_ms, server, tool, arguments, status, error, duration_ms, result_bytes)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(call.at_ms)
        .bind(&call.server)
        .bind(&call.tool)
        .bind(&arguments)
        .bind(call.status.as_str())
        .bind(&call.error)
        .bind(i64::from(call.duration_ms))
        .bind(bytes.map(|b| b as i64))
        .execute(&mut *tx)
        .await
        .map_err(query_error)?
        .last_insert_rowid();
        if let Some(result) = &result {
            sqlx::query("INSERT INTO call_results (id, result) VALUES (?, ?)")
                .bind(id)
                .bind(result)
                .execute(&mut *tx)
                .await
                .map_err(query_error)?;
        }
        sqlx::query("INSERT INTO calls_text (rowid, text) VALUES (?, ?)")
            .bind(id)
            .bind(searchable(
                &call.tool,
                &call.server,
                &arguments,
                None,
                result.as_deref(),
            ))
            .execute(&mut *tx)
            .await
            .map_err(query_error)?;
        tx.commit().await.map_err(query_error)?;
        Ok(u32::try_from(id).unwrap_or(u32::MAX))
    }

    /// The calls matching `filter`, newest first.
    pub async fn search(&self, filter: &CallFilter) -> Result<Vec<CallRecord>, HistoryError> {
        let mut sql = format!(
            "SELECT id, at_ms, server, tool, arguments, {}, status, error, duration_ms, name, result_bytes, cut_sha256 FROM calls WHERE 1 = 1",
            if filter.without_results {
                "NULL AS result"
            } else {
                "(SELECT r.result FROM call_results r WHERE r.id = calls.id) AS result"
            }
        );
        let mut binds: Vec<String> = Vec::new();
        if let Some(server) = &filter.server {
            sql.push_str(" AND server = ?");
            binds.push(server.clone());
        }
        if let Some(tool) = &filter.tool {
            sql.push_str(" AND tool = ?");
            binds.push(tool.clone());
        }
        if let Some(status) = filter.status {
            sql.push_str(" AND status = ?");
            binds.push(status.as_str().into());
        }
        if filter.saved {
            sql.push_str(" AND name IS NOT NULL");
        }
        if let Some(text) = filter
            .text
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            if text.chars().count() >= 3 {
                // The trigram index: any substring of three characters or more, without
                // reading whole results.
                sql.push_str(" AND id IN (SELECT rowid FROM calls_text WHERE calls_text MATCH ?)");
                binds.push(format!("\"{}\"", text.replace('"', "\"\"")));
            } else {
                sql.push_str(
                    " AND (tool LIKE ?1x ESCAPE '\\' OR server LIKE ?1x ESCAPE '\\' OR arguments LIKE ?1x ESCAPE '\\'
                      OR name LIKE ?1x ESCAPE '\\')",
                );
                let pattern = format!(
                    "%{}%",
                    text.replace('\\', "\\\\")
                        .replace('%', "\\%")
                        .replace('_', "\\_")
                );
                // One placeholder per column: sqlx binds positionally.
                sql = sql.replace("?1x", "?");
                for _ in 0..4 {
                    binds.push(pattern.clone());
                }
            }
        }
        sql.push_str(" ORDER BY at_ms DESC, id DESC LIMIT ?");
        let limit = if filter.limit == 0 { 100 } else { filter.limit };
        let mut query = sqlx::query(&sql);
        for bind in &binds {
            query = query.bind(bind);
        }
        let rows = query
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(query_error)?;
        Ok(rows.iter().map(record).collect())
    }

    /// One call by id.
    pub async fn get(&self, id: u32) -> Result<Option<CallRecord>, HistoryError> {
        let row = sqlx::query(
            "SELECT id, at_ms, server, tool, arguments, (SELECT r.result FROM call_results r WHERE r.id = calls.id) AS result, status, error, duration_ms, name, result_bytes, cut_sha256 FROM calls WHERE id = ?",
        )
        .bind(i64::from(id))
        .fetch_optional(&self.pool)
        .await
        .map_err(query_error)?;
        Ok(row.as_ref().map(record))
    }

    /// Saves a call under `name` (or forgets its name with `None`); whether it exists.
    pub async fn name(&self, id: u32, name: Option<&str>) -> Result<bool, HistoryError> {
        let name = name.map(str::trim).filter(|n| !n.is_empty());
        let mut tx = self.pool.begin().await.map_err(query_error)?;
        let done = sqlx::query("UPDATE calls SET name = ? WHERE id = ?")
            .bind(name)
            .bind(i64::from(id))
            .execute(&mut *tx)
            .await
            .map_err(query_error)?;
        if done.rows_affected() > 0 {
            // The search index sees the new name.
            let row = sqlx::query(
                "SELECT tool, server, arguments, (SELECT substr(r.result, 1, 4096) FROM call_results r WHERE r.id = calls.id) AS head FROM calls WHERE id = ?",
            )
            .bind(i64::from(id))
            .fetch_one(&mut *tx)
            .await
            .map_err(query_error)?;
            let text = searchable(
                &row.get::<String, _>("tool"),
                &row.get::<String, _>("server"),
                &row.get::<String, _>("arguments"),
                name,
                row.get::<Option<String>, _>("head").as_deref(),
            );
            sqlx::query("DELETE FROM calls_text WHERE rowid = ?")
                .bind(i64::from(id))
                .execute(&mut *tx)
                .await
                .map_err(query_error)?;
            sqlx::query("INSERT INTO calls_text (rowid, text) VALUES (?, ?)")
                .bind(i64::from(id))
                .bind(text)
                .execute(&mut *tx)
                .await
                .map_err(query_error)?;
        }
        tx.commit().await.map_err(query_error)?;
        Ok(done.rows_affected() > 0)
    }

    /// Closes the pool (the WAL is checkpointed).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

fn record(row: &sqlx::sqlite::SqliteRow) -> CallRecord {
    CallRecord {
        id: u32::try_from(row.get::<i64, _>("id")).unwrap_or(u32::MAX),
        at_ms: row.get::<i64, _>("at_ms") as f64,
        server: row.get("server"),
        tool: row.get("tool"),
        arguments: row.get("arguments"),
        result: row.get("result"),
        status: CallStatus::parse(row.get::<String, _>("status").as_str()),
        error: row.get("error"),
        duration_ms: u32::try_from(row.get::<i64, _>("duration_ms")).unwrap_or(u32::MAX),
        name: row.get("name"),
        result_bytes: row
            .get::<Option<i64>, _>("result_bytes")
            .map(|b| b.max(0) as f64),
        cut_sha256: row.get("cut_sha256"),
    }
}

/// What the search index holds of a call: its tool, server, arguments, name and the first
/// 4 KiB of its result.
fn searchable(
    tool: &str,
    server: &str,
    arguments: &str,
    name: Option<&str>,
    result: Option<&str>,
) -> String {
    let result = result.unwrap_or("");
    let mut end = result.len().min(4096);
    while !result.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{tool}\n{server}\n{arguments}\n{}\n{}",
        name.unwrap_or(""),
        &result[..end]
    )
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
