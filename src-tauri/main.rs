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
    /// An empty Tauri window from this same build, and nothing else: the reference the
    /// window benchmark (tests/bench/window.mjs) measures the app against.
    #[arg(long, hide = true)]
    empty_window: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.empty_window {
        mcp_manager_app::run_empty_window();
        return ExitCode::SUCCESS;
    }
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
