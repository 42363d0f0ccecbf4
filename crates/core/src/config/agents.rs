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
    if expanded_size(yaml)? > MAX_NODES {
        return Err(format!(
            "its frontmatter's aliases would make more than {MAX_NODES} values: not read"
        ));
    }
    let docs = yaml_rust2::YamlLoader::load_from_str(yaml)
        .map_err(|err| format!("its frontmatter is not YAML ({err})"))?;
    Ok(Some(docs.first().map(to_json).unwrap_or(Value::Null)))
}

/// The most values a frontmatter may stand for once its aliases are expanded: the YAML
/// loader copies an anchored value at each alias, so ten aliases of ten aliases… would stand
/// for billions.
const MAX_NODES: u64 = 100_000;

/// How many values `yaml` stands for with its aliases expanded, counted from the parser's
/// events before anything is built.
fn expanded_size(yaml: &str) -> Result<u64, String> {
    // The parser recurses once per level of a block list too: bound the nesting a line can
    // open (its indentation, and the `- `, `? ` and `: ` that follow it) before it parses.
    for line in yaml.lines() {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let mut rest = &line[indent..];
        let mut markers = 0;
        while let Some(next) = ["- ", "-\t", "? ", ": "]
            .iter()
            .find_map(|m| rest.strip_prefix(m))
        {
            markers += 1;
            rest = next.trim_start_matches([' ', '\t']);
        }
        let brackets = rest.matches(['[', '{']).count();
        if indent + markers + brackets > MAX_LINE_DEPTH {
            return Err(format!(
                "its frontmatter nests more than {MAX_DEPTH} levels deep: not read"
            ));
        }
    }
    use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
    use yaml_rust2::scanner::Marker;
    #[derive(Default)]
    struct Count {
        /// Open collections: their anchor and their size so far.
        open: Vec<(usize, u64)>,
        anchors: std::collections::HashMap<usize, u64>,
        total: u64,
        deepest: usize,
    }
    impl Count {
        fn add(&mut self, n: u64) {
            match self.open.last_mut() {
                Some((_, size)) => *size = size.saturating_add(n),
                None => self.total = self.total.saturating_add(n),
            }
        }
    }
    impl MarkedEventReceiver for Count {
        fn on_event(&mut self, event: Event, _mark: Marker) {
            match event {
                Event::Scalar(text, _, anchor, _) => {
                    // A long string weighs what it would cost to copy.
                    let weight = 1 + text.len() as u64 / 16;
                    if anchor > 0 {
                        self.anchors.insert(anchor, weight);
                    }
                    self.add(weight);
                }
                Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                    self.open.push((anchor, 1));
                    self.deepest = self.deepest.max(self.open.len());
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    if let Some((anchor, size)) = self.open.pop() {
                        if anchor > 0 {
                            self.anchors.insert(anchor, size);
                        }
                        self.add(size);
                    }
                }
                Event::Alias(anchor) => {
                    let size = self.anchors.get(&anchor).copied().unwrap_or(1);
                    self.add(size);
                }
                _ => {}
            }
        }
    }
    let mut count = Count::default();
    Parser::new_from_str(yaml)
        .load(&mut count, true)
        .map_err(|err| format!("its frontmatter is not YAML ({err})"))?;
    // Building the values recurses once per level: a file nested thousands deep would
    // overflow the stack, where no agent needs more than a few levels.
    if count.deepest > MAX_DEPTH {
        return Err(format!(
            "its frontmatter nests more than {MAX_DEPTH} levels deep: not read"
        ));
    }
    Ok(count.total)
}

/// The deepest nesting of lists and maps a frontmatter may have.
const MAX_DEPTH: usize = 64;

