//! The tail of a local server's stderr, kept in a bounded buffer.
//!
//! A server may print nothing or flood megabytes; only the last [`MAX_BYTES`] are kept, split
//! into lines, so memory stays flat. The tail is shown by the UI (`mcpctl logs`) and attached
//! to a start-up failure, which is where a person finds why a server did not start.
//!
//! A first start of a local server runs two processes side by side (see [`crate::era`]):
//! each writes into a log of its own, and only the one kept is forwarded into the server's
//! log ([`StderrLog::forward_to`]), so one start shows its stderr once.

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
    /// Lines ever kept (a [`Mark`] counts from here).
    pushed: u64,
    /// Where each new line goes too.
    forward: Option<StderrLog>,
}

/// A point in a log's lines, to go back to ([`StderrLog::cut_back_to`]).
#[derive(Debug, Clone, Copy)]
pub struct Mark(u64);

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

    /// Where the log is now.
    pub fn mark(&self) -> Mark {
        Mark(self.inner.lock().expect("stderr lock").pushed)
    }

    /// Drops the lines kept since `mark` (those still kept).
    pub fn cut_back_to(&self, mark: Mark) {
        let mut tail = self.inner.lock().expect("stderr lock");
        let newer = tail.pushed.saturating_sub(mark.0);
        for _ in 0..newer {
            match tail.lines.pop_back() {
                Some(line) => tail.bytes -= line.len() + 1,
                None => break,
            }
        }
        tail.pushed = mark.0;
    }

    /// Adds one line of our own (a label between two starts).
    pub fn note(&self, line: &str) {
        self.inner
            .lock()
            .expect("stderr lock")
            .push_line(line.to_string());
    }

    /// Copies the lines kept so far into `log`, and every line from now on. `log` must not
    /// forward (back) here.
    pub fn forward_to(&self, log: &StderrLog) {
        let mut tail = self.inner.lock().expect("stderr lock");
        for line in &tail.lines {
            log.note(line);
        }
        tail.forward = Some(log.clone());
    }

    /// Stops forwarding: what comes from now on stays here.
    pub fn stop_forwarding(&self) {
        self.inner.lock().expect("stderr lock").forward = None;
    }

    /// How many lines were dropped to stay within [`MAX_BYTES`].
    pub fn dropped_lines(&self) -> u64 {
        self.inner.lock().expect("stderr lock").dropped_lines
    }
}

impl Tail {
    fn push_line(&mut self, line: String) {
        if let Some(forward) = &self.forward {
            forward.note(&line);
        }
        self.pushed += 1;
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
    fn a_forwarded_log_copies_what_it_had_and_what_comes_and_a_cut_goes_back_to_a_mark() {
        let main = StderrLog::default();
        main.note("earlier session");
        let mark = main.mark();
        let first = StderrLog::default();
        let second = StderrLog::default();
        first.forward_to(&main);
        first.note("starting");
        second.note("starting");
        assert_eq!(main.lines(), ["earlier session", "starting"]);
        // The second start is kept instead: the first one's lines go.
        first.stop_forwarding();
        main.cut_back_to(mark);
        second.forward_to(&main);
        first.note("terminated");
        second.note("ready");
        assert_eq!(main.lines(), ["earlier session", "starting", "ready"]);
        assert_eq!(second.lines(), ["starting", "ready"]);
    }
}
