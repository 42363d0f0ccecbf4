//! A stdio server's checks: the command, the folder, the process, its `initialize` answer and
//! what else it writes on stdout.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_manager_core::config::entry::{ServerConfig, Transport};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::{session, Check, Checks};

/// How many lines of stderr a failure shows.
const STDERR_LINES: usize = 10;

pub(crate) async fn examine(
    checks: &mut Checks,
    config: &ServerConfig,
    project: &Path,
    timeout: Duration,
) {
    let Transport::Stdio { command, args, env } = &config.transport else {
        return;
    };
    let path_var = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("PATH").ok())
        .unwrap_or_default();
    let resolved = match resolve(command, &path_var, project) {
        Ok(found) => found,
        Err(check) => {
            checks.push(check);
            return;
        }
    };
    if !checks.push(Check::passed(
        "command",
        "The command resolves",
        vec![format!("{command} → {}", resolved.display())],
    )) {
        return;
    }
    if !project.is_dir() {
        checks.push(Check::failed(
            "folder",
            "The working folder exists",
            vec![format!("{} is not a folder", project.display())],
            "Open the project from a folder that exists; servers start in it.".into(),
        ));
        return;
    }
    checks.push(Check::passed(
        "folder",
        "The working folder exists",
        vec![format!("starts in {}", project.display())],
    ));
    let line = std::iter::once(command.as_str())
        .chain(args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let mut child = match mcp_manager_connect::connection::server_process(
        resolved.as_os_str(),
        args,
        env,
        project,
    )
    .spawn()
    {
        Ok(child) => child,
        Err(err) => {
            checks.push(Check::failed(
                "start",
                "The process starts",
                vec![format!("{line}: {err}")],
                "Check that the command is a program you may run (permissions, interpreter line)."
                    .into(),
            ));
            return;
        }
    };
    let pid = child.id();
    let stderr = child.stderr.take().map(|mut pipe| {
        tokio::spawn(async move {
            let mut text = Vec::new();
            let _ = (&mut pipe).take(256 * 1024).read_to_end(&mut text).await;
            String::from_utf8_lossy(&text).into_owned()
        })
    });
    let mut talk = Talk {
        stdin: child.stdin.take().expect("piped"),
        stdout: BufReader::new(child.stdout.take().expect("piped")),
        garbage: Vec::new(),
        garbage_count: 0,
    };
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "mcp-manager-doctor", "version": env!("CARGO_PKG_VERSION")}
        }
    });
    let asked = std::time::Instant::now();
    let answer = talk.ask(&initialize, 1, timeout).await;
    let answered_in = asked.elapsed();
    let answer = match answer {
        Answer::Result(result) => result,
        Answer::Closed => {
            let status = exit_status(&mut child).await;
            let tail = stderr_tail(stderr).await;
            let mut evidence = vec![format!(
                "{line} exited {status} before answering initialize"
            )];
            evidence.extend(tail);
            checks.push(Check::failed(
                "start",
                "The process starts and stays up",
                evidence,
                format!("Run `{line}` in a terminal to see why it stops, and fix that."),
            ));
            return;
        }
        Answer::Silent => {
            end(&mut child, pid).await;
            let mut evidence = vec![format!(
                "{line} runs, but sent no answer to initialize within {} s",
                timeout.as_secs_f64()
            )];
            if talk.garbage_count > 0 {
                evidence.push(format!(
                    "{} lines on stdout were not JSON-RPC",
                    talk.garbage_count
                ));
                evidence.extend(talk.garbage.iter().map(|l| format!("stdout: {l}")));
            }
            evidence.extend(stderr_tail(stderr).await);
            checks.push(started(pid));
            checks.push(Check::failed(
                "initialize",
                "It answers initialize",
                evidence,
                "Check that the command starts an MCP server on stdio (some need an argument such as `stdio`), or raise MCP_TIMEOUT if it is slow to start.".into(),
            ));
            return;
        }
        Answer::Error(error) => {
            end(&mut child, pid).await;
            checks.push(started(pid));
            checks.push(Check::failed(
                "initialize",
                "It answers initialize",
                vec![format!("error: {error}")],
                "The server refused to start a session: read its error above and its documentation.".into(),
            ));
            return;
        }
    };
    checks.push(started(pid));
    let server = format!(
        "{} {}",
        answer["serverInfo"]["name"]
            .as_str()
            .unwrap_or("the server"),
        answer["serverInfo"]["version"].as_str().unwrap_or("")
    )
    .trim_end()
    .to_string();
    checks.push(Check::passed(
        "initialize",
        "It answers initialize",
        vec![format!(
            "{server} answered in {} ms (the limit is {} s)",
            answered_in.as_millis(),
            timeout.as_secs_f64()
        )],
    ));
    // The session's own requests, before judging stdout: garbage may come at any time.
    let _ = talk
        .notify(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let capabilities = session::capability_names(&answer["capabilities"]);
    let mut tools = Vec::new();
    let mut listed = capabilities.iter().any(|c| c == "tools");
    let mut cursor: Option<String> = None;
    let mut id = 2;
    while listed && id < 50 {
        let mut request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}});
        if let Some(cursor) = &cursor {
            request["params"]["cursor"] = json!(cursor);
        }
        match talk.ask(&request, id, timeout).await {
            Answer::Result(page) => {
                for tool in page["tools"].as_array().into_iter().flatten() {
                    tools.push((
                        tool["name"].as_str().unwrap_or("?").to_string(),
                        tool["inputSchema"].clone(),
                    ));
                }
                cursor = page["nextCursor"].as_str().map(str::to_string);
                listed = cursor.is_some();
            }
            _ => listed = false,
        }
        id += 1;
    }
    end(&mut child, pid).await;
    let clean = if talk.garbage_count == 0 {
        checks.push(Check::passed(
            "stdout",
            "stdout carries only JSON-RPC",
            vec!["every line on stdout was a JSON-RPC message".into()],
        ))
    } else {
        let mut evidence = vec![format!(
            "{} lines on stdout were not JSON-RPC",
            talk.garbage_count
        )];
        evidence.extend(talk.garbage.iter().map(|l| format!("stdout: {l}")));
        checks.push(Check::failed(
            "stdout",
            "stdout carries only JSON-RPC",
            evidence,
            "Make the server write its logs to stderr: MCP allows only JSON-RPC messages on stdout, and a stray line can break one.".into(),
        ))
    };
    if !clean {
        return;
    }
    let agreed = answer["protocolVersion"].as_str().unwrap_or("(none)");
    if !session::protocol(checks, agreed, &server) {
        return;
    }
    session::capabilities(checks, &capabilities);
    if capabilities.iter().any(|c| c == "tools") {
        session::tools(checks, &tools);
    }
}

