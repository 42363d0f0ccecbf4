//! The runtime verbs: they connect to servers through the same supervisor the app uses,
//! print, and shut every server down before returning (no process outlives `mcpctl`).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_manager_connect::login::{oauth_failure, oauth_target, where_kept};
use mcp_manager_connect::project::LiveProject;
use mcp_manager_connect::{ServerStatus, Settings, Supervisor};
use mcp_manager_core::config::catalog::{Catalog, Standing};
use mcp_manager_core::{ApiError, Locations};
use mcp_manager_oauth::claude_store::LoginStore;
use serde_json::Value;

/// Where `mcpctl call --save-to` keeps the call.
pub struct SaveTo {
    /// A name (in the project's collections folder) or a path.
    pub collection: String,
    /// The case's name; the tool's (made unique) when absent.
    pub name: Option<String>,
}

/// What a runtime verb asks of one server.
pub enum Ask {
    Tools,
    /// A client's view of the tools (`mcpctl compat`).
    Compat {
        client: mcp_manager_clients::Client,
    },
    /// What that view costs in tokens (`mcpctl cost`); `exact`: through the model API.
    Cost {
        exact: bool,
    },
    Call {
        tool: String,
        arguments: Option<serde_json::Map<String, Value>>,
        timeout: Option<Duration>,
        /// Accept elicitation with this content; decline when absent.
        elicit: Option<Value>,
        /// Offer to run it as a task.
        task: bool,
        /// Keep the call as a case of a collection.
        save_to: Option<SaveTo>,
    },
    Resources,
    Read {
        uri: String,
        output: Option<PathBuf>,
    },
    Prompts,
    Prompt {
        name: String,
        arguments: Option<serde_json::Map<String, Value>>,
    },
    Skills,
    Skill {
        name: String,
        output: Option<PathBuf>,
    },
    Logs,
}

pub(crate) use crate::failure;

/// The supervisor's settings for a command: Claude Code's variables, and no `server/discover`
/// asked beside a first start (the command would end before its answer; the window asks).
pub fn settings() -> Settings {
    Settings {
        ask_era_beside: false,
        ..Settings::from_env()
    }
}

/// One thread: a command does one thing at a time, and a call on the same thread as its
/// session's I/O saves a cross-thread wake-up each way (`benches/echo.rs`).
/// Runs `future` to its end on a runtime of its own.
pub fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    runtime().block_on(future)
}

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// `mcpctl status`: connects every server, prints one line each; exit 1 if any failed.
/// `find_eras`: first waits for each local server's era to be found out beside its session.
pub fn status(locations: &Locations, json: bool, find_eras: bool) -> Result<bool, ApiError> {
    let catalog = Catalog::load(locations);
    if !json {
        crate::untrusted_notice(locations);
    }
    runtime().block_on(async {
        let settings = Settings {
            ask_era_beside: find_eras,
            ..settings()
        };
        let project = LiveProject::open(locations.clone(), settings);
        let supervisor = project.supervisor();
        supervisor.start(&catalog).await;
        let finding = supervisor.finding_eras();
        if !finding.is_empty() {
            eout!(
                "waiting for server/discover, asked beside {}: which protocol era each speaks…",
                finding.join(", ")
            );
            supervisor.eras_found().await;
        }
        let statuses = supervisor.statuses();
        // Each connected server against its pin (its first connect pins it), for the text.
        let mut drifts = std::collections::HashMap::new();
        if !json {
            for event in &statuses {
                if matches!(event.status, ServerStatus::Connected(_)) {
                    if let Ok(check) = project.check_pin(&event.server, None).await {
                        drifts.insert(event.server.clone(), check.drift);
                    }
                }
            }
        }
        supervisor.shutdown().await;
        if json {
            crate::print_json(&statuses);
        } else {
            for event in &statuses {
                let entry = catalog.effective(&event.server);
                let target = entry.map(|e| e.config.target()).unwrap_or_default();
                let state = match entry.map(|e| (e, e.standing())) {
                    Some((e, Standing::Blocked)) => format!(
                        "⊗ {}",
                        e.blocked.as_ref().map(|b| b.describe()).unwrap_or_default()
                    ),
                    Some((_, Standing::PendingApproval)) => format!(
                        "⏸ Pending approval (run `mcpctl approve {}`, or `claude`, to approve)",
                        event.server
                    ),
                    Some((_, Standing::AwaitingTrust)) => format!(
                        "{} (read the folder's .mcp.json, then `mcpctl trust`)",
                        Standing::AwaitingTrust.words().unwrap_or_default()
                    ),
                    Some((_, Standing::DisabledHere)) => format!(
                        "⊘ Disabled for this project (re-enable with `mcpctl enable {}`)",
                        event.server
                    ),
                    Some((e, Standing::Duplicate)) => {
                        format!("↷ {}", e.duplicate_words().unwrap_or_default())
                    }
                    Some((_, standing)) if standing != Standing::Starts => {
                        standing.words().unwrap_or_default().to_string()
                    }
                    _ => live_words(&event.status),
                };
                out!("{}: {target} - {state}", event.server);
                if let Some(drift) = drifts.get(&event.server).filter(|d| !d.is_empty()) {
                    let names: Vec<String> = drift
                        .iter()
                        .map(|d| d.tool.clone().unwrap_or_else(|| "its instructions".into()))
                        .collect();
                    out!(
                        "  ⚠ changed since it was approved: {} (see `mcpctl verify {}`)",
                        mcp_manager_connect::sanitize::strip(&names.join(", ")),
                        event.server
                    );
                }
            }
        }
        Ok(!statuses
            .iter()
            .any(|e| matches!(e.status, ServerStatus::Failed { .. })))
    })
}