/// The most levels one line may open, counting each space of its indentation as one: far
/// beyond [`MAX_DEPTH`] written with two-space indentation, far below what overflows the
/// parser.
const MAX_LINE_DEPTH: usize = 512;

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
                let twice = out.iter().any(|s: &AgentServer| s.inline && &s.name == name);
                let problem = if name.contains(':') {
                    Some(format!("\"{name}\" has a \":\" in its name, which cannot be told apart here from the agent's (agent:<agent>:<server>): Claude Code runs it, this app cannot try or move it. Rename it"))
                } else if twice {
                    Some(format!("\"{name}\" is defined twice in this agent: Claude Code starts both and offers the tools of each, while here only the first can be tried or moved. Give one another name"))
                } else if let Err(why) = &inline_allowed {
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
        } else if (kind.is_file() || kind.is_symlink())
            && path.extension().is_some_and(|e| e == "md")
        {
            // A link is listed too: Claude Code follows it, and the read decides whether it
            // may be read here (a project's only to a regular file inside the project).
            into.push(path);
        }
    }
}

/// An agent file read: its name, file, source and frontmatter.
#[derive(Debug, Clone)]
pub struct AgentFile {
    /// The agent's name as Claude Code calls it: the frontmatter's `name`, and for a plugin's
    /// agent `<plugin>:<subfolders…>:<name>`.
    pub name: String,
    pub file: PathBuf,
    pub source: AgentSource,
    pub frontmatter: Value,
    /// Another file of the same name that Claude Code loads instead (a project's agent wins
    /// over the person's of the same name); this one never runs.
    pub overridden_by: Option<PathBuf>,
}

impl AgentFile {
    fn has_servers(&self) -> bool {
        self.frontmatter
            .get("mcpServers")
            .and_then(Value::as_array)
            .is_some_and(|l| !l.is_empty())
    }
}

/// Every agent file with a frontmatter `name`: the person's, the project's, and those of
/// `plugins` that are on, each marked when another of its name wins; and the files that could
/// not be read.
///
/// Claude Code 2.1.332 keeps one agent per name, the last of plugins', the person's, then the
/// project's (`T8`): the project's wins. A plugin's agents are named `<plugin>:<name>`, so they
/// never meet the others.
pub(crate) fn read_all(
    locations: &Locations,
    plugins: &[crate::config::plugins::Plugin],
) -> (Vec<AgentFile>, Vec<String>) {
    let mut agents: Vec<AgentFile> = Vec::new();
    let mut problems = Vec::new();
    let project_root = locations.project_root();
    let mut folders: Vec<(AgentSource, PathBuf, Option<PathBuf>, Option<String>)> = Vec::new();
    for plugin in plugins {
        if let (true, false, Some(root)) = (plugin.enabled, plugin.refused, plugin.root.as_ref()) {
            let root = PathBuf::from(root);
            folders.push((
                AgentSource::Plugin(plugin.id.clone()),
                root.join("agents"),
                Some(root),
                Some(plugin.name.clone()),
            ));
        }
    }
    folders.push((
        AgentSource::User,
        locations.claude_dir().join("agents"),
        None,
        None,
    ));
    folders.push((
        AgentSource::Project,
        project_root.join(".claude/agents"),
        Some(project_root.clone()),
        None,
    ));
    // Files that could not be read: whichever agent they define, Claude Code may run it.
    let mut unread: Vec<(AgentSource, PathBuf)> = Vec::new();
    for (source, folder, within, plugin) in folders {
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
                    unread.push((source.clone(), file.clone()));
                    continue;
                }
            };
            let front = match frontmatter(&text) {
                Ok(Some(front)) => front,
                Ok(None) => continue,
                Err(why) => {
                    problems.push(format!("{}: {why}", file.display()));
                    unread.push((source.clone(), file.clone()));
                    continue;
                }
            };
            // Claude Code takes a file without a `name` for no agent.
            let Some(name) = front.get("name").and_then(Value::as_str) else {
                continue;
            };
            let name = match &plugin {
                Some(plugin) => {
                    let folders = file
                        .parent()
                        .and_then(|p| p.strip_prefix(&folder).ok())
                        .map(|p| {
                            p.components()
                                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                                .collect::<Vec<_>>()
                        })
                        .unwrap_or_default();
                    std::iter::once(plugin.clone())
                        .chain(folders)
                        .chain(std::iter::once(name.to_string()))
                        .collect::<Vec<_>>()
                        .join(":")
                }
                None => name.to_string(),
            };
            // A later file of the same name wins (the project's over the person's).
            for earlier in agents.iter_mut().filter(|a| a.name == name) {
                earlier.overridden_by = Some(file.clone());
            }
            agents.push(AgentFile {
                name,
                file,
                source: source.clone(),
                frontmatter: front,
                overridden_by: None,
            });
        }
    }
    // A project's agent file that could not be read may define an agent of the person's
    // name (most are named after their file): the person's is not taken to run then.
    for (source, file) in &unread {
        let Some(stem) = file.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if *source != AgentSource::Project {
            continue;
        }
        for agent in agents
            .iter_mut()
            .filter(|a| a.source == AgentSource::User && a.name == stem)
        {
            agent.overridden_by.get_or_insert_with(|| file.clone());
        }
    }
    (agents, problems)
}

