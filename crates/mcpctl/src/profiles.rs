//! `mcpctl profile`: named sets of servers switched on for the project in one step
//! ([`mcp_manager_core::config::profiles`]), saved from a list, from what is enabled now or
//! from what Claude Code used, applied with the change printed first, undone, or written for
//! `claude --mcp-config`.

use std::path::PathBuf;

use clap::Subcommand;
use mcp_manager_core::config::profiles;
use mcp_manager_core::{ApiError, Locations};

#[derive(Subcommand)]
pub enum ProfileCommand {
    /// The project's profiles, and which one matches the servers enabled now.
    List,
    /// One profile's servers.
    Show { name: String },
    /// Save a profile: the servers named, the ones enabled now, or the ones Claude Code called
    /// in this project over the last 30 days.
    Save {
        name: String,
        /// Comma-separated server names.
        #[arg(long, value_delimiter = ',', conflicts_with_all = ["from_current", "from_usage"])]
        servers: Option<Vec<String>>,
        #[arg(long)]
        from_current: bool,
        #[arg(long)]
        from_usage: bool,
        /// Tools to deny while it is in use (Claude Code's permissions.deny in
        /// .claude/settings.local.json): mcp__server__tool, comma-separated.
        #[arg(long, value_delimiter = ',', value_name = "TOOLS")]
        deny: Vec<String>,
        /// Keep it in the project's .mcp-profiles.json (shared, names only) rather than
        /// privately.
        #[arg(long)]
        shared: bool,
    },
    /// Enable exactly the profile's servers for this project (disabledMcpServers in
    /// ~/.claude.json, as Claude Code's /mcp writes it); the change is printed first.
    Apply {
        name: String,
        /// Print the change without writing it.
        #[arg(long)]
        dry_run: bool,
    },
    /// Put back the project's servers as they were before the last apply.
    Undo,
    /// Write the profile for `claude --mcp-config FILE --strict-mcp-config` (secrets as
    /// ${VAR}) and print the command line.
    Launch {
        name: String,
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Delete a profile.
    Delete { name: String },
}

pub fn run(locations: &Locations, command: ProfileCommand, json: bool) -> Result<bool, ApiError> {
    match command {
        ProfileCommand::List => {
            let mut all = profiles::list(locations)?;
            if !json {
                for p in &mut all.profiles {
                    p.name = crate::one_line(&p.name);
                    p.servers.iter_mut().for_each(|s| *s = crate::one_line(s));
                    p.missing.iter_mut().for_each(|s| *s = crate::one_line(s));
                }
            }
            if json {
                crate::print_json(&all);
                return Ok(true);
            }
            if all.profiles.is_empty() {
                out!("No profiles yet: `mcpctl profile save NAME --from-current` keeps the servers enabled now.");
            }
            for p in &all.profiles {
                shown!(
                    "{}{}  {}  ({}){}",
                    if p.active { "* " } else { "  " },
                    p.name,
                    p.servers.join(", "),
                    if p.shared {
                        "shared, .mcp-profiles.json"
                    } else {
                        "private"
                    },
                    if p.missing.is_empty() {
                        String::new()
                    } else {
                        format!("; not in this project: {}", p.missing.join(", "))
                    }
                );
            }
            if let Some(undo) = &all.undo {
                shown!("`mcpctl profile undo` puts back the servers as they were before \"{undo}\" was applied.");
            }
        }
        ProfileCommand::Show { name } => {
            let all = profiles::list(locations)?;
            let profile = all
                .profiles
                .into_iter()
                .find(|p| p.name == name)
                .ok_or_else(|| crate::failure(format!("no profile is named \"{name}\"")))?;
            if json {
                crate::print_json(&profile);
            } else {
                for server in &profile.servers {
                    shown!("{}", crate::one_line(server));
                }
            }
        }
        ProfileCommand::Save {
            name,
            servers,
            from_current,
            from_usage,
            deny,
            shared,
        } => {
            let servers = if let Some(servers) = servers {
                servers
            } else if from_current {
                profiles::list(locations)?
                    .servers
                    .into_iter()
                    .filter(|s| s.enabled)
                    .map(|s| s.name)
                    .collect()
            } else if from_usage {
                used_here(locations)?
            } else {
                return Err(crate::failure(
                    "name the servers: --servers A,B, --from-current or --from-usage",
                ));
            };
            let profile = profiles::save(locations, &name, &servers, &deny, shared)?;
            if json {
                crate::print_json(&profile);
            } else {
                shown!("Saved \"{}\": {}", profile.name, profile.servers.join(", "));
            }
        }
        ProfileCommand::Apply { name, dry_run } => {
            let plan = if dry_run {
                profiles::plan(locations, &name)?
            } else {
                profiles::apply(locations, &name)?
            };
            if json {
                crate::print_json(&plan);
            } else {
                print_plan(&plan, dry_run);
            }
        }
        ProfileCommand::Undo => {
            let undone = profiles::undo(locations)?;
            if json {
                crate::print_json(&undone);
            } else {
                shown!(
                    "Undid \"{}\": {}",
                    undone.profile,
                    undone
                        .note
                        .as_deref()
                        .unwrap_or(&format!("{} is byte for byte what it was", undone.path))
                );
            }
        }
        ProfileCommand::Launch { name, output } => {
            let launch = profiles::launch(locations, &name, output.as_deref())?;
            if json {
                crate::print_json(&launch);
            } else {
                shown!("Wrote {}", launch.path);
                for why in &launch.left_out {
                    shown!("  left out: {why}");
                }
                if !launch.variables.is_empty() {
                    shown!("Set first: {}", launch.variables.join(", "));
                }
                shown!("{}", launch.command);
            }
        }
        ProfileCommand::Delete { name } => {
            profiles::delete(locations, &name)?;
            if !json {
                shown!("Deleted \"{name}\"");
            }
        }
    }
    Ok(true)
}

fn print_plan(plan: &profiles::ProfilePlan, dry_run: bool) {
    let verb = if dry_run { "would write" } else { "wrote" };
    shown!("\"{}\" {verb} {} in {}", plan.profile, plan.key, plan.path);
    if plan.turn_on.is_empty() && plan.turn_off.is_empty() && plan.deny.is_empty() {
        out!("  no server changes: they already match");
    }
    for server in &plan.turn_on {
        shown!("  + {server}  (turned on)");
    }
    for server in &plan.turn_off {
        shown!("  - {server}  (turned off)");
    }
    for server in &plan.missing {
        shown!("  ? {server}  (not configured in this project: ignored)");
    }
    for rule in &plan.deny {
        shown!("  deny {rule}  (in {})", plan.deny_path);
    }
    if !dry_run {
        out!("`mcpctl profile undo` puts them back.");
    }
}

/// The servers Claude Code called in this project over the last 30 days.
fn used_here(locations: &Locations) -> Result<Vec<String>, ApiError> {
    crate::runtime::block_on(async {
        let index = mcp_manager_usage::Index::open(
            &locations.app_data_dir().join(mcp_manager_usage::FILE_NAME),
        )
        .await
        .map_err(|e| crate::failure(e.to_string()))?;
        index
            .update(&mcp_manager_usage::Sources::of(locations))
            .await
            .map_err(|e| crate::failure(e.to_string()))?;
        let query = mcp_manager_usage::Query {
            project: Some(locations.project.display().to_string()),
            days: 30,
            now_ms: mcp_manager_usage::now_ms(),
        };
        let report = index
            .report(&query, &mcp_manager_usage::configured(locations))
            .await
            .map_err(|e| crate::failure(e.to_string()))?;
        index.close().await;
        Ok(report
            .servers
            .into_iter()
            .filter(|s| s.configured && s.month.calls > 0)
            .map(|s| s.server)
            .collect())
    })
}