/// Claude Code's words for a live status (`claude mcp list`), with what we know beyond them.
fn live_words(status: &ServerStatus) -> String {
    match status {
        ServerStatus::Connected(info) => format!(
            "✔ Connected ({} {}; protocol {}: {})",
            info.server_name, info.server_version, info.protocol_version, info.era_evidence
        ),
        ServerStatus::Failed { error } => format!("✘ Failed to connect — {error}"),
        ServerStatus::NeedsAuth => "! Needs authentication".into(),
        ServerStatus::Disabled => "⊘ Not started".into(),
        ServerStatus::Pending { .. } => "… Connecting".into(),
    }
}

/// `mcpctl login SERVER`: asks the server (its 401 carries the challenge that seeds
/// discovery), logs in through the browser or the server's machine grant, and connects once
/// with the new token to show it works.
pub fn login(
    locations: &Locations,
    name: &str,
    no_browser: bool,
    scope: Option<&str>,
    store: Option<LoginStore>,
    json: bool,
    verbose: bool,
) -> Result<bool, ApiError> {
    use mcp_manager_connect::login::{log_in_until, open_once};
    if let Some(store) = store {
        mcp_manager_connect::login::choose_store(locations, name, store)?;
    }
    let (target, _) = oauth_target(locations, name)?;
    let journal = mcp_manager_oauth::journal(&target);
    let show_record = || {
        if verbose {
            if let Some(trace) = journal
                .traces()
                .into_iter()
                .rev()
                .find(|t| t.kind == mcp_manager_oauth::TraceKind::Login)
            {
                crate::trace::print_trace(&trace);
            }
        }
    };
    use mcp_manager_oauth::Opener;
    let opener = if no_browser {
        Opener::Print
    } else {
        Opener::Terminal
    };
    let scopes: Vec<String> = scope
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    if !json {
        eout!(
            "Logging in to \"{name}\" (the login is kept in {})…",
            where_kept(&target, &mcp_manager_core::secrets::configured_store().1)
        );
    }
    runtime().block_on(async {
        // Ctrl-C gives the login up cleanly: a registration it reused is forgotten, so that
        // the next attempt registers anew.
        let cancel = tokio_util::sync::CancellationToken::new();
        let on_interrupt = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_interrupt.cancel();
            }
        });
        let logged_in = log_in_until(locations, name, opener, &scopes, cancel).await;
        show_record();
        let logged_in = logged_in?;
        let (granted, unencrypted) = (&logged_in.granted, &logged_in.unencrypted);
        let check = open_once(name, &logged_in.config, locations, Some(&logged_in.target)).await;
        let connected = match check {
            Ok(connection) => {
                connection.shutdown().await;
                Ok(())
            }
            Err(err) => Err(err.to_string()),
        };
        if json {
            crate::print_json(&serde_json::json!({
                "server": name,
                "clientId": granted.client_id,
                "scopes": granted.scopes,
                "storedIn": where_kept(&logged_in.target, unencrypted),
                "connected": connected.is_ok(),
                "error": connected.as_ref().err(),
            }));
        } else {
            let scopes = if granted.scopes.is_empty() {
                String::new()
            } else {
                format!(" (scopes: {})", granted.scopes.join(" "))
            };
            out!(
                "Logged in to {name}{scopes}. Tokens are stored in {}.",
                where_kept(&logged_in.target, unencrypted)
            );
            match &connected {
                Ok(()) => out!("{name}: connected with the new token"),
                Err(err) => out!("{name}: still not connected: {err}"),
            }
        }
        Ok(connected.is_ok())
    })
}

