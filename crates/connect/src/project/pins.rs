//! A connected server checked against what was approved: its tools pinned at the first
//! connect of its entry (the supervisor starts a project server only once it is approved, so
//! that connect is the approval's), compared on every later connect and `list_changed`, a
//! changed tool kept from Claude Code when the person chose it, and what the model reads
//! linted. The checks themselves live in `mcp_manager_guard`; this reads the live listings.

use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::permissions::SettingsFile;
use mcp_manager_core::ApiError;
use mcp_manager_guard::lint::{lint, LintFinding, Listing};
use mcp_manager_guard::pins::{compare, pin_key, pin_of, Drift, DriftKind, Pins, ServerPin};
use mcp_manager_guard::quarantine;
use serde::Serialize;
use serde_json::Value;

use super::refused;
use super::LiveProject;

/// A server against its pin.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PinCheck {
    pub server: String,
    /// Pinned by this check: the entry's first connect, or "Pin now".
    pub pinned_now: bool,
    /// When what is compared with was pinned (ms since the epoch).
    pub pinned_at_ms: f64,
    /// How many tools the server serves now.
    pub tools: u32,
    /// What differs from the pin: empty when the server serves what was approved.
    pub drift: Vec<Drift>,
    /// Deny rules in force that we wrote for this server's changed tools.
    pub denied: Vec<String>,
    /// The lint of what the model reads of this server.
    pub findings: Vec<LintFinding>,
}

fn failed(err: impl std::fmt::Display) -> ApiError {
    refused(err.to_string())
}

impl LiveProject {
    /// The pin store of this machine's person.
    pub fn pins(&self) -> Pins {
        Pins::of(&self.locations)
    }

    /// What `server` serves now, as a pin would keep it, with where its pin lives.
    async fn served(
        &self,
        server: &str,
    ) -> Result<(String, ServerPin, Vec<Value>, Option<String>), ApiError> {
        let catalog = Catalog::load(&self.locations);
        let entry = catalog.require(server).map_err(failed)?;
        let connection = self.connected(server)?;
        let listed = connection.list_tools_as_sent().await.map_err(|err| {
            refused(format!(
                "\"{server}\": {}",
                crate::connection::plain(&err.to_string())
            ))
        })?;
        let instructions = connection.info().instructions.clone();
        let served = pin_of(
            &listed,
            instructions.as_deref(),
            &entry.hash,
            mcp_manager_history::now_ms(),
        );
        Ok((
            pin_key(entry.scope, &self.locations),
            served,
            listed,
            instructions,
        ))
    }

    /// Checks `server` against its pin, pinning it when its entry has none (or the entry
    /// changed since: a new server). A tool that changed, or is new, is denied in Claude Code
    /// when the person chose so for this server (or `quarantine_in` asks for it now).
    pub async fn check_pin(
        &self,
        server: &str,
        quarantine_in: Option<SettingsFile>,
    ) -> Result<PinCheck, ApiError> {
        let (key, served, listed, instructions) = self.served(server).await?;
        let pins = self.pins();
        let pinned = pins.get(&key, server).map_err(failed)?;
        let (pin, pinned_now) = match pinned {
            Some(pin) if pin.entry_hash == served.entry_hash => (pin, false),
            _ => {
                pins.set(&key, server, served.clone()).map_err(failed)?;
                (served.clone(), true)
            }
        };
        let drift = compare(&pin, &served);
        let keep_from_claude = match quarantine_in {
            Some(file) => Some(file),
            None => quarantine::choice(&pins, &self.locations)
                .map_err(failed)?
                .for_server(server),
        };
        if let Some(file) = keep_from_claude {
            let changed: Vec<String> = drift
                .iter()
                .filter(|d| matches!(d.how, DriftKind::Added | DriftKind::Changed))
                .filter_map(|d| d.tool.clone())
                .collect();
            quarantine::keep_away(&pins, &self.locations, server, &changed, file)
                .map_err(failed)?;
        }
        Ok(PinCheck {
            server: server.to_string(),
            pinned_now,
            pinned_at_ms: pin.pinned_at_ms as f64,
            tools: u32::try_from(served.tools.len()).unwrap_or(u32::MAX),
            denied: self.denied_for(server)?,
            findings: self.lint_with_others(server, &listed, instructions.as_deref()),
            drift,
        })
    }

    fn denied_for(&self, server: &str) -> Result<Vec<String>, ApiError> {
        Ok(
            quarantine::denied(&self.pins(), &self.locations, server, None)
                .map_err(failed)?
                .into_iter()
                .map(|d| d.entry)
                .collect(),
        )
    }

    /// The lint of `server`'s listing, beside the last listing of every other connected
    /// server (for names that meet and references across servers).
    fn lint_with_others(
        &self,
        server: &str,
        listed: &[Value],
        instructions: Option<&str>,
    ) -> Vec<LintFinding> {
        let others: Vec<(String, Vec<Value>)> = self
            .supervisor
            .statuses()
            .into_iter()
            .filter(|event| event.server != server)
            .filter_map(|event| {
                let connection = self.supervisor.connection(&event.server)?;
                Some((event.server, connection.last_listing_as_sent()))
            })
            .collect();
        let mut listings = vec![Listing {
            server,
            tools: listed,
            instructions,
        }];
        listings.extend(others.iter().map(|(name, tools)| Listing {
            server: name,
            tools,
            instructions: None,
        }));
        lint(&listings)
            .into_iter()
            .filter(|f| f.server == server)
            .collect()
    }

    /// Pins what `server` serves now, whatever was pinned ("Pin now"), and removes the deny
    /// rules we wrote for it.
    pub async fn pin_now(&self, server: &str) -> Result<PinCheck, ApiError> {
        let (key, served, _, _) = self.served(server).await?;
        self.pins().set(&key, server, served).map_err(failed)?;
        quarantine::release(&self.pins(), &self.locations, server, None).map_err(failed)?;
        let mut check = self.check_pin(server, None).await?;
        check.pinned_now = true;
        Ok(check)
    }

    /// Accepts what `server` serves now for `tool` (everything of the server when `None`):
    /// the pin takes it, and the deny rules we wrote for it are removed.
    pub async fn accept_change(
        &self,
        server: &str,
        tool: Option<&str>,
    ) -> Result<PinCheck, ApiError> {
        let (key, served, _, _) = self.served(server).await?;
        if let Some(tool) = tool {
            let pinned = self.pins().get(&key, server).map_err(failed)?;
            let known = served.tools.contains_key(tool)
                || pinned.is_some_and(|p| p.tools.contains_key(tool));
            if !known {
                return Err(refused(format!(
                    "\"{server}\" has no tool \"{tool}\", served or pinned"
                )));
            }
        }
        self.pins()
            .accept(&key, server, &served, tool)
            .map_err(failed)?;
        quarantine::release(&self.pins(), &self.locations, server, tool).map_err(failed)?;
        self.check_pin(server, None).await
    }
}
