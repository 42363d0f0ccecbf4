//! Keeping the history bounded: results cut to a size, the file held under a cap, and
//! clearing. Results live in a table of their own (`call_results`), so that listing and
//! searching calls never reads one.
//!
//! Why this way: a person may name a call (or add it to a collection) right after making it,
//! so the newest calls ([`KEPT_WHOLE`]) keep their results whole; older results beyond the
//! limit are cut to it, with the whole size and the SHA-256 of what was cut kept, so the cut
//! is visible and checkable. Named calls keep theirs whole, always. When the data (not
//! counting free pages, which SQLite reuses) passes the cap, the oldest unnamed calls go
//! first, so the file stays near the cap instead of growing for ever.

use sha2::{Digest, Sha256};
use sqlx::Row;

use crate::{query_error, History, HistoryError};

/// How many of the newest calls keep their results whole, named or not.
pub const KEPT_WHOLE: i64 = 20;
/// Results are cut to this many bytes by default (`MCP_MANAGER_HISTORY_RESULT_BYTES`).
pub const DEFAULT_RESULT_BYTES: u64 = 1024 * 1024;
/// The history holds this many bytes of data at most by default
/// (`MCP_MANAGER_HISTORY_CAP_BYTES`).
pub const DEFAULT_CAP_BYTES: u64 = 256 * 1024 * 1024;

/// The history's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub result_bytes: u64,
    pub cap_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            result_bytes: DEFAULT_RESULT_BYTES,
            cap_bytes: DEFAULT_CAP_BYTES,
        }
    }
}

impl Limits {
    /// The defaults, or what `MCP_MANAGER_HISTORY_RESULT_BYTES` and
    /// `MCP_MANAGER_HISTORY_CAP_BYTES` say (whole numbers of bytes).
    pub fn from_env() -> Limits {
        let read = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|v| *v > 0)
                .unwrap_or(default)
        };
        Limits {
            result_bytes: read("MCP_MANAGER_HISTORY_RESULT_BYTES", DEFAULT_RESULT_BYTES),
            cap_bytes: read("MCP_MANAGER_HISTORY_CAP_BYTES", DEFAULT_CAP_BYTES),
        }
    }
}

/// `text` cut to at most `bytes` bytes, at a character boundary; and what was cut.
fn cut(text: &str, bytes: usize) -> (&str, &str) {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.split_at(end)
}

/// What clearing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Cleared {
    pub removed: u32,
    /// Named calls are kept: remove their names to clear them.
    pub kept_named: u32,
}

impl History {
    /// Bytes of data in the file: its pages less the free ones.
    pub async fn used_bytes(&self) -> Result<u64, HistoryError> {
        let row = sqlx::query(
            "SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count()) AS used, (SELECT page_size FROM pragma_page_size()) AS size",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(query_error)?;
        Ok((row.get::<i64, _>("used").max(0) as u64) * (row.get::<i64, _>("size").max(0) as u64))
    }

    /// Cuts the results of older unnamed calls to the limit, then drops the oldest unnamed
    /// calls while the data is over the cap (`incoming` bytes about to be written counted).
    pub(crate) async fn prune(&self, incoming: u64) -> Result<(), HistoryError> {
        let limit = self.limits.result_bytes;
        let oversized = sqlx::query(
            "SELECT c.id, r.result FROM calls c JOIN call_results r ON r.id = c.id
             WHERE c.name IS NULL AND c.cut_sha256 IS NULL AND c.result_bytes > ?
               AND c.id < coalesce((SELECT id FROM calls ORDER BY id DESC LIMIT 1 OFFSET ?), 0)",
        )
        .bind(limit as i64)
        .bind(KEPT_WHOLE - 1)
        .fetch_all(&self.pool)
        .await
        .map_err(query_error)?;
        for row in oversized {
            let id: i64 = row.get("id");
            let result: String = row.get("result");
            let (head, tail) = cut(&result, limit as usize);
            let digest: String = Sha256::digest(tail.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            let mut tx = self.pool.begin().await.map_err(query_error)?;
            sqlx::query("UPDATE call_results SET result = ? WHERE id = ?")
                .bind(head)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(query_error)?;
            sqlx::query("UPDATE calls SET cut_sha256 = ? WHERE id = ?")
                .bind(digest)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(query_error)?;
            tx.commit().await.map_err(query_error)?;
        }
        // Headroom of 1/32 of the cap: pages freed by a deletion are reused, but not all of
        // them fit what comes next, and the file must stay under the cap.
        let cap = self.limits.cap_bytes - self.limits.cap_bytes / 32;
        for _ in 0..10_000 {
            if self.used_bytes().await? + incoming <= cap {
                break;
            }
            let dropped = sqlx::query(
                "DELETE FROM calls WHERE id IN (SELECT id FROM calls WHERE name IS NULL ORDER BY id LIMIT 8)",
            )
            .execute(&self.pool)
            .await
            .map_err(query_error)?
            .rows_affected();
            if dropped == 0 {
                // Only named calls are left: they stay.
                break;
            }
        }
        Ok(())
    }

    /// Removes the unnamed calls made before `before_ms` (every unnamed call when `None`).
    pub async fn clear(&self, before_ms: Option<i64>) -> Result<Cleared, HistoryError> {
        let before = before_ms.unwrap_or(i64::MAX);
        let removed = sqlx::query("DELETE FROM calls WHERE name IS NULL AND at_ms < ?")
            .bind(before)
            .execute(&self.pool)
            .await
            .map_err(query_error)?
            .rows_affected();
        let kept: i64 =
            sqlx::query("SELECT count(*) AS n FROM calls WHERE name IS NOT NULL AND at_ms < ?")
                .bind(before)
                .fetch_one(&self.pool)
                .await
                .map_err(query_error)?
                .get("n");
        Ok(Cleared {
            removed: u32::try_from(removed).unwrap_or(u32::MAX),
            kept_named: u32::try_from(kept).unwrap_or(u32::MAX),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_a_character_boundary() {
        assert_eq!(cut("héllo", 2), ("h", "éllo"));
        assert_eq!(cut("abc", 10), ("abc", ""));
    }
}
