//! Every scope resolved into one view, as Claude Code resolves it.
//!
//! Precedence is local > project > user, and among project files the one closest to the
//! project folder wins; the winning entry is used whole, never merged, and each losing entry
//! records which scope beat it. When `managed-mcp.json` exists it takes exclusive control: its
//! servers are the only ones used and every other entry is reported as shadowed by it.
//! A `.mcp.json` above the project in a folder that is not the person's (above their home, or
//! writable by others) is not read; it is reported as a problem, never silently used.
//! Each entry carries its approval (the entries the project supplies, [`CatalogEntry::from_project`]),
//! whether it is disabled for this project,
//! whether enterprise policy blocks it ([`super::policy`]; `managedMcpServers` join the
//! managed scope), and a content hash used to restart only what really changed.
//!
//! An entry that needs approval (a `.mcp.json` server, a project skills plugin's server) came
//! with the folder, so it starts only in a trusted folder ([`super::trust`]), whoever approved
//! it: the person's own `enableAllProjectMcpServers` or `enabledMcpjsonServers` approve the
//! servers of every repository they open, and Claude Code's interactive session asks "Do you
//! trust this folder?" before it starts any of them. Such an entry stands
//! [`Standing::AwaitingTrust`]: approved, not started.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use super::approval::{Approval, ApprovalSettings};
use super::document;
use super::entry::{servers_object, ServerConfig};
use super::policy::{Policy, PolicyBlock};
use crate::error::ConfigError;
use crate::locations::Locations;
use crate::scope::Scope;

/// One entry of one file, resolved.
#[derive(Debug, Clone)]
pub struct CatalogEntry {
    pub name: String,
    pub scope: Scope,
    /// The file it is in.
    pub path: PathBuf,
    pub config: ServerConfig,
    /// The entry exactly as in the file, unknown keys included.
    pub raw: Value,
    /// Set when another entry of the same name is used instead.
    pub shadowed_by: Option<Scope>,
    /// For project servers only.
    pub approval: Option<Approval>,
    /// An approved project server whose entry differs from the one the person approved here
    /// (its command, URL, environment…): it does not start until they approve it again.
    pub changed_since_approval: bool,
    /// Whether the project folder was trusted when this was read: a project entry's
    /// `headersHelper` runs only then.
    pub trusted_folder: bool,
    /// A pending project server that a project settings file approves, which counts once
    /// the folder is trusted: that file.
    pub waiting_for_trust: Option<PathBuf>,
    /// Listed in this project's `disabledMcpServers`.
    pub disabled: bool,
    /// Kept from starting by enterprise policy ([`super::policy`]).
    pub blocked: Option<PolicyBlock>,
    /// A plugin server: its plugin's id ([`super::plugins`]).
    pub plugin: Option<String>,
    /// A plugin server: where its plugin was found.
    pub plugin_origin: Option<super::plugins::PluginOrigin>,
    /// A plugin server Claude Code leaves out because an entry before it runs the same
    /// command line or URL: that entry's name.
    pub duplicate_of: Option<String>,
    /// Values put into `${NAME}`s only when the server starts, never shown (a plugin's
    /// sensitive options, `user_config.KEY`).
    pub variables: Vec<(String, crate::secrets::Secret)>,
    /// [`ServerConfig::content_hash`].
    pub hash: String,
    /// A subagent's own server whose agent file is the project's (project content).
    pub agent_from_project: bool,
}

impl CatalogEntry {
    /// Whether the project supplied this entry (its `.mcp.json`, or a skills folder plugin in
    /// its `.claude/skills`), so that whoever commits to the repository wrote it. Every such
    /// entry is handled alike, wherever it comes from: it needs the person's approval, which
    /// is bound to its content hash; the Approve dialog shows all of it
    /// ([`super::review`]); its `headersHelper` runs only in a trusted folder and without the
    /// person's credentials in its environment.
    pub fn from_project(&self) -> bool {
        self.scope == Scope::Project
            || self.plugin_origin == Some(super::plugins::PluginOrigin::ProjectSkills)
            || self.agent_from_project
    }

