//! Servers scoped to a subagent: the `mcpServers` of an agent file's YAML frontmatter.
//!
//! Claude Code 2.1.332 reads agents from `~/.claude/agents/` (or `$CLAUDE_CONFIG_DIR/agents/`),
//! from the project's `.claude/agents/` and from each enabled plugin's `agents/`, Markdown files
//! whose frontmatter has a `name`. An agent's `mcpServers` is a list; each item is either
//! - a string, the name of a configured server the subagent may use (a name that matches none
//!   is dropped with a warning only its `--debug` log shows: "MCP server not found: NAME"), or
//! - an object with exactly one key, an inline server (`{NAME: {command, args, …}}`), which
//!   connects only while that subagent runs, with the scope `agent`. Neither `claude mcp list`
//!   nor `/mcp` shows it.
//!
//! Claude Code skips an agent's inline servers when the folder its file came from is not
//! trusted ("Skipping frontmatter MCP servers for agent 'X': the folder its definition file came
//! from is not trusted"), an item with other than one key ("Invalid MCP server spec: expected
//! exactly one key"), and a transport only its host can provide (`sdk`, `sse-ide`, `ws-ide`)
//! or a claude.ai connector's (`claudeai-proxy`). User and plugin agents are not held to a
//! folder's trust. Here each of those is listed with its reason, so the person sees what
//! Claude Code silently does.
//!
//! A project's agent files are project content: read bounded, regular only and only inside
//! the project. Nothing here starts a server.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::Locations;

/// Where an agent file comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum AgentSource {
    User,
    Project,
    /// An enabled plugin's, by its id.
    Plugin(String),
}

/// One server an agent names or defines.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentServer {
    pub name: String,
    /// Defined in the frontmatter (else a configured server named there).
    pub inline: bool,
    /// An inline server's command line or URL.
    pub target: Option<String>,
    /// Why Claude Code does not give it to the subagent, in words; `None` when it does.
    pub problem: Option<String>,
}

/// One agent file with servers.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Agent {
    pub name: String,
    pub file: String,
    pub source: AgentSource,
    pub servers: Vec<AgentServer>,
}

/// Every agent with servers, and the agent files that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Agents {
    pub agents: Vec<Agent>,
    /// `file: what is wrong`, for files that look like agents and could not be read.
    pub problems: Vec<String>,
}

/// The YAML frontmatter of a Markdown file, as JSON: `None` when it has none.
pub fn frontmatter(text: &str) -> Result<Option<Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok(None);
    };
    let end = rest
        .match_indices("\n---")
        .map(|(at, _)| at)
        .find(|&at| {
            let after = &rest[at + 4..];
            after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n")
        })
        .ok_or("its frontmatter has no closing ---")?;
    let yaml = &rest[..end];
    let docs = yaml_rust2::YamlLoader::load_from_str(yaml)
        .map_err(|err| format!("its frontmatter is not YAML ({err})"))?;
    Ok(Some(docs.first().map(to_json).unwrap_or(Value::Null)))
}

fn to_json(yaml: &yaml_rust2::Yaml) -> Value {
    use yaml_rust2::Yaml;
    match yaml {
        Yaml::Real(text) => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::String(text.clone()), Value::Number),
        Yaml::Integer(n) => Value::from(*n),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        Yaml::Hash(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let key = match k {
                        Yaml::String(s) => s.clone(),
                        other => match to_json(other) {
                            Value::String(s) => s,
                            v => v.to_string(),
                        },
                    };
                    (key, to_json(v))
                })
                .collect(),
        ),
        Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => Value::Null,
    }
}

