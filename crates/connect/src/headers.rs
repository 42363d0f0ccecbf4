//! `headersHelper`: a command whose output supplies a remote server's headers, for tokens
//! that expire (as in Claude Code). It runs through the shell in the project folder, with
//! `CLAUDE_CODE_MCP_SERVER_NAME` and `CLAUDE_CODE_MCP_SERVER_URL` set, and must print a JSON
//! object of string values within [`HELPER_TIMEOUT`]; its headers win over the static ones.
//!
//! A project's helper was written by whoever commits to the repository. It runs only in a
//! trusted folder (the supervisor checks), and with [`Environment::Scrubbed`]: no variable
//! whose name says it holds a credential, and none that leads to the person's keychain or
//! agents: `DBUS_SESSION_BUS_ADDRESS`, and `XDG_RUNTIME_DIR` (the bus is also found as
//! `$XDG_RUNTIME_DIR/bus`), the display (a bus can be autolaunched through X11),
//! `SSH_AUTH_SOCK`, `GPG_AGENT_INFO`, the keyring's control folder, cloud credentials.
//!
//! The scrub is best effort, not a sandbox: the helper runs as the person, so it can still
//! open `/run/user/<uid>/bus` or `~/.aws` by their usual paths. What it removes is what a
//! program finds without looking; trust is what keeps a hostile helper from running at all.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

/// How long a helper may run.
pub const HELPER_TIMEOUT: Duration = Duration::from_secs(10);

/// What a helper's process inherits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Environment {
    /// The app's whole environment: a helper the person wrote (user and local scope).
    Inherited,
    /// Without credentials: a helper that came with a project.
    Scrubbed,
}

/// Whether a variable is kept from a project's helper (best effort: see the module's doc).
pub fn withheld(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    mcp_manager_core::secrets::name_says_secret(name)
        || [
            "DBUS_SESSION_BUS_ADDRESS",
            "XDG_RUNTIME_DIR",
            "DISPLAY",
            "WAYLAND_DISPLAY",
            "XAUTHORITY",
            "GNOME_KEYRING_CONTROL",
            "SSH_AUTH_SOCK",
            "GPG_AGENT_INFO",
            "KRB5CCNAME",
        ]
        .contains(&upper.as_str())
        || [
            "AWS_",
            "AZURE_",
            "GOOGLE_",
            "GCLOUD_",
            "GH_",
            "GITHUB_",
            "ANTHROPIC_",
            "OPENAI_",
            "NPM_CONFIG_",
        ]
        .iter()
        .any(|prefix| upper.starts_with(prefix))
        || upper.contains("PASS")
}

/// Runs the helper and returns its headers, or why it failed.
pub async fn run_helper(
    helper: &str,
    server: &str,
    url: &str,
    project: &Path,
    timeout: Duration,
    environment: Environment,
) -> Result<Vec<(String, String)>, String> {
    let mut command = if cfg!(windows) {
        let mut c = tokio::process::Command::new("cmd");
        c.arg("/C").arg(helper);
        c
    } else {
        let mut c = tokio::process::Command::new("sh");
        c.arg("-c").arg(helper);
        c
    };
    if environment == Environment::Scrubbed {
        command.env_clear();
        command.envs(std::env::vars_os().filter(|(name, _)| !withheld(&name.to_string_lossy())));
    }
    // After the scrubbed environment is copied from ours, so that it leaves them out too.
    crate::connection::without_own_settings(&mut command);
    command
        .current_dir(project)
        .env("CLAUDE_CODE_MCP_SERVER_NAME", server)
        .env("CLAUDE_CODE_MCP_SERVER_URL", url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = command
        .spawn()
        .map_err(|err| format!("headersHelper could not start: {err}"))?;
    let output = tokio::time::timeout(timeout, child.wait_with_output())
        .await
        .map_err(|_| {
            format!(
                "headersHelper did not finish within {}s",
                timeout.as_secs_f32()
            )
        })?
        .map_err(|err| format!("headersHelper failed: {err}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "headersHelper exited with {}: {}",
            output.status,
            stderr.trim()
        ));
    }
    let value: Value = serde_json::from_slice(&output.stdout)
        .map_err(|err| format!("headersHelper must print a JSON object of headers: {err}"))?;
    let object = value
        .as_object()
        .ok_or("headersHelper must print a JSON object of headers")?;
    object
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), s.clone())),
            _ => Err(format!("headersHelper: header \"{k}\" must be a string")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::withheld;

    #[test]
    fn the_doors_to_the_session_bus_and_agents_are_withheld() {
        for name in [
            "DBUS_SESSION_BUS_ADDRESS",
            "XDG_RUNTIME_DIR",
            "DISPLAY",
            "WAYLAND_DISPLAY",
            "SSH_AUTH_SOCK",
            "GITHUB_TOKEN",
            "MY_API_TOKEN",
        ] {
            assert!(withheld(name), "{name} leads to a credential");
        }
        for name in ["PATH", "HOME", "LANG", "TMPDIR"] {
            assert!(
                !withheld(name),
                "{name} is an ordinary variable a helper needs"
            );
        }
    }
}
