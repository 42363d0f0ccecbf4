//! `mcpctl`: MCP Manager's command-line door, mirroring `claude mcp`.
//!
//! Every verb is a thin call into `mcp_manager_core::api`, the same functions the app's
//! commands call, so the CLI and the window can never disagree. Exit status: 0 success,
//! 1 failure, 2 usage error (clap's own).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcp_manager_core::{ApiError, Locations, ServerList};

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
    /// Print machine-readable JSON (shapes documented in the README).
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the servers of every scope, and any configuration problems.
    List,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let locations = match Locations::from_env(cli.project.as_deref()) {
        Ok(locations) => locations,
        Err(err) => return fail(cli.json, err.into()),
    };
    match cli.command {
        Command::List => {
            let list = mcp_manager_core::list_servers(&locations);
            if cli.json {
                print_json(&list)
            } else {
                print_list(&list)
            }
        }
    }
}

fn print_json(value: &impl serde::Serialize) -> ExitCode {
    let written = serde_json::to_string_pretty(value)
        .map_err(std::io::Error::from)
        .and_then(|text| writeln!(std::io::stdout().lock(), "{text}"));
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("mcpctl: could not write the output: {err}");
            ExitCode::FAILURE
        }
    }
}

fn print_list(list: &ServerList) -> ExitCode {
    for problem in &list.problems {
        eprintln!("warning: {}", problem.message);
    }
    if list.servers.is_empty() {
        println!("No MCP servers configured for {}.", list.project_dir);
        return ExitCode::SUCCESS;
    }
    let width = list.servers.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for server in &list.servers {
        let shadowed = server
            .shadowed_by
            .map(|scope| format!("  (shadowed by {scope})"))
            .unwrap_or_default();
        println!(
            "{:width$}  {:7}  {:5}  {}{}",
            server.name,
            server.scope.as_str(),
            server.transport.as_str(),
            server.target,
            shadowed,
        );
    }
    ExitCode::SUCCESS
}

fn fail(json: bool, err: ApiError) -> ExitCode {
    if json {
        print_json(&serde_json::json!({ "error": err }));
    } else {
        eprintln!("mcpctl: {}", err.message);
    }
    ExitCode::FAILURE
}