/// The `start` check of a process that was still running when it answered (or was given up on).
fn started(pid: Option<u32>) -> Check {
    Check::passed(
        "start",
        "The process starts",
        vec![format!("pid {}", pid.unwrap_or(0))],
    )
}

/// Finds `command` as a process start would: a path (relative to the project) when it has a
/// slash, else the first executable of that name on `path_var`.
fn resolve(command: &str, path_var: &str, project: &Path) -> Result<PathBuf, Check> {
    let title = "The command resolves";
    if command.contains('/') {
        let path = project.join(command);
        if !path.is_file() {
            return Err(Check::failed(
                "command",
                title,
                vec![format!("{} does not exist", path.display())],
                format!(
                    "Fix the path in `command`, or install what should be at {}.",
                    path.display()
                ),
            ));
        }
        if !executable(&path) {
            return Err(Check::failed(
                "command",
                title,
                vec![format!("{} is not executable", path.display())],
                format!(
                    "Make it executable (`chmod +x {}`) or run it through its interpreter.",
                    path.display()
                ),
            ));
        }
        return Ok(path);
    }
    let folders: Vec<&str> = path_var.split(':').filter(|f| !f.is_empty()).collect();
    for folder in &folders {
        let candidate = Path::new(folder).join(command);
        if candidate.is_file() && executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(Check::failed(
        "command",
        title,
        vec![format!(
            "`{command}` is in none of the {} folders of PATH",
            folders.len()
        )],
        match runtime_hint(command) {
            "" => format!("Install `{command}`, or write its full path in the entry's `command`."),
            hint => format!("Install `{command}`: {hint}"),
        },
    ))
}

/// How to get the programs registry packages run with (`npx`, `uvx`, `dnx`, `docker`); empty
/// for any other command.
pub fn runtime_hint(command: &str) -> &'static str {
    match command {
        "npx" | "npm" | "node" => "it comes with Node.js (https://nodejs.org, or `apt install nodejs npm`).",
        "uvx" | "uv" => "it comes with uv (`pipx install uv`, `pip install uv`, or https://docs.astral.sh/uv/).",
        "dnx" => "it comes with the .NET 10 SDK (https://dotnet.microsoft.com/download).",
        "docker" => "install Docker Engine or Docker Desktop (https://docs.docker.com/get-docker/) and make sure its daemon runs.",
        _ => "",
    }
}

fn executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

enum Answer {
    Result(Value),
    Error(String),
    /// stdout closed: the process ended.
    Closed,
    /// No answer in time.
    Silent,
}

/// A bare JSON-RPC conversation over the process's pipes.
struct Talk {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The first lines that were not JSON-RPC, cut to 200 characters.
    garbage: Vec<String>,
    garbage_count: usize,
}

