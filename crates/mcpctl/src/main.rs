//! `mcpctl`: MCP Manager's command-line door, mirroring `claude mcp`.
//!
//! Every verb is a thin call into `mcp_manager_core::api`, the same functions the app's
//! commands call, so the CLI and the window can never disagree. Messages and written bytes
//! follow `claude mcp` so that scripts and habits carry over. Exit status: 0 success,
//! 1 failure, 2 usage error (clap's own, and malformed flag values). A reader that stops
//! reading early (`mcpctl list | head -1`, `| grep -q`) ends the command quietly, with
//! success, as shell tools do.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use std::collections::BTreeMap;

use mcp_manager_core::api;
use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use mcp_manager_core::config::folder::FolderTrust;
use mcp_manager_core::config::interop::{self, Client};
use mcp_manager_core::config::permissions::{Rule, RuleInForce, SettingsFile};
use mcp_manager_core::config::snippet::AddCommand;
use mcp_manager_core::secrets::{client_secret_account, Secret};
use mcp_manager_core::{ApiError, ConfigError, ErrorCode, Locations, Scope, ServerList};
use mcp_manager_oauth::claude_store::LoginStore;
use serde::Serialize;

/// `println!` for everything `mcpctl` prints on stdout: see [`print_line`].
macro_rules! out {
    () => {
        $crate::print_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::print_line(format_args!($($arg)*))
    };
}

/// Prints one line to standard error, made safe for a terminal like [`out!`]'s.
macro_rules! eout {
    ($($arg:tt)*) => {
        $crate::print_error_line(format_args!($($arg)*))
    };
}

/// Prints what a server or a document wrote, with terminal control characters removed, so
/// that an escape (OSC 52 writing the clipboard, a screen clear) is printed, never obeyed.
macro_rules! shown {
    ($($arg:tt)*) => {
        out!("{}", mcp_manager_connect::sanitize::strip(&format!($($arg)*)))
    };
}

/// Writes one line to stdout. When the reader has gone (a closed pipe), the command ends
/// there, quietly and with success: what it was asked for was read as far as wanted. Any
/// other failure to write is said on stderr and the command fails.
/// `text` as a terminal may be given it: no control or format character but newlines and
/// tabs (a carriage return only before a newline), so that a name or a message from a file or
/// a server cannot move the cursor, rewrite the line above or send an escape.
pub(crate) fn for_terminal(text: &str) -> String {
    let text = mcp_manager_connect::sanitize::strip(text);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\r' || chars.peek() == Some(&'\n') {
            out.push(c);
        }
    }
    out
}

fn print_error_line(line: std::fmt::Arguments) {
    let text = for_terminal(&line.to_string());
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

fn print_line(line: std::fmt::Arguments) {
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_all(for_terminal(&line.to_string()).as_bytes())
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush());
    match written {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(err) => {
            eprintln!("mcpctl: could not write the output: {err}");
            std::process::exit(1);
        }
    }
}

