//! Every file MCP Manager writes, and every file a project or a plugin hands it to read,
//! goes through this module.
//!
//! Why one module: a repository can commit symbolic links, FIFOs and devices where we expect
//! files. A write that follows a link planted at its temporary name (`smoke.json.tmp ->
//! ~/.bashrc`) replaces one of the person's files with text the repository chose; a read of
//! a `.mcp.json` that is `/dev/zero` fills the memory, and one that is a FIFO never returns.
//! Each write site once had its own temporary name and its own idea of modes and links; the
//! same mistakes came back one site at a time. So there is one way (and `scripts/check-files`
//! fails the test run when Rust code elsewhere opens a file for writing):
//!
//! - [`write`]: a temporary file with a random name beside the target, created
//!   `O_CREAT|O_EXCL|O_NOFOLLOW` with its final mode (never readable by others, even for a
//!   moment), written, `fsync`ed, renamed over the target. The target must be a regular file
//!   or missing. With [`Write::within`], the folder and the target must stay inside that root
//!   once links are resolved: a link that leads out is refused and nothing is written.
//! - [`read`] and [`read_within`]: regular files only (a FIFO, a device or a folder is refused
//!   without blocking: the file is opened `O_NONBLOCK` and checked with `fstat`), at most
//!   `limit` bytes (16 MiB for configuration: [`READ_LIMIT`]) with a clear error past it.
//!   [`read_within`] is for files of a project or a plugin: a link is followed only while it
//!   stays inside the root, and the file is opened `O_NOFOLLOW`.

use std::fmt;
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};

/// The largest configuration file, collection or cache we read: far above any real one
/// (a `~/.claude.json` with years of history is a few MiB), far below what hurts.
pub const READ_LIMIT: u64 = 16 * 1024 * 1024;

/// Why a file could not be read or written. Each message says what happened and what to do.
#[derive(Debug)]
pub enum FileError {
    LeavesRoot {
        path: PathBuf,
        root: PathBuf,
        target: PathBuf,
    },
    NotRegular {
        path: PathBuf,
        kind: FileKind,
    },
    TooLarge {
        path: PathBuf,
        limit: u64,
    },
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io { path, source } => write!(f, "{}: {}", path.display(), plain(source)),
            FileError::LeavesRoot { path, .. }
            | FileError::NotRegular { path, .. }
            | FileError::TooLarge { path, .. } => {
                write!(f, "{} {}", path.display(), self.what_happened())
            }
        }
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FileError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl FileError {
    /// What happened and what to do, after the file's name (or "it").
    fn what_happened(&self) -> String {
        match self {
            FileError::LeavesRoot { root, target, .. } => format!(
                "leads out of {} (to {}), so it was left alone. Replace the link with a file of that folder",
                root.display(),
                target.display()
            ),
            FileError::NotRegular { kind, .. } => {
                format!("is {kind}, not a regular file; it was left alone. Replace it with a file")
            }
            FileError::TooLarge { limit, .. } => format!(
                "is larger than {}, more than any real file of its kind; it was not read. Check what it holds",
                if *limit >= 1024 * 1024 {
                    format!("{} MiB", limit / (1024 * 1024))
                } else {
                    format!("{} KiB", limit / 1024)
                }
            ),
            FileError::Io { source, .. } => plain(source),
        }
    }

    /// The `std::io::Error` this maps to, for callers that speak `io::Result`.
    /// Its message then names the file no more (the caller's error does).
    pub fn into_io(self) -> std::io::Error {
        match self {
            FileError::Io { source, .. } => source,
            other => std::io::Error::other(format!("it {}", other.what_happened())),
        }
    }

    /// Whether the file was simply not there.
    pub fn is_not_found(&self) -> bool {
        matches!(self, FileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// An operating system error in words, without the `(os error N)` tail.
fn plain(err: &std::io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// What stands where a regular file was expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Folder,
    Fifo,
    Device,
    Socket,
    Link,
    Other,
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Folder => "a folder",
            FileKind::Fifo => "a named pipe (FIFO)",
            FileKind::Device => "a device",
            FileKind::Socket => "a socket",
            FileKind::Link => "a symbolic link",
            FileKind::Other => "something else",
        })
    }
}

