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
                    if is_stale(&dir) {
                        // Another waiter may take it over at the same moment; whoever then
                        // creates the directory first holds the lock.
                        let _ = std::fs::remove_dir(&dir);
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
    std::fs::metadata(dir)
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
