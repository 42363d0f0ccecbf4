//! From a `server.json` to the entry Claude Code will run.
//!
//! [`fields`] lists what the person must or may answer for one package or remote (each
//! environment variable, header, argument and URL variable that has no fixed value), in the
//! shape of a tool's input schema so that the window's form engine asks for them. [`plan`]
//! turns the answers into one entry, with the version pinned: npm → `npx -y id@version`,
//! PyPI → `uvx id==version`, NuGet → `dnx id@version --yes`, OCI → `docker run -i --rm image`,
//! with `runtimeArguments` before the package and `packageArguments` after it, in order; a
//! remote → an `http` or `sse` entry. Nothing is run through a shell: each argument is one
//! word of the entry's `args`.
//!
//! Secrets never land in a shared file: in the project scope every secret is written as
//! `${NAME}` and the person is told which variables to set. In the user and local scopes the
//! person may keep the value in `~/.claude.json` (as Claude Code does), and a remote's secret
//! headers may go to the OS keychain behind a `headersHelper` (`mcpctl secret-header NAME`).
//!
//! A document is written by whoever publishes it, so nothing it chooses may reach into the
//! person's environment or widen what runs:
//! - the `${NAME}` a secret is read from is named by us, not by the document: the entry's
//!   name, two underscores, the key (`AIRTABLE__AIRTABLE_API_KEY`). [`variable_name`] never
//!   makes `__`, so no document can pick a name the person already uses (`GITHUB_TOKEN`),
//!   and a name that is set in this environment all the same is said ([`Plan::already_set`]);
//! - a remote's URL is checked once its `{variables}` are filled, the way it is written;
//! - `runtimeArguments` are options of npx, uvx, dnx or docker, which change what runs and
//!   what it may touch (`npx -c …`, `docker -v /:/host`): every one is shown apart
//!   ([`Plan::runtime_options`]) rather than allowed from a per-runtime list, because the
//!   documents of the official registry need `-v` and `-e` themselves, the very options that
//!   matter, so a list would either refuse real servers or let the danger through.

use std::collections::BTreeMap;

use mcp_manager_core::config::entry::{ServerConfig, TransportKind};
use mcp_manager_core::Scope;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::model::{Argument, Input, KeyValueInput, Package, ServerJson, Transport};

/// Which way of running a server to install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", content = "index", rename_all = "camelCase")]
pub enum Choice {
    Package(u32),
    Remote(u32),
}

/// Where a secret's value goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum SecretPlacement {
    /// `${NAME}` in the entry; the person sets `NAME` in their environment. The only choice
    /// in the project scope.
    #[default]
    Variable,
    /// The value in `~/.claude.json`, as Claude Code stores it (user and local scopes).
    InFile,
    /// A remote's secret headers in the OS keychain, printed by a `headersHelper`.
    Keychain,
}

/// One question of the install form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    /// The answer's key: the variable's, header's or flag's name, or the argument's hint.
    pub key: String,
    /// `environment variable`, `header`, `argument`, `URL variable`.
    pub role: String,
    pub description: Option<String>,
    pub required: bool,
    pub default: Option<String>,
    pub choices: Vec<String>,
    pub format: Option<String>,
    pub secret: bool,
    pub placeholder: Option<String>,
}

