//! A local server's process: spawned in its own process group, its exit watched by a task
//! that owns the child, and ended by us (SIGTERM to the group, then SIGKILL).

use super::*;

/// "status 3; stderr = …", "signal 9 (SIGKILL); no output on stderr".
pub(crate) fn exit_detail(status: Option<ExitStatus>, tail: &str) -> String {
    let how = match status {
        Some(status) => match status.code() {
            Some(code) => format!("status {code}"),
            None => {
                #[cfg(unix)]
                {
                    use std::os::unix::process::ExitStatusExt;
                    match status.signal() {
                        Some(signal) => format!("signal {signal}"),
                        None => "an unknown status".into(),
                    }
                }
                #[cfg(not(unix))]
                {
                    "an unknown status".to_string()
                }
            }
        },
        None => "an unknown status".into(),
    };
    format!("{how}; {}", stderr_or_nothing(tail))
}

/// Variables this program put in its own environment for its own sake (the window's WebKit
/// settings), not the person's. What it starts (a server, a helper) is given the environment
/// the person started it with, as Claude Code passes on its own.
static OWN_SETTINGS: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

/// Keeps `name`, which this program set for itself, out of what it starts.
pub fn keep_from_servers(name: &'static str) {
    let mut names = OWN_SETTINGS.lock().unwrap_or_else(|e| e.into_inner());
    if !names.contains(&name) {
        names.push(name);
    }
}

/// Takes the variables of [`keep_from_servers`] out of `cmd`'s environment.
pub(crate) fn without_own_settings(cmd: &mut tokio::process::Command) {
    for name in OWN_SETTINGS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
    {
        cmd.env_remove(name);
    }
}

/// How a local server's process is started, by a session and by the doctor alike: in the
/// project folder, with the entry's `env` over ours, its three pipes taken, killed when
/// dropped.
pub fn server_process(
    program: &std::ffi::OsStr,
    args: &[String],
    env: &[(String, String)],
    project: &Path,
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(program);
    // First, so that an entry's own `env` can still set one of them.
    without_own_settings(&mut cmd);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .current_dir(project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own process group, so that shutdown reaches whatever it starts (npx → node).
    #[cfg(unix)]
    cmd.process_group(0);
    // On Windows its tree is ended by `end_tree`; CREATE_NO_WINDOW keeps a server started from
    // the window from opening a console of its own.
    #[cfg(windows)]
    cmd.creation_flags(0x0800_0000);
    // Should this process die without shutting down (SIGKILL, a crash), the server is told
    // with SIGTERM instead of living on as an orphan.
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(2) is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    cmd
}

/// A local server's process: its exit is watched by a task that owns the child.
pub(super) struct Process {
    pub(super) pid: Option<u32>,
    exit: watch::Receiver<Option<Option<ExitStatus>>>,
}

impl Process {
    pub(super) fn watch(mut child: tokio::process::Child, pid: Option<u32>) -> Process {
        let (tx, exit) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await.ok();
            let _ = tx.send(Some(status));
        });
        Process { pid, exit }
    }

    /// How it ended, once it has.
    pub(super) async fn wait(&self) -> Option<ExitStatus> {
        let mut exit = self.exit.clone();
        let status = match exit.wait_for(Option::is_some).await {
            Ok(status) => status.flatten(),
            Err(_) => None,
        };
        status
    }

    pub(super) async fn wait_for_exit(&self, limit: Duration) -> Option<ExitStatus> {
        tokio::time::timeout(limit, self.wait())
            .await
            .ok()
            .flatten()
    }

    pub(super) fn has_exited(&self) -> bool {
        self.exit.borrow().is_some()
    }

    pub(super) fn signal_group(&self, signal: i32) {
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            // SAFETY: kill(2) on the process group our child leads; no memory is involved.
            unsafe { libc::kill(-(pid as i32), signal) };
        }
        #[cfg(windows)]
        if let Some(pid) = self.pid {
            // No signals: the server and everything it started end at once.
            let _ = signal;
            end_tree(pid, true);
        }
    }

    /// SIGTERM to the group, then SIGKILL after [`TERM_GRACE`].
    pub(super) async fn terminate(&self) {
        #[cfg(unix)]
        {
            if !self.has_exited() {
                self.signal_group(libc::SIGTERM);
                if self.wait_for_exit(TERM_GRACE).await.is_none() && !self.has_exited() {
                    self.signal_group(libc::SIGKILL);
                    let _ = self.wait_for_exit(TERM_GRACE).await;
                }
            }
            // Children of the server that ignored the group's SIGTERM do not survive either.
            self.signal_group(libc::SIGKILL);
        }
        #[cfg(windows)]
        if let Some(pid) = self.pid {
            if !self.has_exited() {
                // Asked to close first (a console server may ignore it), then ended.
                end_tree(pid, false);
                if self.wait_for_exit(TERM_GRACE).await.is_none() && !self.has_exited() {
                    end_tree(pid, true);
                    let _ = self.wait_for_exit(TERM_GRACE).await;
                }
            }
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        #[cfg(unix)]
        self.signal_group(libc::SIGKILL);
        #[cfg(windows)]
        if !self.has_exited() {
            self.signal_group(9);
        }
    }
}

/// Windows has no process groups to signal: `taskkill /T` ends the server and the processes it
/// started (npx → node), with `/F` at once. The one place the platforms differ in ending a
/// server.
#[cfg(windows)]
fn end_tree(pid: u32, force: bool) {
    let mut taskkill = std::process::Command::new("taskkill");
    taskkill.args(["/PID", &pid.to_string(), "/T"]);
    if force {
        taskkill.arg("/F");
    }
    let _ = taskkill
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    async fn seen_by_server(env: &[(String, String)]) -> String {
        let args = [
            "-c".to_string(),
            "printf %s \"${MCP_TEST_OWN_SETTING-unset}\"".to_string(),
        ];
        let output = server_process("sh".as_ref(), &args, env, Path::new("/"))
            .output()
            .await
            .expect("sh runs");
        String::from_utf8(output.stdout).expect("utf-8")
    }

    #[tokio::test]
    async fn what_the_app_set_for_its_window_does_not_reach_a_server() {
        // As main does for WebKit's variables: set for this process, then kept from servers.
        std::env::set_var("MCP_TEST_OWN_SETTING", "the app's");
        assert_eq!(
            seen_by_server(&[]).await,
            "the app's",
            "inherited until kept back"
        );
        keep_from_servers("MCP_TEST_OWN_SETTING");
        assert_eq!(seen_by_server(&[]).await, "unset");
        // An entry that sets it itself still does.
        let own = [(
            "MCP_TEST_OWN_SETTING".to_string(),
            "the entry's".to_string(),
        )];
        assert_eq!(seen_by_server(&own).await, "the entry's");
    }
}