#[derive(Parser)]
#[command(
    name = "mcpctl",
    version,
    about = "Configure and try MCP servers, as `claude mcp` does"
)]
struct Cli {
    /// The project folder (default: the current folder).
    #[arg(long, global = true, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Print machine-readable JSON (shapes documented in docs/mcpctl.md).
    #[arg(long, global = true)]
    json: bool,
    /// The MCP registry to read (default: MCP_MANAGER_REGISTRY, else the window's setting,
    /// else https://registry.modelcontextprotocol.io).
    #[arg(long, global = true, value_name = "URL")]
    registry: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the servers of every scope, and any configuration problems.
    List,
    /// Show one server: the entry used and the ones it shadows.
    Get { name: String },
    /// Add a server: `add NAME -- COMMAND [ARGS...]` or `add -t http NAME URL`.
    Add(AddArgs),
    /// Add a server from one JSON entry, as `claude mcp add-json`.
    AddJson {
        #[arg(short, long, value_parser = parse_scope, default_value = "local")]
        scope: Scope,
        /// Read an OAuth client secret (from MCP_CLIENT_SECRET, a prompt, or stdin) into the
        /// OS keychain.
        #[arg(long)]
        client_secret: bool,
        name: String,
        /// The entry, for example '{"type":"http","url":"https://…"}'.
        #[arg(value_name = "JSON")]
        entry: String,
    },
    /// Find servers in an MCP registry: `registry search TEXT`, `registry show NAME`,
    /// `registry refresh` (the cached listing, for offline use).
    Registry {
        #[command(subcommand)]
        action: RegistryAction,
    },
    /// Install a server from an MCP registry, with its version pinned: npm → npx, PyPI → uvx,
    /// NuGet → dnx, OCI → docker, or a remote. Secrets go in as ${NAME} unless --secrets says
    /// otherwise (never into the project scope).
    Install(registry::InstallArgs),
    /// Print a server's secret headers from the OS keychain as JSON: the headersHelper that
    /// `install --secrets keychain` writes, for Claude Code and MCP Manager alike.
    SecretHeader { name: String },
    /// Remove a server.
    Remove {
        name: String,
        #[arg(short, long, value_parser = parse_scope)]
        scope: Option<Scope>,
    },
    /// Claude Code plugins: list them (on or off, and why), or turn one on or off.
    Plugin {
        #[command(subcommand)]
        action: Option<PluginAction>,
    },
    /// Start using a disabled server again in this project.
    Enable { name: String },
    /// Stop using a server in this project without deleting it.
    Disable { name: String },
    /// Approve a project (.mcp.json) server so that it may start; with --all, every server of
    /// the project, now and later (enableAllProjectMcpServers).
    Approve {
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        name: Option<String>,
        #[arg(long)]
        all: bool,
    },
    /// Forget the approvals and rejections stored for this project's .mcp.json servers, as
    /// `claude mcp reset-project-choices` does.
    ResetProjectChoices,
    /// Trust a project folder (default: --project, else the current folder), as Claude Code's
    /// trust dialog does: its own .claude/settings*.json approvals count from then on. Writes
    /// projects["<folder>"].hasTrustDialogAccepted: true to ~/.claude.json.
    Trust {
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Let Claude Code use a tool (or every tool of a server, without TOOL) without asking:
    /// `mcp__server__tool` in `permissions.allow` of a settings file.
    Allow(RuleArgs),
    /// Make Claude Code ask before using a tool (`permissions.ask`).
    Ask(RuleArgs),
    /// Forbid a tool to Claude Code (`permissions.deny`).
    Deny(RuleArgs),
    /// Show the permission rule in force for a tool (or a server) and the file that says it;
    /// with --clear, remove the rule from the settings file named by --settings.
    Rule {
        #[command(flatten)]
        rule: RuleArgs,
        #[arg(long)]
        clear: bool,
    },
    /// Reject a project (.mcp.json) server so that it never starts.
    Reject { name: String },
    /// Import servers from another client: shows what will be added, skipped and
    /// conflicting, then writes (after asking on a terminal, or with --yes).
    Import {
        /// claude-desktop, cursor, cursor-project, vscode, windsurf, codex, gemini,
        /// gemini-project or zed.
        #[arg(long, value_parser = parse_client)]
        from: Client,
        /// Read this file instead of the client's usual one.
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
        #[arg(short, long, value_parser = parse_scope, default_value = "local")]
        scope: Scope,
        /// A value for a VS Code `${input:ID}`; repeat for more.
        #[arg(long = "input", value_name = "ID=VALUE", value_parser = parse_env)]
        inputs: Vec<(String, String)>,
        /// Write without asking.
        #[arg(long, short = 'y')]
        yes: bool,
        /// Only show the plan.
        #[arg(long, conflicts_with = "yes")]
        dry_run: bool,
    },
    /// Connect every server and print one line each; exit 1 if any failed.
    Status {
        /// Also find out which protocol era each local server opened with `initialize` speaks
        /// (server/discover, asked in a second process beside its session), wait for the
        /// answers and remember them, as the window does on its own: a server that speaks
        /// 2026-07-28 too then opens in it.
        #[arg(long)]
        find_eras: bool,
    },
    /// List the tools of one server, or of every server that starts.
    Tools { server: Option<String> },
    /// What a client sends its model of a server's tools (of every server that starts, when
    /// none is named): each tool as sent, the cuts, the drops with their reasons, and what it
    /// defers; exit 1 when the client drops a tool.
    Compat {
        server: Option<String>,
        /// The client: Claude Code 2.1.332 (exact, judged against it), or another client as its
        /// source at a named commit says.
        #[arg(long, default_value = "claude-code", value_parser = ["claude-code", "vscode", "codex", "gemini", "zed", "cursor", "windsurf"])]
        client: String,
    },
    /// What Claude Code's view of the servers' tools costs in Claude's context (of every
    /// server that starts): per tool and per server, upfront and once loaded through
    /// ToolSearch, heaviest first, and the project's cost with each server turned off.
    /// Offline it is an estimate, with its tokenizer and error named.
    Cost {
        /// Count exactly with the model API's token counting endpoint, with your key
        /// (ANTHROPIC_API_KEY, else the OS keychain).
        #[arg(long)]
        exact: bool,
    },
    /// Call a tool and print its result; exit 1 when the result is an error.
    Call {
        server: String,
        tool: String,
        /// The arguments as a JSON object.
        #[arg(long, value_name = "JSON", conflicts_with = "args_file")]
        args: Option<String>,
        /// Read the arguments from a JSON file.
        #[arg(long, value_name = "FILE")]
        args_file: Option<PathBuf>,
        /// Give up after this many seconds (the server gets notifications/cancelled).
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
        /// Accept the server's elicitation requests with this JSON object (default: decline).
        #[arg(long, value_name = "JSON")]
        elicit: Option<String>,
        /// Offer to run it as a task (2026-07-28's tasks extension): a server that makes one
        /// is polled until it ends, its input requests answered; Ctrl-C cancels the task.
        #[arg(long)]
        task: bool,
        /// Keep the call as a case of this collection (a name, in the project's
        /// .mcp-collections/, or a path), its outcome and result as what is expected.
        #[arg(long, value_name = "COLLECTION")]
        save_to: Option<String>,
        /// The case's name (default: the tool's).
        #[arg(long = "as", value_name = "NAME", requires = "save_to")]
        save_as: Option<String>,
    },
    /// Run the cases of collections (default: every one in the project's .mcp-collections/):
    /// one line per case and a summary; exit 1 when any failed or could not run.
    Test {
        /// Collections: names (in .mcp-collections/) or paths.
        collections: Vec<String>,
        /// Only the case of this name.
        #[arg(long = "case", value_name = "NAME")]
        case: Option<String>,
        /// Also write a JUnit XML report here.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// A case that fails on its snapshot alone takes the new result as its snapshot.
        #[arg(long)]
        update_snapshots: bool,
    },
    /// Write what a server offers (tools with their schemas, resources, templates, prompts,
    /// name and version) as a normalized JSON file, for `mcpctl diff`.
    Snapshot {
        server: String,
        /// The file (default: standard output).
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// What changed: `diff SERVER FILE` (the file against the server now) or `diff OLD NEW`
    /// (two files); exit 1 on a breaking change (a removed tool or property, a newly required
    /// property, a narrowed type or enum).
    Diff {
        /// A server, or the older file.
        first: String,
        /// The file to compare with (the newer one, when FIRST is a file).
        file: PathBuf,
    },
    /// Compare each running server's tools (or SERVER's) with what was pinned when it was
    /// approved: a diff per changed, new or removed tool, and the lint of what the model
    /// reads. A server never pinned is pinned now (its first connect). Exit 1 on drift.
    Verify {
        server: Option<String>,
        /// Deny every changed or new tool in Claude Code (`mcp__server__tool` in
        /// `permissions.deny`) until `mcpctl accept`.
        #[arg(long)]
        quarantine: bool,
        /// Where the deny rules go: local (default), project or user.
        #[arg(long, value_parser = parse_settings_file, default_value = "local", requires = "quarantine")]
        settings: SettingsFile,
    },
    /// Pin what each running server (or SERVER) serves now, replacing its pin.
    Pin { server: Option<String> },
    /// Before a package starts: what each stdio entry's npx, pnpm dlx, bunx, uvx, pipx run or
    /// docker run (or SERVER's) will fetch, whether its version is pinned, and what the
    /// registry says of it (deprecated or deleted, a newer version and what it requires, its
    /// post-install instructions as text). Starts nothing. Exit 1 when a package is not pinned
    /// or its version is deprecated or deleted.
    Preflight {
        server: Option<String>,
        /// Start SERVER, read the version that really runs, and pin the entry to it (the diff
        /// is printed, then written).
        #[arg(long, requires = "server")]
        pin: bool,
    },
    /// Accept what SERVER serves now for TOOL (every tool when none is named): its pin takes
    /// it, and the deny rules written for it are removed.
    Accept {
        server: String,
        tool: Option<String>,
    },
    /// List a server's resources and resource templates.
    Resources { server: String },
    /// Read a resource; blobs go to a file (-o, or a temporary one whose path is printed).
    Read {
        server: String,
        uri: String,
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// List a server's skills (the Skills extension, SEP-2640): name, description, files.
    /// Reads none of them
    Skills { server: String },
    /// Load one of a server's skills: its SKILL.md and files, each checked against the digest
    /// and size the server published (and the SKILL.md's frontmatter against the listed one).
    /// Prints the SKILL.md, or with -o writes the verified files under DIR/NAME/. Exit 1 when
    /// a file fails its check: its content is neither printed nor written
    Skill {
        server: String,
        name: String,
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
    },
    /// List a server's prompts.
    Prompts { server: String },
    /// Get a prompt with arguments.
    Prompt {
        server: String,
        name: String,
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
    },
    /// Start a server and print the tail of its stderr.
    Logs { server: String },
    /// Log in to a remote server with OAuth in your browser; the tokens go to the OS keychain.
    Login {
        server: String,
        /// Print the authorization URL instead of opening the browser.
        #[arg(long)]
        no_browser: bool,
        /// Ask for these scopes (space-separated) on top of what discovery selects.
        #[arg(long, value_name = "SCOPES")]
        scope: Option<String>,
        /// Print every OAuth exchange on stderr, secrets concealed (the window's debugger).
        #[arg(long, short = 'v')]
        verbose: bool,
        /// Where the login is kept from now on: `keychain` (MCP Manager's) or `claude-code`
        /// (Claude Code's credential store, so that Claude Code uses the same login).
        #[arg(long, value_name = "STORE", value_parser = parse_store)]
        store: Option<LoginStore>,
    },
    /// Check why a server does not work, step by step (command, process, network, TLS,
    /// OAuth, protocol, tools), ending at the first failure with what to do; every server
    /// when none is named. Exit 1 when one is unhealthy.
    Doctor { server: Option<String> },
    /// Forget a server's login: revoke its tokens where the server allows, and remove tokens
    /// and client registration from the keychain.
    Logout { server: String },
    /// Every login held: where it is kept, its issuer and scopes, when it expires, whether it
    /// can be refreshed, its last refresh, and when the keeper refreshes it next.
    Logins,
    /// Refresh a server's login now (every login the keeper would refresh, when none is named);
    /// exit 1 when a refresh failed.
    Refresh { server: Option<String> },
    /// Run the login keeper in the foreground: refresh every login some minutes before it
    /// expires, printing each refresh, until Ctrl-C (or for SECONDS).
    Keep {
        /// Stop after this many seconds.
        #[arg(long, value_name = "SECONDS")]
        r#for: Option<u64>,
        /// Refresh the logins kept in Claude Code's store too (only while no Claude Code runs),
        /// whatever the window's setting says.
        #[arg(long)]
        claude_code: bool,
    },
    /// The tool calls made by hand (here and in the window), newest first; `history replay
    /// ID` makes one again.
    #[command(args_conflicts_with_subcommands = true)]
    History {
        #[command(subcommand)]
        replay: Option<HistoryCommand>,
        #[arg(long)]
        server: Option<String>,
        #[arg(long)]
        tool: Option<String>,
        /// A word of the tool, server, arguments, result or name.
        #[arg(long, value_name = "TEXT")]
        search: Option<String>,
        /// ok, tool-error or failed.
        #[arg(long, value_parser = parse_call_status)]
        status: Option<mcp_manager_history::CallStatus>,
        /// Only calls saved under a name.
        #[arg(long)]
        saved: bool,
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// The servers subagents name or define in their frontmatter (mcpServers), which connect
    /// only while that subagent runs, and what Claude Code does with each; `agents move`
    /// moves a server into an agent or out of one.
    Agents {
        #[command(subcommand)]
        command: Option<agents::AgentsCommand>,
    },
    /// Profiles: named sets of servers enabled for the project in one step, and undone in
    /// one step.
    Profile {
        #[command(subcommand)]
        command: profiles::ProfileCommand,
    },
    /// Which MCP servers and tools Claude Code's sessions called in this project (all
    /// projects with --all), how those calls ended and how its connections went, read from
    /// Claude Code's own records: calls and failures over 7 and N days, median duration, last
    /// use, servers never called, failed connections.
    Usage {
        #[arg(long, default_value_t = 30)]
        days: u32,
        #[arg(long)]
        all: bool,
    },
    /// Export the servers this project uses to another client's file, listing what it cannot
    /// express.
    Export {
        #[arg(long, value_parser = parse_client)]
        to: Client,
        /// Write this file instead of the client's usual one.
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
    },
}

/// A tool (or a server) and the settings file a rule goes to.
#[derive(Args)]
struct RuleArgs {
    server: String,
    tool: Option<String>,
    /// local (.claude/settings.local.json), project (.claude/settings.json) or user
    /// (~/.claude/settings.json).
    #[arg(long, value_parser = parse_settings_file, default_value = "local")]
    settings: SettingsFile,
}

#[derive(Subcommand, Debug)]
enum PluginAction {
    /// Turn a plugin on (`enabledPlugins["NAME@MARKETPLACE"]: true`).
    Enable {
        id: String,
        /// The settings file to write: user (default), project or local.
        #[arg(long, value_parser = parse_settings_file, default_value = "user")]
        settings: SettingsFile,
    },
    /// Turn a plugin off (`enabledPlugins["NAME@MARKETPLACE"]: false`).
    Disable {
        id: String,
        #[arg(long, value_parser = parse_settings_file, default_value = "user")]
        settings: SettingsFile,
    },
}

fn parse_settings_file(word: &str) -> Result<SettingsFile, String> {
    match word {
        "local" => Ok(SettingsFile::Local),
        "project" => Ok(SettingsFile::Project),
        "user" => Ok(SettingsFile::User),
        other => Err(format!("{other:?} is not local, project or user")),
    }
}

fn print_rule(json: bool, force: &RuleInForce) {
    if json {
        print_json(force);
        return;
    }
    match (&force.rule, &force.entry, &force.path) {
        (Some(rule), Some(entry), Some(path)) => {
            let word = match rule {
                Rule::Allow => "allowed",
                Rule::Ask => "asked",
                Rule::Deny => "denied",
            };
            out!("{}: {word} by {entry} in {path}", force.name);
        }
        _ => out!("{}: no rule; Claude Code asks", force.name),
    }
}

/// What `mcpctl history` can do besides listing.
#[derive(Subcommand)]
enum HistoryCommand {
    /// Make a kept call again, with its arguments.
    Replay { id: u32 },
    /// Remove the calls kept (those saved under a name stay: remove their names first).
    Clear {
        /// Only the calls made before this day (YYYY-MM-DD, UTC).
        #[arg(long, value_name = "DATE", value_parser = parse_day)]
        before: Option<i64>,
    },
}

/// `YYYY-MM-DD` as milliseconds since the epoch, at 00:00 UTC.
fn parse_day(text: &str) -> Result<i64, String> {
    let bad = || format!("{text:?} is not a day: write YYYY-MM-DD");
    let parts: Vec<i64> = text
        .split('-')
        .map(|p| p.parse::<i64>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    let [year, month, day] = parts[..] else {
        return Err(bad());
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || !(1970..=9999).contains(&year) {
        return Err(bad());
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Ok((era * 146_097 + doe - 719_468) * 86_400_000)
}

fn parse_call_status(word: &str) -> Result<mcp_manager_history::CallStatus, String> {
    match word {
        "ok" => Ok(mcp_manager_history::CallStatus::Ok),
        "tool-error" => Ok(mcp_manager_history::CallStatus::ToolError),
        "failed" => Ok(mcp_manager_history::CallStatus::Failed),
        other => Err(format!("{other:?} is not ok, tool-error or failed")),
    }
}

fn parse_client(word: &str) -> Result<Client, String> {
    Client::parse(word).ok_or_else(|| {
        let all: Vec<&str> = Client::ALL.iter().map(|c| c.as_str()).collect();
        format!("unknown client \"{word}\": use one of {}", all.join(", "))
    })
}

#[derive(Args)]
struct AddArgs {
    /// Configuration scope: local, project or user.
    #[arg(short, long, value_parser = parse_scope, default_value = "local")]
    scope: Scope,
    /// Transport: stdio (default), http, sse or ws.
    #[arg(short, long, value_parser = parse_transport)]
    transport: Option<TransportKind>,
    /// An environment variable for a stdio server, KEY=VALUE; repeat for more.
    #[arg(short, long = "env", value_name = "KEY=VALUE", value_parser = parse_env)]
    env: Vec<(String, String)>,
    /// A header for a remote server, 'Name: value'; repeat for more.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    header: Vec<(String, String)>,
    /// OAuth client id for HTTP/SSE servers.
    #[arg(long)]
    client_id: Option<String>,
    /// Read the OAuth client secret (from MCP_CLIENT_SECRET, a prompt, or stdin) into the OS
    /// keychain.
    #[arg(long)]
    client_secret: bool,
    /// Fixed port for the OAuth callback.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    callback_port: Option<u16>,
    name: String,
    /// The URL (http, sse, ws) or the command (stdio).
    command_or_url: String,
    /// Arguments of the command.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

#[derive(Subcommand)]
enum RegistryAction {
    /// Search by name (the registry's own search; the cached listing when it cannot be reached).
    Search { text: String },
    /// Every version of a server, and one version's packages and remotes with what they ask.
    Show {
        name: String,
        #[arg(long)]
        version: Option<String>,
    },
    /// Bring the cached listing up to date (only what changed, after the first time).
    Refresh,
}

pub(crate) fn parse_secrets(
    word: &str,
) -> Result<mcp_manager_registry::install::SecretPlacement, String> {
    use mcp_manager_registry::install::SecretPlacement;
    match word {
        "variable" => Ok(SecretPlacement::Variable),
        "file" => Ok(SecretPlacement::InFile),
        "keychain" => Ok(SecretPlacement::Keychain),
        _ => Err(format!(
            "invalid --secrets \"{word}\": use variable, file or keychain"
        )),
    }
}

use mcp_manager_core::config::snippet::{parse_env, parse_scope, parse_transport};

use mcp_manager_core::config::snippet::parse_header;

/// The outcome of a verb: what to print, or an error.
type Outcome = Result<(), ApiError>;

mod agents;
mod cases;
mod compat;
mod cost;
mod doctor;
mod history;
mod kept;
mod logins;
mod pins;
mod preflight;
mod profiles;
mod registry;
mod runtime;
mod surfaces;
mod trace;
mod usage;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    let registry_flag = cli.registry.clone();
    let project = match &cli.command {
        Command::Trust { dir: Some(dir) } => Some(dir.as_path()),
        _ => cli.project.as_deref(),
    };
    let outcome = Locations::from_env(project)
        .map_err(ApiError::from)
        .and_then(|locations| run(&locations, cli.command, json, registry_flag.as_deref()));
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            if json {
                print_json(&serde_json::json!({ "error": err }));
            } else {
                eout!("mcpctl: {}", for_terminal(&err.message));
            }
            ExitCode::FAILURE
        }
    }
}

fn json_object(
    text: &str,
    what: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, ApiError> {
    match serde_json::from_str(text) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(_) => Err(ConfigError::Invalid(format!("{what} must be a JSON object")).into()),
        Err(err) => Err(ConfigError::Invalid(format!("{what} is not valid JSON: {err}")).into()),
    }
}

/// Runs one verb; `Ok(false)` means "done, but report failure" (exit 1 without a message).
fn run(
    locations: &Locations,
    command: Command,
    json: bool,
    registry_flag: Option<&str>,
) -> Result<bool, ApiError> {
    use runtime::Ask;
    match command {
        Command::Status { find_eras } => return runtime::status(locations, json, find_eras),
        Command::Tools { server } => {
            return runtime::ask(locations, server.as_deref(), Ask::Tools, json)
        }
        Command::Compat { server, client } => {
            let client = mcp_manager_clients::Client::parse(&client)
                .unwrap_or(mcp_manager_clients::Client::ClaudeCode);
            return runtime::ask(locations, server.as_deref(), Ask::Compat { client }, json);
        }
        Command::Cost { exact } => return runtime::ask(locations, None, Ask::Cost { exact }, json),
        Command::Call {
            server,
            tool,
            args,
            args_file,
            timeout,
            elicit,
            task,
            save_to,
            save_as,
        } => {
            let text = match (args, args_file) {
                (Some(text), _) => Some(text),
                (None, Some(file)) => Some(
                    mcp_manager_core::files::read_text(&file, mcp_manager_core::files::READ_LIMIT)
                        .map_err(|err| {
                            ApiError::from(ConfigError::Invalid(format!("could not read {err}")))
                        })?
                        .ok_or_else(|| {
                            ApiError::from(ConfigError::Invalid(format!(
                                "could not read {}: it does not exist",
                                file.display()
                            )))
                        })?,
                ),
                (None, None) => None,
            };
            let arguments = text.map(|t| json_object(&t, "--args")).transpose()?;
            let timeout = timeout
                .filter(|s| s.is_finite() && *s > 0.0)
                .map(std::time::Duration::from_secs_f64);
            let elicit = elicit.map(|t| json_object(&t, "--elicit")).transpose()?;
            return runtime::ask(
                locations,
                Some(&server),
                Ask::Call {
                    tool,
                    arguments,
                    timeout,
                    elicit: elicit.map(serde_json::Value::Object),
                    task,
                    save_to: save_to.map(|collection| runtime::SaveTo {
                        collection,
                        name: save_as,
                    }),
                },
                json,
            );
        }
        Command::Resources { server } => {
            return runtime::ask(locations, Some(&server), Ask::Resources, json)
        }
        Command::Read {
            server,
            uri,
            output,
        } => return runtime::ask(locations, Some(&server), Ask::Read { uri, output }, json),
        Command::Prompts { server } => {
            return runtime::ask(locations, Some(&server), Ask::Prompts, json)
        }
        Command::Skills { server } => {
            return runtime::ask(locations, Some(&server), Ask::Skills, json)
        }
        Command::Skill {
            server,
            name,
            output,
        } => return runtime::ask(locations, Some(&server), Ask::Skill { name, output }, json),
        Command::Prompt { server, name, args } => {
            let arguments = args.map(|t| json_object(&t, "--args")).transpose()?;
            return runtime::ask(
                locations,
                Some(&server),
                Ask::Prompt { name, arguments },
                json,
            );
        }
        Command::Logs { server } => return runtime::ask(locations, Some(&server), Ask::Logs, json),
        Command::Login {
            server,
            no_browser,
            scope,
            verbose,
            store,
        } => {
            return runtime::login(
                locations,
                &server,
                no_browser,
                scope.as_deref(),
                store,
                json,
                verbose,
            )
        }
        Command::Doctor { server } => return doctor::doctor(locations, server.as_deref(), json),
        Command::Snapshot { server, output } => {
            return surfaces::snapshot(locations, &server, output.as_deref())
        }
        Command::Diff { first, file } => return surfaces::diff(locations, &first, &file, json),
        Command::Verify {
            server,
            quarantine,
            settings,
        } => {
            let quarantine = quarantine.then_some(settings);
            return pins::run(
                locations,
                server.as_deref(),
                pins::Verb::Verify { quarantine },
                json,
            );
        }
        Command::Pin { server } => {
            return pins::run(locations, server.as_deref(), pins::Verb::Pin, json)
        }
        Command::Preflight { server, pin } => {
            return preflight::run(locations, registry_flag, server.as_deref(), pin, json)
        }
        Command::Accept { server, tool } => {
            return pins::run(locations, Some(&server), pins::Verb::Accept { tool }, json)
        }
        Command::Test {
            collections,
            case,
            junit,
            update_snapshots,
        } => {
            return cases::test(
                locations,
                &collections,
                case.as_deref(),
                junit.as_deref(),
                update_snapshots,
                json,
            )
        }
        Command::History {
            replay: Some(HistoryCommand::Replay { id }),
            ..
        } => return history::replay(locations, id, json),
        Command::History {
            replay: Some(HistoryCommand::Clear { before }),
            ..
        } => return history::clear(locations, before, json),
        Command::History {
            replay: None,
            server,
            tool,
            search,
            status,
            saved,
            limit,
        } => {
            return history::list(
                locations,
                mcp_manager_history::CallFilter {
                    server,
                    tool,
                    text: search,
                    status,
                    saved,
                    limit,
                    without_results: false,
                },
                json,
            )
        }
        Command::Logout { server } => return runtime::logout(locations, &server, json),
        Command::Logins => return logins::list(locations, json),
        Command::Keep { r#for, claude_code } => {
            return logins::keep(locations, r#for, claude_code, json)
        }
        Command::Refresh { server } => return logins::refresh(locations, server.as_deref(), json),
        Command::Usage { days, all } => return usage::run(locations, days, all, json),
        Command::Profile { command } => return profiles::run(locations, command, json),
        Command::Agents { command } => return agents::run(locations, command, json),
        _ => {}
    }
    run_config(locations, command, json, registry_flag).map(|()| true)
}

fn run_config(
    locations: &Locations,
    command: Command,
    json: bool,
    registry_flag: Option<&str>,
) -> Outcome {
    match command {
        Command::List => {
            let list = api::list_servers(locations);
            if json {
                print_json(&list);
            } else {
                untrusted_notice(locations);
                print_list(&list);
            }
        }
        Command::Get { name } => {
            let detail = api::get_server(locations, &name)?;
            if json {
                print_json(&detail);
            } else {
                print_detail(&detail);
            }
        }
        Command::Add(args) => add(locations, args, json)?,
        Command::Registry { action } => match action {
            RegistryAction::Search { text } => {
                registry::search(locations, registry_flag, &text, json)?
            }
            RegistryAction::Show { name, version } => {
                registry::show(locations, registry_flag, &name, version.as_deref(), json)?
            }
            RegistryAction::Refresh => registry::refresh(locations, registry_flag, json)?,
        },
        Command::Install(args) => registry::install(locations, registry_flag, args, json)?,
        Command::SecretHeader { name } => registry::secret_header(&name)?,
        Command::AddJson {
            scope,
            client_secret,
            name,
            entry,
        } => {
            let secret = client_secret.then(read_client_secret).transpose()?;
            let (config, _) = api::parse_add_json(&name, &entry)?;
            let (written, config) = with_client_secret(&name, &config, secret.as_ref(), || {
                api::add_json(locations, &name, scope, &entry)
            })?;
            report(json, &written, || {
                format!(
                    "Added {} MCP server {name} to {scope} config",
                    config.kind().as_str()
                )
            });
        }
        Command::Remove { name, scope } => {
            let written = api::remove_server(locations, &name, scope)?;
            report(json, &written, || {
                format!(
                    "Removed MCP server \"{name}\" from {} config",
                    written.scope
                )
            });
        }
        Command::Plugin { action: None } => {
            let list = api::list_servers(locations);
            if json {
                print_json(&list.plugins);
            } else if list.plugins.is_empty() {
                out!("No Claude Code plugins are installed.");
            } else {
                for plugin in &list.plugins {
                    out!(
                        "{}: {} — {}{}",
                        plugin.id,
                        if plugin.refused {
                            "refused"
                        } else if plugin.enabled {
                            "on"
                        } else {
                            "off"
                        },
                        plugin.why,
                        if plugin.servers.is_empty() {
                            String::new()
                        } else {
                            format!(" (servers: {})", plugin.servers.join(", "))
                        }
                    );
                }
            }
        }
        Command::Plugin {
            action: Some(action),
        } => {
            let (id, settings, on) = match action {
                PluginAction::Enable { id, settings } => (id, settings, true),
                PluginAction::Disable { id, settings } => (id, settings, false),
            };
            let written = api::set_plugin_enabled(locations, &id, on, settings)?;
            report(json, &written, || {
                format!(
                    "Plugin \"{id}\" turned {}; its MCP servers follow",
                    if on { "on" } else { "off" }
                )
            });
        }
        Command::Enable { name } => {
            let written = api::set_enabled(locations, &name, true)?;
            report(json, &written, || {
                format!("Enabled MCP server \"{name}\" in this project")
            });
        }
        Command::Disable { name } => {
            let written = api::set_enabled(locations, &name, false)?;
            report(json, &written, || {
                format!("Disabled MCP server \"{name}\" in this project")
            });
        }
        Command::Approve {
            name: Some(name), ..
        } => approval(locations, &name, true, json)?,
        Command::Approve { name: None, .. } => {
            let approved = api::approve_all_project_servers(locations)?;
            if json {
                print_json(&serde_json::json!({ "approved": approved, "all": true }));
            } else {
                out!(
                    "Approved every project MCP server, now and later ({})\nFile modified: {}",
                    if approved.is_empty() {
                        "none yet".to_string()
                    } else {
                        approved.join(", ")
                    },
                    locations.project_local_settings().display()
                );
            }
        }
        Command::ResetProjectChoices => {
            let report = api::reset_project_choices(locations)?;
            if json {
                print_json(&report);
            } else {
                // Claude Code 2.1.332's words.
                let servers = |names: &[String], one: &str, many: &str| {
                    if names.len() == 1 {
                        format!("1 server ({}) {one}", names[0])
                    } else {
                        format!("{} servers ({}) {many}", names.len(), names.join(", "))
                    }
                };
                out!("Project-scoped (.mcp.json) server approvals and rejections stored for this project have been reset.");
                if !report.still_approved.is_empty() {
                    out!(
                        "{}",
                        servers(
                            &report.still_approved,
                            "is still approved by other settings and will connect automatically without prompting.",
                            "are still approved by other settings and will connect automatically without prompting."
                        )
                    );
                }
                if !report.still_rejected.is_empty() {
                    out!(
                        "{}",
                        servers(
                            &report.still_rejected,
                            "remains rejected by other settings and will not prompt.",
                            "remain rejected by other settings and will not prompt."
                        )
                    );
                }
                out!("You will be prompted for approval next time you start MCP Manager or Claude Code.");
            }
        }
        Command::Trust { .. } => {
            let trust = api::trust_folder(locations)?;
            if json {
                print_json(&trust);
            } else {
                out!(
                    "Trusted {}\nFile modified: {} ({})",
                    trust.folder,
                    trust.file,
                    trust.writes
                );
                for line in folder_contents(&trust) {
                    out!("Now counts: {line}");
                }
            }
        }
        Command::Allow(args) => set_rule(locations, args, Some(Rule::Allow), json)?,
        Command::Ask(args) => set_rule(locations, args, Some(Rule::Ask), json)?,
        Command::Deny(args) => set_rule(locations, args, Some(Rule::Deny), json)?,
        Command::Rule { rule, clear: true } => set_rule(locations, rule, None, json)?,
        Command::Rule { rule, clear: false } => print_rule(
            json,
            &api::tool_rule(locations, &rule.server, rule.tool.as_deref()),
        ),
        Command::Reject { name } => approval(locations, &name, false, json)?,
        Command::Import {
            from,
            file,
            scope,
            inputs,
            yes,
            dry_run,
        } => import(locations, from, file, scope, inputs, yes, dry_run, json)?,
        Command::Status { .. }
        | Command::Tools { .. }
        | Command::Compat { .. }
        | Command::Cost { .. }
        | Command::Call { .. }
        | Command::Resources { .. }
        | Command::Read { .. }
        | Command::Prompts { .. }
        | Command::Skills { .. }
        | Command::Skill { .. }
        | Command::Prompt { .. }
        | Command::Logs { .. }
        | Command::Login { .. }
        | Command::Doctor { .. }
        | Command::History { .. }
        | Command::Test { .. }
        | Command::Snapshot { .. }
        | Command::Diff { .. }
        | Command::Verify { .. }
        | Command::Pin { .. }
        | Command::Preflight { .. }
        | Command::Accept { .. }
        | Command::Logout { .. }
        | Command::Logins
        | Command::Refresh { .. }
        | Command::Keep { .. }
        | Command::Usage { .. }
        | Command::Profile { .. }
        | Command::Agents { .. } => unreachable!("runtime verbs are handled by `run`"),
        Command::Export { to, file } => {
            let report = interop::export(locations, to, file.as_deref())?;
            if json {
                print_json(&report);
            } else {
                for lost in &report.not_expressible {
                    eout!("warning: {} cannot express {lost}", to.as_str());
                }
                match &report.printed {
                    Some(snippet) => {
                        eout!(
                            "{} has comments, which a rewrite would lose; nothing was written. \
                             Paste this into it instead:",
                            report.target
                        );
                        out!("{snippet}");
                    }
                    None => out!(
                        "Exported {} server(s) to {}: {}",
                        report.written.len(),
                        report.target,
                        report.written.join(", ")
                    ),
                }
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn import(
    locations: &Locations,
    from: Client,
    file: Option<PathBuf>,
    scope: Scope,
    inputs: Vec<(String, String)>,
    yes: bool,
    dry_run: bool,
    json: bool,
) -> Outcome {
    let plan = interop::plan_import(locations, from, file.as_deref(), scope)?;
    if !json {
        out!("Import from {} into the {scope} scope:", plan.source);
        for item in &plan.add {
            out!(
                "  add       {}  {}  {}",
                item.name,
                item.transport.as_str(),
                item.target
            );
            for warning in &item.warnings {
                out!("            warning: {warning}");
            }
        }
        for item in &plan.skipped {
            out!("  skip      {}: {}", item.name, item.reason);
        }
        for item in &plan.conflicts {
            out!("  conflict  {}: {}", item.name, item.reason);
        }
        if plan.add.is_empty() {
            out!("Nothing to add.");
        }
    }
    let write =
        !dry_run && !plan.add.is_empty() && (yes || (!json && confirm("Write these servers?")));
    let mut values: BTreeMap<String, String> = inputs.into_iter().collect();
    if write && std::io::stdin().is_terminal() {
        for prompt in &plan.inputs {
            if values.contains_key(&prompt.id) {
                continue;
            }
            let label = one_line(&for_terminal(
                prompt.description.as_deref().unwrap_or(&prompt.id),
            ));
            let value = if prompt.password {
                rpassword::prompt_password(format!("{label}: "))
            } else {
                print!("{label}: ");
                let _ = std::io::stdout().flush();
                let mut line = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut line)
                    .map(|_| line.trim_end().to_string())
            }
            .map_err(|err| {
                ConfigError::Invalid(format!("could not read input {}: {err}", prompt.id))
            })?;
            values.insert(prompt.id.clone(), value);
        }
    }
    let added = if write {
        mcp_manager_core::api::apply_import(locations, &plan, &values)?
    } else {
        Vec::new()
    };
    if json {
        print_json(&serde_json::json!({ "plan": plan, "added": added }));
    } else if write {
        out!("Added {} server(s): {}", added.len(), added.join(", "));
    } else if !plan.add.is_empty() {
        out!(
            "Nothing was written{}.",
            if dry_run {
                ""
            } else {
                "; run again with --yes to write"
            }
        );
    }
    Ok(())
}

/// Asks on a terminal; anything but yes is no, and so is a missing terminal.
fn confirm(question: &str) -> bool {
    if !std::io::stdin().is_terminal() {
        return false;
    }
    print!("{question} [y/N] ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).is_ok()
        && matches!(answer.trim(), "y" | "Y" | "yes")
}

fn approval(locations: &Locations, name: &str, approve: bool, json: bool) -> Outcome {
    let status = api::set_approval(locations, name, approve)?;
    if json {
        print_json(&serde_json::json!({ "name": name, "approval": status }));
    } else {
        let verb = if approve { "Approved" } else { "Rejected" };
        let agent = api::list_servers(locations)
            .servers
            .iter()
            .any(|s| s.name == name && s.scope == Scope::Agent);
        if agent {
            // A subagent's own server: the approval is ours, in the app's data; Claude Code's
            // files are not touched.
            let verb = if approve {
                "Approved"
            } else {
                "Took back the approval of"
            };
            out!(
                "{verb} subagent server \"{name}\" here\nFile modified: {}",
                mcp_manager_core::config::approval::agent_approvals_file(locations).display()
            );
            return Ok(());
        }
        out!(
            "{verb} project MCP server \"{name}\"\nFile modified: {}",
            locations.project_local_settings().display()
        );
    }
    Ok(())
}

fn add(locations: &Locations, args: AddArgs, json: bool) -> Outcome {
    let kind = args.transport.unwrap_or(TransportKind::Stdio);
    let target = args.command_or_url.clone();
    if kind == TransportKind::Stdio {
        if args.client_id.is_some() || args.client_secret || args.callback_port.is_some() {
            eout!(
                "Warning: --client-id, --client-secret, and --callback-port are only supported \
                 for HTTP/SSE transports and will be ignored for stdio."
            );
        }
        let looks_like_url = target.starts_with("http://")
            || target.starts_with("https://")
            || target.starts_with("localhost")
            || target.ends_with("/sse")
            || target.ends_with("/mcp");
        if args.transport.is_none() && looks_like_url {
            eout!(
                "\nWarning: The command \"{target}\" looks like a URL, but is being interpreted as \
                 a stdio server as --transport was not specified.\nIf this is an HTTP server, use: \
                 mcpctl add --transport http {name} {target}\nIf this is an SSE server, use: mcpctl \
                 add --transport sse {name} {target}",
                name = args.name
            );
        }
    }
    // The same entry builder as a pasted `claude mcp add` line (config::snippet).
    let config = AddCommand {
        scope: Some(args.scope),
        transport: args.transport,
        env: args.env.clone(),
        headers: args.header.clone(),
        client_id: args.client_id.clone(),
        callback_port: args.callback_port,
        name: args.name.clone(),
        target: target.clone(),
        args: args.args.clone(),
    }
    .config()?;
    let secret = (args.client_secret && args.client_id.is_some() && kind != TransportKind::Stdio)
        .then(read_client_secret)
        .transpose()?;
    let written = with_client_secret(&args.name, &config, secret.as_ref(), || {
        api::add_server(
            locations,
            &args.name,
            args.scope,
            &config,
            &Default::default(),
        )
    })?;
    let name = &args.name;
    let scope = args.scope;
    report(json, &written, || match kind {
        TransportKind::Stdio => format!(
            "Added stdio MCP server {name} with command: {target} {} to {scope} config",
            args.args.join(" ")
        ),
        other => {
            let label = match other {
                TransportKind::Http => "HTTP",
                TransportKind::Sse => "SSE",
                _ => "WebSocket",
            };
            format!("Added {label} MCP server {name} with URL: {target} to {scope} config")
        }
    });
    Ok(())
}

/// The client secret: `MCP_CLIENT_SECRET`, else a prompt without echo on a terminal, else the
/// first line of stdin.
fn read_client_secret() -> Result<Secret, ApiError> {
    let invalid = |message: String| ApiError::from(ConfigError::Invalid(message));
    if let Ok(value) = std::env::var("MCP_CLIENT_SECRET") {
        return Ok(Secret::new(value));
    }
    let value = if std::io::stdin().is_terminal() {
        rpassword::prompt_password("OAuth client secret: ")
            .map_err(|err| invalid(format!("could not read the client secret: {err}")))?
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|err| invalid(format!("could not read the client secret: {err}")))?;
        line.trim_end_matches(['\r', '\n']).to_string()
    };
    if value.is_empty() {
        return Err(invalid("the client secret is empty".into()));
    }
    Ok(Secret::new(value))
}

/// Stores the client secret in the OS keychain first, then runs `write`; when the write
/// fails the secret is removed again, so no half-done state is left either way.
fn with_client_secret<T>(
    name: &str,
    config: &ServerConfig,
    secret: Option<&Secret>,
    write: impl FnOnce() -> Result<T, ConfigError>,
) -> Result<T, ApiError> {
    let Some(secret) = secret else {
        return Ok(write()?);
    };
    let (keychain, _) = mcp_manager_core::secrets::configured_store();
    let account = client_secret_account(name, config);
    keychain.set(&account, secret).map_err(|err| ApiError {
        code: ErrorCode::Keychain,
        message: format!("nothing was changed: the client secret could not be stored: {err}"),
    })?;
    write().map_err(|err| {
        let _ = keychain.delete(&account);
        ApiError::from(err)
    })
}

fn set_rule(
    locations: &Locations,
    args: RuleArgs,
    rule: Option<Rule>,
    json: bool,
) -> Result<(), ApiError> {
    let force = api::set_tool_rule(
        locations,
        &args.server,
        args.tool.as_deref(),
        rule,
        args.settings,
    )?;
    if !json {
        let entry =
            mcp_manager_core::config::permissions::entry(&args.server, args.tool.as_deref());
        let path = args.settings.path(locations);
        match rule {
            Some(rule) => out!(
                "Wrote {entry} to permissions.{} of {}",
                match rule {
                    Rule::Allow => "allow",
                    Rule::Ask => "ask",
                    Rule::Deny => "deny",
                },
                path.display()
            ),
            None => out!("Removed {entry} from {}", path.display()),
        }
    }
    print_rule(json, &force);
    Ok(())
}

fn report(json: bool, written: &api::Written, message: impl FnOnce() -> String) {
    if json {
        print_json(written);
    } else {
        out!("{}\nFile modified: {}", message(), written.path);
    }
}

fn parse_store(word: &str) -> Result<LoginStore, String> {
    LoginStore::parse(word)
        .ok_or_else(|| format!("unknown store \"{word}\": use keychain or claude-code"))
}

/// Whether `program` is on the PATH.
pub(crate) fn runtime_present(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// A refusal of the request, in plain words.
pub(crate) fn failure(message: impl Into<String>) -> mcp_manager_core::ApiError {
    mcp_manager_core::ApiError {
        code: mcp_manager_core::ErrorCode::InvalidRequest,
        message: message.into(),
    }
}

/// A name read from a file or a record, on one line: every control character (carriage
/// return, newline and tab included) becomes a space, so that it cannot rewrite or add lines.
pub(crate) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

pub(crate) fn print_json(value: &impl Serialize) {
    let text = mcp_manager_connect::sanitize::escape_hidden_in_json(
        &serde_json::to_string_pretty(value).expect("our output types serialize"),
    );
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

fn print_list(list: &ServerList) {
    for problem in &list.problems {
        eout!("warning: {}", for_terminal(&problem.message));
    }
    for server in list.servers.iter().filter(|s| s.shadowed_by.is_none()) {
        for missing in &server.missing_variables {
            eout!(
                "warning: {}",
                for_terminal(&format!("{}: {missing}", server.name))
            );
        }
    }
    if list.servers.is_empty() {
        out!("No MCP servers configured for {}.", list.project_dir);
        return;
    }
    let width = list.servers.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for server in &list.servers {
        let mut notes = Vec::new();
        if let Some(block) = &server.blocked {
            notes.push(block.describe());
        }
        if let Some(skipped) = &server.skipped {
            notes.push(skipped.clone());
        }
        if let Some(scope) = server.shadowed_by {
            notes.push(format!("shadowed by {scope}"));
        }
        if !server.enabled {
            notes.push("disabled".into());
        }
        if let Some(approval) = server.approval {
            if approval != mcp_manager_core::Approval::Approved {
                notes.push(format!("{approval:?}").to_lowercase());
            }
        }
        if server.waiting_for_trust.is_some() {
            notes.push("approved by the project, which is not trusted".into());
        }
        if server.standing == mcp_manager_core::config::catalog::Standing::AwaitingTrust {
            notes.push("approved in your settings; trust the folder to start it".into());
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  ({})", notes.join(", "))
        };
        out!(
            "{:width$}  {:7}  {:5}  {}{}",
            server.name,
            server.scope.as_str(),
            server.transport.as_str(),
            server.target,
            notes,
        );
    }
}

/// Says on stderr, once, that this folder is not trusted and what trusting it would let run
/// or count, when it holds anything of the kind ([`FolderTrust::asks`]).
pub(crate) fn untrusted_notice(locations: &Locations) {
    let trust = mcp_manager_core::config::folder::folder_trust(locations);
    if !trust.asks {
        return;
    }
    eout!(
        "note: this folder is not trusted, so nothing it brings runs or counts: none of its \
         servers starts (not even one your own settings approve) and its .claude settings do \
         not count. Read what it holds, then trust it with `mcpctl trust` (as Claude Code's \
         trust dialog does). Trusting it would let these run or count:"
    );
    for line in folder_contents(&trust) {
        eout!("  {line}");
    }
}

/// Everything in the folder that trusting it lets run or count, one line each.
fn folder_contents(trust: &FolderTrust) -> Vec<String> {
    let mut lines = Vec::new();
    for server in &trust.servers {
        lines.push(format!(
            "server {}: {} (in {})",
            server.name, server.target, server.file
        ));
    }
    for file in &trust.settings_files {
        lines.push(format!("settings {file}"));
    }
    for waiting in &trust.approvals_waiting {
        let what = if waiting.all {
            "every project server, now and later".to_string()
        } else {
            waiting.servers.join(", ")
        };
        lines.push(format!("{} approves {what}", waiting.file));
    }
    for plugin in &trust.plugins_turned_on {
        lines.push(format!(
            "{} turns on plugin {}{}",
            plugin.file,
            plugin.id,
            if plugin.off_in_your_settings {
                ", which your own settings turn off"
            } else {
                ""
            }
        ));
    }
    for plugin in &trust.plugins_configured {
        lines.push(format!(
            "{} gives plugin {} options: {}",
            plugin.file,
            plugin.id,
            plugin.options.join(", ")
        ));
    }
    for plugin in &trust.skills_plugins {
        lines.push(format!(
            "skills plugin {} ({}): {}",
            plugin.name,
            plugin.folder,
            if plugin.servers.is_empty() {
                "no servers".to_string()
            } else {
                plugin.servers.join(", ")
            }
        ));
    }
    lines
}

fn print_detail(detail: &api::ServerDetail) {
    let s = &detail.summary;
    out!("{}:", s.name);
    out!("  Scope: {} ({})", s.scope, s.source);
    out!("  Type: {}", s.transport.as_str());
    out!("  Target: {}", s.target);
    out!("  Enabled: {}", if s.enabled { "yes" } else { "no" });
    if let Some(approval) = s.approval {
        out!("  Approval: {}", format!("{approval:?}").to_lowercase());
    }
    out!("  Will start: {}", if s.will_start { "yes" } else { "no" });
    if let Some(words) = s.standing.words() {
        out!("  Status: {words}");
    }
    if let Some(timeout) = detail
        .config
        .get("timeout")
        .and_then(serde_json::Value::as_u64)
    {
        out!(
            "  Timeout: {timeout}ms{}",
            if timeout < 1000 {
                " (ignored: below 1000ms minimum)"
            } else {
                ""
            }
        );
    }
    for (key, what) in [
        ("tools", "Tool policies (tools[].permission_policy)"),
        ("toolPermissions", "Tool permissions (toolPermissions)"),
    ] {
        if let Some(value) = detail.config.get(key) {
            out!("  {}: {value}", what);
        }
    }
    if let Some(xaa) = detail.config.get("oauth").and_then(|o| o.get("xaa")) {
        out!("  OAuth cross-app access (oauth.xaa): {xaa}");
    }
    if let Some(words) = detail.config.get("oauth").and_then(login_words) {
        out!("  Login: {words}");
    }
    if let Some(block) = &s.blocked {
        out!("  Policy: {}", block.describe());
    }
    for missing in &s.missing_variables {
        out!("  Warning: {missing}");
    }
    for other in &detail.shadowed {
        out!("  Shadows: {} entry in {}", other.scope, other.source);
    }
}

/// How an entry's `oauth` says the server is authorized, when it names a grant without a
/// person: client credentials, enterprise-managed cross-app access, or workload identity
/// federation and where the workload's token comes from.
fn login_words(oauth: &serde_json::Value) -> Option<String> {
    let text = |key: &str| oauth.get(key).and_then(serde_json::Value::as_str);
    let client = text("clientId")
        .map(|id| format!(", client {id}"))
        .unwrap_or_default();
    match text("grantType")? {
        "client_credentials" => Some(format!(
            "client credentials ({}{client}; the secret or key in the OS keychain)",
            text("tokenEndpointAuthMethod").unwrap_or("client_secret_basic")
        )),
        "urn:ietf:params:oauth:grant-type:jwt-bearer" => {
            if let Some(file) = text("assertionFile") {
                Some(format!("workload identity federation (JWT bearer{client}; the workload's token read from {file} at each grant)"))
            } else if let Some(command) = text("assertionCommand") {
                Some(format!("workload identity federation (JWT bearer{client}; the workload's token printed by `{command}`)"))
            } else {
                Some(format!(
                    "enterprise-managed cross-app access (identity provider {}{client}; its ID token in the OS keychain)",
                    text("idpIssuer").unwrap_or("not named")
                ))
            }
        }
        other => Some(format!("grant {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_day;

    #[test]
    fn days_are_utc_midnights() {
        assert_eq!(parse_day("1970-01-01"), Ok(0));
        assert_eq!(parse_day("1970-01-02"), Ok(86_400_000));
        assert_eq!(parse_day("2026-12-01"), Ok(1_796_083_200_000));
        assert_eq!(parse_day("2024-03-01"), Ok(1_709_251_200_000));
        for bad in ["yesterday", "2026-13-01", "2026-12", "2026-12-01-1"] {
            assert!(parse_day(bad).is_err(), "{bad}");
        }
    }
}