/// `mcpctl logout SERVER`.
pub fn logout(locations: &Locations, name: &str, json: bool) -> Result<bool, ApiError> {
    let (target, unencrypted) = oauth_target(locations, name)?;
    runtime().block_on(async {
        let had = target.secrets.tokens().await.ok().flatten().is_some();
        let revoked = mcp_manager_oauth::logout(&target)
            .await
            .map_err(oauth_failure)?;
        if json {
            crate::print_json(&serde_json::json!({
                "server": name, "hadTokens": had, "revoked": revoked,
            }));
        } else if !had {
            out!("{name}: not logged in; nothing stored in {} was left", where_kept(&target, &unencrypted));
        } else {
            let revocation = if revoked {
                "the server revoked the tokens"
            } else {
                "the server offers no revocation"
            };
            out!(
                "Logged out of {name}: tokens and client registration removed from {} ({revocation}).",
                where_kept(&target, &unencrypted)
            );
        }
        Ok(true)
    })
}

/// The runtime verbs that talk to one server (or, for `tools` without a name, all).
pub fn ask(
    locations: &Locations,
    server: Option<&str>,
    ask: Ask,
    json: bool,
) -> Result<bool, ApiError> {
    let catalog = Catalog::load(locations);
    let names: Vec<String> = match server {
        Some(name) => {
            let entry = catalog.require(name)?;
            if !entry.will_start() {
                let why = if entry.disabled {
                    format!("\"{name}\" is disabled in this project: run `mcpctl enable {name}`")
                } else if entry.waiting_for_trust.is_some() || entry.awaits_trust() {
                    format!(
                        "\"{name}\": {}",
                        entry.why_not_started().unwrap_or_default()
                    )
                } else if entry.scope == mcp_manager_core::Scope::Agent {
                    format!("\"{name}\" is a subagent's own server nobody approved here: run `mcpctl approve {name}`")
                } else {
                    format!("\"{name}\" is a project server nobody approved: run `mcpctl approve {name}`")
                };
                return Err(failure(why));
            }
            vec![name.to_string()]
        }
        None => catalog
            .entries
            .iter()
            .filter(|e| e.will_start())
            .map(|e| e.name.clone())
            .collect(),
    };
    runtime().block_on(async {
        // An exact count needs the person's key: without one, say so before any server starts.
        let counter = match ask {
            Ask::Cost { exact: true } => {
                Some(mcp_manager_connect::project::clients::model_api_counter().await?)
            }
            _ => None,
        };
        let project = LiveProject::open(locations.clone(), settings());
        let supervisor = project.supervisor();
        if let Ask::Call {
            elicit: Some(content),
            ..
        } = &ask
        {
            supervisor.set_answerer(std::sync::Arc::new(
                mcp_manager_connect::answer::FixedAnswer(content.clone()),
            ));
        }
        supervisor.start_selected(&catalog, Some(&names)).await;
        let outcome = run_ask(locations, supervisor, &names, ask, json, counter).await;
        supervisor.shutdown().await;
        outcome
    })
}