fn target_of(entry: &Value) -> Option<String> {
    if let Some(url) = entry.get("url").and_then(Value::as_str) {
        return Some(url.to_string());
    }
    let command = entry.get("command").and_then(Value::as_str)?;
    let args: Vec<&str> = entry
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    Some(
        std::iter::once(command)
            .chain(args)
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The servers of one agent's frontmatter, judged as Claude Code judges them.
fn servers_of(
    front: &Value,
    inline_allowed: Result<(), String>,
    configured: &[String],
) -> Vec<AgentServer> {
    let mut out = Vec::new();
    for item in front
        .get("mcpServers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match item {
            Value::String(name) => out.push(AgentServer {
                name: name.clone(),
                inline: false,
                target: None,
                problem: (!configured.contains(name)).then(|| {
                    format!("no configured server is named \"{name}\": Claude Code drops it without a word (its --debug log says \"MCP server not found: {name}\")")
                }),
            }),
            Value::Object(map) if map.len() == 1 => {
                let (name, entry) = map.iter().next().expect("one key");
                let kind = entry.get("type").and_then(Value::as_str).unwrap_or("stdio");
                let problem = if let Err(why) = &inline_allowed {
                    Some(why.clone())
                } else if matches!(kind, "sdk" | "sse-ide" | "ws-ide") {
                    Some(format!("Claude Code skips its transport \"{kind}\" here: only Claude Code's host provides it"))
                } else if kind == "claudeai-proxy" {
                    Some("Claude Code skips a claude.ai connector's transport in an agent's frontmatter".into())
                } else {
                    None
                };
                out.push(AgentServer {
                    name: name.clone(),
                    inline: true,
                    target: target_of(entry),
                    problem,
                });
            }
            other => out.push(AgentServer {
                name: other.to_string().chars().take(60).collect(),
                inline: true,
                target: None,
                problem: Some(
                    "an item that is neither a name nor one server: Claude Code skips it (\"Invalid MCP server spec: expected exactly one key\")".into(),
                ),
            }),
        }
    }
    out
}

/// The `.md` files under `dir`, at most four folders down, links not followed.
fn markdown_files(dir: &Path, depth: u32, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() && depth > 0 {
            markdown_files(&path, depth - 1, into);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "md") {
            into.push(path);
        }
    }
}

/// An agent file read: its name, file, source and frontmatter.
#[derive(Debug, Clone)]
pub struct AgentFile {
    pub name: String,
    pub file: PathBuf,
    pub source: AgentSource,
    pub frontmatter: Value,
}

/// Every agent file with a frontmatter `name` and `mcpServers`: the user's, the project's,
/// and those of `plugins` that are on; and the files that could not be read.
pub fn read_agents(
    locations: &Locations,
    plugins: &[crate::config::plugins::Plugin],
) -> (Vec<AgentFile>, Vec<String>) {
    let mut agents = Vec::new();
    let mut problems = Vec::new();
    let project_root = locations.project_root();
    let mut folders: Vec<(AgentSource, PathBuf, Option<PathBuf>)> = vec![
        (
            AgentSource::User,
            locations.claude_dir().join("agents"),
            None,
        ),
        (
            AgentSource::Project,
            project_root.join(".claude/agents"),
            Some(project_root.clone()),
        ),
    ];
    for plugin in plugins {
        if let (true, false, Some(root)) = (plugin.enabled, plugin.refused, plugin.root.as_ref()) {
            let root = PathBuf::from(root);
            folders.push((
                AgentSource::Plugin(plugin.id.clone()),
                root.join("agents"),
                Some(root),
            ));
        }
    }
    for (source, folder, within) in folders {
        let mut files = Vec::new();
        markdown_files(&folder, 4, &mut files);
        for file in files {
            let read = match &within {
                Some(root) => crate::files::read_text_within(&file, root, 1024 * 1024),
                None => crate::files::read_text(&file, 1024 * 1024),
            };
            let text = match read {
                Ok(Some(text)) => text,
                Ok(None) => continue,
                Err(err) => {
                    problems.push(err.to_string());
                    continue;
                }
            };
            let front = match frontmatter(&text) {
                Ok(Some(front)) => front,
                Ok(None) => continue,
                Err(why) => {
                    problems.push(format!("{}: {why}", file.display()));
                    continue;
                }
            };
            // Claude Code takes a file without a `name` for no agent.
            let Some(name) = front.get("name").and_then(Value::as_str) else {
                continue;
            };
            if front
                .get("mcpServers")
                .and_then(Value::as_array)
                .is_none_or(|l| l.is_empty())
            {
                continue;
            }
            agents.push(AgentFile {
                name: name.to_string(),
                file,
                source: source.clone(),
                frontmatter: front,
            });
        }
    }
    (agents, problems)
}

