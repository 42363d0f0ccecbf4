//! Files and folders only their owner may read.
//!
//! The app's data folder holds the history of calls (arguments and results, which may carry
//! anything a server returned) and the results a person saved; exported client configurations
//! hold commands and environments. On a machine with other users, `0644` files in `0755`
//! folders hand all of that to them. Everything the app creates for itself is `0700` (folders)
//! and `0600` (files), created with that mode rather than narrowed afterwards, so that nothing
//! is readable by others even for a moment.

use std::path::Path;

use crate::files;

/// Creates `dir` (and what is missing above it) and makes it `0700`.
pub fn dir(dir: &Path) -> std::io::Result<()> {
    files::private_dir(dir)
}

/// Writes `bytes` to `path` whole or not at all, `0600` (an existing file is narrowed to
/// `0600`), through [`files::write`].
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    files::write(path, bytes, &files::Write::private()).map_err(files::FileError::into_io)
}

/// Writes `bytes` to `path` like [`write`], refusing a path that leads out of `root` (the
/// app's data folder, for a name that came from elsewhere).
pub fn write_within(path: &Path, root: &Path, bytes: &[u8]) -> std::io::Result<()> {
    files::write(path, bytes, &files::Write::private().within(root))
        .map_err(files::FileError::into_io)
}

/// Makes an existing file `0600`; a missing one is left missing.
pub fn narrow(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if path.exists() {
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}
