//! Where Claude Code 2.1.332 keeps the records this crate reads, and how it names folders.
//!
//! - Transcripts: `<config>/projects/<slug of the folder>/<session>.jsonl`, a subagent's in
//!   `<session>/subagents/*.jsonl` (`<config>` is `$CLAUDE_CONFIG_DIR`, else `~/.claude`). Claude
//!   Code appends to them while a session runs and deletes them after `cleanupPeriodDays`.
//! - Connection logs: `<cache>/<slug of the folder>/mcp-logs-<slug of the server>/<start>.jsonl`,
//!   one per server per Claude Code process, written whether or not `--debug` is given;
//!   `<cache>` is `$XDG_CACHE_HOME/claude-cli-nodejs` (else `~/.cache/…`) on Linux,
//!   `~/Library/Caches/claude-cli-nodejs` on macOS, `%LOCALAPPDATA%\claude-cli-nodejs\Cache` on
//!   Windows (its `env-paths` rule).
//! - The debug log (`<config>/debug/<session>.txt`) is written only with `--debug`; everything
//!   it says about a server's connection and its skipped tools is in the connection log too,
//!   which is always there, so it is not read.
//!
//! Only regular files are read; links are not followed, so a link planted among the records
//! cannot make the index read a file elsewhere.

use std::path::{Path, PathBuf};

use mcp_manager_core::Locations;

/// How Claude Code names a folder after a path or a server (`l` in its program): every
/// character but ASCII letters and digits becomes `-`; a name longer than 200 characters is
/// cut there and followed by `-` and a hash of the whole.
pub fn slug(name: &str) -> String {
    let replaced: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if replaced.chars().count() <= 200 {
        return replaced;
    }
    // The hash is Claude Code's own; a long name is matched on its first 200 characters.
    replaced.chars().take(200).collect()
}

/// The folders the records are in, for one person.
#[derive(Debug, Clone)]
pub struct Sources {
    /// `<config>/projects`.
    pub transcripts: PathBuf,
    /// `<cache>` (see the module's documentation).
    pub connection_logs: PathBuf,
}

impl Sources {
    pub fn of(locations: &Locations) -> Sources {
        Sources {
            transcripts: locations.claude_dir().join("projects"),
            connection_logs: cache_dir(&locations.home),
        }
    }

    /// Every transcript file, in a stable order.
    pub fn transcript_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        // projects/<folder>/<session>.jsonl and projects/<folder>/<session>/subagents/*.jsonl.
        walk(&self.transcripts, 3, &mut files);
        files.sort();
        files
    }

    /// Every connection log: `(file, slug of the server)`.
    pub fn connection_files(&self) -> Vec<(PathBuf, String)> {
        let mut found = Vec::new();
        for folder in dirs(&self.connection_logs) {
            for logs in dirs(&folder) {
                let Some(server) = logs
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.strip_prefix("mcp-logs-"))
                    .map(str::to_string)
                else {
                    continue;
                };
                let mut files = Vec::new();
                walk(&logs, 0, &mut files);
                found.extend(files.into_iter().map(|f| (f, server.clone())));
            }
        }
        found.sort();
        found
    }
}

#[cfg(target_os = "macos")]
fn cache_dir(home: &Path) -> PathBuf {
    home.join("Library/Caches/claude-cli-nodejs")
}

#[cfg(windows)]
fn cache_dir(home: &Path) -> PathBuf {
    std::env::var_os("LOCALAPPDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join("AppData/Local"))
        .join("claude-cli-nodejs/Cache")
}

#[cfg(not(any(target_os = "macos", windows)))]
fn cache_dir(home: &Path) -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".cache"))
        .join("claude-cli-nodejs")
}

/// The folders in `dir`, links excepted.
fn dirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

/// The `.jsonl` regular files in `dir` and, `depth` levels down, in its folders.
fn walk(dir: &Path, depth: u32, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() && depth > 0 {
            walk(&path, depth - 1, into);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "jsonl") {
            into.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_named_as_claude_code_names_them() {
        assert_eq!(slug("/tmp/exp/project"), "-tmp-exp-project");
        assert_eq!(slug("beta.x"), "beta-x");
        assert_eq!(slug("plugin:tools:git"), "plugin-tools-git");
    }
}
