//! What each AI client makes of the project's tools, for the window: a connected server's
//! tools as Claude Code sends them to its model (name, description, schema, upfront or
//! deferred, or dropped and why), beside the server's own listing.
//!
//! The rules live in `mcp_manager_clients`, which works from a `tools/list` result alone;
//! this module only feeds it each connected server's tools as the server sent them
//! ([`crate::Connection::list_tools_as_sent`]) with the project's Claude Code environment
//! (its settings files' `env` over ours, [`ClaudeEnv`]) and turns the answer into rows the
//! window shows as they are. Nothing here starts a server: only connected ones are read.

use std::collections::HashMap;

use mcp_manager_clients::claude_code::{self, Knobs, Server, ToolSearch, View};
use mcp_manager_clients::cost;
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::settings_env::{ClaudeEnv, EnvOrigin};
use mcp_manager_core::{ApiError, Locations};
use serde::Serialize;
use serde_json::{json, Value};

use super::LiveProject;

/// The environment variables that change what Claude Code shows its model.
pub const CLAUDE_CODE_KNOBS: [&str; 4] = [
    "ENABLE_TOOL_SEARCH",
    "CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH",
    "MAX_MCP_OUTPUT_TOKENS",
    "ENABLE_MCP_LARGE_OUTPUT_FILES",
];

/// One variable of Claude Code's environment and where it was set.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct KnobSetting {
    pub name: String,
    /// `None`: not set anywhere (Claude Code's default applies).
    pub value: Option<String>,
    /// "your environment", or the settings file that set it.
    pub from: Option<String>,
}

/// How Claude Code treats this project's tools before any one of them.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeCodeSetup {
    pub version: String,
    /// What `ENABLE_TOOL_SEARCH` means here, in a sentence.
    pub tool_search: String,
    pub knobs: Vec<KnobSetting>,
}

/// What becomes of one tool in Claude Code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum Fate {
    /// Its whole definition is in every request.
    Upfront,
    /// Its name only, until ToolSearch loads it.
    Deferred,
    /// Never sent.
    Dropped,
}

/// One tool: the server's listing beside what Claude Code sends.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeCodeTool {
    /// The name the server lists.
    pub tool: String,
    /// The name the model sees (or would have seen).
    pub name: String,
    pub fate: Fate,
    /// Why it is dropped, cut or renamed, in Claude Code's words where it has some.
    pub notes: Vec<String>,
    /// What the server's author (or the person) would change, when something is lost.
    pub fixes: Vec<String>,
    /// The description as sent (for a deferred tool: once ToolSearch loads it).
    pub description: Option<String>,
    /// The input schema as sent, as JSON text.
    pub input_schema: Option<String>,
    /// The whole definition as it goes in the request's `tools`, as JSON text.
    pub definition: Option<String>,
    /// The server's own description and schema, to show beside.
    pub listed_description: Option<String>,
    pub listed_schema: String,
    /// What happens to a large result of this tool.
    pub results: Option<String>,
    /// What every other client makes of it.
    pub others: Vec<OtherClientTool>,
}

/// What one client cuts or drops of a tool: a badge on it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ClientNote {
    /// The client's name, e.g. "Claude Code".
    pub client: String,
    /// "dropped" (the model never sees it) or "changed" (cut or rewritten on the way).
    pub effect: String,
    pub words: String,
}

/// A number of tokens for the window (counts of tool definitions fit in 32 bits).
fn tokens(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// What the project's tools cost in Claude's context, as Claude Code loads them.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProjectBudget {
    /// How the figures were counted: the tokenizer and its measured error, or the model API.
    pub counted_by: String,
    pub exact: bool,
    /// The tool-use system prompt, paid once.
    pub overhead: u32,
    /// Paid upfront, every server together.
    pub total_upfront: u32,
    /// With every tool loaded through tool search.
    pub total_loaded: u32,
    pub claude_code: ClaudeCodeSetup,
    /// `auto`: Claude Code's decision for this project, in a sentence.
    pub auto: Option<String>,
    /// Heaviest upfront first.
    pub servers: Vec<ServerBudget>,
    /// The heaviest tools (loaded), at most [`HEAVIEST`].
    pub tools: Vec<ToolBudget>,
    /// Connected servers whose tools could not be listed, and why.
    pub problems: Vec<String>,
}