/// Every agent file with a `name` and servers in `mcpServers` (see [`read_all`]), those
/// another file overrides included and marked.
pub fn read_agents(
    locations: &Locations,
    plugins: &[crate::config::plugins::Plugin],
) -> (Vec<AgentFile>, Vec<String>) {
    let (mut agents, problems) = read_all(locations, plugins);
    agents.retain(AgentFile::has_servers);
    (agents, problems)
}

/// An agent's inline servers Claude Code would give it a session for (problems aside from
/// the folder's trust): `(name, entry)`.
pub fn inline_servers(agent: &AgentFile) -> Vec<(String, Value)> {
    if agent.overridden_by.is_some() {
        return Vec::new();
    }
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
/// A server whose name has a `:` gets no entry, so the last `:` always ends the agent's name.
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
            let mut servers = servers_of(&agent.frontmatter, inline_allowed, configured);
            if let Some(winner) = &agent.overridden_by {
                for server in &mut servers {
                    server.problem = Some(format!(
                        "{} defines (or, unread here, may define) an agent of the same name, and Claude Code runs that one: this file's servers never start",
                        winner.display()
                    ));
                }
            }
            Agent {
                servers,
                name: agent.name,
                file: agent.file.display().to_string(),
                source: agent.source,
            }
        })
        .collect();
    Agents { agents, problems }
}

/// Where the frontmatter's text is in a file: the byte range between the opening `---` line
/// and the closing one (its own newline included).
fn frontmatter_span(text: &str) -> Option<std::ops::Range<usize>> {
    // A byte-order mark before it is kept where it is (Claude Code reads such a file).
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let open = if text[bom..].starts_with("---\n") {
        bom + 4
    } else if text[bom..].starts_with("---\r\n") {
        bom + 5
    } else {
        return None;
    };
    let rest = &text[open..];
    let end = rest.match_indices("\n---").map(|(at, _)| at).find(|&at| {
        let after = &rest[at + 4..];
        after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n")
    })?;
    Some(open..open + end + 1)
}

/// A top-level key's line in the frontmatter's lines: `key:` at the start of a line.
fn key_line(lines: &[&str], key: &str) -> Option<usize> {
    lines.iter().position(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.starts_with(':'))
    })
}

/// The lines of the block under a top-level key at `at`: every following line that is
/// indented, blank, a comment or a list item at the start of the line, up to the next key.
fn block_end(lines: &[&str], at: usize) -> usize {
    let mut end = at + 1;
    while end < lines.len() {
        let line = lines[end];
        let starts_block = line.is_empty()
            || line.starts_with(' ')
            || line.starts_with('\t')
            || line.starts_with('#')
            || line.starts_with("- ")
            || line == "-";
        if !starts_block {
            break;
        }
        end += 1;
    }
    // Trailing blank lines and comments belong to what follows.
    while end > at + 1 && {
        let l = lines[end - 1].trim_start();
        l.is_empty() || l.starts_with('#')
    } {
        end -= 1;
    }
    end
}

