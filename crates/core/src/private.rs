//! Files and folders only their owner may read.
//!
//! The app's data folder holds the history of calls (arguments and results, which may carry
//! anything a server returned) and the results a person saved; exported client configurations
//! hold commands and environments. On a machine with other users, `0644` files in `0755`
//! folders hand all of that to them. Everything the app creates for itself is `0700` (folders)
//! and `0600` (files), created with that mode rather than narrowed afterwards, so that nothing
//! is readable by others even for a moment.

use std::io::Write;
use std::path::Path;

/// Creates `dir` (and what is missing above it) and makes it `0700`.
pub fn dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Writes `bytes` to `path`, created `0600` (an existing file is narrowed to `0600` first).
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    narrow(path);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(bytes)
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
