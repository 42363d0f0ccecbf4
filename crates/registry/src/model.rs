//! `server.json` (schema `2025-12-11`) and the v0.1 API's envelopes, read strictly.
//!
//! A registry's documents are data from the network: each one is parsed on its own and then
//! checked against the rules of the schema that matter to an install (a name of the right
//! shape, pinned versions, a transport on every package, URLs that are URLs, a hash on an
//! MCPB). A document that fails is kept as [`Listed::Invalid`] with the reason, shown as
//! such, and never installed from; one bad document never hides the rest of a page.
//!
//! No text of a document that lands in an entry may hold `${`: Claude Code expands
//! `${NAME}` in an entry's command, arguments, environment, URL and headers from the
//! person's environment, so a fixed value `Bearer ${GITHUB_TOKEN}` would hand the person's
//! own token to the document's server. The variables an entry reads are named by
//! [`crate::install`], never by the document.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One published version of a server: its `server.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerJson {
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<Repository>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<Package>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remotes: Vec<Transport>,
    /// What the publisher asks a person to do after installing: shown as text, never run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_install_instructions: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Repository {
    pub url: String,
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subfolder: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    pub src: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// A way to run the server on the person's machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Package {
    /// `npm`, `pypi`, `nuget`, `oci`, `mcpb` (others are listed and not installed).
    pub registry_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry_base_url: Option<String>,
    pub identifier: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_hint: Option<String>,
    pub transport: Transport,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtime_arguments: Vec<Argument>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub package_arguments: Vec<Argument>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub environment_variables: Vec<KeyValueInput>,
}

/// A package's transport, or a remote: `stdio`, `streamable-http` or `sse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Transport {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<KeyValueInput>,
    /// URL variables (`{tenant_id}`) of a remote.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, Input>,
}

/// What a person may be asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub is_required: bool,
    /// `string`, `number`, `boolean` or `filepath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// A fixed value (not asked), in which `{name}`s come from `variables`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default)]
    pub is_secret: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, Input>,
}

/// An environment variable or a header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct KeyValueInput {
    pub name: String,
    #[serde(flatten)]
    pub input: Input,
}

/// A command-line argument: positional (`valueHint` labels it) or named (`--flag value`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Argument {
    #[serde(rename_all = "camelCase")]
    Positional {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value_hint: Option<String>,
        #[serde(default)]
        is_repeated: bool,
        #[serde(flatten)]
        input: Input,
    },
    #[serde(rename_all = "camelCase")]
    Named {
        name: String,
        #[serde(default)]
        is_repeated: bool,
        #[serde(flatten)]
        input: Input,
    },
}

impl Argument {
    pub fn input(&self) -> &Input {
        match self {
            Argument::Positional { input, .. } | Argument::Named { input, .. } => input,
        }
    }
}

/// A server's lifecycle in the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    #[default]
    Active,
    Deprecated,
    Deleted,
}

/// `_meta["io.modelcontextprotocol.registry/official"]`: what the registry says of a version.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Official {
    #[serde(default)]
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub is_latest: bool,
}

pub const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

/// One entry of a listing, as read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[allow(clippy::large_enum_variant)] // Invalid entries are rare; boxing would cost every valid one.
pub enum Listed {
    /// A document that passed the checks.
    #[serde(rename_all = "camelCase")]
    Valid {
        server: ServerJson,
        official: Official,
    },
    /// A document that did not: its name and version when they could be read, and why.
    #[serde(rename_all = "camelCase")]
    Invalid {
        name: String,
        version: String,
        problem: String,
        official: Official,
    },
}