/// A frontmatter's lines without their ends; each line with its own end, to edit and write
/// back (a line keeps the end it had); and the end new lines get (`\r\n` when any line has it).
#[allow(clippy::type_complexity)]
fn frontmatter_lines(front: &str) -> (Vec<&str>, Vec<(String, String)>, &'static str) {
    let newline = if front.contains("\r\n") { "\r\n" } else { "\n" };
    let mut lines = Vec::new();
    let mut kept = Vec::new();
    for line in front.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        lines.push(text);
        kept.push((text.to_string(), line[text.len()..].to_string()));
    }
    (lines, kept, newline)
}

/// The frontmatter with `server: entry` added to `mcpServers` as one more list item (written
/// as JSON, which YAML reads as it is), every other line as it was.
pub fn add_inline(text: &str, server: &str, entry: &Value) -> Result<String, String> {
    let span = frontmatter_span(text).ok_or("the file has no frontmatter")?;
    let front = &text[span.clone()];
    let (lines, mut out, newline) = frontmatter_lines(front);
    let item = format!(
        "{}: {}",
        serde_json::to_string(server).expect("a string"),
        serde_json::to_string(entry).expect("an entry")
    );
    match key_line(&lines, "mcpServers") {
        None => {
            out.push(("mcpServers:".into(), newline.into()));
            out.push((format!("  - {item}"), newline.into()));
        }
        Some(at) => {
            let value = lines[at]["mcpServers:".len()..].trim();
            if value.is_empty() || value.starts_with('#') {
                let end = block_end(&lines, at);
                // The items' own indentation, or two spaces.
                let indent = lines[at + 1..end]
                    .iter()
                    .find_map(|l| {
                        let trimmed = l.trim_start();
                        trimmed.starts_with('-').then(|| l.len() - trimmed.len())
                    })
                    .unwrap_or(2);
                out.insert(
                    end,
                    (format!("{}- {item}", " ".repeat(indent)), newline.into()),
                );
            } else if value == "[]" {
                let end = out[at].1.clone();
                out[at].0 = "mcpServers:".into();
                out.insert(at + 1, (format!("  - {item}"), end));
            } else {
                return Err("its mcpServers is written on one line ([a, b]): write it as a list, one item a line, to move a server into it".into());
            }
        }
    }
    let rebuilt: String = out.iter().map(|(l, end)| format!("{l}{end}")).collect();
    Ok(format!(
        "{}{}{}",
        &text[..span.start],
        rebuilt,
        &text[span.end..]
    ))
}