    /// The entry with every `${VAR}` put in: its own [`CatalogEntry::variables`] first, then
    /// the process environment. What was missing comes with it.
    pub fn expanded(&self) -> (ServerConfig, Vec<super::expand::MissingVariable>) {
        let lookup = |name: &str| {
            self.variables
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.expose().to_string())
                .or_else(|| super::expand::process_env(name))
        };
        super::expand::expand_config(&self.config, &lookup)
    }

    /// The values to conceal wherever this entry, expanded, or an error that quotes it is
    /// shown ([`crate::secrets::config_secret_values`]).
    pub fn secret_values(&self) -> Vec<String> {
        crate::secrets::config_secret_values(&self.expanded().0, &self.variables)
    }

    /// Claude Code's words for a plugin server it skips as a duplicate.
    pub fn duplicate_words(&self) -> Option<String> {
        let of = self.duplicate_of.as_ref()?;
        let other = match of.strip_prefix("plugin:") {
            Some(rest) => format!(
                "one provided by plugin \"{}\"",
                rest.split(':').next().unwrap_or("?")
            ),
            None => format!("already-configured \"{of}\""),
        };
        Some(format!(
            "MCP server \"{}\" skipped — same server as {other}",
            self.name
        ))
    }

    /// Whether it came with the folder (it needs approval) and the folder is not trusted: then
    /// it does not start, approved or not.
    pub fn awaits_trust(&self) -> bool {
        self.approval.is_some() && !self.trusted_folder
    }

    /// Whether it takes part when Claude Code merges the scopes: a project (`.mcp.json`) entry
    /// only once it is approved in a trusted folder; every other entry always.
    pub fn takes_part(&self) -> bool {
        self.scope != Scope::Project
            || (self.approval == Some(Approval::Approved) && !self.awaits_trust())
    }

    /// Where it stands: [`Standing`].
    pub fn standing(&self) -> Standing {
        match self {
            e if e.shadowed_by == Some(Scope::Managed) && e.scope != Scope::Managed => {
                Standing::SetAsideByManaged
            }
            e if e.shadowed_by.is_some() => Standing::Shadowed,
            e if e.duplicate_of.is_some() => Standing::Duplicate,
            e if e.blocked.is_some() => Standing::Blocked,
            e if e.approval == Some(Approval::Pending) => Standing::PendingApproval,
            e if e.approval == Some(Approval::Rejected) => Standing::Rejected,
            e if e.awaits_trust() => Standing::AwaitingTrust,
            e if e.changed_since_approval => Standing::ChangedSinceApproval,
            e if e.disabled => Standing::DisabledHere,
            _ => Standing::Starts,
        }
    }

    /// Whether Claude Code would start this entry: used, enabled, and, when it needs approval,
    /// approved in a trusted folder.
    pub fn will_start(&self) -> bool {
        self.shadowed_by.is_none()
            && !self.awaits_trust()
            && self.blocked.is_none()
            && self.duplicate_of.is_none()
            && !self.disabled
            && !self.changed_since_approval
            && matches!(self.approval, None | Some(Approval::Approved))
    }
}

/// Where an entry stands before any connection: whether Claude Code would start it, and if not
/// why, in the order Claude Code tells it (a pending approval is told before a disabled one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// It starts.
    Starts,
    /// Another entry of the same name is used.
    Shadowed,
    /// `managed-mcp.json` has exclusive control: only its servers run.
    SetAsideByManaged,
    /// A plugin server that runs what an entry before it runs (Claude Code skips it).
    Duplicate,
    /// Enterprise policy blocks it (Claude Code drops it without a word).
    Blocked,
    /// A project server nobody approved.
    PendingApproval,
    /// A project server in a `disabledMcpjsonServers` list.
    Rejected,
    /// A project server the person's own settings approve, in a folder not trusted: it starts
    /// once they trust the folder. Show "Trust this folder".
    AwaitingTrust,
    /// An approved project server whose entry changed since the person approved it here.
    ChangedSinceApproval,
    /// In this project's `disabledMcpServers`.
    DisabledHere,
}

impl CatalogEntry {
    /// Why Claude Code would not start this entry, in words for a person, with what to do.
    pub fn why_not_started(&self) -> Option<String> {
        if let Some(scope) = self.shadowed_by {
            if !self.takes_part() && scope == Scope::User {
                return Some(format!(
                    "the {} entry of the same name is used instead, as long as this project entry is not approved in a trusted folder",
                    scope.as_str()
                ));
            }
            return Some(format!(
                "the {} entry of the same name is used instead",
                scope.as_str()
            ));
        }
        if self.disabled {
            return Some("it is disabled for this project; enable it first".into());
        }
        if self.changed_since_approval {
            return Some("its entry changed since you approved it (command, URL, environment or headers); review it and approve it again".into());
        }
        match self.approval {
            Some(Approval::Pending) => Some(match &self.waiting_for_trust {
                Some(file) => format!(
                    "{} approves it, but this folder is not trusted, so that approval does not count yet; trust the folder first (mcpctl trust)",
                    file.display()
                ),
                None if self.scope == Scope::Agent => {
                    "nobody has approved this subagent's own server here yet; approve it first".into()
                }
                None => "nobody has approved this project server yet; approve it first".into(),
            }),
            Some(Approval::Rejected) => {
                Some("this project server was rejected; approve it first".into())
            }
            Some(Approval::Approved) if self.awaits_trust() => Some(
                "it is approved in your settings, but it came with this folder, which is not trusted; trust the folder to start it (mcpctl trust)".into(),
            ),
            _ => None,
        }
    }
}