/// What an install will write and what the person must still do.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The entry, as `.mcp.json` / `~/.claude.json` hold it.
    #[specta(type = specta_typescript::Unknown)]
    pub entry: Value,
    /// The command line or URL, for the person to read.
    pub runs: String,
    /// The program that must be installed (`npx`, `uvx`, `dnx`, `docker`), for a package.
    pub runtime: Option<String>,
    /// Variables the entry refers to as `${NAME}`, which the person must set.
    pub variables_to_set: Vec<String>,
    /// Headers whose values go to the keychain (names only).
    pub keychain_headers: Vec<String>,
    /// The options the document adds to the runtime before the package (`runtimeArguments`),
    /// as they appear in `runs`: each changes how npx, uvx, dnx or docker runs it (a shell
    /// command, a mounted folder, privileges) and is shown as a warning beside `runs`.
    pub runtime_options: Vec<String>,
    /// Those of `variables_to_set` that are already set in this environment: the server
    /// will receive their values.
    pub already_set: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstallError {
    #[error("{0}")]
    Unsupported(String),
    #[error("no {0} with that number in this server.json")]
    NoSuchChoice(&'static str),
    #[error("{key} is required: {why}")]
    Missing { key: String, why: String },
    #[error("{key} must be one of {choices}")]
    NotAChoice { key: String, choices: String },
    #[error("{key} must be a number")]
    NotANumber { key: String },
    #[error("{key} must be true or false")]
    NotABoolean { key: String },
    #[error("unknown setting {0}; the settings of this choice are: {1}")]
    Unknown(String, String),
    #[error("{0}")]
    NotAllowed(String),
    #[error("the remote's address {template}, filled in, is not an http(s) URL ({why}); check the URL variables you gave")]
    NotAUrl { template: String, why: String },
}

/// The questions for one choice, in the order they appear in the document.
pub fn fields(server: &ServerJson, choice: Choice) -> Result<Vec<Field>, InstallError> {
    let mut out = Vec::new();
    match choice {
        Choice::Package(i) => {
            let package = package(server, i)?;
            for argument in package
                .runtime_arguments
                .iter()
                .chain(&package.package_arguments)
            {
                let key = argument_key(argument);
                asked(&mut out, &key, "argument", argument.input());
            }
            for env in &package.environment_variables {
                asked(&mut out, &env.name, "environment variable", &env.input);
            }
        }
        Choice::Remote(i) => {
            let remote = remote(server, i)?;
            for (name, input) in &remote.variables {
                asked(&mut out, name, "URL variable", input);
            }
            for header in &remote.headers {
                asked(&mut out, &header.name, "header", &header.input);
            }
        }
    }
    Ok(out)
}

/// The fields as a JSON Schema object, for the form engine of tool inputs.
pub fn form_schema(fields: &[Field]) -> Value {
    let mut properties = Map::new();
    for field in fields {
        let mut property = Map::new();
        let kind = match field.format.as_deref() {
            Some("number") => "number",
            Some("boolean") => "boolean",
            _ => "string",
        };
        property.insert("type".into(), json!(kind));
        property.insert("title".into(), json!(field.key));
        let mut description = format!("{} ", capitalised(&field.role));
        if let Some(text) = &field.description {
            description.push_str("— ");
            description.push_str(text);
        }
        if field.secret {
            description.push_str(" (secret)");
        }
        property.insert("description".into(), json!(description.trim()));
        if !field.choices.is_empty() {
            property.insert("enum".into(), json!(field.choices));
        }
        if let Some(default) = &field.default {
            let value = match kind {
                "number" => default
                    .parse::<f64>()
                    .map(|n| json!(n))
                    .unwrap_or(json!(default)),
                "boolean" => json!(default == "true"),
                _ => json!(default),
            };
            property.insert("default".into(), value);
        }
        if field.secret {
            property.insert("format".into(), json!("password"));
            property.insert("writeOnly".into(), json!(true));
        }
        properties.insert(field.key.clone(), Value::Object(property));
    }
    let required: Vec<&str> = fields
        .iter()
        .filter(|f| f.required && f.default.is_none())
        .map(|f| f.key.as_str())
        .collect();
    json!({"type": "object", "properties": properties, "required": required})
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

fn argument_key(argument: &Argument) -> String {
    match argument {
        Argument::Named { name, .. } => name.clone(),
        Argument::Positional {
            value_hint, input, ..
        } => value_hint
            .clone()
            .or_else(|| input.value.clone())
            .unwrap_or_default(),
    }
}

/// Adds the questions one input asks: its variables when its value is a template, else the
/// input itself when it has no fixed value.
fn asked(out: &mut Vec<Field>, key: &str, role: &str, input: &Input) {
    if input.value.is_some() {
        for (name, variable) in &input.variables {
            let mut field = field(name, role, variable);
            field.secret |= input.is_secret;
            push_unique(out, field);
        }
    } else {
        push_unique(out, field(key, role, input));
    }
}

fn field(key: &str, role: &str, input: &Input) -> Field {
    Field {
        key: key.to_string(),
        role: role.to_string(),
        description: input.description.clone(),
        required: input.is_required,
        default: input.default.clone(),
        choices: input.choices.clone(),
        format: input.format.clone(),
        secret: input.is_secret,
        placeholder: input.placeholder.clone(),
    }
}

fn push_unique(out: &mut Vec<Field>, field: Field) {
    if !out.iter().any(|f| f.key == field.key) {
        out.push(field);
    }
}

fn package(server: &ServerJson, i: u32) -> Result<&Package, InstallError> {
    server
        .packages
        .get(i as usize)
        .ok_or(InstallError::NoSuchChoice("package"))
}

fn remote(server: &ServerJson, i: u32) -> Result<&Transport, InstallError> {
    server
        .remotes
        .get(i as usize)
        .ok_or(InstallError::NoSuchChoice("remote"))
}

/// The answers and choices of one install.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Answers {
    pub values: BTreeMap<String, String>,
    pub secrets: SecretPlacement,
}

/// A name for a variable: the key in capitals, words joined by one `_` (never two, never at
/// either end).
pub fn variable_name(key: &str) -> String {
    let mut out = String::new();
    for c in key.trim_start_matches('-').chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

/// The `${NAME}` a secret of entry `entry` is read from: `ENTRY__KEY`. The document names
/// the key, the person names the entry; the two underscores, which [`variable_name`] never
/// makes, keep a document from naming a variable of the person's own (`GITHUB_TOKEN`).
pub fn secret_variable(entry: &str, key: &str) -> String {
    let prefix = variable_name(entry);
    let prefix = if prefix.is_empty() {
        "MCP".into()
    } else {
        prefix
    };
    format!("{prefix}__{}", variable_name(key))
}

struct Resolver<'a> {
    answers: &'a Answers,
    /// The entry's name, which namespaces the variables of its secrets.
    entry: &'a str,
    scope: Scope,
    to_set: Vec<String>,
    /// Set while resolving a header that goes to the keychain: its secrets are kept literal.
    literal: bool,
}

impl Resolver<'_> {
    /// The value of one asked input (`key`): the answer, else its default; `None` when it is
    /// neither given nor required.
    fn answer(&mut self, key: &str, input: &Input) -> Result<Option<String>, InstallError> {
        let given = self
            .answers
            .values
            .get(key)
            .filter(|v| !v.is_empty())
            .cloned()
            .or_else(|| input.default.clone());
        let Some(value) = given else {
            if input.is_required
                && input.is_secret
                && !self.literal
                && self.placement() == SecretPlacement::Variable
            {
                // A required secret the person will set in their environment needs no answer
                // here; an optional one left empty is left out.
                return Ok(Some(self.reference(key)));
            }
            if input.is_required {
                return Err(InstallError::Missing {
                    key: key.to_string(),
                    why: input
                        .description
                        .clone()
                        .unwrap_or_else(|| "the server needs it".into()),
                });
            }
            return Ok(None);
        };
        if !input.choices.is_empty() && !input.choices.contains(&value) {
            return Err(InstallError::NotAChoice {
                key: key.to_string(),
                choices: input.choices.join(", "),
            });
        }
        match input.format.as_deref() {
            Some("number") if value.parse::<f64>().is_err() => {
                return Err(InstallError::NotANumber { key: key.into() })
            }
            Some("boolean") if value != "true" && value != "false" => {
                return Err(InstallError::NotABoolean { key: key.into() })
            }
            _ => {}
        }
        if input.is_secret && !self.literal && self.placement() != SecretPlacement::InFile {
            return Ok(Some(self.reference(key)));
        }
        Ok(Some(value))
    }

    fn placement(&self) -> SecretPlacement {
        if self.scope == Scope::Project {
            SecretPlacement::Variable
        } else {
            self.answers.secrets
        }
    }

    fn reference(&mut self, key: &str) -> String {
        let name = secret_variable(self.entry, key);
        if !self.to_set.contains(&name) {
            self.to_set.push(name.clone());
        }
        format!("${{{name}}}")
    }

    /// The value of an input: its fixed value with `{variables}` filled, or the answer.
    fn value(&mut self, key: &str, input: &Input) -> Result<Option<String>, InstallError> {
        match &input.value {
            Some(template) => {
                let mut out = template.clone();
                for (name, variable) in &input.variables {
                    let mut variable = variable.clone();
                    variable.is_secret |= input.is_secret;
                    match self.answer(name, &variable)? {
                        Some(v) => out = out.replace(&format!("{{{name}}}"), &v),
                        // An optional piece left empty drops the whole input.
                        None => return Ok(None),
                    }
                }
                Ok(Some(out))
            }
            None => self.answer(key, input),
        }
    }

    fn arguments(&mut self, list: &[Argument], out: &mut Vec<String>) -> Result<(), InstallError> {
        for argument in list {
            let key = argument_key(argument);
            let value = self.value(&key, argument.input())?;
            match (argument, value) {
                (Argument::Named { name, .. }, Some(v)) => {
                    out.push(name.clone());
                    out.push(v);
                }
                // A flag without a value and nothing to ask: the flag alone.
                (Argument::Named { name, input, .. }, None)
                    if input.value.is_none() && input.default.is_none() && input.is_required =>
                {
                    out.push(name.clone());
                }
                (Argument::Positional { .. }, Some(v)) => out.push(v),
                _ => {}
            }
        }
        Ok(())
    }
}