/// The frontmatter without inline server `server` in `mcpServers`, every other line as it
/// was; the entry taken out.
pub fn remove_inline(text: &str, server: &str) -> Result<(String, Value), String> {
    let span = frontmatter_span(text).ok_or("the file has no frontmatter")?;
    let front_value = frontmatter(text)?.ok_or("the file has no frontmatter")?;
    let entry = front_value
        .get("mcpServers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find_map(|item| {
            item.as_object()
                .filter(|m| m.len() == 1)?
                .get(server)
                .cloned()
        })
        .ok_or_else(|| format!("the agent defines no server named \"{server}\""))?;
    let front = &text[span.clone()];
    let (lines, mut out, _) = frontmatter_lines(front);
    let at = key_line(&lines, "mcpServers").ok_or("the agent has no mcpServers")?;
    if !lines[at]["mcpServers:".len()..].trim().is_empty() {
        return Err("its mcpServers is written on one line: write it as a list, one item a line, to move a server out of it".into());
    }
    let end = block_end(&lines, at);
    // Each item: from its `-` line to the next item at that indentation.
    let starts: Vec<usize> = (at + 1..end)
        .filter(|&i| lines[i].trim_start().starts_with('-'))
        .collect();
    let indent = |i: usize| lines[i].len() - lines[i].trim_start().len();
    let item_indent = starts.first().map(|&i| indent(i)).unwrap_or(2);
    let items: Vec<usize> = starts
        .into_iter()
        .filter(|&i| indent(i) == item_indent)
        .collect();
    let mut found = None;
    for (n, &start) in items.iter().enumerate() {
        let stop = items.get(n + 1).copied().unwrap_or(end);
        let piece: String = lines[start..stop]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect();
        // The item alone, dedented, read as YAML: is it this server?
        let dedented: String = piece
            .lines()
            .map(|l| l.get(item_indent..).unwrap_or(l.trim_start()))
            .map(|l| format!("{l}\n"))
            .collect();
        let parsed = yaml_rust2::YamlLoader::load_from_str(&dedented)
            .ok()
            .and_then(|docs| docs.first().map(to_json));
        if parsed.as_ref().and_then(|v| {
            v.as_array()?
                .first()?
                .as_object()
                .map(|m| m.len() == 1 && m.contains_key(server))
        }) == Some(true)
        {
            // Blank lines and comments at its end written no deeper than the item belong to
            // what follows (a comment about the next item): they stay. A deeper `#` line may
            // be text of its block scalar, and goes with it.
            let mut stop = stop;
            while stop > start + 1 && {
                let line = lines[stop - 1];
                let l = line.trim_start();
                l.is_empty() || (l.starts_with('#') && indent(stop - 1) <= item_indent)
            } {
                stop -= 1;
            }
            found = Some(start..stop);
            break;
        }
    }
    let range = found.ok_or_else(|| {
        format!("\"{server}\" could not be found line by line in the frontmatter")
    })?;
    out.drain(range);
    if items.len() == 1 {
        out[at].0 = "mcpServers: []".into();
    }
    let rebuilt: String = out.iter().map(|(l, end)| format!("{l}{end}")).collect();
    Ok((
        format!("{}{}{}", &text[..span.start], rebuilt, &text[span.end..]),
        entry,
    ))
}

/// Checks an edit of an agent file: the body is the same bytes, the frontmatter still reads,
/// every key but `mcpServers` reads as before, and `mcpServers` reads as `servers`, the list
/// the edit meant to make (so no other item was changed by a line moved or lost).
pub(crate) fn same_but_servers(before: &str, after: &str, servers: &Value) -> Result<(), String> {
    let (Some(a), Some(b)) = (frontmatter_span(before), frontmatter_span(after)) else {
        return Err("the frontmatter was lost".into());
    };
    if before[a.end..] != after[b.end..] {
        return Err("the body would change".into());
    }
    let mut old = frontmatter(before)?.unwrap_or(Value::Null);
    let mut new = frontmatter(after)?.ok_or("the frontmatter no longer reads")?;
    if new.get("mcpServers") != Some(servers) {
        return Err("another of the agent's servers would read differently after the edit (a block or comment the edit cannot keep apart): move it by hand".into());
    }
    for v in [&mut old, &mut new] {
        if let Some(map) = v.as_object_mut() {
            map.remove("mcpServers");
        }
    }
    if old != new {
        return Err("another key of the frontmatter would change".into());
    }
    Ok(())
}

