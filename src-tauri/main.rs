//! `mcp-manager`: the desktop app. `--project DIR` opens that project; without it, the last
//! project the app had open, else the current folder.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

use clap::Parser;
use mcp_manager_app::launch::Args;

fn main() -> ExitCode {
    mcp_manager_app::startup::begin();
    let args = Args::parse();
    if args.empty_window {
        // The reference is Tauri's default window: nothing of the app's own tuning.
        mcp_manager_app::run_empty_window();
        return ExitCode::SUCCESS;
    }
    if let Some(switch) = &args.autostart {
        return match mcp_manager_core::Locations::from_env(None)
            .map_err(|err| err.to_string())
            .and_then(|locations| {
                mcp_manager_app::set_autostart(&locations, switch == "on")
                    .map_err(|err| err.message)
            }) {
            Ok(()) => {
                println!(
                    "MCP Manager {} at login",
                    if switch == "on" {
                        "starts, in the tray,"
                    } else {
                        "no longer starts"
                    }
                );
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("mcp-manager: {err}");
                ExitCode::from(1)
            }
        };
    }
    // Before GTK starts, so WebKit and the web process it spawns both see it.
    mcp_manager_app::launch::paint_in_software();
    mcp_manager_app::launch::js_without_optimizing_tiers();
    // Checked here, before anything else: a folder that does not exist is said by the
    // process that was given it, even when a running app would have been handed it.
    match mcp_manager_core::Locations::from_env(args.project.as_deref()) {
        Ok(locations) => {
            mcp_manager_app::run(locations, args.project.is_some(), args.background);
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("mcp-manager: {err}");
            ExitCode::from(2)
        }
    }
}