/// How many of the heaviest tools the budget lists.
pub const HEAVIEST: usize = 50;

/// One server's share.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerBudget {
    pub server: String,
    pub upfront: u32,
    pub loaded: u32,
    pub deferred_tools: u32,
    pub upfront_tools: u32,
    /// The project's upfront cost with this server turned off.
    pub without: u32,
}

/// One tool's cost.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolBudget {
    pub server: String,
    pub name: String,
    /// Its whole definition as sent upfront.
    pub upfront: u32,
    /// Its definition once tool search loads it.
    pub loaded: u32,
    /// Its name in the list of deferred tools.
    pub name_only: u32,
    pub deferred: bool,
}

/// One thing another client does to a tool, a server or the project.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ClientFinding {
    /// The client's name, e.g. "VS Code / Copilot".
    pub client: String,
    /// "dropped", "cut", "renamed", "hidden" or "warning".
    pub effect: String,
    pub words: String,
    pub fix: String,
}

/// What one other client makes of a tool.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct OtherClientTool {
    pub client: String,
    /// The client's version or commit these rules hold for.
    pub holds_for: String,
    /// The name its model sees; `None` when it drops the tool.
    pub name: Option<String>,
    pub findings: Vec<ClientFinding>,
}

/// One connected server's tools as Claude Code sees them.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerClientView {
    pub server: String,
    pub claude_code: ClaudeCodeSetup,
    pub tools: Vec<ClaudeCodeTool>,
    /// Said once for the whole server (a tool list Claude Code refuses, collisions).
    pub notes: Vec<String>,
    /// What other clients say of this server or of the whole project (tool counts, name
    /// rules), over the tools of every connected server listed so far.
    pub findings: Vec<ClientFinding>,
}

impl LiveProject {
    /// Claude Code's environment for this project: each knob's value and where it came from.
    pub fn claude_env(&self) -> ClaudeEnv {
        claude_env(&self.locations)
    }

    /// How Claude Code will present this project's tools: the knobs and their meaning.
    pub fn claude_code_setup(&self, env: &ClaudeEnv) -> ClaudeCodeSetup {
        let home = &self.locations.home;
        let knobs = CLAUDE_CODE_KNOBS
            .iter()
            .map(|name| KnobSetting {
                name: (*name).to_string(),
                value: env.get(name).map(str::to_string),
                from: env.origin(name).map(|origin| match origin {
                    EnvOrigin::Process => "your environment".to_string(),
                    EnvOrigin::Settings(path) => match path.strip_prefix(home) {
                        Ok(rest) => format!("~/{}", rest.display()),
                        Err(_) => path.display().to_string(),
                    },
                }),
            })
            .collect();
        ClaudeCodeSetup {
            version: claude_code::VERSION.to_string(),
            tool_search: tool_search_words(knobs_of(env).tool_search),
            knobs,
        }
    }

    /// The tools of a connected server, each as the server lists it and as Claude Code sends
    /// it to the model.
    pub async fn client_view(&self, server: &str) -> Result<ServerClientView, ApiError> {
        let listed = self.listed_as_sent(server).await?;
        let env = self.claude_env();
        let setting = self.client_setting();
        let view = setting.claude_code_view(server, &listed);
        let others = self.other_clients(&setting);
        let mut tools = rows(&view, &listed);
        for row in &mut tools {
            row.others = others
                .iter()
                .map(|other| OtherClientTool {
                    client: other.client.label().to_string(),
                    holds_for: other.holds_for.clone(),
                    name: other
                        .tools
                        .iter()
                        .find(|t| t.server == server && t.tool == row.tool)
                        .and_then(|t| t.name.clone()),
                    findings: other
                        .findings
                        .iter()
                        .filter(|f| f.server == server && f.tool.as_deref() == Some(&row.tool))
                        .map(finding)
                        .collect(),
                })
                .collect();
        }
        Ok(ServerClientView {
            server: server.to_string(),
            claude_code: self.claude_code_setup(&env),
            tools,
            notes: server_notes(&view),
            findings: others
                .iter()
                .flat_map(|other| &other.findings)
                .filter(|f| f.tool.is_none() && (f.server == server || f.server.is_empty()))
                .map(finding)
                .collect(),
        })
    }

