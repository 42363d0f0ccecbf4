//! `mcpctl doctor` and `mcpctl login --verbose`: the checkup and the OAuth record, printed as
//! the window shows them.

use mcp_manager_connect::Settings;
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::{ApiError, ConfigError, Locations};
use mcp_manager_doctor::{Checkup, Verdict};

/// `mcpctl doctor [SERVER]`: one server's checkup, or every configured server's; exit 1 when
/// any is unhealthy.
pub fn doctor(locations: &Locations, server: Option<&str>, json: bool) -> Result<bool, ApiError> {
    let names: Vec<String> = match server {
        Some(name) => vec![name.to_string()],
        None => {
            let catalog = Catalog::load(locations);
            catalog
                .entries
                .iter()
                .filter(|entry| entry.shadowed_by.is_none())
                .map(|entry| entry.name.clone())
                .collect()
        }
    };
    if names.is_empty() {
        return Err(ConfigError::ServerNotFound {
            name: "(any)".into(),
            scope: None,
        }
        .into());
    }
    let timeout = Settings::from_env().connect_timeout;
    let checkups: Vec<Checkup> = crate::runtime::block_on(async {
        let mut checkups = Vec::new();
        for name in &names {
            checkups.push(mcp_manager_doctor::examine(locations, name, timeout).await?);
        }
        Ok::<_, ApiError>(checkups)
    })?;
    if json {
        match server {
            Some(_) => crate::print_json(&checkups[0]),
            None => crate::print_json(&checkups),
        }
    } else {
        for (i, checkup) in checkups.iter().enumerate() {
            if i > 0 {
                out!();
            }
            print_checkup(checkup);
        }
    }
    Ok(checkups.iter().all(|c| c.healthy))
}

fn print_checkup(checkup: &Checkup) {
    out!("{} ({})", checkup.server, checkup.transport);
    for check in &checkup.checks {
        let mark = match check.verdict {
            Verdict::Passed => "ok  ",
            Verdict::Warning => "warn",
            Verdict::Failed => "FAIL",
        };
        out!("  {mark} {}", check.title);
        for fact in &check.evidence {
            out!("         {fact}");
        }
        if let Some(next) = &check.next {
            out!("       → {next}");
        }
    }
    if checkup.healthy {
        out!("  {} is healthy.", checkup.server);
    }
}
