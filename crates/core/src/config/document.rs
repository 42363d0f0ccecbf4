//! JSON configuration files: read with their key order and layout, written back atomically
//! as a read-modify-write of the latest bytes on disk.
//!
//! Why this shape: Claude Code rewrites `~/.claude.json` often and other tools edit these
//! files too. [`update`] therefore takes Claude Code's lock (`<file>.lock`), re-reads the file
//! *after* taking it, applies the change to that fresh value, and writes a temporary file in
//! the same folder that is renamed over the original (permissions kept; a symbolic link is
//! followed so the link survives). A file that does not parse is reported with line and
//! column and never written.
//!
//! Layout: Claude Code writes `JSON.stringify(value, null, 2)` without a final newline. We
//! write the same, except that a file we change keeps its own indentation and final newline,
//! so a save changes only the lines the person changed.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::lock::FileLock;
use crate::error::ConfigError;
use crate::files::{self, FileError};

/// How a file is laid out, so that writing it back changes only what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub indent: String,
    pub final_newline: bool,
}

impl Default for Layout {
    /// Claude Code's: two spaces, no final newline.
    fn default() -> Self {
        Layout {
            indent: "  ".into(),
            final_newline: false,
        }
    }
}

impl Layout {
    /// The layout of existing text: the first indented line's indentation, and whether the
    /// text ends with a newline.
    pub fn of(text: &str) -> Layout {
        let indent = text
            .lines()
            .skip(1)
            .map(|line| {
                let trimmed = line.trim_start_matches([' ', '\t']);
                &line[..line.len() - trimmed.len()]
            })
            .find(|ws| !ws.is_empty())
            .filter(|ws| ws.chars().all(|c| c == ' ') || ws.chars().all(|c| c == '\t'))
            .unwrap_or("  ");
        Layout {
            indent: indent.to_string(),
            final_newline: text.ends_with('\n'),
        }
    }
}

/// A parsed JSON file.
#[derive(Debug, Clone)]
pub struct Document {
    pub path: PathBuf,
    pub value: Value,
    pub layout: Layout,
}

/// Reads and parses a JSON file. `Ok(None)` when it does not exist.
pub fn read(path: &Path) -> Result<Option<Document>, ConfigError> {
    // Bounded and regular files only: a committed `.mcp.json` that is `/dev/zero` or a FIFO
    // is reported, not read forever.
    let text = match files::read_text(path, files::READ_LIMIT) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(None),
        Err(err) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source: err.into_io(),
            })
        }
    };
    Ok(Some(Document {
        path: path.to_path_buf(),
        value: parse(path, &text)?,
        layout: Layout::of(&text),
    }))
}

/// Parses JSON text, reporting a syntax error with its line and column. An empty (or blank)
/// file counts as `{}`, as a new file would.
pub fn parse(path: &Path, text: &str) -> Result<Value, ConfigError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text).map_err(|err| {
        let full = err.to_string();
        let suffix = format!(" at line {} column {}", err.line(), err.column());
        ConfigError::Syntax {
            path: path.to_path_buf(),
            line: u32::try_from(err.line()).unwrap_or(u32::MAX),
            column: u32::try_from(err.column()).unwrap_or(u32::MAX),
            message: full.strip_suffix(&suffix).unwrap_or(&full).to_string(),
        }
    })
}

/// Renders a value in the given layout (`JSON.stringify(value, null, indent)` for the
/// default layout; compact when the indentation is empty).
pub fn render(value: &Value, layout: &Layout) -> String {
    if layout.indent.is_empty() {
        // No indentation: `JSON.stringify(value)`, as Claude Code writes its credentials.
        let mut text = value.to_string();
        if layout.final_newline {
            text.push('\n');
        }
        return text;
    }
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(layout.indent.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    value
        .serialize(&mut serializer)
        .expect("a serde_json::Value always serializes");
    let mut text = String::from_utf8(out).expect("serde_json writes UTF-8");
    if layout.final_newline {
        text.push('\n');
    }
    text
}

/// Who may read a file this module creates. Existing files keep their permissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewFileMode {
    /// `0600`, as Claude Code creates `~/.claude.json`.
    Private,
    /// The process's default (`0666` less the umask): shared project files.
    Shared,
    /// `0600` even when the file existed with another mode: a file of credentials
    /// (`~/.claude/.credentials.json`, which Claude Code keeps `0600`).
    Secret,
}