    /// Every client but Claude Code, over the last listing of every connected server (one
    /// computation for the project: counts and collisions span servers).
    pub(super) fn other_clients(
        &self,
        setting: &ClientSetting,
    ) -> Vec<mcp_manager_clients::ClientView> {
        let mut listings: Vec<(String, Value)> = self
            .supervisor
            .statuses()
            .into_iter()
            .filter_map(|event| {
                let connection = self.supervisor.connection(&event.server)?;
                let listed = connection.last_listing_as_sent();
                Some((event.server, json!({ "tools": listed })))
            })
            .collect();
        listings.sort_by(|a, b| a.0.cmp(&b.0));
        let listed: Vec<mcp_manager_clients::Listed> = listings
            .iter()
            .map(|(server, listing)| mcp_manager_clients::Listed {
                server,
                listing,
                always_load: setting
                    .catalog
                    .effective(server)
                    .and_then(|entry| entry.config.always_load),
            })
            .collect();
        mcp_manager_clients::Client::ALL
            .into_iter()
            .filter(|client| *client != mcp_manager_clients::Client::ClaudeCode)
            .map(|client| mcp_manager_clients::view_of(client, &listed, &setting.knobs))
            .collect()
    }

    /// Per tool (by its name as the window shows it): what Claude Code gives its model of it,
    /// and what clients cut or drop of it.
    pub(super) fn client_notes(
        setting: &ClientSetting,
        server: &str,
        listed: &[Value],
    ) -> HashMap<String, ForModel> {
        let view = setting.claude_code_view(server, listed);
        rows(&view, listed)
            .into_iter()
            .map(|row| {
                let notes = match row.fate {
                    Fate::Dropped => vec![ClientNote {
                        client: "Claude Code".into(),
                        effect: "dropped".into(),
                        words: row.notes.join(" "),
                    }],
                    _ if !row.notes.is_empty() => vec![ClientNote {
                        client: "Claude Code".into(),
                        effect: "changed".into(),
                        words: row.notes.join(" "),
                    }],
                    _ => Vec::new(),
                };
                let for_model = ForModel {
                    name: row.name,
                    description: row.description,
                    notes,
                };
                (crate::sanitize::strip(&row.tool), for_model)
            })
            .collect()
    }