impl Listed {
    /// Reads one `ServerResponse` (`{"server": …, "_meta": …}`).
    pub fn from_response(value: &Value) -> Listed {
        let official: Official = value
            .get("_meta")
            .and_then(|m| m.get(OFFICIAL_META))
            .and_then(|o| serde_json::from_value(o.clone()).ok())
            .unwrap_or_default();
        let Some(server) = value.get("server") else {
            return Listed::Invalid {
                name: String::new(),
                version: String::new(),
                problem: "the entry has no \"server\" document".into(),
                official,
            };
        };
        let text = |key: &str| {
            server
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        match serde_json::from_value::<ServerJson>(server.clone())
            .map_err(|err| err.to_string())
            .and_then(|parsed| check(&parsed).map(|()| parsed))
        {
            Ok(server) => Listed::Valid { server, official },
            Err(problem) => Listed::Invalid {
                name: text("name"),
                version: text("version"),
                problem: format!("does not match server.json (2025-12-11): {problem}"),
                official,
            },
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Listed::Valid { server, .. } => &server.name,
            Listed::Invalid { name, .. } => name,
        }
    }

    pub fn version(&self) -> &str {
        match self {
            Listed::Valid { server, .. } => &server.version,
            Listed::Invalid { version, .. } => version,
        }
    }

    pub fn official(&self) -> &Official {
        match self {
            Listed::Valid { official, .. } | Listed::Invalid { official, .. } => official,
        }
    }
}

/// The schema's rules an install depends on. Returns the first broken one, with its place.
pub fn check(server: &ServerJson) -> Result<(), String> {
    let name_ok = server.name.len() >= 3
        && server.name.len() <= 200
        && server.name.split_once('/').is_some_and(|(ns, rest)| {
            !ns.is_empty()
                && !rest.is_empty()
                && ns
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
                && rest
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-')
        });
    if !name_ok {
        return Err(format!(
            "name \"{}\" is not a reverse-DNS name with one slash",
            server.name
        ));
    }
    if server.description.is_empty() {
        return Err("description is empty".into());
    }
    pinned("version", &server.version)?;
    for (i, package) in server.packages.iter().enumerate() {
        let at = format!("packages[{i}]");
        if package.identifier.trim().is_empty()
            || package.identifier.chars().any(char::is_whitespace)
        {
            return Err(format!("{at}.identifier must be one word"));
        }
        // It becomes an argument of npx, uvx, dnx or docker: never one of their options.
        if package.identifier.starts_with('-') {
            return Err(format!("{at}.identifier must not start with '-'"));
        }
        unexpanded(&format!("{at}.identifier"), &package.identifier)?;
        if let Some(version) = &package.version {
            pinned(&format!("{at}.version"), version)?;
        }
        if let Some(sha) = &package.file_sha256 {
            if sha.len() != 64 || !sha.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')) {
                return Err(format!("{at}.fileSha256 is not 64 lowercase hex digits"));
            }
        } else if package.registry_type == "mcpb" {
            return Err(format!("{at} is an MCPB package without fileSha256"));
        }
        transport(&format!("{at}.transport"), &package.transport, true)?;
        for (j, argument) in package
            .runtime_arguments
            .iter()
            .chain(&package.package_arguments)
            .enumerate()
        {
            if let Argument::Positional {
                value_hint: None,
                input: Input { value: None, .. },
                ..
            } = argument
            {
                return Err(format!(
                    "{at}: positional argument {j} has neither valueHint nor value"
                ));
            }
            if let Argument::Named { name, .. } = argument {
                unexpanded(&format!("{at}: argument {j}"), name)?;
            }
            input(&format!("{at}: argument {j}"), argument.input())?;
        }
        for env in &package.environment_variables {
            unexpanded(&format!("{at}: environment variable"), &env.name)?;
            input(
                &format!("{at}: environment variable {}", env.name),
                &env.input,
            )?;
        }
    }
    for (i, remote) in server.remotes.iter().enumerate() {
        transport(&format!("remotes[{i}]"), remote, false)?;
    }
    Ok(())
}

fn pinned(at: &str, version: &str) -> Result<(), String> {
    let range = version.is_empty()
        || version == "latest"
        || version.starts_with(['^', '~', '>', '<', '='])
        || version.contains(['*', ' '])
        || version.ends_with(".x");
    if range {
        Err(format!("{at} \"{version}\" is not one exact version"))
    } else {
        Ok(())
    }
}

