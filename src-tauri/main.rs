//! `mcp-manager`: the desktop app. `--project DIR` opens that project; without it, the
//! current folder.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// MCP Manager: configure, log in to and try MCP servers.
#[derive(Parser)]
#[command(name = "mcp-manager", version)]
struct Args {
    /// The project folder to open (default: the current folder).
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match mcp_manager_core::Locations::from_env(args.project.as_deref()) {
        Ok(locations) => {
            mcp_manager_app::run(locations);
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("mcp-manager: {err}");
            ExitCode::from(2)
        }
    }
}
