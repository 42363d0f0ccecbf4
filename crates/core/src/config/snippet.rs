//! What people paste from a README: a `claude mcp add …` line, a `.mcp.json` / Claude Desktop
//! `{"mcpServers": …}`, a VS Code `{"servers": …}`, one `"name": {…}` member or a bare entry.
//!
//! One parser for the window's paste box and for `mcpctl add` / `add-json`: the flags of
//! `claude mcp add` become an [`AddCommand`], whose [`AddCommand::config`] is the same entry
//! builder `mcpctl add` uses, and JSON entries go through [`crate::api::parse_add_json`], the
//! rules of `add-json`. Nothing here writes or runs anything.

use serde_json::{Map, Value};

use super::entry::{OAuthConfig, ServerConfig, TransportKind};
use super::interop::strip_jsonc;
use crate::{ConfigError, Scope};

/// `claude mcp add`'s flags and words.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AddCommand {
    pub scope: Option<Scope>,
    pub transport: Option<TransportKind>,
    pub env: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub client_id: Option<String>,
    pub callback_port: Option<u16>,
    pub name: String,
    /// The command (stdio) or the URL.
    pub target: String,
    pub args: Vec<String>,
}

impl AddCommand {
    /// The entry `claude mcp add` writes for these flags.
    pub fn config(&self) -> Result<ServerConfig, ConfigError> {
        let kind = self.transport.unwrap_or(TransportKind::Stdio);
        if kind == TransportKind::Stdio {
            return Ok(ServerConfig::stdio(
                &self.target,
                self.args.clone(),
                self.env.clone(),
            ));
        }
        if !self.args.is_empty() {
            return Err(ConfigError::Invalid(format!(
                "a {} server takes a URL only; unexpected arguments: {}",
                kind.as_str(),
                self.args.join(" ")
            )));
        }
        let mut config = ServerConfig::remote(kind, &self.target, self.headers.clone());
        if kind != TransportKind::Ws && (self.client_id.is_some() || self.callback_port.is_some()) {
            config.oauth = Some(OAuthConfig {
                client_id: self.client_id.clone(),
                callback_port: self.callback_port,
                ..OAuthConfig::default()
            });
        }
        Ok(config)
    }
}

pub fn parse_scope(word: &str) -> Result<Scope, String> {
    match word {
        "local" => Ok(Scope::Local),
        "project" => Ok(Scope::Project),
        "user" => Ok(Scope::User),
        _ => Err(format!(
            "invalid scope \"{word}\": use local, project or user"
        )),
    }
}

pub fn parse_transport(word: &str) -> Result<TransportKind, String> {
    TransportKind::parse(word)
        .ok_or_else(|| format!("invalid transport \"{word}\": use stdio, http, sse or ws"))
}

pub fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!(
            "invalid environment variable \"{text}\": use KEY=VALUE"
        )),
    }
}

pub fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| format!("invalid header \"{text}\": use 'Name: value'"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("invalid header \"{text}\": the name is empty"));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

/// The words after `add` of a `claude mcp add` line, read as Claude Code reads them: options
/// before the name, `--` or the first word after the name ends them.
pub fn parse_add_words(words: &[String]) -> Result<AddCommand, String> {
    let mut command = AddCommand::default();
    let mut positional: Vec<String> = Vec::new();
    let mut i = 0;
    let value = |i: &mut usize, flag: &str| -> Result<String, String> {
        *i += 1;
        words
            .get(*i)
            .cloned()
            .ok_or_else(|| format!("{flag} needs a value"))
    };
    while i < words.len() {
        let word = &words[i];
        if word == "--" {
            positional.extend(words[i + 1..].iter().cloned());
            break;
        }
        // Once the name and the command are there, the rest are the command's arguments.
        if positional.len() >= 2 {
            positional.extend(words[i..].iter().cloned());
            break;
        }
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (word.clone(), None),
        };
        let take = |i: &mut usize| match &inline {
            Some(v) => Ok(v.clone()),
            None => value(i, &flag),
        };
        match flag.as_str() {
            "-s" | "--scope" => command.scope = Some(parse_scope(&take(&mut i)?)?),
            "-t" | "--transport" => command.transport = Some(parse_transport(&take(&mut i)?)?),
            "-e" | "--env" => command.env.push(parse_env(&take(&mut i)?)?),
            "-H" | "--header" => command.headers.push(parse_header(&take(&mut i)?)?),
            "--client-id" => command.client_id = Some(take(&mut i)?),
            "--callback-port" => {
                let port = take(&mut i)?;
                command.callback_port = Some(
                    port.parse()
                        .map_err(|_| format!("invalid callback port \"{port}\""))?,
                );
            }
            "--client-secret" => {}
            other if other.starts_with('-') && positional.is_empty() => {
                return Err(format!("unknown option {other} of claude mcp add"))
            }
            _ => positional.push(word.clone()),
        }
        i += 1;
    }
    let mut positional = positional.into_iter();
    command.name = positional
        .next()
        .ok_or("claude mcp add needs a name and a command or URL")?;
    command.target = positional
        .next()
        .ok_or_else(|| format!("\"{}\" needs a command or URL", command.name))?;
    command.args = positional.collect();
    Ok(command)
}