fn kind_of(file_type: std::fs::FileType) -> Option<FileKind> {
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_file() {
        return None;
    }
    Some(if file_type.is_dir() {
        FileKind::Folder
    } else if file_type.is_symlink() {
        FileKind::Link
    } else {
        #[cfg(unix)]
        {
            if file_type.is_fifo() {
                FileKind::Fifo
            } else if file_type.is_block_device() || file_type.is_char_device() {
                FileKind::Device
            } else if file_type.is_socket() {
                FileKind::Socket
            } else {
                FileKind::Other
            }
        }
        #[cfg(not(unix))]
        FileKind::Other
    })
}

/// Who may read a file this module creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `0600`, always, even when the file existed with another mode.
    Private,
    /// A new file gets `0600`; an existing one keeps its permissions (`~/.claude.json`).
    PrivateOrKept,
    /// A new file gets the process's default (`0666` less the umask), an existing one keeps
    /// its permissions: shared project files.
    SharedOrKept,
}

/// How [`write`] writes.
#[derive(Debug, Clone)]
pub struct Write<'a> {
    mode: Mode,
    within: Option<&'a Path>,
    create_folder: bool,
}

impl<'a> Write<'a> {
    pub fn new(mode: Mode) -> Self {
        Write {
            mode,
            within: None,
            create_folder: true,
        }
    }

    /// `0600` files of the app's own (data and cache folders).
    pub fn private() -> Self {
        Write::new(Mode::Private)
    }

    /// The folder and the target must stay inside `root` once links are resolved.
    pub fn within(mut self, root: &'a Path) -> Self {
        self.within = Some(root);
        self
    }

    /// Whether a missing folder is created (default: yes).
    pub fn create_folder(mut self, create: bool) -> Self {
        self.create_folder = create;
        self
    }
}

/// Writes `bytes` to `path` whole or not at all (see the module doc). A target that is a
/// symbolic link is written through (the link survives: dotfile managers link
/// `~/.claude.json`), unless the link leads out of [`Write::within`]'s root.
pub fn write(path: &Path, bytes: &[u8], how: &Write) -> Result<(), FileError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FileError::Io { path, source }
    };
    let root = match how.within {
        Some(root) => Some(root.canonicalize().map_err(io(root))?),
        None => None,
    };
    let name = path.file_name().ok_or_else(|| FileError::NotRegular {
        path: path.to_path_buf(),
        kind: FileKind::Folder,
    })?;
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Some(root) = &root {
        // Before anything is created: the nearest folder that exists must be inside the root,
        // so that no folder is made at the far end of a link.
        let existing = folder
            .ancestors()
            .find(|dir| dir.exists())
            .unwrap_or(Path::new("."));
        inside(root, existing, path)?;
    }
    if how.create_folder && !folder.exists() {
        std::fs::create_dir_all(folder).map_err(io(folder))?;
    }
    let real_folder = folder.canonicalize().map_err(io(folder))?;
    if let Some(root) = &root {
        inside(root, &real_folder, path)?;
    }
    let mut target = real_folder.join(name);
    let mut existing_mode = None;
    match std::fs::symlink_metadata(&target) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let resolved = target.canonicalize().map_err(io(path))?;
            if let Some(root) = &root {
                inside(root, &resolved, path)?;
            }
            let meta = std::fs::metadata(&resolved).map_err(io(path))?;
            if let Some(kind) = kind_of(meta.file_type()) {
                return Err(FileError::NotRegular {
                    path: path.to_path_buf(),
                    kind,
                });
            }
            existing_mode = Some(meta.permissions());
            target = resolved;
        }
        Ok(meta) => {
            if let Some(kind) = kind_of(meta.file_type()) {
                return Err(FileError::NotRegular {
                    path: path.to_path_buf(),
                    kind,
                });
            }
            existing_mode = Some(meta.permissions());
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(io(path)(err)),
    }
    let target_folder = target.parent().unwrap_or(&real_folder).to_path_buf();
    let temp = target_folder.join(format!(
        ".{}.{}.tmp",
        target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        random_suffix()
    ));
    let result = write_temp_then_rename(&temp, &target, bytes, how.mode, existing_mode);
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(io(path))
}