/// The command that runs a package, without its arguments: `(program, words before the
/// runtime arguments, package words)`.
fn runner(package: &Package) -> Result<(&'static str, Vec<String>, Vec<String>), InstallError> {
    let id = package.identifier.clone();
    let version = package.version.clone();
    let unsupported = |what: &str| InstallError::Unsupported(what.to_string());
    match package.registry_type.as_str() {
        "npm" => Ok((
            "npx",
            vec!["-y".into()],
            vec![match version {
                Some(v) => format!("{id}@{v}"),
                None => id,
            }],
        )),
        "pypi" => Ok((
            "uvx",
            Vec::new(),
            vec![match version {
                Some(v) => format!("{id}=={v}"),
                None => id,
            }],
        )),
        "nuget" => Ok((
            "dnx",
            Vec::new(),
            vec![
                match version {
                    Some(v) => format!("{id}@{v}"),
                    None => id,
                },
                "--yes".into(),
            ],
        )),
        "oci" => {
            // An image whose identifier has no tag or digest gets the version as its tag.
            let last = id.rsplit('/').next().unwrap_or(&id);
            let image = match version {
                Some(v) if !last.contains(':') && !id.contains('@') => format!("{id}:{v}"),
                _ => id,
            };
            Ok((
                "docker",
                vec!["run".into(), "-i".into(), "--rm".into()],
                vec![image],
            ))
        }
        "mcpb" => Err(unsupported(
            "MCPB bundles cannot be installed yet: download the bundle from its release page and open it in an app that supports MCPB, or pick another package",
        )),
        other => Err(InstallError::Unsupported(format!(
            "packages from \"{other}\" cannot be installed; pick another package or a remote"
        ))),
    }
}

