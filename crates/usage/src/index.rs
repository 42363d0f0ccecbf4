//! The index: Claude Code's records read once, then only what was added since.
//!
//! Why an index: people keep months of sessions (hundreds of megabytes to gigabytes), and the
//! window opens on a figure, not on a minute of reading. Each file's row keeps its inode, its
//! size and the offset of the end of its last whole line; a later pass seeks there and reads
//! only the new lines. A file that shrank or was replaced (another inode) is read again from
//! its start. A line still being written (no newline yet) waits for the next pass.
//!
//! Reading is streaming and bounded: one line at a time through a fixed buffer, a line longer
//! than [`MAX_LINE`] passed over (and counted), and lines that cannot name an MCP call are not
//! parsed at all ([`records::Filter`]). Only the calls whose result has not been read yet stay
//! in memory between lines, so memory does not grow with the size of the records.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::Row;

use crate::records::{self, Connection, Filter};
use crate::sources::Sources;
use crate::UsageError;

/// The file's name in the app's data folder.
pub const FILE_NAME: &str = "usage.sqlite";

/// A line longer than this is not read (Claude Code keeps whole tool results and images in its
/// lines; none that names a call comes near it).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// What one pass over the records did.
#[derive(Debug, Default, Clone, Copy, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Pass {
    /// Files read (new or grown).
    pub files_read: u32,
    /// Bytes read.
    pub bytes: f64,
    /// MCP calls found.
    pub calls: u32,
    /// Lines that could not be read, passed over.
    pub skipped_lines: u32,
    /// Files that could not be opened (not a regular file, no permission), passed over.
    pub skipped_files: u32,
}

/// The index in its SQLite file.
pub struct Index {
    pub(crate) pool: SqlitePool,
    batch: usize,
}

pub(crate) fn query_error(err: sqlx::Error) -> UsageError {
    UsageError::Query(err.to_string())
}

/// What the index knows of a file.
struct Known {
    inode: i64,
    size: i64,
    offset: i64,
    /// The last bytes read (up to [`TAIL`]), hex: a file rewritten in place does not end its
    /// read part with them any more.
    tail: String,
}

/// How many bytes before the offset are kept to tell a file appended to from one rewritten.
const TAIL: u64 = 64;

/// The most calls one stretch of reading keeps in memory before they are written.
const MAX_BATCH: usize = 10_000;