fn transport(at: &str, transport: &Transport, local: bool) -> Result<(), String> {
    match transport.kind.as_str() {
        "stdio" if local => Ok(()),
        "streamable-http" | "sse" => {
            let url = transport
                .url
                .as_deref()
                .ok_or_else(|| format!("{at} ({}) has no url", transport.kind))?;
            let template_start = url.starts_with('{');
            if !(url.starts_with("https://") || url.starts_with("http://") || template_start)
                || url.chars().any(char::is_whitespace)
            {
                return Err(format!("{at}.url \"{url}\" is not an http(s) URL"));
            }
            unexpanded(&format!("{at}.url"), url)?;
            for (name, value) in &transport.variables {
                input(&format!("{at}: variable {name}"), value)?;
            }
            for header in &transport.headers {
                unexpanded(&format!("{at}: header"), &header.name)?;
                input(&format!("{at}: header {}", header.name), &header.input)?;
            }
            Ok(())
        }
        other => Err(format!("{at} has the unknown transport \"{other}\"")),
    }
}

fn input(at: &str, input: &Input) -> Result<(), String> {
    if let Some(format) = &input.format {
        if !matches!(
            format.as_str(),
            "string" | "number" | "boolean" | "filepath"
        ) {
            return Err(format!("{at}: unknown format \"{format}\""));
        }
    }
    for text in input
        .value
        .iter()
        .chain(&input.default)
        .chain(&input.choices)
    {
        unexpanded(at, text)?;
    }
    for (name, variable) in &input.variables {
        self::input(&format!("{at}: variable {name}"), variable)?;
    }
    Ok(())
}

/// Refuses a text Claude Code would expand from the person's environment (`${NAME}`).
fn unexpanded(at: &str, text: &str) -> Result<(), String> {
    if text.contains("${") {
        return Err(format!(
            "{at} holds \"${{\", which Claude Code would fill from your environment"
        ));
    }
    Ok(())
}

/// A `ServerList` body: its entries and the cursor of the next page.
pub fn parse_list(body: &str) -> Result<(Vec<Listed>, Option<String>), String> {
    let value: Value = serde_json::from_str(body).map_err(|err| err.to_string())?;
    let servers = value
        .get("servers")
        .and_then(Value::as_array)
        .ok_or("the answer has no \"servers\" list")?;
    let next = value
        .get("metadata")
        .and_then(|m| m.get("nextCursor"))
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    Ok((servers.iter().map(Listed::from_response).collect(), next))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listed(server: Value) -> Listed {
        Listed::from_response(&json!({ "server": server }))
    }

    #[test]
    fn the_rules_an_install_depends_on_are_checked() {
        let base = json!({"name": "io.github.a/b", "description": "d", "version": "1.0.0",
            "packages": [{"registryType": "npm", "identifier": "b", "version": "1.0.0",
                          "transport": {"type": "stdio"}}]});
        assert!(matches!(listed(base.clone()), Listed::Valid { .. }));
        let broken = |path: &str, value: Value| {
            let mut doc = base.clone();
            let mut at = &mut doc;
            let parts: Vec<&str> = path.split('.').collect();
            for part in &parts[..parts.len() - 1] {
                at = match part.parse::<usize>() {
                    Ok(i) => &mut at[i],
                    Err(_) => &mut at[*part],
                };
            }
            at[parts[parts.len() - 1]] = value;
            match listed(doc) {
                Listed::Invalid { problem, .. } => problem,
                Listed::Valid { .. } => panic!("{path} should have been refused"),
            }
        };
        assert!(broken("name", json!("no-slash")).contains("reverse-DNS"));
        assert!(broken("version", json!("^1.0.0")).contains("exact version"));
        assert!(broken("packages.0.version", json!("latest")).contains("exact version"));
        assert!(broken("packages.0.identifier", json!("x; rm -rf ~")).contains("one word"));
        assert!(broken("packages.0.identifier", json!("--package=evil")).contains("must not start"));
        assert!(
            broken("packages.0.transport", json!({"type": "carrier-pigeon"}))
                .contains("unknown transport")
        );
        assert!(broken("packages.0.registryType", json!("mcpb")).contains("fileSha256"));
        let mut no_transport = base.clone();
        no_transport["packages"][0]
            .as_object_mut()
            .unwrap()
            .remove("transport");
        assert!(
            matches!(listed(no_transport), Listed::Invalid { problem, .. } if problem.contains("missing field `transport`"))
        );
        let mut remote = base.clone();
        remote["remotes"] = json!([{"type": "streamable-http", "url": "javascript:alert(1)"}]);
        assert!(
            matches!(listed(remote), Listed::Invalid { problem, .. } if problem.contains("http(s) URL"))
        );
    }
}