impl Standing {
    /// Claude Code's status words for what it shows (`claude mcp list`), and ours, in the same
    /// manner, for what it hides. `None` for a server that starts: its live status speaks.
    pub fn words(self) -> Option<&'static str> {
        Some(match self {
            Standing::Starts => return None,
            Standing::Shadowed => "↷ Not used (another scope's entry of this name wins)",
            Standing::SetAsideByManaged => {
                "⊘ Set aside: managed-mcp.json has exclusive control over MCP servers"
            }
            Standing::Duplicate => "↷ Skipped: same server as one configured before it",
            Standing::Blocked => "⊗ Blocked by enterprise policy",
            Standing::PendingApproval => "⏸ Pending approval",
            Standing::Rejected => "✘ Rejected (see disabledMcpjsonServers in settings)",
            Standing::AwaitingTrust => "⏸ Approved in your settings; trust the folder to start it",
            Standing::ChangedSinceApproval => {
                "⏸ Changed since you approved it (review it and approve again)"
            }
            Standing::DisabledHere => "⊘ Disabled for this project",
        })
    }
}

/// A file or entry that could not be used.
#[derive(Debug)]
pub struct CatalogProblem {
    pub scope: Scope,
    pub error: ConfigError,
}

/// All configuration of one project.
#[derive(Debug, Default)]
pub struct Catalog {
    /// Managed first, then local, project (closest file first), user; file order within each.
    pub entries: Vec<CatalogEntry>,
    pub problems: Vec<CatalogProblem>,
    /// `managed-mcp.json`, when present: nothing else is used and nothing can be changed.
    pub managed: Option<PathBuf>,
    /// The managed settings files that were read (they may hold policy).
    pub managed_settings: Vec<PathBuf>,
    /// Claude Code plugins, on and off; their servers are among `entries`.
    pub plugins: Vec<super::plugins::Plugin>,
}

