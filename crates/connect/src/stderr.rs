//! The tail of a local server's stderr, kept in a bounded buffer.
//!
//! A server may print nothing or flood megabytes; only the last [`MAX_BYTES`] are kept, split
//! into lines, so memory stays flat. The tail is shown by the UI (`mcpctl logs`) and attached
//! to a start-up failure, which is where a person finds why a server did not start.
//!
//! The process asked `server/discover` beside a first session (see [`crate::era`]) writes
//! into a log of its own, never shown: the server's log is its sessions' alone.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};

/// How much stderr is kept per server.
pub const MAX_BYTES: usize = 64 * 1024;
/// Longer lines are cut; the rest of such a line is dropped.
const MAX_LINE: usize = 4096;

/// A shared, bounded stderr tail.
#[derive(Debug, Clone, Default)]
pub struct StderrLog {
    inner: Arc<Mutex<Tail>>,
}

#[derive(Debug, Default)]
struct Tail {
    lines: VecDeque<String>,
    bytes: usize,
    /// Bytes of the line being read.
    partial: Vec<u8>,
    dropped_lines: u64,
}

impl StderrLog {
    /// Reads `stream` to its end into the tail.
    pub async fn collect(self, mut stream: impl AsyncRead + Unpin) {
        let mut buffer = vec![0u8; 8192];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => self.push_bytes(&buffer[..n]),
            }
        }
        let mut tail = self.inner.lock().expect("stderr lock");
        if !tail.partial.is_empty() {
            let line = String::from_utf8_lossy(&std::mem::take(&mut tail.partial)).into_owned();
            tail.push_line(line);
        }
    }

    fn push_bytes(&self, bytes: &[u8]) {
        let mut tail = self.inner.lock().expect("stderr lock");
        for &byte in bytes {
            if byte == b'\n' {
                let raw = std::mem::take(&mut tail.partial);
                let line = String::from_utf8_lossy(&raw)
                    .trim_end_matches('\r')
                    .to_string();
                tail.push_line(line);
            } else if tail.partial.len() < MAX_LINE {
                tail.partial.push(byte);
            }
        }
    }

    /// The kept lines, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.inner
            .lock()
            .expect("stderr lock")
            .lines
            .iter()
            .cloned()
            .collect()
    }

    /// The last `n` lines joined, for error messages.
    pub fn tail(&self, n: usize) -> String {
        let tail = self.inner.lock().expect("stderr lock");
        let skip = tail.lines.len().saturating_sub(n);
        tail.lines
            .iter()
            .skip(skip)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Adds one line of our own (a label between two sessions).
    pub fn note(&self, line: &str) {
        self.inner
            .lock()
            .expect("stderr lock")
            .push_line(line.to_string());
    }

    /// How many lines were dropped to stay within [`MAX_BYTES`].
    pub fn dropped_lines(&self) -> u64 {
        self.inner.lock().expect("stderr lock").dropped_lines
    }
}

impl Tail {
    fn push_line(&mut self, line: String) {
        self.bytes += line.len() + 1;
        self.lines.push_back(line);
        while self.bytes > MAX_BYTES {
            match self.lines.pop_front() {
                Some(old) => {
                    self.bytes -= old.len() + 1;
                    self.dropped_lines += 1;
                }
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_bounded_and_keeps_the_newest_lines() {
        let log = StderrLog::default();
        let line = "x".repeat(1023);
        for _ in 0..(MAX_BYTES / 1024 + 8) {
            log.note(&line);
        }
        log.note("newest");
        assert_eq!(log.lines().last().map(String::as_str), Some("newest"));
        assert!(log.dropped_lines() >= 8);
        assert!(log.lines().iter().map(|l| l.len() + 1).sum::<usize>() <= MAX_BYTES);
    }
}