/// The hex of the [`TAIL`] bytes before `offset`.
fn tail_of(file: &std::fs::File, offset: u64) -> String {
    use std::io::Read;
    let from = offset.saturating_sub(TAIL);
    let mut bytes = vec![0; (offset - from) as usize];
    let mut reader = file;
    if reader.seek(SeekFrom::Start(from)).is_err() || reader.read_exact(&mut bytes).is_err() {
        return String::new();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A call found in a pass, with its result when the pass found that too.
struct NewCall {
    id: String,
    session: String,
    project: String,
    at_ms: i64,
    name: String,
    sidechain: bool,
    result: Option<(records::Outcome, i64)>,
}

/// What reading one transcript from its offset found.
#[derive(Default)]
struct Batch {
    offset: u64,
    /// [`tail_of`] at `offset`.
    tail: String,
    /// It stopped at [`MAX_BATCH`] calls, before the file's end.
    more: bool,
    bytes: u64,
    calls: Vec<NewCall>,
    /// Results of calls found in an earlier pass: id, outcome, duration.
    results: Vec<(String, records::Outcome, i64)>,
    names: HashSet<(String, String)>,
    skipped: u32,
}

impl Index {
    /// Opens (creating when missing) and migrates the index at `path`, private to its owner.
    pub async fn open(path: &Path) -> Result<Index, UsageError> {
        let failed = |reason: String| UsageError::Open {
            path: path.display().to_string(),
            reason,
        };
        if let Some(folder) = path.parent() {
            mcp_manager_core::private::dir(folder).map_err(|err| failed(err.to_string()))?;
        }
        if !path.exists() {
            mcp_manager_core::private::write(path, b"").map_err(|err| failed(err.to_string()))?;
        }
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
            .map_err(|err| failed(err.to_string()))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(2)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await
            .map_err(|err| failed(err.to_string()))?;
        sqlx::migrate!("./migrations")
            .run(&pool)
            .await
            .map_err(|err| failed(err.to_string()))?;
        Ok(Index {
            pool,
            batch: MAX_BATCH,
        })
    }

    /// The same index, writing what it reads every `calls` calls (tests).
    #[doc(hidden)]
    pub fn with_batch(mut self, calls: usize) -> Index {
        self.batch = calls.max(1);
        self
    }

    /// Closes the file (its write-ahead log folded back in).
    pub async fn close(self) {
        self.pool.close().await;
    }

    /// Reads what was added to the records since the last pass.
    pub async fn update(&self, sources: &Sources) -> Result<Pass, UsageError> {
        let mut pass = Pass::default();
        let known = self.known_files().await?;
        for path in sources.transcript_files() {
            self.update_transcript(&path, known.get(&path), &mut pass)
                .await?;
        }
        for (path, slug) in sources.connection_files() {
            self.update_connection(&path, &slug, known.get(&path), &mut pass)
                .await?;
        }
        Ok(pass)
    }

    async fn known_files(&self) -> Result<HashMap<PathBuf, Known>, UsageError> {
        let rows = sqlx::query("SELECT path, inode, size, offset, tail FROM files")
            .fetch_all(&self.pool)
            .await
            .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .map(|row| {
                (
                    PathBuf::from(row.get::<String, _>(0)),
                    Known {
                        inode: row.get(1),
                        size: row.get(2),
                        offset: row.get(3),
                        tail: row.get(4),
                    },
                )
            })
            .collect())
    }

    async fn update_transcript(
        &self,
        path: &Path,
        known: Option<&Known>,
        pass: &mut Pass,
    ) -> Result<(), UsageError> {
        let Some(key) = path.to_str().map(str::to_string) else {
            // Claude Code names its records with UUIDs; a name that is not UTF-8 is not one.
            pass.skipped_files += 1;
            return Ok(());
        };
        let Some((file, inode, size)) = open(path, pass) else {
            return Ok(());
        };
        let mut start = match known {
            Some(k) if k.inode == inode && size >= k.offset => {
                if size == k.size {
                    return Ok(());
                }
                k.offset
            }
            _ => 0,
        };
        // A file rewritten in place (the same inode, as long or longer) no longer ends its
        // read part with the bytes it did: it is read again from its start.
        if let (Some(k), true) = (known, start > 0) {
            if tail_of(&file, start as u64) != k.tail {
                start = 0;
            }
        }
        let mut file = Some(file);
        let mut offset = start as u64;
        let mut first = true;
        loop {
            let pending: HashMap<String, i64> = if offset == 0 {
                HashMap::new()
            } else {
                sqlx::query("SELECT id, at_ms FROM calls WHERE file = ? AND outcome = 'pending'")
                    .bind(&key)
                    .fetch_all(&self.pool)
                    .await
                    .map_err(query_error)?
                    .into_iter()
                    .map(|row| (row.get(0), row.get(1)))
                    .collect()
            };
            let handle = match file.take() {
                Some(handle) => handle,
                None => match open(path, pass) {
                    Some((handle, ..)) => handle,
                    None => return Ok(()),
                },
            };
            let most = self.batch;
            let batch =
                tokio::task::spawn_blocking(move || read_transcript(handle, offset, pending, most))
                    .await
                    .map_err(|err| UsageError::Query(err.to_string()))?;
            if first {
                pass.files_read += 1;
            }
            pass.bytes += batch.bytes as f64;
            pass.skipped_lines += batch.skipped;
            pass.calls += batch.calls.len() as u32;
            self.write_batch(&key, inode, size, start == 0 && first, &batch)
                .await?;
            first = false;
            offset = batch.offset;
            if !batch.more {
                return Ok(());
            }
        }
    }

    /// Writes what one stretch of a transcript gave, with the file's new offset.
    async fn write_batch(
        &self,
        key: &str,
        inode: i64,
        size: i64,
        from_start: bool,
        batch: &Batch,
    ) -> Result<(), UsageError> {
        let mut tx = self.pool.begin().await.map_err(query_error)?;
        if from_start {
            sqlx::query("DELETE FROM calls WHERE file = ?")
                .bind(key)
                .execute(&mut *tx)
                .await
                .map_err(query_error)?;
        }
        for call in &batch.calls {
            let (outcome, duration) = match call.result {
                Some((outcome, duration)) => (outcome.word(), Some(duration)),
                None => ("pending", None),
            };
            sqlx::query(
                "INSERT OR REPLACE INTO calls (file, id, session, project, at_ms, name, outcome, \
                 duration_ms, sidechain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(key)
            .bind(&call.id)
            .bind(&call.session)
            .bind(&call.project)
            .bind(call.at_ms)
            .bind(&call.name)
            .bind(outcome)
            .bind(duration)
            .bind(call.sidechain)
            .execute(&mut *tx)
            .await
            .map_err(query_error)?;
        }
        for (id, outcome, duration) in &batch.results {
            sqlx::query("UPDATE calls SET outcome = ?, duration_ms = ? WHERE file = ? AND id = ?")
                .bind(outcome.word())
                .bind(duration)
                .bind(key)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(query_error)?;
        }
        for (prefix, server) in &batch.names {
            sqlx::query("INSERT OR IGNORE INTO names (prefix, server) VALUES (?, ?)")
                .bind(prefix)
                .bind(server)
                .execute(&mut *tx)
                .await
                .map_err(query_error)?;
        }
        // The size is the file's only once its end is read: a stretch left for the next
        // round keeps the file "grown" so that a pass cut short reads on from here.
        let size = if batch.more {
            batch.offset as i64
        } else {
            size
        };
        sqlx::query(
            "INSERT INTO files (path, kind, inode, size, offset, tail, skipped) \
             VALUES (?, 'session', ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET \
             inode = excluded.inode, size = excluded.size, offset = excluded.offset, \
             tail = excluded.tail, \
             skipped = CASE WHEN ? THEN excluded.skipped ELSE files.skipped + excluded.skipped END",
        )
        .bind(key)
        .bind(inode)
        .bind(size)
        .bind(batch.offset as i64)
        .bind(&batch.tail)
        .bind(batch.skipped)
        .bind(from_start)
        .execute(&mut *tx)
        .await
        .map_err(query_error)?;
        tx.commit().await.map_err(query_error)
    }

    async fn update_connection(
        &self,
        path: &Path,
        slug: &str,
        known: Option<&Known>,
        pass: &mut Pass,
    ) -> Result<(), UsageError> {
        let Some((file, inode, size)) = open(path, pass) else {
            return Ok(());
        };
        if known.is_some_and(|k| k.inode == inode && k.size == size) {
            return Ok(());
        }
        let (connection, offset, skipped) =
            tokio::task::spawn_blocking(move || read_connection(file))
                .await
                .map_err(|err| UsageError::Query(err.to_string()))?;
        pass.files_read += 1;
        pass.bytes += offset as f64;
        pass.skipped_lines += skipped;
        let key = path.display().to_string();
        let outcome = if connection.connected {
            "connected"
        } else if connection.failed.is_some() {
            "failed"
        } else {
            "unknown"
        };
        // The log is named after the moment the process started; its first line says it too.
        let at_ms = connection.at_ms.unwrap_or(0);
        let mut tx = self.pool.begin().await.map_err(query_error)?;
        sqlx::query(
            "INSERT OR REPLACE INTO connections (file, project, slug, session, at_ms, outcome, \
             code, skipped_tools) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&key)
        .bind(connection.cwd.as_deref().unwrap_or(""))
        .bind(slug)
        .bind(connection.session.as_deref())
        .bind(at_ms)
        .bind(outcome)
        .bind(connection.failed.as_deref())
        .bind(serde_json::to_string(&connection.skipped_tools).unwrap_or_default())
        .execute(&mut *tx)
        .await
        .map_err(query_error)?;
        sqlx::query(
            "INSERT OR REPLACE INTO files (path, kind, inode, size, offset, tail, skipped) \
             VALUES (?, 'connection', ?, ?, ?, '', ?)",
        )
        .bind(&key)
        .bind(inode)
        .bind(size)
        .bind(offset as i64)
        .bind(skipped)
        .execute(&mut *tx)
        .await
        .map_err(query_error)?;
        tx.commit().await.map_err(query_error)
    }
}

/// Opens a record file through the one module that touches files: regular, not a link.
fn open(path: &Path, pass: &mut Pass) -> Option<(std::fs::File, i64, i64)> {
    match mcp_manager_core::files::open_stream(path) {
        Ok(Some(file)) => {
            let meta = file.metadata().ok()?;
            Some((file, inode(&meta), meta.len() as i64))
        }
        Ok(None) => None,
        Err(_) => {
            pass.skipped_files += 1;
            None
        }
    }
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> i64 {
    use std::os::unix::fs::MetadataExt;
    meta.ino() as i64
}

// Windows has no inode in std's metadata: a replaced file is caught when it is shorter.
#[cfg(not(unix))]
fn inode(_meta: &std::fs::Metadata) -> i64 {
    0
}

/// One line read by [`next_line`].
enum Read {
    /// A whole line, in the buffer (without its newline); `usize` bytes consumed.
    Line(usize),
    /// A line longer than [`MAX_LINE`], consumed and dropped.
    TooLong(usize),
    /// The end of the file, with no whole line left (a line still being written stays).
    End,
}

fn next_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> Read {
    line.clear();
    let mut consumed = 0usize;
    let mut too_long = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Read::End,
        };
        if available.is_empty() {
            return Read::End;
        }
        let (part, done) = match memchr::memchr(b'\n', available) {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        if !too_long {
            if line.len() + part.len() > MAX_LINE {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(part);
            }
        }
        let used = done.unwrap_or(part.len());
        reader.consume(used);
        consumed += used;
        if done.is_some() {
            return if too_long {
                Read::TooLong(consumed)
            } else {
                Read::Line(consumed)
            };
        }
    }
}

/// Reads a transcript from `start`: its MCP calls and the results of `pending` ones.
fn read_transcript(
    mut file: std::fs::File,
    start: u64,
    mut pending: HashMap<String, i64>,
    max_calls: usize,
) -> Batch {
    let mut batch = Batch {
        offset: start,
        ..Batch::default()
    };
    if file.seek(SeekFrom::Start(start)).is_err() {
        return batch;
    }
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let filter = Filter::default();
    let mut line = Vec::with_capacity(64 * 1024);
    // Calls of this pass, by id: their place in `batch.calls`.
    let mut fresh: HashMap<String, usize> = HashMap::new();
    loop {
        let used = match next_line(&mut reader, &mut line) {
            Read::End => break,
            Read::TooLong(used) => {
                batch.skipped += 1;
                batch.offset += used as u64;
                continue;
            }
            Read::Line(used) => used,
        };
        batch.offset += used as u64;
        batch.bytes += used as u64;
        let waiting = |id: &str| pending.contains_key(id) || fresh.contains_key(id);
        if line.is_empty() || !filter.may_matter(&line, waiting) {
            continue;
        }
        let read = match records::session_line(&line) {
            Ok(Some(read)) => read,
            Ok(None) => continue,
            Err(records::Unreadable) => {
                batch.skipped += 1;
                continue;
            }
        };
        if let Some(server) = &read.attributed {
            batch.names.insert((
                mcp_manager_core::config::names::normalize(server),
                server.clone(),
            ));
        }
        for (id, outcome) in &read.results {
            if let Some(place) = fresh.remove(id) {
                let call = &mut batch.calls[place];
                call.result = Some((*outcome, (read.at_ms - call.at_ms).max(0)));
            } else if let Some(at) = pending.remove(id) {
                batch
                    .results
                    .push((id.clone(), *outcome, (read.at_ms - at).max(0)));
            }
        }
        for call in read.uses {
            fresh.insert(call.id.clone(), batch.calls.len());
            batch.calls.push(NewCall {
                id: call.id,
                session: read.session.clone(),
                project: read.cwd.clone(),
                at_ms: read.at_ms,
                name: call.name,
                sidechain: read.sidechain,
                result: None,
            });
        }
        if batch.calls.len() >= max_calls {
            batch.more = true;
            break;
        }
    }
    batch.tail = tail_of(reader.get_ref(), batch.offset);
    batch
}

/// Reads a whole connection log: what it says, the bytes read, the lines passed over.
fn read_connection(file: std::fs::File) -> (Connection, u64, u32) {
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut connection = Connection::default();
    let (mut offset, mut skipped) = (0u64, 0u32);
    loop {
        match next_line(&mut reader, &mut line) {
            Read::End => break,
            Read::TooLong(used) => {
                offset += used as u64;
                skipped += 1;
            }
            Read::Line(used) => {
                offset += used as u64;
                if !line.is_empty() && connection.read(&line).is_err() {
                    skipped += 1;
                }
            }
        }
    }
    (connection, offset, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_too_long_is_dropped_whole_and_a_line_being_written_waits() {
        let mut text = b"{\"a\":1}\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        text.extend_from_slice(b"\n{\"b\":2}\n{\"c\":");
        let mut reader = BufReader::with_capacity(4096, &text[..]);
        let mut line = Vec::new();
        assert!(matches!(next_line(&mut reader, &mut line), Read::Line(8)));
        assert_eq!(line, b"{\"a\":1}");
        assert!(
            matches!(next_line(&mut reader, &mut line), Read::TooLong(n) if n == MAX_LINE + 11)
        );
        assert!(matches!(next_line(&mut reader, &mut line), Read::Line(8)));
        assert_eq!(line, b"{\"b\":2}");
        assert!(matches!(next_line(&mut reader, &mut line), Read::End));
    }
}