impl Catalog {
    /// Reads every scope. Never fails: unreadable files become problems.
    pub fn load(locations: &Locations) -> Catalog {
        let mut catalog = Catalog::default();
        let mut approvals = ApprovalSettings::load(locations);
        for error in std::mem::take(&mut approvals.problems) {
            catalog.problems.push(CatalogProblem {
                scope: Scope::Project,
                error,
            });
        }

        let claude_json_path = locations.claude_json();
        let claude_json = catalog.read(Scope::User, &claude_json_path);
        let project_key = locations.project_key();
        let disabled = document::strings(
            claude_json
                .as_ref()
                .and_then(|v| v.get("projects"))
                .and_then(|p| p.get(&project_key)),
            "disabledMcpServers",
        );

        let mut policy = Policy::load(locations, approvals.trusted);
        catalog.managed_settings = policy.managed_files.clone();
        for error in std::mem::take(&mut policy.problems) {
            catalog.problems.push(CatalogProblem {
                scope: Scope::Managed,
                error,
            });
        }
        for (path, name, raw) in &policy.managed_servers {
            let doc = serde_json::json!({ "mcpServers": { name: raw } });
            catalog.add_entries(Scope::Managed, path, &doc, &["mcpServers"]);
        }
        let managed_path = locations.managed_mcp_json();
        if let Some(managed) = catalog.read(Scope::Managed, &managed_path) {
            catalog.managed = Some(managed_path.clone());
            catalog.add_entries(Scope::Managed, &managed_path, &managed, &["mcpServers"]);
        }
        if let Some(doc) = &claude_json {
            catalog.add_entries(
                Scope::Local,
                &claude_json_path,
                doc,
                &["projects", &project_key, "mcpServers"],
            );
        }
        for (path, why) in locations.set_aside_mcp_jsons() {
            catalog.problems.push(CatalogProblem {
                scope: Scope::Project,
                error: ConfigError::SetAside {
                    path,
                    why: why.to_string(),
                },
            });
        }
        for path in locations.project_mcp_jsons().into_iter().rev() {
            if let Some(doc) = catalog.read(Scope::Project, &path) {
                catalog.add_entries(Scope::Project, &path, &doc, &["mcpServers"]);
            }
        }
        if let Some(doc) = &claude_json {
            catalog.add_entries(Scope::User, &claude_json_path, doc, &["mcpServers"]);
        }
        let mut plugins = super::plugins::PluginSet::load(locations);
        for error in std::mem::take(&mut plugins.problems) {
            catalog.problems.push(CatalogProblem {
                scope: Scope::Plugin,
                error,
            });
        }
        for server in plugins.servers.iter().filter(|s| !s.bundle) {
            let doc = serde_json::json!({ "mcpServers": { &server.name: &server.raw } });
            let before = catalog.entries.len();
            catalog.add_entries(Scope::Plugin, &server.file, &doc, &["mcpServers"]);
            if let Some(entry) = catalog.entries.get_mut(before) {
                entry.plugin = Some(server.plugin.clone());
                entry.plugin_origin = Some(server.origin);
                entry.variables = server.secrets.clone();
            }
        }
        // Subagents' own servers, each under its own name (`agent:<agent>:<server>`), so that
        // none shadows or is shadowed by a configured server.
        let (agents, agent_problems) = super::agents::read_agents(locations, &plugins.plugins);
        for problem in agent_problems {
            catalog.problems.push(CatalogProblem {
                scope: Scope::Agent,
                error: ConfigError::Invalid(problem),
            });
        }
        for agent in &agents {
            for (server, raw) in super::agents::inline_servers(agent) {
                let name = super::agents::entry_name(&agent.name, &server);
                let doc = serde_json::json!({ "mcpServers": { &name: raw } });
                let before = catalog.entries.len();
                catalog.add_entries(Scope::Agent, &agent.file, &doc, &["mcpServers"]);
                if let Some(entry) = catalog.entries.get_mut(before) {
                    entry.agent_from_project = agent.source == super::agents::AgentSource::Project;
                }
            }
        }
        catalog.plugins = plugins.plugins;

        let approved_here = document::read(&super::approval::approvals_file(locations))
            .ok()
            .flatten()
            .and_then(|doc| doc.value.get(&project_key).cloned());
        let agents_approved_here =
            document::read(&super::approval::agent_approvals_file(locations))
                .ok()
                .flatten()
                .and_then(|doc| doc.value.get(&project_key).cloned());
        let managed = catalog.managed.is_some();
        for entry in &mut catalog.entries {
            entry.disabled = disabled.contains(&entry.name);
            entry.blocked = policy.check(
                &entry.name,
                &entry.config,
                entry.scope == Scope::Managed,
                // A marketplace plugin's, not a skills folder's.
                entry.plugin_origin == Some(super::plugins::PluginOrigin::Marketplace),
            );
            entry.trusted_folder = approvals.trusted;
            if entry.scope == Scope::Agent {
                // Claude Code asks nothing before a subagent's own server runs; here the person
                // approves it first, bound to its content, and a project's agent's only in a
                // trusted folder.
                entry.trusted_folder = approvals.trusted || !entry.agent_from_project;
                let approved = agents_approved_here
                    .as_ref()
                    .and_then(|p| p.get(&entry.name))
                    .and_then(Value::as_str)
                    .is_some_and(|hash| hash == entry.hash);
                entry.approval = Some(if approved {
                    Approval::Approved
                } else {
                    Approval::Pending
                });
            } else if entry.from_project() {
                entry.approval = Some(approvals.status(&entry.name));
                entry.waiting_for_trust = approvals
                    .waiting_for_trust(&entry.name)
                    .map(std::path::Path::to_path_buf);
                entry.changed_since_approval = entry.approval == Some(Approval::Approved)
                    && approved_here
                        .as_ref()
                        .and_then(|p| p.get(super::names::normalize(&entry.name)))
                        .and_then(Value::as_str)
                        .is_some_and(|hash| hash != entry.hash);
            }
        }
        // A name is taken by the first entry of it (local, project, user, in that order) that
        // takes part: a project entry only once it is approved in a trusted folder, as Claude
        // Code leaves the others out before it merges the scopes (checked against 2.1.332: an
        // unapproved, rejected or untrusted `.mcp.json` entry leaves the user's entry of that
        // name in use). One changed since its approval still takes the name: Claude Code
        // approves by name and would run it. Among the project files themselves the closest
        // entry of a name is the one (their approval is the name's, so it is the same for all).
        let mut winner: HashMap<String, Scope> = HashMap::new();
        let mut in_project_files: HashMap<String, Scope> = HashMap::new();
        for entry in &mut catalog.entries {
            let project = entry.scope == Scope::Project;
            entry.shadowed_by = if managed && entry.scope != Scope::Managed {
                Some(Scope::Managed)
            } else {
                winner.get(&entry.name).copied().or_else(|| {
                    project
                        .then(|| in_project_files.get(&entry.name).copied())
                        .flatten()
                })
            };
            if project {
                in_project_files
                    .entry(entry.name.clone())
                    .or_insert(entry.scope);
            }
            if entry.takes_part() {
                winner.entry(entry.name.clone()).or_insert(entry.scope);
            }
        }
        // A project entry left out that way is set aside for the entry that took its name, as
        // Claude Code lists and runs only that one; with no other entry of the name it stays
        // the name's, waiting for its approval.
        for entry in &mut catalog.entries {
            if entry.shadowed_by.is_none() && !entry.takes_part() {
                entry.shadowed_by = winner.get(&entry.name).copied();
            }
        }
        catalog.mark_duplicates();
        catalog
    }