/// One server found in a pasted snippet.
#[derive(Debug, Clone, PartialEq)]
pub struct PastedServer {
    /// Empty when the snippet did not say (a bare entry).
    pub name: String,
    pub config: ServerConfig,
    /// The entry as it will be written (known keys in Claude Code's order).
    pub entry: Value,
}

/// What a snippet holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Pasted {
    /// `claude mcp add`, `mcpServers`, `servers` (VS Code), `a member`, `an entry`.
    pub form: &'static str,
    pub servers: Vec<PastedServer>,
    /// The scope a `claude mcp add` line named.
    pub scope: Option<Scope>,
}

/// Reads a pasted snippet.
pub fn parse_snippet(text: &str) -> Result<Pasted, ConfigError> {
    let trimmed = text.trim().trim_start_matches('$').trim();
    let invalid = |m: String| ConfigError::Invalid(m);
    if trimmed.starts_with("claude ") || trimmed.starts_with("mcpctl ") {
        // A line continued with backslashes is one command.
        let joined = trimmed.replace("\\\r\n", " ").replace("\\\n", " ");
        let words = shlex::split(&joined)
            .ok_or_else(|| invalid("the command line has an unclosed quote".into()))?;
        let rest: Vec<String> = match words.as_slice() {
            [claude, mcp, verb, rest @ ..] if claude == "claude" && mcp == "mcp" => {
                std::iter::once(verb.clone())
                    .chain(rest.iter().cloned())
                    .collect()
            }
            [mcpctl, rest @ ..] if mcpctl == "mcpctl" => rest.to_vec(),
            _ => return Err(invalid("this is not a `claude mcp add` command".into())),
        };
        return match rest.split_first() {
            Some((verb, words)) if verb == "add" => {
                let command = parse_add_words(words).map_err(invalid)?;
                let config = command.config()?;
                Ok(Pasted {
                    form: "claude mcp add",
                    scope: command.scope,
                    servers: vec![PastedServer {
                        name: command.name.clone(),
                        entry: config.to_json(&Map::new()),
                        config,
                    }],
                })
            }
            Some((verb, words)) if verb == "add-json" => {
                let mut scope = None;
                let mut plain = Vec::new();
                let mut i = 0;
                while i < words.len() {
                    match words[i].as_str() {
                        "-s" | "--scope" => {
                            i += 1;
                            let word = words
                                .get(i)
                                .ok_or_else(|| invalid("--scope needs a value".into()))?;
                            scope = Some(parse_scope(word).map_err(invalid)?);
                        }
                        "--client-secret" => {}
                        _ => plain.push(words[i].clone()),
                    }
                    i += 1;
                }
                let [name, json] = plain.as_slice() else {
                    return Err(invalid(
                        "claude mcp add-json needs a name and the JSON".into(),
                    ));
                };
                let (config, entry) = crate::api::parse_add_json(name, json)?;
                Ok(Pasted {
                    form: "claude mcp add-json",
                    scope,
                    servers: vec![PastedServer {
                        name: name.clone(),
                        config,
                        entry,
                    }],
                })
            }
            _ => Err(invalid(
                "only `claude mcp add` and `claude mcp add-json` lines add a server".into(),
            )),
        };
    }
    let json = strip_jsonc(trimmed);
    let value: Value = match serde_json::from_str(&json) {
        Ok(v) => v,
        // `"name": { … }` as READMEs show it, without the braces around it.
        Err(first) => serde_json::from_str(&format!("{{{}}}", json.trim().trim_end_matches(',')))
            .map_err(|_| {
            invalid(format!(
                "this is neither a `claude mcp add` line nor JSON: {first}"
            ))
        })?,
    };
    let object = value
        .as_object()
        .ok_or_else(|| invalid("the JSON must be an object".into()))?;
    let (form, members) = if let Some(Value::Object(m)) = object.get("mcpServers") {
        ("mcpServers", m.clone())
    } else if let Some(Value::Object(m)) = object.get("servers") {
        ("servers (VS Code)", m.clone())
    } else if object.contains_key("command") || object.contains_key("url") {
        ("an entry", Map::from_iter([(String::new(), value.clone())]))
    } else {
        ("a member", object.clone())
    };
    let mut servers = Vec::new();
    for (name, entry) in members {
        let mut entry = entry;
        // VS Code says "type": "http" for remotes too, and never needs a type for stdio;
        // a URL without a type is streamable HTTP in VS Code and Claude Desktop.
        if let Some(object) = entry.as_object_mut() {
            if object.contains_key("url") && !object.contains_key("type") {
                object.insert("type".into(), Value::String("http".into()));
            }
        }
        let shown = if name.is_empty() { "the entry" } else { &name };
        let text = serde_json::to_string(&entry).expect("a value serialises");
        let (config, entry) = crate::api::parse_add_json(shown, &text)?;
        servers.push(PastedServer {
            name,
            config,
            entry,
        });
    }
    if servers.is_empty() {
        return Err(invalid("the snippet has no server in it".into()));
    }
    Ok(Pasted {
        form,
        servers,
        scope: None,
    })
}