/// The `mcpServers` items of an agent's text, as read.
pub(crate) fn servers_list(text: &str) -> Result<Vec<Value>, String> {
    Ok(frontmatter(text)?
        .and_then(|f| f.get("mcpServers").and_then(Value::as_array).cloned())
        .unwrap_or_default())
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
        // Aliases of aliases standing for a billion values are not expanded.
        let mut bomb = String::from("---\nname: x\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..10 {
            let prev = format!("*a{}", level - 1);
            bomb += &format!("a{level}: &a{level} [{}]\n", vec![prev; 10].join(", "));
        }
        bomb += "---\n";
        let started = std::time::Instant::now();
        assert!(frontmatter(&bomb).unwrap_err().contains("aliases"));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        // A long string copied by many aliases weighs its length.
        let long = format!(
            "---\nname: x\nb: &a \"{}\"\nl: [{}]\n---\n",
            "x".repeat(500_000),
            vec!["*a"; 200].join(", ")
        );
        assert!(frontmatter(&long).unwrap_err().contains("aliases"));
        // A few aliases are read as YAML reads them.
        let fine = "---\nname: x\nbase: &b {command: node}\nmcpServers:\n  - s: *b\n---\n";
        assert_eq!(
            frontmatter(fine).unwrap().unwrap()["mcpServers"][0]["s"]["command"],
            "node"
        );
    }

    #[test]
    fn a_server_moved_in_and_out_leaves_the_file_as_it_was() {
        let original = "---\nname: helper # the name\ndescription: >\n  Helps, a lot.\nmcpServers:\n  # the ones it uses\n  - github\n  - local:\n      command: node   # keep\n      args: [a.js]\ntools: Read, Grep\n---\nBody with --- inside\n---\n";
        let entry = json!({"type": "stdio", "command": "npx", "args": ["-y", "x@1.0.0"], "env": {"K": "${K}"}});
        let added = add_inline(original, "db", &entry).unwrap();
        let mut expected = frontmatter(original).unwrap().unwrap()["mcpServers"].clone();
        expected.as_array_mut().unwrap().push(json!({"db": entry}));
        same_but_servers(original, &added, &expected).unwrap();
        assert!(added.ends_with("---\nBody with --- inside\n---\n"));
        let (back, taken) = remove_inline(&added, "db").unwrap();
        assert_eq!(taken, entry);
        assert_eq!(back, original, "byte for byte");
        // A hand-written item comes out too, its neighbours untouched.
        let (without, taken) = remove_inline(original, "local").unwrap();
        assert_eq!(taken, json!({"command": "node", "args": ["a.js"]}));
        assert_eq!(
            frontmatter(&without).unwrap().unwrap()["mcpServers"],
            json!(["github"])
        );
        assert!(without.contains("# the ones it uses") && without.contains("tools: Read, Grep"));
        // No mcpServers yet; one on a single line.
        let bare = "---\nname: x\n---\nbody\n";
        let added = add_inline(bare, "db", &entry).unwrap();
        assert_eq!(
            frontmatter(&added).unwrap().unwrap()["mcpServers"][0]["db"],
            entry
        );
        assert!(add_inline("---\nname: x\nmcpServers: [a]\n---\n", "db", &entry).is_err());
    }

    #[test]
    fn an_edit_that_would_change_another_server_is_caught() {
        // The last item keeps its trailing blank line (`|+`): a line added after it would
        // take that line from its value.
        let text = "---\nname: x\nmcpServers:\n  - a:\n      command: node\n      args:\n        - |+\n          kept\n\ntools: Read\n---\nbody\n";
        let before = frontmatter(text).unwrap().unwrap()["mcpServers"].clone();
        assert_eq!(before[0]["a"]["args"][0], "kept\n\n");
        let entry = json!({"command": "y"});
        let added = add_inline(text, "b", &entry).unwrap();
        let mut expected = before.clone();
        expected.as_array_mut().unwrap().push(json!({"b": entry}));
        let err = same_but_servers(text, &added, &expected).unwrap_err();
        assert!(err.contains("another of the agent's servers"), "{err}");
        // The same edit where nothing else changes passes.
        let plain = text.replace("|+", "|");
        let added = add_inline(&plain, "b", &entry).unwrap();
        let mut expected = frontmatter(&plain).unwrap().unwrap()["mcpServers"].clone();
        expected.as_array_mut().unwrap().push(json!({"b": entry}));
        same_but_servers(&plain, &added, &expected).unwrap();
    }

    #[test]
    fn a_comment_about_the_next_item_stays_when_an_item_goes() {
        let text = "---\nname: x\nmcpServers:\n  - a:\n      command: node\n  # b is the database one, keep it pinned\n  - b:\n      command: db\ntools: Read\n---\nbody\n";
        let (after, taken) = remove_inline(text, "a").unwrap();
        assert_eq!(taken, json!({"command": "node"}));
        assert_eq!(
            after,
            "---\nname: x\nmcpServers:\n  # b is the database one, keep it pinned\n  - b:\n      command: db\ntools: Read\n---\nbody\n"
        );
    }

    #[test]
    fn a_hash_line_of_a_block_scalar_goes_with_its_item() {
        let text = "---\nname: x\nmcpServers:\n  - a:\n      command: |\n        echo\n        # not a comment\n  - b:\n      command: echo\n---\n";
        let (after, taken) = remove_inline(text, "a").unwrap();
        assert_eq!(taken, json!({"command": "echo\n# not a comment\n"}));
        assert_eq!(
            after,
            "---\nname: x\nmcpServers:\n  - b:\n      command: echo\n---\n"
        );
    }

    #[test]
    fn a_byte_order_mark_and_mixed_line_ends_survive_a_round_trip() {
        let original = "\u{feff}---\r\nname: x\r\ndescription: one LF line\nmcpServers:\r\n  - github\r\n---\r\nBody\n";
        assert_eq!(frontmatter(original).unwrap().unwrap()["name"], "x");
        let entry = json!({"command": "node"});
        let added = add_inline(original, "db", &entry).unwrap();
        assert!(added.starts_with('\u{feff}'));
        assert!(added.contains("description: one LF line\nmcpServers:\r\n"));
        let (back, _) = remove_inline(&added, "db").unwrap();
        assert_eq!(back, original, "byte for byte");
    }

    #[test]
    fn a_server_defined_twice_is_flagged_and_only_the_first_is_offered() {
        let front = json!({"mcpServers": [
            {"dup": {"command": "first"}},
            {"dup": {"command": "second"}},
        ]});
        let servers = servers_of(&front, Ok(()), &[]);
        assert_eq!(servers[0].problem, None);
        assert!(servers[1]
            .problem
            .as_deref()
            .unwrap()
            .contains("defined twice"));
        let agent = AgentFile {
            name: "x".into(),
            file: "x.md".into(),
            source: AgentSource::User,
            frontmatter: front,
            overridden_by: None,
        };
        assert_eq!(
            inline_servers(&agent),
            [("dup".to_string(), json!({"command": "first"}))]
        );
        let overridden = AgentFile {
            overridden_by: Some("y.md".into()),
            ..agent
        };
        assert!(inline_servers(&overridden).is_empty());
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

    #[test]
    fn deep_nesting_is_refused_not_a_crash() {
        let text = format!("---\nname: x\nmcpServers: {}\n---\n", "[".repeat(200_000));
        assert!(super::frontmatter(&text).is_err());
        let closed = format!(
            "---\nname: x\nmcpServers: {}{}\n---\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(super::frontmatter(&closed).is_err());
        // Block lists nest without brackets: a 20 KB file once overflowed the stack.
        let block = format!("---\nname: x\nk:\n  {}x\n---\nbody\n", "- ".repeat(10_000));
        let err = super::frontmatter(&block).unwrap_err();
        assert!(err.contains("levels deep"), "{err}");
        for spread in ["[\n", "{a:\n", "-\n "] {
            let text = format!("---\nname: x\nk: {}\n---\n", spread.repeat(10_000));
            assert!(super::frontmatter(&text).is_err(), "{spread:?}");
        }
        let fine = format!("---\nname: x\nk:\n  {}x\n---\n", "- ".repeat(20));
        assert!(super::frontmatter(&fine).is_ok());
    }
}