    /// What the connected servers' tools cost in Claude's context, estimated, or counted by
    /// the model API with the person's key when `exact` (the key never leaves this side).
    pub async fn budget(&self, exact: bool) -> Result<ProjectBudget, ApiError> {
        let env = self.claude_env();
        let setting = self.client_setting();
        let mut names: Vec<String> = self
            .supervisor
            .statuses()
            .into_iter()
            .filter(|event| {
                matches!(&event.status, crate::ServerStatus::Connected(info) if info.capabilities.tools)
            })
            .map(|event| event.server)
            .collect();
        names.sort();
        let listed = futures::future::join_all(
            names
                .iter()
                .map(|server| async move { (server, self.listed_as_sent(server).await) }),
        )
        .await;
        let mut views = Vec::new();
        let mut problems = Vec::new();
        for (server, listed) in listed {
            match listed {
                Ok(listed) => views.push(setting.claude_code_view(server, &listed)),
                Err(err) => problems.push(err.message),
            }
        }
        let budget = if exact {
            let counter = model_api_counter().await?;
            cost::exact_budget(&views, &setting.knobs, &counter)
                .await
                .map_err(count_failure)?
        } else {
            cost::budget(&views, &setting.knobs, &cost::Counting::estimate())
        };
        Ok(ProjectBudget {
            counted_by: budget.tokenizer.clone(),
            exact: budget.exact,
            overhead: tokens(budget.overhead),
            total_upfront: tokens(budget.total_upfront),
            total_loaded: tokens(budget.total_loaded),
            claude_code: self.claude_code_setup(&env),
            auto: budget.auto.as_ref().map(|auto| {
                format!(
                    "ENABLE_TOOL_SEARCH=auto:{}: the tools that may be deferred come to {} \
                     tokens by this count, against {} ({}% of a {}-token context window), \
                     so Claude Code {}.",
                    auto.percent,
                    group(auto.deferrable_tokens),
                    group(auto.threshold),
                    auto.percent,
                    group(auto.context_window),
                    if auto.deferred {
                        "defers them behind tool search"
                    } else {
                        "sends them whole"
                    }
                )
            }),
            servers: budget
                .servers
                .iter()
                .map(|s| ServerBudget {
                    server: s.server.clone(),
                    upfront: tokens(s.upfront),
                    loaded: tokens(s.loaded),
                    deferred_tools: tokens(s.deferred_tools as u64),
                    upfront_tools: tokens(s.upfront_tools as u64),
                    without: tokens(s.without),
                })
                .collect(),
            tools: budget
                .tools
                .iter()
                .take(HEAVIEST)
                .map(|t| ToolBudget {
                    server: t.server.clone(),
                    name: t.name.clone(),
                    upfront: tokens(t.upfront),
                    loaded: tokens(t.loaded),
                    name_only: tokens(t.name_only),
                    deferred: t.deferred,
                })
                .collect(),
            problems,
        })
    }

    /// What Claude Code would do with `result` of `tool`, with the limits its last listing
    /// and Claude Code's environment give it; `None` when the tool is not one Claude Code sends.
    pub(super) fn result_for_claude_code(
        &self,
        connection: &crate::Connection,
        server: &str,
        tool: &str,
        result: &Value,
    ) -> Option<String> {
        let env = self.claude_env();
        let setting = ClientSetting {
            knobs: knobs_of(&env),
            catalog: Catalog::load(&self.locations),
        };
        let view = setting.claude_code_view(server, &connection.last_listing_as_sent());
        let name = claude_code::text::full_name(server, &claude_code::text::clean(tool));
        let limits = view.results.iter().find(|r| r.name == name)?;
        let files =
            claude_code::results::large_output_files(env.get("ENABLE_MCP_LARGE_OUTPUT_FILES"));
        Some(claude_code::results::result_fate(result, limits, files, None).words)
    }

    /// A connected server's tools, listed now, as it sent them.
    pub(super) async fn listed_as_sent(&self, server: &str) -> Result<Vec<Value>, ApiError> {
        let connection = self.connected(server)?;
        connection.list_tools_as_sent().await.map_err(|err| {
            super::refused(format!(
                "\"{server}\": {}",
                crate::connection::plain(&err.to_string())
            ))
        })
    }

    /// What every client view of this project reads once: Claude Code's knobs for it and the
    /// entries' `alwaysLoad` (one reading of the settings and the configuration, however many
    /// servers are viewed).
    pub(super) fn client_setting(&self) -> ClientSetting {
        ClientSetting {
            knobs: knobs_of(&self.claude_env()),
            catalog: Catalog::load(&self.locations),
        }
    }
}

/// Claude Code's environment for the project of `locations`: our process's, with its settings
/// files' `env` over it (the project's own files only once the folder is trusted).
pub fn claude_env(locations: &Locations) -> ClaudeEnv {
    let trusted = mcp_manager_core::config::trust::is_trusted(locations);
    ClaudeEnv::read(locations, trusted, &CLAUDE_CODE_KNOBS, |name| {
        std::env::var(name).ok()
    })
}