/// The entry named `entry_name` for one choice with these answers, and what the person must
/// still do. `helper` is the `headersHelper` that prints its keychain headers.
pub fn plan(
    server: &ServerJson,
    choice: Choice,
    scope: Scope,
    answers: &Answers,
    entry_name: &str,
    helper: &str,
) -> Result<Plan, InstallError> {
    let known: Vec<String> = fields(server, choice)?.into_iter().map(|f| f.key).collect();
    if let Some(unknown) = answers.values.keys().find(|k| !known.contains(k)) {
        return Err(InstallError::Unknown(
            unknown.clone(),
            if known.is_empty() {
                "(none)".into()
            } else {
                known.join(", ")
            },
        ));
    }
    if scope == Scope::Project && answers.secrets == SecretPlacement::InFile {
        return Err(InstallError::NotAllowed(
            "a secret is never written to .mcp.json, which is shared: in the project scope secrets are written as ${NAME}".into(),
        ));
    }
    let mut resolver = Resolver {
        answers,
        entry: entry_name,
        scope,
        to_set: Vec::new(),
        literal: false,
    };
    let mut runtime_options = Vec::new();
    let (config, runs, runtime, keychain_headers) = match choice {
        Choice::Package(i) => {
            let package = package(server, i)?;
            if package.transport.kind != "stdio" {
                return Err(InstallError::Unsupported(format!(
                    "this package serves MCP over {} once started, which an entry cannot start; run it yourself and add its URL, or pick a remote",
                    package.transport.kind
                )));
            }
            if answers.secrets == SecretPlacement::Keychain {
                return Err(InstallError::NotAllowed(
                    "the keychain holds a remote's secret headers; a package's secrets are environment variables: choose ${NAME} or the file".into(),
                ));
            }
            let (program, before, words) = runner(package)?;
            let mut args = before;
            resolver.arguments(&package.runtime_arguments, &mut runtime_options)?;
            args.extend(runtime_options.iter().cloned());
            let docker = program == "docker";
            let mut env = Vec::new();
            for variable in &package.environment_variables {
                if let Some(value) = resolver.value(&variable.name, &variable.input)? {
                    if docker {
                        // The container sees only what `-e` passes on.
                        args.push("-e".into());
                        args.push(variable.name.clone());
                    }
                    env.push((variable.name.clone(), value));
                }
            }
            args.extend(words);
            let mut after = Vec::new();
            resolver.arguments(&package.package_arguments, &mut after)?;
            if program == "dnx" && !after.is_empty() {
                args.push("--".into());
            }
            args.extend(after);
            let runs = std::iter::once(program.to_string())
                .chain(args.iter().cloned())
                .collect::<Vec<_>>()
                .join(" ");
            (
                ServerConfig::stdio(program, args, env),
                runs,
                Some(program.to_string()),
                Vec::new(),
            )
        }
        Choice::Remote(i) => {
            let remote = remote(server, i)?;
            let kind = if remote.kind == "sse" {
                TransportKind::Sse
            } else {
                TransportKind::Http
            };
            let template = remote.url.clone().unwrap_or_default();
            let mut url = template.clone();
            for (name, variable) in &remote.variables {
                if let Some(value) = resolver.answer(name, variable)? {
                    url = url.replace(&format!("{{{name}}}"), &value);
                }
            }
            filled_url_allowed(&url).map_err(|why| InstallError::NotAUrl { template, why })?;
            let mut headers = Vec::new();
            let mut kept = Vec::new();
            for header in &remote.headers {
                let secret = is_secret(header);
                let to_keychain = secret
                    && scope != Scope::Project
                    && answers.secrets == SecretPlacement::Keychain;
                resolver.literal = to_keychain;
                let value = resolver.value(&header.name, &header.input)?;
                resolver.literal = false;
                match value {
                    Some(_) if to_keychain => kept.push(header.name.clone()),
                    Some(v) => headers.push((header.name.clone(), v)),
                    None => {}
                }
            }
            let mut config = ServerConfig::remote(kind, &url, headers);
            if !kept.is_empty() {
                config.headers_helper = Some(helper.to_string());
            }
            (config, url, None, kept)
        }
    };
    let already_set = resolver
        .to_set
        .iter()
        .filter(|name| std::env::var_os(name).is_some())
        .cloned()
        .collect();
    Ok(Plan {
        entry: config.to_json(&Map::new()),
        runs,
        runtime,
        variables_to_set: resolver.to_set,
        keychain_headers,
        runtime_options,
        already_set,
    })
}