fn write_temp_then_rename(
    temp: &Path,
    target: &Path,
    bytes: &[u8],
    mode: Mode,
    existing: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    // create_new is O_CREAT|O_EXCL: an existing name (a planted link included) fails.
    options.write(true).create_new(true);
    #[cfg(unix)]
    let final_mode = {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.custom_flags(libc_flags::O_NOFOLLOW | libc_flags::O_CLOEXEC);
        let final_mode = match (mode, &existing) {
            (Mode::Private, _) | (Mode::PrivateOrKept, None) => Some(0o600),
            (_, Some(permissions)) => Some(permissions.mode() & 0o7777),
            (Mode::SharedOrKept, None) => None,
        };
        options.mode(final_mode.unwrap_or(0o666).min(0o7777));
        final_mode
    };
    let mut file = options.open(temp)?;
    file.write_all(bytes)?;
    #[cfg(unix)]
    if let Some(final_mode) = final_mode {
        // The umask may have narrowed a kept mode at creation: set it exactly.
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(final_mode))?;
    }
    #[cfg(not(unix))]
    let _ = (mode, existing);
    file.sync_all()?;
    drop(file);
    std::fs::rename(temp, target)
}

/// Sixteen hex digits no one can guess ahead: the standard library's random hash keys,
/// seeded by the operating system, over the time, the process and a counter.
fn random_suffix() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    format!("{:016x}", hasher.finish())
}

fn inside(root: &Path, real: &Path, asked: &Path) -> Result<(), FileError> {
    let real = real.canonicalize().unwrap_or_else(|_| real.to_path_buf());
    if real.starts_with(root) {
        Ok(())
    } else {
        Err(FileError::LeavesRoot {
            path: asked.to_path_buf(),
            root: root.to_path_buf(),
            target: real,
        })
    }
}

/// Reads a file that may be anyone's (a configuration file, a cache): regular files only, at
/// most `limit` bytes. `Ok(None)` when it does not exist. Links are followed.
pub fn read(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, FileError> {
    match open_regular(path, false) {
        Ok(file) => bounded(path, file, limit).map(Some),
        Err(err) if err.is_not_found() => Ok(None),
        Err(err) => Err(err),
    }
}

/// Opens a file another program keeps appending to (Claude Code's transcripts and logs), to be
/// read as a stream, a line at a time, from where the last reading stopped: regular files
/// only, the file itself opened `O_NOFOLLOW` (a link in its place is refused, not followed).
/// `Ok(None)` when it does not exist (any more).
pub fn open_stream(path: &Path) -> Result<Option<std::fs::File>, FileError> {
    match open_regular(path, true) {
        Ok(file) => Ok(Some(file)),
        Err(err) if err.is_not_found() => Ok(None),
        Err(err) => Err(err),
    }
}

/// [`read`] as UTF-8 text (invalid sequences replaced).
pub fn read_text(path: &Path, limit: u64) -> Result<Option<String>, FileError> {
    Ok(read(path, limit)?.map(text))
}

/// Reads a file a project or a plugin supplies: like [`read`], and a link is followed only
/// while it stays inside `root`; the file itself is opened `O_NOFOLLOW`.
pub fn read_within(path: &Path, root: &Path, limit: u64) -> Result<Option<Vec<u8>>, FileError> {
    let real_root = match root.canonicalize() {
        Ok(root) => root,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(FileError::Io {
                path: root.to_path_buf(),
                source,
            })
        }
    };
    let real = match path.canonicalize() {
        Ok(real) => real,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(FileError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    if !real.starts_with(&real_root) {
        return Err(FileError::LeavesRoot {
            path: path.to_path_buf(),
            root: root.to_path_buf(),
            target: real,
        });
    }
    let file = open_regular(&real, true).map_err(|err| match err {
        FileError::Io { source, .. } => FileError::Io {
            path: path.to_path_buf(),
            source,
        },
        FileError::NotRegular { kind, .. } => FileError::NotRegular {
            path: path.to_path_buf(),
            kind,
        },
        other => other,
    })?;
    bounded(path, file, limit).map(Some)
}

/// [`read_within`] as UTF-8 text.
pub fn read_text_within(path: &Path, root: &Path, limit: u64) -> Result<Option<String>, FileError> {
    Ok(read_within(path, root, limit)?.map(text))
}

/// Bytes as UTF-8 text, invalid sequences replaced.
fn text(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
    }
}

/// `file` when it is a regular file.
fn regular(path: &Path, file: std::fs::File) -> Result<std::fs::File, FileError> {
    let meta = file.metadata().map_err(|source| FileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    match kind_of(meta.file_type()) {
        Some(kind) => Err(FileError::NotRegular {
            path: path.to_path_buf(),
            kind,
        }),
        None => Ok(file),
    }
}

fn open_regular(path: &Path, no_follow: bool) -> Result<std::fs::File, FileError> {
    let io = |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a
        // writer; fstat then refuses it.
        let mut flags = libc_flags::O_NONBLOCK | libc_flags::O_CLOEXEC;
        if no_follow {
            flags |= libc_flags::O_NOFOLLOW;
        }
        options.custom_flags(flags);
    }
    #[cfg(windows)]
    if no_follow {
        use std::os::windows::fs::OpenOptionsExt;
        // The link itself is opened, not its target: `regular` then sees a link and refuses
        // it. (Windows has no FIFO at a path: a named pipe lives under \\.\pipe\.)
        options.custom_flags(windows_flags::FILE_FLAG_OPEN_REPARSE_POINT);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        // O_NOFOLLOW on a link: ELOOP.
        Err(err) if no_follow && link_refused(&err) => {
            return Err(FileError::NotRegular {
                path: path.to_path_buf(),
                kind: FileKind::Link,
            })
        }
        Err(err) => return Err(io(err)),
    };
    regular(path, file)
}

fn bounded(path: &Path, file: std::fs::File, limit: u64) -> Result<Vec<u8>, FileError> {
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| FileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(bytes)
}

/// Opens (creating it `0600` when missing) a file that is only ever locked, never written:
/// `O_NOFOLLOW`, so that a link planted at its name is refused, not opened; regular only.
pub fn open_lock(path: &Path) -> Result<std::fs::File, FileError> {
    let io = |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .mode(0o600)
            .custom_flags(libc_flags::O_NOFOLLOW | libc_flags::O_NONBLOCK | libc_flags::O_CLOEXEC);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        options.custom_flags(windows_flags::FILE_FLAG_OPEN_REPARSE_POINT);
    }
    let file = options.open(path).map_err(io)?;
    regular(path, file)
}