/// The model API's token counter with the person's key (`ANTHROPIC_API_KEY`, else the OS
/// keychain), or why there is none. The key stays in this process.
pub async fn model_api_counter() -> Result<cost::exact::Counter, ApiError> {
    let (store, _) = mcp_manager_core::secrets::configured_store();
    let found = tokio::task::spawn_blocking(move || {
        cost::exact::ApiKey::find(|n| std::env::var(n).ok(), store.as_ref())
    })
    .await
    .map_err(|err| count_failure(cost::exact::CountError::Keychain(err.to_string())))?
    .map_err(count_failure)?;
    let Some((key, _)) = found else {
        return Err(count_failure(cost::exact::CountError::NoKey));
    };
    Ok(cost::exact::Counter::from_env(key, |n| {
        std::env::var(n).ok()
    }))
}

/// A failed exact count, for the window and `mcpctl` (its words never hold the key).
pub fn count_failure(err: cost::exact::CountError) -> ApiError {
    let code = match err {
        cost::exact::CountError::Keychain(_) => mcp_manager_core::ErrorCode::Keychain,
        _ => mcp_manager_core::ErrorCode::InvalidRequest,
    };
    ApiError {
        code,
        message: err.to_string(),
    }
}

/// A tool as Claude Code gives it to its model, for the Tools tab.
#[derive(Debug, Clone, Default)]
pub(super) struct ForModel {
    pub name: String,
    pub description: Option<String>,
    pub notes: Vec<ClientNote>,
}

/// What a client view of the project reads once (see [`LiveProject::client_setting`]).
pub(super) struct ClientSetting {
    pub(super) knobs: Knobs,
    pub(super) catalog: Catalog,
}

impl ClientSetting {
    /// Claude Code's view of `server`'s listed tools, with its entry's `alwaysLoad`.
    pub(super) fn claude_code_view(&self, server: &str, listed: &[Value]) -> View<'static> {
        let always_load = self
            .catalog
            .effective(server)
            .and_then(|entry| entry.config.always_load);
        let listing = json!({ "tools": listed });
        claude_code::view(
            &Server {
                always_load,
                ..Server::named(server)
            },
            &listing,
            &self.knobs,
        )
        .into_owned()
    }
}

/// A finding for the window.
fn finding(f: &mcp_manager_clients::Finding) -> ClientFinding {
    ClientFinding {
        client: f.client.label().to_string(),
        effect: effect_word(f.effect).to_string(),
        words: f.words.clone(),
        fix: f.fix.clone(),
    }
}

fn effect_word(effect: mcp_manager_clients::Effect) -> &'static str {
    use mcp_manager_clients::Effect;
    match effect {
        Effect::Dropped => "dropped",
        Effect::Cut => "cut",
        Effect::Renamed => "renamed",
        Effect::Hidden => "hidden",
        Effect::Warning => "warning",
    }
}

/// The badges other clients put on `server`'s tools: what they drop or cut, by tool.
pub(super) fn other_badges(
    others: &[mcp_manager_clients::ClientView],
    server: &str,
) -> HashMap<String, Vec<ClientNote>> {
    use mcp_manager_clients::Effect;
    let mut badges: HashMap<String, Vec<ClientNote>> = HashMap::new();
    for f in others.iter().flat_map(|o| &o.findings) {
        let (Some(tool), true) = (&f.tool, f.server == server) else {
            continue;
        };
        let effect = match f.effect {
            Effect::Dropped => "dropped",
            Effect::Cut => "changed",
            _ => continue,
        };
        let notes = badges.entry(crate::sanitize::strip(tool)).or_default();
        let label = f.client.label();
        if !notes
            .iter()
            .any(|n| n.client == label && n.effect == effect)
        {
            notes.push(ClientNote {
                client: label.to_string(),
                effect: effect.to_string(),
                words: f.words.clone(),
            });
        }
    }
    badges
}

/// What is said once for the whole server: a tool list Claude Code refuses whole (loudly: no
/// tool of the server reaches the model), and tools that share a name.
fn server_notes(view: &View) -> Vec<String> {
    let refused = view
        .dropped
        .iter()
        .find(|d| matches!(d.reason, claude_code::DropReason::InvalidListing { .. }));
    refused
        .map(|d| d.words.clone())
        .into_iter()
        .chain(view.collisions.iter().map(|c| c.words.clone()))
        .collect()
}