async fn run_ask(
    locations: &Locations,
    supervisor: &Arc<Supervisor>,
    names: &[String],
    ask: Ask,
    json: bool,
    counter: Option<mcp_manager_clients::cost::exact::Counter>,
) -> Result<bool, ApiError> {
    let connection = |name: &str| {
        supervisor.connection(name).ok_or_else(|| {
            let status = supervisor
                .statuses()
                .into_iter()
                .find(|s| s.server == name)
                .map(|s| match s.status {
                    // In the words `mcpctl status` uses, with the next step.
                    ServerStatus::Failed { error } => format!("failed: {error}"),
                    ServerStatus::NeedsAuth => {
                        format!("needs authentication: run `mcpctl login {name}`")
                    }
                    other => other.label().to_string(),
                })
                .unwrap_or_default();
            failure(format!("\"{name}\" is not connected: {status}"))
        })
    };
    let server = names.first().cloned().unwrap_or_default();
    match ask {
        Ask::Tools | Ask::Compat { .. } | Ask::Cost { .. } => {
            let compat = matches!(ask, Ask::Compat { .. } | Ask::Cost { .. });
            // Every listing, for the clients whose view spans the project.
            let mut listings: Vec<(String, Value, Option<bool>)> = Vec::new();
            // The entries' alwaysLoad, read once and only for compat.
            let catalog = compat.then(|| Catalog::load(locations));
            // Claude Code's environment for the project, as the window reads it.
            let knobs = compat.then(|| {
                use mcp_manager_connect::project::clients;
                clients::knobs_of(&clients::claude_env(locations))
            });
            let mut views = Vec::new();
            let mut all = serde_json::Map::new();
            // Every server asked for answered.
            let mut complete = true;
            for name in names {
                let conn = match connection(name) {
                    Ok(conn) => conn,
                    // The one server named: its state is the answer, and a failure.
                    Err(err) if names.len() == 1 => return Err(err),
                    Err(err) => {
                        if !json {
                            eout!("warning: {}", err.message);
                        }
                        complete = false;
                        continue;
                    }
                };
                if compat {
                    let listed = tried(&conn, name, conn.list_tools_as_sent().await).await?;
                    let always_load = catalog
                        .as_ref()
                        .and_then(|c| c.effective(name))
                        .and_then(|entry| entry.config.always_load);
                    views.push(crate::compat::claude_code(
                        name,
                        always_load,
                        &listed,
                        knobs.as_ref().expect("knobs for compat"),
                    ));
                    listings.push((
                        name.clone(),
                        serde_json::json!({ "tools": listed }),
                        always_load,
                    ));
                    continue;
                }
                let tools = tried(&conn, name, conn.list_tools().await).await?;
                // Not silently missing: stderr, so that --json's stdout stays one document.
                for dropped in conn.dropped_tools() {
                    eout!(
                        "warning: {name} lists {} but it is not offered: {}",
                        dropped.name,
                        dropped.reason
                    );
                }
                if !json {
                    for tool in &tools {
                        let first_line = tool
                            .description
                            .as_deref()
                            .unwrap_or("")
                            .lines()
                            .next()
                            .unwrap_or("");
                        out!("{name}  {}  {first_line}", tool.name);
                    }
                }
                all.insert(
                    name.clone(),
                    serde_json::to_value(&tools).unwrap_or(Value::Null),
                );
            }
            if let Ask::Cost { .. } = ask {
                let knobs = knobs.as_ref().expect("knobs for cost");
                return Ok(crate::cost::print(&views, knobs, counter, json).await? && complete);
            }
            if let Ask::Compat { client } = ask {
                if client != mcp_manager_clients::Client::ClaudeCode {
                    let listed: Vec<mcp_manager_clients::Listed> = listings
                        .iter()
                        .map(
                            |(server, listing, always_load)| mcp_manager_clients::Listed {
                                server,
                                listing,
                                always_load: *always_load,
                            },
                        )
                        .collect();
                    let knobs = knobs.as_ref().expect("knobs for compat");
                    let view = mcp_manager_clients::view_of(client, &listed, knobs);
                    crate::compat::print_other(&view, json);
                    return Ok(complete && !view.drops_any());
                }
                crate::compat::print(&views, json);
                return Ok(complete && !views.iter().any(|v| v.drops_any()));
            }
            if json {
                crate::print_json(&all);
            }
            Ok(complete)
        }
        Ask::Call {
            tool,
            arguments,
            timeout,
            elicit: _,
            task,
            save_to,
        } => {
            let conn = connection(&names[0])?;
            let timeout = timeout.or(supervisor.settings().tool_timeout);
            // A progress bar on stderr, when a person is watching.
            let (sink, printer) = if std::io::stderr().is_terminal() {
                let (sink, progress) = tokio::sync::mpsc::unbounded_channel();
                (Some(sink), Some(tokio::spawn(progress_bar(progress))))
            } else {
                (None, None)
            };
            let sent = serde_json::Value::Object(arguments.clone().unwrap_or_default());
            let at_ms = mcp_manager_history::now_ms();
            if task && !conn.info().capabilities.tasks {
                eout!(
                    "note: {server} does not offer tasks (2026-07-28's tasks extension): \
                     the call runs as a plain one"
                );
            } else if task && conn.info().era == mcp_manager_connect::era::Era::Legacy {
                eout!(
                    "note: {server}'s session was opened with initialize, whose era has no \
                     tasks: the call runs as a plain one. To find out whether it speaks \
                     2026-07-28, run `mcpctl status --find-eras` once (or set \"protocol\": \
                     \"2026-07-28\" in its entry)"
                );
            }
            // Ctrl-C gives the call up: the server is told (tasks/cancel for a task).
            let cancel = tokio_util::sync::CancellationToken::new();
            let interrupted = cancel.clone();
            let watcher = tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    interrupted.cancel();
                }
            });
            let outcome = conn
                .call_tool_as(&tool, arguments, timeout, sink, cancel, task)
                .await;
            watcher.abort();
            if let Some(printer) = printer {
                let _ = printer.await;
            }
            let outcome = tried(&conn, &server, outcome).await;
            if let Some(save_to) = save_to {
                save_case(locations, &conn, &server, &tool, &sent, &outcome, save_to).await?;
            }
            crate::kept::keep(locations, &conn, &server, &tool, sent, at_ms, &outcome).await;
            let outcome = outcome?;
            if json {
                crate::print_json(&outcome);
            } else {
                print_content(&outcome.result);
                if let Some(task) = &outcome.task {
                    eout!(
                        "(task {}: {}, polled {} times)",
                        task.task_id,
                        task.status,
                        task.polls
                    );
                }
                if std::io::stderr().is_terminal() {
                    eout!("({} ms)", outcome.elapsed_ms);
                }
            }
            Ok(!outcome.is_error)
        }
        Ask::Resources => {
            let conn = connection(&names[0])?;
            let resources = tried(&conn, &server, conn.list_resources().await).await?;
            let templates = tried(&conn, &server, conn.list_resource_templates().await).await?;
            if json {
                crate::print_json(
                    &serde_json::json!({ "resources": resources, "templates": templates }),
                );
            } else {
                for r in &resources {
                    out!(
                        "{}  {}",
                        r["uri"].as_str().unwrap_or(""),
                        r["name"].as_str().unwrap_or("")
                    );
                }
                for t in &templates {
                    out!(
                        "{}  {} (template)",
                        t["uriTemplate"].as_str().unwrap_or(""),
                        t["name"].as_str().unwrap_or("")
                    );
                }
            }
            Ok(true)
        }
        Ask::Read { uri, output } => {
            let conn = connection(&names[0])?;
            let result = tried(&conn, &server, conn.read_resource(&uri).await).await?;
            write_resource(&result, output.as_ref(), json)?;
            Ok(true)
        }
        Ask::Prompts => {
            let conn = connection(&names[0])?;
            let prompts = tried(&conn, &server, conn.list_prompts().await).await?;
            if json {
                crate::print_json(&prompts);
            } else {
                for p in &prompts {
                    let args: Vec<String> = p["arguments"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|a| {
                            let name = a["name"].as_str().unwrap_or("");
                            if a["required"].as_bool().unwrap_or(false) {
                                name.to_string()
                            } else {
                                format!("[{name}]")
                            }
                        })
                        .collect();
                    out!("{}  {}", p["name"].as_str().unwrap_or(""), args.join(" "));
                }
            }
            Ok(true)
        }
        Ask::Prompt { name, arguments } => {
            let conn = connection(&names[0])?;
            let result = tried(&conn, &server, conn.get_prompt(&name, arguments).await).await?;
            if json {
                crate::print_json(&result);
            } else {
                for message in result["messages"].as_array().into_iter().flatten() {
                    out!("[{}]", message["role"].as_str().unwrap_or("?"));
                    print_content(&serde_json::json!({ "content": [message["content"].clone()] }));
                }
            }
            Ok(true)
        }
        Ask::Skills => {
            let conn = connection(&names[0])?;
            if !conn.serves_skills() {
                return Err(failure(format!(
                    "{server} does not serve skills (it did not declare the Skills extension, io.modelcontextprotocol/skills)"
                )));
            }
            let skills = tried(&conn, &server, conn.list_skills().await).await?;
            if json {
                crate::print_json(&skills);
            } else if skills.is_empty() {
                out!("{server} lists no skills");
            } else {
                for skill in &skills {
                    let files = match &skill.files {
                        Some(files) => format!("{} file(s)", files.len()),
                        None => "files dynamic: cannot be checked, not loaded".into(),
                    };
                    out!("{}  {}  ({files})", skill.name, skill.description);
                    out!("  {}", skill.uri);
                }
            }
            Ok(true)
        }
        Ask::Skill { name, output } => {
            let conn = connection(&names[0])?;
            let skills = tried(&conn, &server, conn.list_skills().await).await?;
            let Some(entry) = skills.into_iter().find(|s| s.name == name || s.uri == name) else {
                return Err(failure(format!(
                    "{server} lists no skill named {name} (`mcpctl skills {server}` lists them)"
                )));
            };
            let loaded = conn.load_skill(entry).await;
            print_skill(&loaded, output.as_deref(), json)?;
            Ok(loaded.verified)
        }
        Ask::Logs => {
            // Let the server speak for a moment after connecting.
            tokio::time::sleep(Duration::from_millis(500)).await;
            let lines = supervisor
                .stderr(&names[0])
                .map(|s| s.lines())
                .unwrap_or_default();
            if json {
                crate::print_json(&lines);
            } else {
                for line in lines {
                    out!("{line}");
                }
            }
            Ok(true)
        }
    }
}