/// A snippet as the window's form takes it: one draft per server, in the scope the line named
/// or the one the form had.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PastedDrafts {
    pub form: String,
    pub drafts: Vec<super::draft::ServerDraft>,
}

pub fn drafts(text: &str, scope: Scope) -> Result<PastedDrafts, ConfigError> {
    let pasted = parse_snippet(text)?;
    let scope = pasted.scope.unwrap_or(scope);
    Ok(PastedDrafts {
        form: pasted.form.to_string(),
        drafts: pasted
            .servers
            .iter()
            .map(|s| super::draft::draft_from_config(&s.name, scope, &s.config))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_claude_mcp_add_line_with_its_flags_becomes_the_entry_claude_writes() {
        let pasted = parse_snippet(
            "$ claude mcp add --transport stdio -s project -e API_KEY=${API_KEY} \\\n  airtable -- npx -y airtable-mcp-server",
        )
        .unwrap();
        assert_eq!(pasted.scope, Some(Scope::Project));
        assert_eq!(pasted.servers[0].name, "airtable");
        assert_eq!(
            pasted.servers[0].entry,
            json!({"type": "stdio", "command": "npx", "args": ["-y", "airtable-mcp-server"],
                   "env": {"API_KEY": "${API_KEY}"}})
        );
        let remote = parse_snippet(
            "claude mcp add --transport http -H 'Authorization: Bearer ${TOKEN}' notion https://mcp.notion.com/mcp",
        )
        .unwrap();
        assert_eq!(
            remote.servers[0].entry,
            json!({"type": "http", "url": "https://mcp.notion.com/mcp",
                   "headers": {"Authorization": "Bearer ${TOKEN}"}})
        );
        // Words after the command are the command's own, flags included.
        let own = parse_snippet(
            "claude mcp add fs npx -y @modelcontextprotocol/server-filesystem -e /tmp",
        )
        .unwrap();
        assert_eq!(
            own.servers[0].entry["args"],
            json!([
                "-y",
                "@modelcontextprotocol/server-filesystem",
                "-e",
                "/tmp"
            ])
        );
        assert!(parse_snippet("claude mcp add --bogus x y").is_err());
        assert!(parse_snippet("claude mcp add 'unclosed").is_err());
    }

    #[test]
    fn json_in_every_form_people_paste() {
        let desktop = parse_snippet(
            r#"{"mcpServers": {"a": {"command": "uvx", "args": ["mcp-server-time"]},
            "b": {"url": "https://x.example/mcp"}}}"#,
        )
        .unwrap();
        assert_eq!(desktop.servers.len(), 2);
        assert_eq!(desktop.servers[1].config.kind(), TransportKind::Http);
        let vscode = parse_snippet(
            r#"{"servers": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}"#,
        )
        .unwrap();
        assert_eq!(vscode.form, "servers (VS Code)");
        let member =
            parse_snippet(r#""time": { "command": "uvx", "args": ["mcp-server-time"] },"#).unwrap();
        assert_eq!(member.servers[0].name, "time");
        let bare =
            parse_snippet(r#"{"command": "npx", "args": ["-y", "x"]} // from a README"#).unwrap();
        assert_eq!(bare.servers[0].name, "");
        let broken = parse_snippet(r#"{"mcpServers": {"a": {"args": []}}}"#).unwrap_err();
        assert!(broken.to_string().contains("needs a `command`"), "{broken}");
    }
}
