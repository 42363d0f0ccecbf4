//! A repository that commits a device, a FIFO or a giant where `.mcp.json` or a settings file
//! is expected, against `mcpctl` as a whole process: every read of a project file is bounded
//! and regular (`mcp_manager_core::files`), and answers at once. (Links planted for a write:
//! `collections.rs`.)

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let project = root.join("home/code/repo");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        World {
            _dir: dir,
            home,
            project,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
        command
            .arg("--project")
            .arg(&self.project)
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("MCP_MANAGER_MANAGED_DIR", self.home.join("managed"))
            .stdin(Stdio::null());
        command
    }

    /// Runs with a deadline: a read that blocks (a FIFO) or never ends (/dev/zero) fails the
    /// test instead of hanging it.
    fn run_within(&self, args: &[&str], limit: Duration) -> Output {
        let mut child = self
            .command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                panic!("mcpctl {args:?} did not return within {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().unwrap()
    }
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A committed `.mcp.json -> /dev/zero` once took 8.4 GB in 21 s; a FIFO hung the process.
#[test]
fn a_device_or_fifo_as_mcp_json_is_reported_at_once() {
    let world = World::new();
    std::os::unix::fs::symlink("/dev/zero", world.project.join(".mcp.json")).unwrap();
    let out = world.run_within(&["list"], Duration::from_secs(20));
    assert!(
        said(&out).contains(".mcp.json") && said(&out).contains("a device, not a regular file"),
        "{}",
        said(&out)
    );
    std::fs::remove_file(world.project.join(".mcp.json")).unwrap();
    let fifo = world.project.join(".mcp.json");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = world.run_within(&["list"], Duration::from_secs(20));
    assert!(
        said(&out).contains("a named pipe (FIFO), not a regular file"),
        "{}",
        said(&out)
    );
    // Settings files too.
    std::fs::create_dir_all(world.project.join(".claude")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", world.project.join(".claude/settings.json")).unwrap();
    let out = world.run_within(&["list"], Duration::from_secs(20));
    assert!(said(&out).contains("settings.json"), "{}", said(&out));
}

#[test]
fn a_giant_mcp_json_is_refused_with_its_size() {
    let world = World::new();
    let file = std::fs::File::create(world.project.join(".mcp.json")).unwrap();
    file.set_len(17 * 1024 * 1024).unwrap();
    let out = world.run_within(&["list"], Duration::from_secs(20));
    assert!(said(&out).contains("larger than 16 MiB"), "{}", said(&out));
}

/// Names come from files anyone can write (a project's `.mcp.json`, its agent files): one that
/// carries a terminal escape or a carriage return is printed with them removed, so it cannot
/// set the clipboard (OSC 52), clear the screen or write over the line printed before it.
#[test]
fn names_with_terminal_escapes_are_printed_inert() {
    let world = World::new();
    std::fs::write(
        world.project.join(".mcp.json"),
        serde_json::json!({"mcpServers": {
            "evil\u{1b}]52;c;cm0gLXJmIH4=\u{7}": {"command": "node"},
            "ok\rtrusted-server": {"command": "node"},
            "\u{1b}[2Jclear": {"command": "node"},
            "c1\u{9b}2Jbidi\u{202e}txt.exe": {"command": "node"}
        }})
        .to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(world.project.join(".claude/agents")).unwrap();
    std::fs::write(
        world.project.join(".claude/agents/a.md"),
        "---\nname: \"helper\\e[1A\\rowned\"\nmcpServers:\n  - \"x\\e]52;c;Zm9v\\a\":\n      command: node\n  - \"y\\u202Ez\":\n      command: node\n---\n",
    )
    .unwrap();
    for args in [
        &["list"][..],
        &["agents"],
        &["get", "ok\rtrusted-server"],
        &["list", "--json"],
        &["agents", "--json"],
    ] {
        let out = world.run_within(args, Duration::from_secs(20));
        let text = said(&out);
        assert!(
            text.contains("evil") || text.contains("helper") || text.contains("trusted-server"),
            "{args:?}: {text}"
        );
        for bad in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
            assert!(!text.contains(bad), "{args:?} printed {bad:?}: {text:?}");
        }
        assert!(
            !text.replace("\r\n", "\n").contains('\r'),
            "{args:?} printed a carriage return: {text:?}"
        );
        if args.contains(&"--json") {
            // Escaped, not lost: the JSON still carries the name as it is.
            let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(value.to_string().contains('\u{202e}'), "{args:?}");
        }
    }
}