/// Creates `dir` (and what is missing above it) `0700`, for the app's own data.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Whether an open refused because the last component is a link (`O_NOFOLLOW` gives `ELOOP`;
/// on Windows the link itself opens instead, and `regular` refuses it).
fn link_refused(err: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        err.raw_os_error() == Some(libc_flags::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = err;
        false
    }
}

/// The `CreateFileW` flag this module needs on Windows, without a `windows-sys` dependency.
#[cfg(windows)]
mod windows_flags {
    /// Open a link (a reparse point) itself rather than what it points to.
    pub const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
}

/// The open(2) flags this module needs, for Linux (the only Unix the app ships for) and the
/// BSDs/macOS, without a `libc` dependency.
#[cfg(unix)]
mod libc_flags {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    mod values {
        pub const O_NOFOLLOW: i32 = 0o400000;
        pub const O_NONBLOCK: i32 = 0o4000;
        pub const O_CLOEXEC: i32 = 0o2000000;
        pub const ELOOP: i32 = 40;
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    mod values {
        pub const O_NOFOLLOW: i32 = 0x0100;
        pub const O_NONBLOCK: i32 = 0x0004;
        pub const O_CLOEXEC: i32 = 0x0100_0000;
        pub const ELOOP: i32 = 62;
    }
    pub use values::*;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn a_planted_link_at_any_temporary_name_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("bashrc");
        std::fs::write(&victim, "mine\n").unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir(&project).unwrap();
        // The old names: `<name>.tmp`, `<name>.json.tmp`, `.<name>.tmp`.
        for planted in ["smoke.json.tmp", "smoke.tmp", ".smoke.json.tmp"] {
            symlink(&victim, project.join(planted)).unwrap();
        }
        let target = project.join("smoke.json");
        write(
            &target,
            b"{}",
            &Write::new(Mode::SharedOrKept).within(&project),
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine\n");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}");
        let left: Vec<_> = std::fs::read_dir(&project)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| {
                n.ends_with(".tmp")
                    && !n.starts_with(".smoke.json.tmp")
                    && n != "smoke.json.tmp"
                    && n != "smoke.tmp"
            })
            .collect();
        assert!(left.is_empty(), "no temporary file is left: {left:?}");
    }

    #[test]
    fn a_target_or_folder_linking_out_of_the_root_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("victim.json"), "mine").unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir(&project).unwrap();
        symlink(outside.join("victim.json"), project.join("smoke.json")).unwrap();
        symlink(&outside, project.join(".mcp-collections")).unwrap();
        let how = Write::new(Mode::SharedOrKept).within(&project);
        let err = write(&project.join("smoke.json"), b"x", &how).unwrap_err();
        assert!(matches!(err, FileError::LeavesRoot { .. }), "{err}");
        assert!(err.to_string().contains("so it was left alone"), "{err}");
        let err = write(&project.join(".mcp-collections/new.json"), b"x", &how).unwrap_err();
        assert!(matches!(err, FileError::LeavesRoot { .. }), "{err}");
        let err = write(
            &project.join(".mcp-collections/deeper/new.json"),
            b"x",
            &how,
        )
        .unwrap_err();
        assert!(matches!(err, FileError::LeavesRoot { .. }), "{err}");
        assert_eq!(
            std::fs::read_to_string(outside.join("victim.json")).unwrap(),
            "mine"
        );
        assert!(!outside.join("new.json").exists() && !outside.join("deeper").exists());
        // A link that stays inside is written through, and survives.
        std::fs::create_dir(project.join("real")).unwrap();
        symlink(project.join("real/a.json"), project.join("a.json")).unwrap();
        std::fs::write(project.join("real/a.json"), "old").unwrap();
        write(&project.join("a.json"), b"new", &how).unwrap();
        assert!(std::fs::symlink_metadata(project.join("a.json"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            std::fs::read_to_string(project.join("real/a.json")).unwrap(),
            "new"
        );
    }

    #[test]
    fn modes_are_final_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("p.json");
        write(&private, b"x", &Write::private()).unwrap();
        assert_eq!(mode(&private), 0o600);
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o644)).unwrap();
        write(&private, b"y", &Write::private()).unwrap();
        assert_eq!(mode(&private), 0o600, "private is narrowed");
        let kept = dir.path().join("k.json");
        std::fs::write(&kept, "x").unwrap();
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).unwrap();
        write(&kept, b"y", &Write::new(Mode::PrivateOrKept)).unwrap();
        assert_eq!(mode(&kept), 0o640, "an existing file keeps its mode");
        let fresh = dir.path().join("f.json");
        write(&fresh, b"y", &Write::new(Mode::PrivateOrKept)).unwrap();
        assert_eq!(mode(&fresh), 0o600);
    }

    #[test]
    fn a_fifo_or_device_target_is_refused_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.json");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let err = write(&fifo, b"x", &Write::private()).unwrap_err();
        assert!(
            matches!(
                err,
                FileError::NotRegular {
                    kind: FileKind::Fifo,
                    ..
                }
            ),
            "{err}"
        );
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo_like());
    }

    trait FifoLike {
        fn is_fifo_like(&self) -> bool;
    }
    impl FifoLike for std::fs::FileType {
        fn is_fifo_like(&self) -> bool {
            use std::os::unix::fs::FileTypeExt;
            self.is_fifo()
        }
    }

    #[test]
    fn reads_refuse_devices_fifos_and_giants_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let zero = dir.path().join("zero.json");
        symlink("/dev/zero", &zero).unwrap();
        let err = read(&zero, READ_LIMIT).unwrap_err();
        assert!(
            matches!(
                err,
                FileError::NotRegular {
                    kind: FileKind::Device,
                    ..
                }
            ),
            "{err}"
        );
        let fifo = dir.path().join("fifo.json");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let err = read(&fifo, READ_LIMIT).unwrap_err();
        assert!(
            matches!(
                err,
                FileError::NotRegular {
                    kind: FileKind::Fifo,
                    ..
                }
            ),
            "{err}"
        );
        let big = dir.path().join("big.json");
        std::fs::write(&big, vec![b' '; 2048]).unwrap();
        let err = read(&big, 1024).unwrap_err();
        assert!(err.to_string().contains("larger than"), "{err}");
        assert_eq!(read(&big, 2048).unwrap().unwrap().len(), 2048);
        assert!(read(&dir.path().join("missing"), 10).unwrap().is_none());
    }

    #[test]
    fn project_reads_stay_in_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir(&project).unwrap();
        std::fs::write(dir.path().join("secret"), "s").unwrap();
        symlink(dir.path().join("secret"), project.join("c.json")).unwrap();
        let err = read_within(&project.join("c.json"), &project, READ_LIMIT).unwrap_err();
        assert!(matches!(err, FileError::LeavesRoot { .. }), "{err}");
        std::fs::write(project.join("real.json"), "r").unwrap();
        symlink(project.join("real.json"), project.join("inner.json")).unwrap();
        assert_eq!(
            read_within(&project.join("inner.json"), &project, READ_LIMIT)
                .unwrap()
                .unwrap(),
            b"r"
        );
    }
}