/// The knobs Claude Code reads, from its environment for this project.
pub fn knobs_of(env: &ClaudeEnv) -> Knobs {
    Knobs::from_env(|name| env.get(name).map(str::to_string))
}

/// `ENABLE_TOOL_SEARCH`'s effect in a sentence.
pub fn tool_search_words(mode: ToolSearch) -> String {
    match mode {
        ToolSearch::On => "Tool search is on: Claude Code sends each MCP tool's name only, and \
                           loads its definition when the model searches for it (unless the tool \
                           or its server asks to load always)."
            .to_string(),
        ToolSearch::Off => "Tool search is off (ENABLE_TOOL_SEARCH=false): every MCP tool's whole \
                            definition is sent with every request."
            .to_string(),
        ToolSearch::Auto { percent } => format!(
            "Tool search is automatic: tools are sent whole until their definitions take {percent}% \
             of the model's context window, then by name only."
        ),
    }
}

/// One row per listed tool, in the server's order.
fn rows(view: &View, listed: &[Value]) -> Vec<ClaudeCodeTool> {
    listed
        .iter()
        .map(|tool| {
            let raw = tool.get("name").and_then(Value::as_str).unwrap_or("");
            let listed_description = tool
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string);
            let listed_schema =
                serde_json::to_string_pretty(tool.get("inputSchema").unwrap_or(&Value::Null))
                    .unwrap_or_default();
            if let Some(dropped) = view.dropped.iter().find(|d| d.tool == raw) {
                return ClaudeCodeTool {
                    tool: raw.to_string(),
                    name: dropped.name.clone(),
                    fate: Fate::Dropped,
                    notes: vec![dropped.words.clone()],
                    fixes: vec![dropped.reason.fix(&view.server)],
                    description: None,
                    input_schema: None,
                    definition: None,
                    listed_description,
                    listed_schema,
                    results: None,
                    others: Vec::new(),
                };
            }
            let name = claude_code::text::full_name(&view.server, &claude_code::text::clean(raw));
            let sent = view.sent.iter().find(|t| t.name == name);
            let mut notes = Vec::new();
            let mut fixes = Vec::new();
            if let Some(cut) = view.cuts.iter().find(|c| c.name == name) {
                notes.push(cut.words.clone());
                fixes.push(format!(
                    "Put what the model must know in the first {} characters of the description \
                     (Claude Code cuts it there, {} once loaded through tool search), or set \
                     CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH on your machine.",
                    group(cut.upfront_at as u64),
                    group(cut.loaded_at as u64)
                ));
            }
            if let Some((_, flattened)) = view.flattened.iter().find(|(n, _)| *n == name) {
                notes.push(format!(
                    "Its schema's root {} is flattened into one object, and this is put before \
                     its description: \"{}\"",
                    flattened.combinators.join("/"),
                    flattened.note
                ));
                fixes.push(
                    "Give the schema an object root and put the alternatives under its \
                     properties: every client then reads it the same way."
                        .to_string(),
                );
            }
            let fate = if view.deferred.contains(&name) {
                Fate::Deferred
            } else {
                Fate::Upfront
            };
            let results = view.results.iter().find(|r| r.name == name).map(|r| {
                format!(
                    "A result over {} tokens is saved to a file, as is a text result over {} \
                     characters; the model gets a preview and the file's path.",
                    group(r.max_tokens),
                    group(r.persist_over_chars)
                )
            });
            ClaudeCodeTool {
                tool: raw.to_string(),
                name: name.clone(),
                fate,
                notes,
                fixes,
                description: sent.map(|t| t.description.clone()),
                input_schema: sent.and_then(|t| serde_json::to_string_pretty(&t.input_schema).ok()),
                definition: sent.and_then(|t| serde_json::to_string_pretty(t).ok()),
                listed_description,
                listed_schema,
                results,
                others: Vec::new(),
            }
        })
        .collect()
}

/// 25000 → "25,000".
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(group(25_000), "25,000");
        assert_eq!(group(500_000), "500,000");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_234_567), "1,234,567");
    }
}