impl Talk {
    async fn notify(&mut self, message: &Value) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(message).expect("JSON");
        line.push(b'\n');
        self.stdin.write_all(&line).await?;
        self.stdin.flush().await
    }

    /// Sends `request` and reads stdout until the answer with `id`, noting other lines.
    async fn ask(&mut self, request: &Value, id: i64, timeout: Duration) -> Answer {
        if self.notify(request).await.is_err() {
            return Answer::Closed;
        }
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let read = tokio::time::timeout_at(deadline, read_bounded_line(&mut self.stdout)).await;
            let line = match read {
                Err(_) => return Answer::Silent,
                Ok(Err(_)) | Ok(Ok(None)) => return Answer::Closed,
                Ok(Ok(Some(line))) => line,
            };
            let text = line.trim_end();
            if text.is_empty() {
                continue;
            }
            let message: Option<Value> = serde_json::from_str(text)
                .ok()
                .filter(|m: &Value| m.get("jsonrpc").is_some_and(|v| v == "2.0"));
            let Some(message) = message else {
                self.garbage_count += 1;
                if self.garbage.len() < 5 {
                    self.garbage.push(text.chars().take(200).collect());
                }
                continue;
            };
            if message.get("id").and_then(Value::as_i64) == Some(id)
                && message.get("method").is_none()
            {
                if let Some(result) = message.get("result") {
                    return Answer::Result(result.clone());
                }
                let error = &message["error"];
                return Answer::Error(format!(
                    "{} {}",
                    error["code"],
                    error["message"].as_str().unwrap_or("")
                ));
            }
            // A request of the server's (roots, sampling): refused, so it is not left waiting.
            if let (Some(request_id), Some(_)) = (message.get("id"), message.get("method")) {
                let _ = self
                    .notify(&json!({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "not supported by the doctor"}}))
                    .await;
            }
        }
    }
}

async fn exit_status(child: &mut Child) -> String {
    match tokio::time::timeout(Duration::from_secs(2), child.wait()).await {
        Ok(Ok(status)) => match (status.code(), status_signal(&status)) {
            (Some(code), _) => format!("with status {code}"),
            (None, Some(signal)) => format!("on signal {signal}"),
            _ => "".into(),
        },
        _ => "(it closed stdout)".into(),
    }
}

#[cfg(unix)]
fn status_signal(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn status_signal(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

async fn stderr_tail(collector: Option<tokio::task::JoinHandle<String>>) -> Vec<String> {
    let Some(collector) = collector else {
        return Vec::new();
    };
    let text = tokio::time::timeout(Duration::from_secs(1), collector)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(STDERR_LINES);
    lines[start..]
        .iter()
        .map(|l| format!("stderr: {l}"))
        .collect()
}

/// Ends the process and what it started (its process group).
async fn end(child: &mut Child, pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads.
        unsafe {
            libc::kill(-pid, libc::SIGTERM);
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
    if tokio::time::timeout(Duration::from_secs(2), child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await;
    }
}

/// One line of a server's stdout, read at most [`mcp_manager_connect::connection::MAX_MESSAGE`] bytes long:
/// `None` at the end of the stream or when a line is longer (an endless line must not take the
/// app's memory; the session could not go on in step anyway).
async fn read_bounded_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
) -> std::io::Result<Option<String>> {
    read_line_within(reader, mcp_manager_connect::connection::MAX_MESSAGE).await
}

async fn read_line_within<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    limit: usize,
) -> std::io::Result<Option<String>> {
    use tokio::io::AsyncBufReadExt;
    let mut line = Vec::new();
    let mut limited = reader.take(limit as u64 + 1);
    let read = limited.read_until(b'\n', &mut line).await?;
    if read == 0 || line.len() > limit {
        return Ok(None);
    }
    Ok(Some(String::from_utf8_lossy(&line).into_owned()))
}

#[cfg(test)]
mod bounded_tests {
    use super::*;

    #[tokio::test]
    async fn an_endless_line_is_given_up_at_the_limit() {
        let endless = tokio::io::repeat(b'x');
        let mut reader = tokio::io::BufReader::new(endless);
        assert_eq!(read_line_within(&mut reader, 4096).await.unwrap(), None);
        let mut short = tokio::io::BufReader::new(&b"{\"a\":1}\nrest"[..]);
        assert_eq!(
            read_line_within(&mut short, 4096).await.unwrap().as_deref(),
            Some("{\"a\":1}\n")
        );
        assert_eq!(
            read_line_within(&mut short, 4096).await.unwrap().as_deref(),
            Some("rest")
        );
        assert_eq!(read_line_within(&mut short, 4096).await.unwrap(), None);
    }
}