/// Draws `[#####     ] 50% message` on stderr until the call ends, then clears the line.
async fn progress_bar(
    mut progress: tokio::sync::mpsc::UnboundedReceiver<mcp_manager_connect::Progress>,
) {
    const WIDTH: usize = 30;
    while let Some(p) = progress.recv().await {
        let line = match p.total {
            Some(total) if total > 0.0 => {
                let share = (p.progress / total).clamp(0.0, 1.0);
                let done = (share * WIDTH as f64) as usize;
                format!(
                    "[{}{}] {:3.0}%",
                    "#".repeat(done),
                    " ".repeat(WIDTH - done),
                    share * 100.0
                )
            }
            _ => format!("{}", p.progress),
        };
        let message = crate::one_line(&crate::for_terminal(&p.message.unwrap_or_default()));
        eprint!("\r{line} {message}\x1b[K");
    }
    eprint!("\r\x1b[K");
}

/// Prints text content as text and everything else as JSON, one block per item.
fn print_content(result: &Value) {
    let mut out = std::io::stdout().lock();
    for item in result["content"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("text") => {
                let _ = writeln!(out, "{}", item["text"].as_str().unwrap_or(""));
            }
            _ => {
                let mut shown = item.clone();
                if let Some(data) = shown.get_mut("data") {
                    let len = data.as_str().map(str::len).unwrap_or(0);
                    *data = Value::String(format!("<{len} bytes of base64>"));
                }
                let _ = writeln!(out, "{shown}");
            }
        }
    }
    if let Some(structured) = result.get("structuredContent") {
        let _ = writeln!(out, "structuredContent: {structured}");
    }
}