/// Writes `text` to `path` atomically, through [`crate::files::write`]: a temporary file with
/// a random name in the same folder, born with the final mode, then a rename. A symbolic link
/// is written through, so that it survives (dotfile managers link `~/.claude.json`); project
/// files are confined to the project by [`crate::locations::Locations::confine`] first.
pub fn write_atomic(path: &Path, text: &str, mode: NewFileMode) -> std::io::Result<()> {
    let mode = match mode {
        NewFileMode::Private => files::Mode::PrivateOrKept,
        NewFileMode::Shared => files::Mode::SharedOrKept,
        NewFileMode::Secret => files::Mode::Private,
    };
    files::write(path, text.as_bytes(), &files::Write::new(mode)).map_err(FileError::into_io)
}

/// Applies `change` to the latest content of `path` under Claude Code's lock and writes the
/// result atomically when it differs. A missing file starts as `{}`. A file that does not
/// parse is left untouched and reported. Returns what `change` returned.
pub fn update<T>(
    path: &Path,
    mode: NewFileMode,
    change: impl FnOnce(&mut Value) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    update_in(path, mode, None, change)
}

/// [`update`], writing the result in `layout` whatever the file's own: Claude Code rewrites
/// some files in its own (its settings files: two spaces and a final newline).
pub fn update_in<T>(
    path: &Path,
    mode: NewFileMode,
    layout: Option<Layout>,
    change: impl FnOnce(&mut Value) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    let write_error = |source: std::io::Error| ConfigError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(write_error)?;
    }
    let _lock = FileLock::acquire(path).map_err(write_error)?;
    let (mut value, found) = match read(path)? {
        Some(document) => (document.value, document.layout),
        None => (Value::Object(Default::default()), Layout::default()),
    };
    let layout = layout.unwrap_or(found);
    let before = value.clone();
    let outcome = change(&mut value)?;
    if value != before {
        write_atomic(path, &render(&value, &layout), mode).map_err(write_error)?;
    }
    Ok(outcome)
}

/// [`update_in`] while also holding the `proper-lockfile` lock of `lock_for` (the directory
/// `<lock_for>.lock`): Claude Code guards its credential store with such a lock on
/// `~/.claude/.storage-write` rather than on the file itself.
pub fn update_under<T>(
    lock_for: &Path,
    path: &Path,
    mode: NewFileMode,
    layout: Option<Layout>,
    change: impl FnOnce(&mut Value) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    if let Some(folder) = lock_for.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(|source| ConfigError::Write {
            path: path.to_path_buf(),
            source,
        })?;
    }
    let _outer = FileLock::acquire(lock_for).map_err(|source| ConfigError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    update_in(path, mode, layout, change)
}

/// The strings of the list at `key` of `value` (Claude Code's lists of names); anything else
/// there counts as no list.
pub fn strings(value: Option<&Value>, key: &str) -> Vec<String> {
    value
        .and_then(|v| v.get(key))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// The object at `keys` below `value`, created (as `{}`) where missing. Fails when something
/// on the way is not an object.
pub fn object_at<'a>(
    path: &Path,
    value: &'a mut Value,
    keys: &[&str],
) -> Result<&'a mut serde_json::Map<String, Value>, ConfigError> {
    let mut node = value;
    let mut walked = String::new();
    for key in keys {
        let object = node
            .as_object_mut()
            .ok_or_else(|| not_an_object(path, &walked))?;
        node = object
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
        push_key(&mut walked, key);
    }
    node.as_object_mut()
        .ok_or_else(|| not_an_object(path, &walked))
}

/// The error for a value at `walked` (`["projects"]["/p"]`, or empty for the top level) that
/// should be an object and is not.
pub(crate) fn not_an_object(path: &Path, walked: &str) -> ConfigError {
    ConfigError::Shape {
        path: path.to_path_buf(),
        message: format!(
            "{} must be a JSON object",
            if walked.is_empty() {
                "the top level"
            } else {
                walked
            }
        ),
    }
}

/// Appends `["key"]` to a path of keys used in messages.
pub(crate) fn push_key(walked: &mut String, key: &str) {
    walked.push_str(&format!("[{}]", Value::String(key.to_string())));
}
