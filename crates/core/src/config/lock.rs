//! The lock Claude Code takes around writes of `~/.claude.json`: a directory `<file>.lock`
//! created with `mkdir` (the `proper-lockfile` convention). Creating a directory is atomic on
//! every filesystem we care about, so two writers that both honour it never interleave their
//! read-modify-write cycles. A lock older than ten seconds is stale (its holder died) and is
//! taken over, as `proper-lockfile` does.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Held while a file is read, changed and written; released on drop.
#[derive(Debug)]
pub(crate) struct FileLock {
    dir: PathBuf,
}

/// `proper-lockfile`'s default staleness.
const STALE_AFTER: Duration = Duration::from_secs(10);
/// How long to wait for another writer before giving up.
const WAIT_AT_MOST: Duration = Duration::from_secs(5);

impl FileLock {
    /// The lock for `file`; waits while another writer holds it.
    pub(crate) fn acquire(file: &Path) -> std::io::Result<FileLock> {
        let mut dir = file.as_os_str().to_owned();
        dir.push(".lock");
        let dir = PathBuf::from(dir);
        let started = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(FileLock { dir }),
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                    // Only a folder is a lock: a file, a FIFO or a link committed at its name
                    // (a repository's `.mcp.json.lock`) is no writer's, and waiting for it to
                    // go would be waiting for ever.
                    match std::fs::symlink_metadata(&dir) {
                        // Released between the two calls: try to take it again.
                        Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
                        Ok(meta) if meta.is_dir() => {}
                        _ => {
                            return Err(std::io::Error::other(format!(
                            "{} is in the way of the lock folder Claude Code and MCP Manager take \
                             there (it is not a folder); nothing was written. Remove it and try again",
                            dir.display()
                        )))
                        }
                    }
                    // Another waiter may take a stale lock over at the same moment; whoever
                    // then creates the directory first holds it. A stale lock that cannot be
                    // removed (a folder with something in it) is waited for like a live one.
                    if is_stale(&dir) && std::fs::remove_dir(&dir).is_ok() {
                        continue;
                    }
                    if started.elapsed() > WAIT_AT_MOST {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::WouldBlock,
                            format!(
                                "{} is held by another program (Claude Code?) for over {}s; \
                                 try again, or remove it if no such program runs",
                                dir.display(),
                                WAIT_AT_MOST.as_secs()
                            ),
                        ));
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                Err(err) => return Err(err),
            }
        }
    }
}

fn is_stale(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|modified| SystemTime::now().duration_since(modified).ok())
        .is_some_and(|age| age > STALE_AFTER)
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository commits `.claude/settings.local.json.lock/x` (a stale lock that cannot be
    /// removed): the write is refused in words after the usual wait, not spun on for ever.
    #[test]
    fn a_committed_lock_that_cannot_be_taken_over_ends_the_wait() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.local.json");
        let lock = dir.path().join("settings.local.json.lock");
        std::fs::create_dir_all(lock.join("x")).unwrap();
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::open(&lock)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let started = Instant::now();
        let err = FileLock::acquire(&file).unwrap_err();
        assert!(started.elapsed() < WAIT_AT_MOST + Duration::from_secs(3));
        assert!(
            err.to_string().contains("is held by another program"),
            "{err}"
        );
    }

    #[test]
    fn a_file_or_link_at_the_lock_s_name_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".mcp.json");
        let lock = dir.path().join(".mcp.json.lock");
        std::os::unix::fs::symlink("/usr", &lock).unwrap();
        let started = Instant::now();
        let err = FileLock::acquire(&file).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(err.to_string().contains("it is not a folder"), "{err}");
        assert!(
            std::path::Path::new("/usr").is_dir(),
            "the link's target is left alone"
        );
        std::fs::remove_file(&lock).unwrap();
        std::fs::write(&lock, "").unwrap();
        assert!(FileLock::acquire(&file).is_err());
        // A stale real lock is still taken over.
        std::fs::remove_file(&lock).unwrap();
        std::fs::create_dir(&lock).unwrap();
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::open(&lock)
            .unwrap()
            .set_modified(old)
            .unwrap();
        drop(FileLock::acquire(&file).unwrap());
        assert!(!lock.exists());
    }
}