/// Whether a remote's URL, its `{variables}` filled, may be written: an http(s) URL with a
/// host, no variable left unfilled, no whitespace. The document's template passed
/// [`crate::model::check`] only as a template: `{base}` alone says nothing of what it becomes.
/// A URL variable kept as `${NAME}` (a secret) is checked with a stand-in in its place.
fn filled_url_allowed(url: &str) -> Result<(), String> {
    let mut probe = url.to_string();
    while let Some(start) = probe.find("${") {
        let Some(len) = probe[start..].find('}') else {
            break;
        };
        probe.replace_range(start..start + len + 1, "x");
    }
    if probe.contains(['{', '}']) {
        return Err("a variable in it has no value".into());
    }
    if probe.chars().any(char::is_whitespace) {
        return Err("it holds a space".into());
    }
    let parsed = url::Url::parse(&probe).map_err(|err| err.to_string())?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("its scheme is {}", parsed.scheme()));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err("it names no host".into());
    }
    Ok(())
}

fn is_secret(header: &KeyValueInput) -> bool {
    header.input.is_secret || header.input.variables.values().any(|v| v.is_secret)
}

/// The values of the headers that go to the keychain, resolved from the answers.
pub fn keychain_values(
    server: &ServerJson,
    choice: Choice,
    answers: &Answers,
) -> Result<BTreeMap<String, String>, InstallError> {
    let Choice::Remote(i) = choice else {
        return Ok(BTreeMap::new());
    };
    let remote = remote(server, i)?;
    let mut resolver = Resolver {
        answers,
        entry: "",
        scope: Scope::User,
        to_set: Vec::new(),
        literal: true,
    };
    let mut out = BTreeMap::new();
    for header in remote.headers.iter().filter(|h| is_secret(h)) {
        if let Some(value) = resolver.value(&header.name, &header.input)? {
            out.insert(header.name.clone(), value);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(value: Value) -> ServerJson {
        serde_json::from_value(value).unwrap()
    }

    /// The plan of the first package, as the entry "c".
    fn package_plan(
        server: &ServerJson,
        scope: Scope,
        answers: &Answers,
    ) -> Result<Plan, InstallError> {
        plan(server, Choice::Package(0), scope, answers, "c", "h")
    }

    fn answers(pairs: &[(&str, &str)], secrets: SecretPlacement) -> Answers {
        Answers {
            values: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            secrets,
        }
    }

    #[test]
    fn an_oci_package_passes_its_environment_with_dash_e_and_orders_its_arguments() {
        let server = doc(
            json!({"name": "io.github.example/database-manager", "description": "d",
            "version": "3.1.0", "packages": [{"registryType": "oci", "identifier": "example/db",
            "version": "3.1.0", "transport": {"type": "stdio"},
            "runtimeArguments": [{"type": "named", "name": "--network", "value": "host"}],
            "packageArguments": [{"type": "named", "name": "--host", "default": "localhost", "isRequired": true},
                                 {"type": "positional", "valueHint": "database_name", "isRequired": true}],
            "environmentVariables": [{"name": "DB_PASSWORD", "isRequired": true, "isSecret": true}]}]}),
        );
        let plan = plan(
            &server,
            Choice::Package(0),
            Scope::Project,
            &answers(&[("database_name", "sales")], SecretPlacement::Variable),
            "db",
            "mcpctl secret-header x",
        )
        .unwrap();
        assert_eq!(
            plan.runs,
            "docker run -i --rm --network host -e DB_PASSWORD example/db:3.1.0 --host localhost sales"
        );
        assert_eq!(
            plan.entry["env"],
            json!({"DB_PASSWORD": "${DB__DB_PASSWORD}"})
        );
        assert_eq!(plan.variables_to_set, vec!["DB__DB_PASSWORD"]);
        assert_eq!(plan.runtime_options, vec!["--network", "host"]);
    }

    #[test]
    fn a_secret_is_never_written_to_the_project_scope_even_when_given() {
        let server = doc(
            json!({"name": "a.b/c", "description": "d", "version": "1.0.0",
            "packages": [{"registryType": "npm", "identifier": "c", "version": "1.0.0",
            "transport": {"type": "stdio"},
            "environmentVariables": [{"name": "API_KEY", "isRequired": true, "isSecret": true}]}]}),
        );
        let given = answers(&[("API_KEY", "sk-live-123456")], SecretPlacement::Variable);
        let project = package_plan(&server, Scope::Project, &given).unwrap();
        assert!(!project.entry.to_string().contains("sk-live"));
        assert_eq!(project.entry["args"], json!(["-y", "c@1.0.0"]));
        let in_file = answers(&[("API_KEY", "sk-live-123456")], SecretPlacement::InFile);
        assert!(package_plan(&server, Scope::Project, &in_file).is_err());
        let user = package_plan(&server, Scope::User, &in_file).unwrap();
        assert_eq!(user.entry["env"]["API_KEY"], "sk-live-123456");
        // Nothing typed: a required secret becomes ${API_KEY} to set.
        let none = answers(&[], SecretPlacement::Variable);
        let later = package_plan(&server, Scope::User, &none).unwrap();
        assert_eq!(later.entry["env"]["API_KEY"], "${C__API_KEY}");
        assert_eq!(later.variables_to_set, vec!["C__API_KEY"]);
    }

    #[test]
    fn an_optional_secret_left_empty_is_left_out() {
        let server = doc(
            json!({"name": "io.github.github/github-mcp-server", "description": "d",
            "version": "1.0.0", "packages": [{"registryType": "oci", "identifier": "ghcr.io/github/github-mcp-server:1.0.0",
            "transport": {"type": "stdio"},
            "runtimeArguments": [{"type": "named", "name": "-e", "value": "GITHUB_PERSONAL_ACCESS_TOKEN={token}",
                "variables": {"token": {"isSecret": true}}}]}]}),
        );
        let empty = answers(&[], SecretPlacement::Variable);
        let plan = package_plan(&server, Scope::Project, &empty).unwrap();
        assert_eq!(
            plan.runs,
            "docker run -i --rm ghcr.io/github/github-mcp-server:1.0.0"
        );
        assert!(plan.variables_to_set.is_empty());
        let given = answers(&[("token", "ghp_x")], SecretPlacement::Variable);
        let with = package_plan(&server, Scope::Project, &given).unwrap();
        assert_eq!(
            with.runs,
            "docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN=${C__TOKEN} ghcr.io/github/github-mcp-server:1.0.0"
        );
    }

    #[test]
    fn a_remote_fills_its_url_variables_and_keeps_a_secret_header_in_the_keychain() {
        let server = doc(
            json!({"name": "com.example/acme", "description": "d", "version": "2.0.0",
            "remotes": [{"type": "streamable-http", "url": "https://{tenant_id}.example.com/mcp",
              "variables": {"tenant_id": {"isRequired": true}},
              "headers": [{"name": "X-API-Key", "isRequired": true, "isSecret": true}]}]}),
        );
        let given = answers(
            &[("tenant_id", "emea"), ("X-API-Key", "k-123")],
            SecretPlacement::Keychain,
        );
        let plan = plan(
            &server,
            Choice::Remote(0),
            Scope::User,
            &given,
            "acme",
            "mcpctl secret-header acme",
        )
        .unwrap();
        assert_eq!(
            plan.entry,
            json!({"type": "http", "url": "https://emea.example.com/mcp",
                   "headersHelper": "mcpctl secret-header acme"})
        );
        assert_eq!(plan.keychain_headers, vec!["X-API-Key"]);
        let values = keychain_values(&server, Choice::Remote(0), &given).unwrap();
        assert_eq!(values["X-API-Key"], "k-123");
        let missing = answers(&[], SecretPlacement::Variable);
        assert!(matches!(
            super::plan(&server, Choice::Remote(0), Scope::User, &missing, "acme", "h"),
            Err(InstallError::Missing { key, .. }) if key == "tenant_id"
        ));
    }
}