/// Text contents go to stdout (or the file); a blob is decoded into the file named by `-o`,
/// or into a new temporary file (a name nobody else can have taken, mode 0600, with the
/// extension its MIME type suggests) whose path is printed.
fn write_resource(result: &Value, output: Option<&PathBuf>, json: bool) -> Result<(), ApiError> {
    let contents = result["contents"].as_array().cloned().unwrap_or_default();
    let mut written = Vec::new();
    for (index, item) in contents.iter().enumerate() {
        let bytes = if let Some(text) = item["text"].as_str() {
            text.as_bytes().to_vec()
        } else if let Some(blob) = item["blob"].as_str() {
            decode_base64(blob)
                .ok_or_else(|| failure("the server sent a blob that is not valid base64"))?
        } else {
            continue;
        };
        let is_blob = item.get("blob").is_some();
        let path = match (output, is_blob) {
            (Some(path), _) if contents.len() == 1 => Some(path.clone()),
            (Some(path), _) => Some(PathBuf::from(format!("{}.{index}", path.display()))),
            (None, true) => Some(new_temporary_file(item)?),
            (None, false) => None,
        };
        match path {
            Some(path) => {
                use mcp_manager_core::files;
                files::write(
                    &path,
                    &bytes,
                    &files::Write::new(files::Mode::PrivateOrKept),
                )
                .map_err(|err| failure(format!("could not write {err}")))?;
                written.push(path.display().to_string());
            }
            None if !json => {
                let _ = std::io::stdout().write_all(&bytes);
                out!();
            }
            None => {}
        }
    }
    if json {
        crate::print_json(&serde_json::json!({ "result": result, "files": written }));
    } else {
        for path in written {
            eout!("written: {path}");
        }
    }
    Ok(())
}

