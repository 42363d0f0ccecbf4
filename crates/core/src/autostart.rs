//! Starting the keeper when the person logs in to their desktop: an XDG autostart entry
//! (`$XDG_CONFIG_HOME/autostart/dev.mcp-manager.app.desktop`, else `~/.config/autostart/…`),
//! which every freedesktop session (GNOME, KDE, Xfce, …) runs at login. It starts
//! `mcp-manager --background`: the tray and the keeper, the window hidden until asked for.
//!
//! The entry is ours alone: it is written whole when switched on and removed when switched
//! off, and an entry of that name that is not ours (no `X-MCP-Manager-Autostart` key) is
//! neither overwritten nor removed.

use std::path::{Path, PathBuf};

use crate::files;
use crate::Locations;

/// The key that marks an autostart entry as written by MCP Manager.
const MARK: &str = "X-MCP-Manager-Autostart=true";

/// Where the entry lives.
pub fn entry_path(locations: &Locations) -> PathBuf {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .unwrap_or_else(|| locations.home.join(".config"));
    config
        .join("autostart")
        .join(format!("{}.desktop", crate::locations::APP_IDENTIFIER))
}

/// The entry, starting `program`.
///
/// The Desktop Entry Specification reads `Exec` twice: first as a string (where `\\` is one
/// backslash), then as a command line (where an argument holding a reserved character is
/// double-quoted, and `"`, `` ` ``, `$` and `\` are backslash-escaped inside the quotes), and
/// `%` starts a field code everywhere (`%%` is one `%`). So a path is quoted when it holds a
/// reserved character, escaped for the quotes, then every backslash doubled for the string.
/// A path with a control character is refused by [`set`] (a line break would start a line of
/// its own).
pub fn entry(program: &Path) -> String {
    const RESERVED: &[char] = &[
        ' ', '\t', '"', '\'', '\\', '>', '<', '~', '|', '&', ';', '$', '*', '?', '#', '(', ')', '`',
    ];
    let exec = program.display().to_string().replace('%', "%%");
    let exec = if exec.contains(RESERVED) {
        let quoted: String = exec
            .chars()
            .flat_map(|c| match c {
                '"' | '`' | '$' | '\\' => vec!['\\', c],
                c => vec![c],
            })
            .collect();
        format!("\"{quoted}\"")
    } else {
        exec
    };
    let exec = exec.replace('\\', "\\\\");
    format!(
        "[Desktop Entry]\nType=Application\nName=MCP Manager\nComment=Keeps your MCP servers' logins fresh, in the tray\nExec={exec} --background\nIcon=mcp-manager\nTerminal=false\nX-GNOME-Autostart-enabled=true\n{MARK}\n"
    )
}

/// Whether MCP Manager starts at login.
pub fn enabled(locations: &Locations) -> bool {
    ours(&entry_path(locations))
}

fn ours(path: &Path) -> bool {
    files::read_text(path, 64 * 1024)
        .ok()
        .flatten()
        .is_some_and(|text| text.lines().any(|line| line.trim() == MARK))
}

/// What went wrong switching it.
#[derive(Debug, thiserror::Error)]
pub enum AutostartError {
    #[error("{} is an autostart entry MCP Manager did not write: it was left as it is; remove it yourself to let MCP Manager manage starting at login", .0.display())]
    NotOurs(PathBuf),
    #[error("this program's path, {0:?}, holds a control character or a %, which an autostart entry cannot name: move MCP Manager to a plainer folder to start it at login")]
    OddPath(PathBuf),
    #[error(transparent)]
    File(#[from] files::FileError),
}

/// Switches starting at login on (starting `program`) or off.
pub fn set(locations: &Locations, on: bool, program: &Path) -> Result<(), AutostartError> {
    let path = entry_path(locations);
    let exists = files::read(&path, 64 * 1024)?.is_some();
    if exists && !ours(&path) {
        return Err(AutostartError::NotOurs(path));
    }
    if on {
        // `%` is written `%%` as the specification says, but GLib looks for the program by
        // the written name and starts nothing: refused, rather than switched on in name only.
        if program
            .to_string_lossy()
            .chars()
            .any(|c| c.is_control() || c == '%')
        {
            return Err(AutostartError::OddPath(program.to_path_buf()));
        }
        let how = files::Write::new(files::Mode::Private).create_folder(true);
        files::write(&path, entry(program).as_bytes(), &how)?;
    } else if exists {
        std::fs::remove_file(&path).map_err(|source| files::FileError::Io {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_starts_the_program_in_the_background_quoted_as_desktop_entries_want() {
        let plain = entry(Path::new("/usr/bin/mcp-manager"));
        assert!(
            plain.contains("\nExec=/usr/bin/mcp-manager --background\n"),
            "{plain}"
        );
        let spaced = entry(Path::new("/opt/My Apps/mcp-manager"));
        assert!(
            spaced.contains("\nExec=\"/opt/My Apps/mcp-manager\" --background\n"),
            "{spaced}"
        );
        // `\$` on the command line, its backslash doubled in the string.
        let odd = entry(Path::new("/opt/a$b/mcp"));
        assert!(
            odd.contains("Exec=\"/opt/a\\\\$b/mcp\" --background"),
            "{odd}"
        );
        let percent = entry(Path::new("/opt/100%free/mcp"));
        assert!(
            percent.contains("Exec=/opt/100%%free/mcp --background"),
            "{percent}"
        );
        let quote = entry(Path::new("/opt/a\"b&c/mcp"));
        assert!(
            quote.contains("Exec=\"/opt/a\\\\\"b&c/mcp\" --background"),
            "{quote}"
        );
    }

    #[test]
    fn a_program_path_with_a_line_break_is_refused_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let locations = Locations::new(dir.path().to_path_buf(), None, dir.path()).unwrap();
        std::env::remove_var("XDG_CONFIG_HOME");
        let program = Path::new("/x\nExec=/bin/sh -c 'touch /tmp/injected'\nX=/mcp");
        assert!(matches!(
            set(&locations, true, program),
            Err(AutostartError::OddPath(_))
        ));
        assert!(!entry_path(&locations).exists());
    }

    #[test]
    fn switching_on_and_off_writes_and_removes_only_our_entry() {
        let dir = tempfile::tempdir().unwrap();
        let locations = Locations::new(dir.path().to_path_buf(), None, dir.path()).unwrap();
        std::env::remove_var("XDG_CONFIG_HOME");
        let program = Path::new("/usr/bin/mcp-manager");
        assert!(!enabled(&locations));
        set(&locations, true, program).unwrap();
        assert!(enabled(&locations));
        let path = entry_path(&locations);
        assert_eq!(
            path,
            dir.path()
                .join(".config/autostart/dev.mcp-manager.app.desktop")
        );
        set(&locations, false, program).unwrap();
        assert!(!path.exists());
        // Someone else's entry of that name is neither replaced nor removed.
        std::fs::write(&path, "[Desktop Entry]\nExec=/bin/other\n").unwrap();
        assert!(matches!(
            set(&locations, true, program),
            Err(AutostartError::NotOurs(_))
        ));
        assert!(matches!(
            set(&locations, false, program),
            Err(AutostartError::NotOurs(_))
        ));
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[Desktop Entry]\nExec=/bin/other\n"
        );
    }
}
