//! Surfaces: what a server offered, kept when it differs from the last one kept.
//!
//! Why in the history: a person asks "what changed in my server since yesterday", across
//! restarts of the app, and `mcpctl` reads the same file. Only a change is kept, so a server
//! that never changes costs one row.

use serde::Serialize;
use sqlx::Row;

use crate::{query_error, History, HistoryError};

/// One surface kept.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SurfaceRecord {
    pub id: u32,
    /// Milliseconds since the Unix epoch.
    pub at_ms: f64,
    /// The normalized surface, as JSON text.
    pub surface: String,
}

/// What keeping a surface did.
#[derive(Debug, Clone, PartialEq)]
pub enum Kept {
    /// The first one kept for this server.
    First,
    /// The same as the last one: nothing kept.
    Unchanged,
    /// Different from the last one, kept at `at_ms` (then `id`).
    Changed { previous: SurfaceRecord, id: u32 },
}

fn surface(row: &sqlx::sqlite::SqliteRow) -> SurfaceRecord {
    SurfaceRecord {
        id: u32::try_from(row.get::<i64, _>("id")).unwrap_or(u32::MAX),
        at_ms: row.get::<i64, _>("at_ms") as f64,
        surface: row.get("surface"),
    }
}

impl History {
    /// Keeps `surface` (normalized JSON text) of `server` in `project` when it differs from
    /// the last one kept.
    pub async fn keep_surface(
        &self,
        project: &str,
        server: &str,
        surface: &str,
        at_ms: i64,
    ) -> Result<Kept, HistoryError> {
        let last = self.surfaces(project, server, 1).await?.into_iter().next();
        if last.as_ref().is_some_and(|l| l.surface == surface) {
            return Ok(Kept::Unchanged);
        }
        let id = sqlx::query(
            "INSERT INTO surfaces (project, server, at_ms, surface) VALUES (?, ?, ?, ?)",
        )
        .bind(project)
        .bind(server)
        .bind(at_ms)
        .bind(surface)
        .execute(&self.pool)
        .await
        .map_err(query_error)?
        .last_insert_rowid();
        let id = u32::try_from(id).unwrap_or(u32::MAX);
        Ok(match last {
            None => Kept::First,
            Some(previous) => Kept::Changed { previous, id },
        })
    }

    /// The surfaces kept of `server` in `project`, newest first.
    pub async fn surfaces(
        &self,
        project: &str,
        server: &str,
        limit: u32,
    ) -> Result<Vec<SurfaceRecord>, HistoryError> {
        let rows = sqlx::query(
            "SELECT id, at_ms, surface FROM surfaces WHERE project = ? AND server = ? ORDER BY id DESC LIMIT ?",
        )
        .bind(project)
        .bind(server)
        .bind(i64::from(limit.max(1)))
        .fetch_all(&self.pool)
        .await
        .map_err(query_error)?;
        Ok(rows.iter().map(surface).collect())
    }
}