/// A new, empty temporary file for a blob, kept after we exit.
fn new_temporary_file(item: &Value) -> Result<PathBuf, ApiError> {
    // "image/png" → ".png"; nothing for what does not look like an extension.
    let extension = item["mimeType"]
        .as_str()
        .and_then(|mime| mime.split(';').next()?.split('/').nth(1))
        .filter(|sub| {
            !sub.is_empty() && sub.len() <= 8 && sub.chars().all(|c| c.is_ascii_alphanumeric())
        })
        .map(|sub| match sub {
            "plain" => ".txt".to_string(),
            "jpeg" => ".jpg".to_string(),
            sub => format!(".{sub}"),
        })
        .unwrap_or_default();
    let file = tempfile::Builder::new()
        .prefix("mcpctl-resource-")
        .suffix(&extension)
        .tempfile()
        .map_err(|err| failure(format!("could not create a temporary file: {err}")))?;
    let (_, path) = file
        .keep()
        .map_err(|err| failure(format!("could not keep the temporary file: {err}")))?;
    Ok(path)
}

fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b'\n' | b'\r' => continue,
            _ => return None,
        } as u32;
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// A request's result, its failure said for a person: a login to redo with the command that
/// does it, else what happened ([`Connection::explain`]: a timeout's limit, a server that
/// exited with its status and stderr tail).
async fn tried<T>(
    conn: &mcp_manager_connect::Connection,
    server: &str,
    result: Result<T, rmcp_error::Error>,
) -> Result<T, ApiError> {
    let err = match result {
        Ok(value) => return Ok(value),
        Err(err) => err,
    };
    Err(match err.auth_challenge() {
        Some(challenge) if challenge.contains("insufficient_scope") => {
            let scope = challenge
                .split("scope=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or("");
            failure(format!(
                "\"{server}\" needs more access ({scope}): run `mcpctl login {server} --scope \"{scope}\"`"
            ))
        }
        Some(_) => failure(format!(
            "\"{server}\" needs authentication again: run `mcpctl login {server}`"
        )),
        None => failure(format!("\"{server}\": {}", conn.explain(&err).await)),
    })
}

mod rmcp_error {
    pub type Error = mcp_manager_connect::connection::ServiceError;
}

/// Keeps a call as a case: its outcome and result (its snapshot) as what is expected, its
/// secret arguments as `${VAR}`s. Said on stderr, so that stdout stays the result.
async fn save_case(
    locations: &Locations,
    conn: &mcp_manager_connect::Connection,
    server: &str,
    tool: &str,
    sent: &Value,
    outcome: &Result<mcp_manager_connect::CallOutcome, ApiError>,
    save_to: SaveTo,
) -> Result<(), ApiError> {
    use mcp_manager_collections::{case_from_call, fresh_name, model, Collection};
    let path = model::locate(&locations.project, &save_to.collection);
    let trusted = mcp_manager_core::config::trust::is_trusted(locations);
    model::may_write(&path, &locations.project, trusted)?;
    let mut collection = if path.exists() {
        Collection::load(&path, &locations.project)?
    } else {
        Collection::default()
    };
    let schema = conn.tool_schema(tool).await.unwrap_or(Value::Null);
    let name = save_to
        .name
        .unwrap_or_else(|| fresh_name(&collection, tool));
    let result = match outcome {
        Ok(outcome) => Ok(&outcome.result),
        Err(err) => Err(err.message.as_str()),
    };
    let arguments = sent.as_object().cloned().unwrap_or_default();
    let (case, introduced) = case_from_call(&name, server, tool, &arguments, &schema, result);
    collection.put(case);
    let root = model::write_root(&path, &locations.project);
    collection.save(&path, &root, false)?;
    eout!("saved as case \"{name}\" of {}", path.display());
    for variable in introduced {
        eout!(
            "note: a secret argument was not written: it is ${{{variable}}}; set {variable} when you run `mcpctl test`"
        );
    }
    Ok(())
}

/// A loaded skill: each file's check, then the SKILL.md's text (or, with `output`, the
/// verified files written under `output/NAME/`).
fn print_skill(
    loaded: &mcp_manager_connect::skills::LoadedSkill,
    output: Option<&std::path::Path>,
    json: bool,
) -> Result<(), ApiError> {
    use mcp_manager_connect::skills::FileCheck;
    let mut written = Vec::new();
    // Only a skill whose every file is verified is written: half a skill in a folder Claude
    // Code reads (`.claude/skills`) would be loaded as it is.
    if let (Some(dir), true) = (output, loaded.verified) {
        // The skill's folder is one plain name, as the Agent Skills rules have it.
        let Some(folder_name) = skill_folder_name(&loaded.entry.name) else {
            return Err(failure(format!(
                "the skill's name {:?} is not a plain skill name (letters, digits and -): not written",
                loaded.entry.name
            )));
        };
        let root = loaded.entry.uri.trim_end_matches("SKILL.md");
        let folder = dir.join(folder_name);
        // Every write stays inside DIR (or the nearest folder of it that exists), links
        // already there included.
        let within = dir
            .ancestors()
            .find(|a| a.is_dir())
            .unwrap_or(std::path::Path::new("."));
        let mut planned = Vec::new();
        for file in &loaded.files {
            let Some(text) = &file.text else { continue };
            let Some(relative) = file.uri.strip_prefix(root).and_then(skill_path) else {
                return Err(failure(format!(
                    "{} is not a path inside the skill's folder: nothing written",
                    file.uri
                )));
            };
            planned.push((folder.join(relative), text));
        }
        for (path, text) in planned {
            use mcp_manager_core::files;
            files::write(
                &path,
                text.as_bytes(),
                &files::Write::new(files::Mode::PrivateOrKept).within(within),
            )
            .map_err(|err| failure(format!("could not write {err}")))?;
            written.push(path.display().to_string());
        }
    }
    if json {
        let mut value = serde_json::to_value(loaded).unwrap_or_default();
        if output.is_some() {
            value["written"] = serde_json::json!(written);
        }
        crate::print_json(&value);
        return Ok(());
    }
    for file in &loaded.files {
        match &file.check {
            FileCheck::Verified => out!(
                "verified  {} ({} bytes, {})",
                file.uri,
                file.size,
                file.digest
            ),
            FileCheck::Failed { why } => out!("FAILED    {}: {why}", file.uri),
            FileCheck::NotRead { why } => out!("not read  {}: {why}", file.uri),
        }
    }
    if loaded.entry.files.is_none() {
        out!(
            "{}: its files are \"dynamic\", so nothing can be checked: not loaded",
            loaded.entry.name
        );
    }
    if !loaded.verified {
        eout!(
            "{}: not loaded: a file is not what the server published",
            loaded.entry.name
        );
        return Ok(());
    }
    if output.is_some() {
        for path in &written {
            out!("wrote {path}");
        }
    } else if let Some(text) = loaded
        .files
        .iter()
        .find(|f| f.uri == loaded.entry.uri)
        .and_then(|f| f.text.as_deref())
    {
        out!();
        out!("{text}");
    }
    Ok(())
}

/// A skill's name as one folder: 1 to 64 lowercase letters, digits and `-` (the Agent Skills
/// rules), so that it can neither climb out of the folder it is written into nor be a path.
fn skill_folder_name(name: &str) -> Option<&str> {
    let plain = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    plain.then_some(name)
}

/// A file's path under its skill's folder, from the rest of its URI: plain names only (no
/// `..`, no root, no empty part), so a server cannot name a file outside the folder.
fn skill_path(relative: &str) -> Option<PathBuf> {
    let parts: Vec<&str> = relative.split('/').collect();
    let plain = |p: &&str| {
        !p.is_empty() && *p != "." && *p != ".." && !p.contains('\\') && !p.contains(':')
    };
    (!parts.is_empty() && parts.iter().all(plain)).then(|| parts.iter().collect())
}