    /// Marks each plugin server that runs what a configured server, or a plugin server
    /// before it, runs (after `${VAR}` expansion): Claude Code starts only the first.
    fn mark_duplicates(&mut self) {
        let signature = |entry: &CatalogEntry| -> String {
            match entry.expanded().0.transport {
                super::entry::Transport::Stdio { command, args, .. } => {
                    serde_json::json!([command, args]).to_string()
                }
                super::entry::Transport::Remote { url, .. } => url,
            }
        };
        let mut seen: Vec<(String, String)> = self
            .entries
            .iter()
            .filter(|e| !matches!(e.scope, Scope::Plugin | Scope::Agent) && e.shadowed_by.is_none())
            .map(|e| (signature(e), e.name.clone()))
            .collect();
        for entry in self.entries.iter_mut().filter(|e| e.scope == Scope::Plugin) {
            let own = signature(entry);
            match seen.iter().find(|(s, _)| *s == own) {
                Some((_, first)) => entry.duplicate_of = Some(first.clone()),
                None => seen.push((own, entry.name.clone())),
            }
        }
    }

    fn read(&mut self, scope: Scope, path: &std::path::Path) -> Option<Value> {
        match document::read(path) {
            Ok(doc) => doc.map(|d| d.value),
            Err(error) => {
                self.problems.push(CatalogProblem { scope, error });
                None
            }
        }
    }

    fn add_entries(&mut self, scope: Scope, path: &std::path::Path, doc: &Value, keys: &[&str]) {
        let servers = match servers_object(path, doc, keys) {
            Ok(Some(servers)) => servers,
            Ok(None) => return,
            Err(error) => {
                self.problems.push(CatalogProblem { scope, error });
                return;
            }
        };
        for (name, raw) in servers {
            match super::entry::parse_entry(path, name, raw) {
                Ok(config) => self.entries.push(CatalogEntry {
                    name: name.clone(),
                    scope,
                    path: path.to_path_buf(),
                    hash: config.content_hash(),
                    config,
                    raw: raw.clone(),
                    shadowed_by: None,
                    approval: None,
                    waiting_for_trust: None,
                    trusted_folder: false,
                    changed_since_approval: false,
                    disabled: false,
                    blocked: None,
                    plugin: None,
                    plugin_origin: None,
                    duplicate_of: None,
                    variables: Vec::new(),
                    agent_from_project: false,
                }),
                Err(error) => self.problems.push(CatalogProblem { scope, error }),
            }
        }
    }

    /// The entry used for `name`, if any.
    pub fn effective(&self, name: &str) -> Option<&CatalogEntry> {
        self.entries
            .iter()
            .find(|e| e.name == name && e.shadowed_by.is_none())
    }

    /// The entry used for `name`, or the error that says there is none.
    pub fn require(&self, name: &str) -> Result<&CatalogEntry, ConfigError> {
        self.effective(name)
            .ok_or_else(|| ConfigError::ServerNotFound {
                name: name.to_string(),
                scope: None,
            })
    }

    /// Every entry named `name`, winner first, then the others in precedence order (the one in
    /// use is not always the first in that order: a project entry not approved gives way to
    /// the user's).
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a CatalogEntry> + 'a {
        let of_name = move || self.entries.iter().filter(move |e| e.name == name);
        of_name()
            .filter(|e| e.shadowed_by.is_none())
            .chain(of_name().filter(|e| e.shadowed_by.is_some()))
    }

    /// Name → content hash of every entry that would start; what a running set must match.
    pub fn startable_hashes(&self) -> HashMap<String, String> {
        self.entries
            .iter()
            .filter(|e| e.will_start())
            .map(|e| (e.name.clone(), e.hash.clone()))
            .collect()
    }
}