/// An agent's inline servers Claude Code would give it a session for (problems aside from
/// the folder's trust): `(name, entry)`.
pub fn inline_servers(agent: &AgentFile) -> Vec<(String, Value)> {
    servers_of(&agent.frontmatter, Ok(()), &[])
        .into_iter()
        .filter(|s| s.inline && s.problem.is_none())
        .filter_map(|s| {
            let entry = agent.frontmatter["mcpServers"]
                .as_array()?
                .iter()
                .find_map(|item| item.as_object()?.get(&s.name).cloned())?;
            Some((s.name, entry))
        })
        .collect()
}

/// The name an agent's inline server has here, beside the configured servers:
/// `agent:<agent>:<server>` (in Claude Code it has its own name only inside its subagent).
pub fn entry_name(agent: &str, server: &str) -> String {
    format!("agent:{agent}:{server}")
}

/// Every agent with servers, judged. `configured` are the servers configured now (Claude
/// Code's names).
pub fn list(locations: &Locations, configured: &[String]) -> Agents {
    let plugins = crate::config::plugins::PluginSet::load(locations).plugins;
    let (files, problems) = read_agents(locations, &plugins);
    let trusted = crate::config::trust::is_trusted(locations);
    let project_root = locations.project_root();
    let agents = files
        .into_iter()
        .map(|agent| {
            let inline_allowed = if agent.source == AgentSource::Project && !trusted {
                Err(format!(
                    "the folder {} is not trusted: Claude Code skips this agent's own servers until it is",
                    project_root.display()
                ))
            } else {
                Ok(())
            };
            Agent {
                servers: servers_of(&agent.frontmatter, inline_allowed, configured),
                name: agent.name,
                file: agent.file.display().to_string(),
                source: agent.source,
            }
        })
        .collect();
    Agents { agents, problems }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frontmatter_is_read_as_yaml() {
        let text = "---\nname: helper\nmcpServers:\n  - github\n  - local:\n      command: node\n      args: [a.js, \"b\"]\n---\nBody\n---\nnot frontmatter\n";
        assert_eq!(
            frontmatter(text).unwrap().unwrap(),
            json!({"name": "helper", "mcpServers": ["github", {"local": {"command": "node", "args": ["a.js", "b"]}}]})
        );
        assert_eq!(frontmatter("# no frontmatter").unwrap(), None);
        assert!(frontmatter("---\nname: [\n---\n").is_err());
        assert!(frontmatter("---\nname: x\n").is_err());
    }

    #[test]
    fn each_item_is_judged_as_claude_code_judges_it() {
        let front = json!({"mcpServers": [
            "github", "missing",
            {"mine": {"command": "node", "args": ["s.js"]}},
            {"ide": {"type": "sse-ide", "url": "http://x"}},
            {"a": {}, "b": {}},
        ]});
        let servers = servers_of(&front, Ok(()), &["github".into()]);
        let problems: Vec<bool> = servers.iter().map(|s| s.problem.is_some()).collect();
        assert_eq!(problems, [false, true, false, true, true]);
        assert_eq!(servers[2].target.as_deref(), Some("node s.js"));
        let untrusted = servers_of(&front, Err("not trusted".into()), &["github".into()]);
        assert_eq!(untrusted[2].problem.as_deref(), Some("not trusted"));
        assert_eq!(
            untrusted[0].problem, None,
            "a name is not held to the folder's trust"
        );
    }
}
