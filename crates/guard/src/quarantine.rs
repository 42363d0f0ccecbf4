//! Keeping a changed tool away from Claude Code until the person accepts it.
//!
//! Claude Code reads `permissions.deny` from its settings files and leaves a denied tool out
//! of what it sends the model. When the person chose it (for one server or for all of a
//! project), a tool that changed since its pin, or is new, gets a `deny` rule
//! `mcp__<server>__<tool>` in the settings file they chose. Every rule written is recorded
//! here (which file, which entry), so that accepting removes exactly the rules we wrote and
//! nothing else: an entry the person wrote themselves is never recorded, so never removed.

use mcp_manager_core::config::permissions::{self, Rule, SettingsFile};
use mcp_manager_core::{ConfigError, Locations};

use crate::pins::Pins;

pub use crate::pins::{Denied, QuarantineChoice};

/// Sets where a changed tool is denied: for `server`, or for every server of the project when
/// `None`; `file` `None` turns it off.
pub fn choose(
    pins: &Pins,
    locations: &Locations,
    server: Option<&str>,
    file: Option<SettingsFile>,
) -> Result<(), ConfigError> {
    pins.update(|pins| {
        let choice = pins.quarantine.entry(locations.project_key()).or_default();
        match server {
            Some(server) => {
                choice.servers.insert(server.to_string(), file);
            }
            None => {
                choice.all = file;
                choice.servers.clear();
            }
        }
    })
}

/// The project's choice.
pub fn choice(pins: &Pins, locations: &Locations) -> Result<QuarantineChoice, ConfigError> {
    Ok(pins
        .read()?
        .quarantine
        .get(&locations.project_key())
        .cloned()
        .unwrap_or_default())
}

/// Denies each of `tools` of `server` in `file` (those not denied there already) and records
/// each rule written. Returns the entries written.
pub fn keep_away(
    pins: &Pins,
    locations: &Locations,
    server: &str,
    tools: &[String],
    file: SettingsFile,
) -> Result<Vec<String>, ConfigError> {
    let path = file.path(locations).display().to_string();
    let mut written = Vec::new();
    for tool in tools {
        let entry = permissions::entry(server, Some(tool));
        let recorded = pins
            .read()?
            .denied
            .iter()
            .any(|d| d.path == path && d.entry == entry);
        if recorded {
            continue;
        }
        if permissions::add_entry(locations, file, Rule::Deny, &entry)? {
            pins.update(|pins| {
                pins.denied.push(Denied {
                    project: locations.project_key(),
                    file,
                    path: path.clone(),
                    entry: entry.clone(),
                    server: server.to_string(),
                    tool: tool.clone(),
                })
            })?;
            written.push(entry);
        }
    }
    Ok(written)
}

/// The deny rules we wrote for `server` of this project (and for its `tool` only, when given).
pub fn denied(
    pins: &Pins,
    locations: &Locations,
    server: &str,
    tool: Option<&str>,
) -> Result<Vec<Denied>, ConfigError> {
    let project = locations.project_key();
    Ok(pins
        .read()?
        .denied
        .into_iter()
        .filter(|d| {
            d.server == server
                && (d.project == project || d.file == SettingsFile::User)
                && tool.is_none_or(|t| d.tool == t)
        })
        .collect())
}

/// Removes the deny rules we wrote for `server` (for its `tool` only, when given), each from
/// the file it was written to, and forgets them. Returns the entries removed.
pub fn release(
    pins: &Pins,
    locations: &Locations,
    server: &str,
    tool: Option<&str>,
) -> Result<Vec<String>, ConfigError> {
    let mut removed = Vec::new();
    for record in denied(pins, locations, server, tool)? {
        // Only the file the rule was written to, found again from this project's locations.
        if record.file.path(locations).display().to_string() != record.path {
            continue;
        }
        permissions::remove_entry(locations, record.file, Rule::Deny, &record.entry)?;
        pins.update(|pins| pins.denied.retain(|d| d != &record))?;
        removed.push(record.entry);
    }
    Ok(removed)
}
