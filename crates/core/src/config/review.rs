//! What the person is shown before approving a project server: the whole entry, not only its
//! command or URL. A project server is any entry the project supplies
//! ([`super::catalog::CatalogEntry::from_project`]): a `.mcp.json` server and a server of a
//! skills folder plugin in the project's `.claude/skills` are reviewed alike.
//!
//! A harmless-looking `npx some-tool` runs something else with `env: {"NODE_OPTIONS":
//! "--require ./x.js"}`, `LD_PRELOAD` or `PATH=./bin:…`; a remote entry can run a shell command
//! (`headersHelper`) or send the login elsewhere (`oauth.authServerMetadataUrl`). So the review
//! shows the entry as written, secret-looking values masked and `${VAR}` references named (they
//! are filled from the person's environment), and says in words what each risky part does.

use serde::Serialize;

use super::catalog::Catalog;
use super::entry::{ServerConfig, Transport};
use crate::error::ConfigError;
use crate::locations::Locations;
use crate::scope::Scope;

/// One project server, as the Approve dialog shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerReview {
    pub name: String,
    /// The file it comes from.
    pub source: String,
    /// The entry as written, pretty-printed, secret-looking values masked.
    pub entry: String,
    /// The `${VAR}`s it uses: filled from your environment when it starts.
    pub variables: Vec<String>,
    /// What in it deserves a second look, in words.
    pub warnings: Vec<String>,
    /// Approved here before, with another entry than this one.
    pub changed_since_approval: bool,
}

/// Environment variables that change what a command runs rather than what it is told.
pub fn is_loader_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "LD_",
        "DYLD_",
        "PYTHON",
        "PERL5",
        "RUBY",
        "NODE_",
        "JAVA_TOOL",
        "_JAVA_",
    ]
    .iter()
    .any(|p| upper.starts_with(p))
        || [
            "PATH",
            "BASH_ENV",
            "ENV",
            "SHELLOPTS",
            "GIT_SSH_COMMAND",
            "GIT_EXEC_PATH",
        ]
        .contains(&upper.as_str())
}

/// The `${NAME}`s (and `${NAME:-default}`s) in a text.
pub(crate) fn variables_in(text: &str, out: &mut Vec<String>) {
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        rest = &rest[start + 2..];
        let Some(end) = rest.find('}') else { break };
        let name = rest[..end].split(":-").next().unwrap_or_default();
        if !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
        rest = &rest[end + 1..];
    }
}

/// The review of a project server.
pub fn review(locations: &Locations, name: &str) -> Result<ServerReview, ConfigError> {
    let catalog = Catalog::load(locations);
    let entry = catalog
        .named(name)
        .find(|e| e.from_project() || e.scope == Scope::Agent)
        .ok_or_else(|| ConfigError::ServerNotFound {
            name: name.to_string(),
            scope: Some(Scope::Project),
        })?;
    let mut variables = Vec::new();
    variables_in(&entry.raw.to_string(), &mut variables);
    let warnings = warnings(&entry.config, &variables);
    Ok(ServerReview {
        name: entry.name.clone(),
        source: entry.path.display().to_string(),
        entry: serde_json::to_string_pretty(&super::draft::masked(&entry.raw)).unwrap_or_default(),
        variables,
        warnings,
        changed_since_approval: entry.changed_since_approval,
    })
}

/// What deserves a look in an entry before it may start: loader variables, a command inside
/// the project, headers sent, a `headersHelper`, an `authServerMetadataUrl`, the environment
/// variables it reads (`variables`). Shown by the Approve dialog and by an import.
pub fn warnings(config: &ServerConfig, variables: &[String]) -> Vec<String> {
    let mut warnings = Vec::new();
    match &config.transport {
        Transport::Stdio { command, env, .. } => {
            if command.starts_with('.') || (command.contains('/') && !command.starts_with('/')) {
                warnings.push(format!(
                    "The command {command} is a file inside the project: whoever commits to it decides what runs."
                ));
            }
            for (key, value) in env {
                if is_loader_variable(key) {
                    warnings.push(format!(
                        "env sets {key}={value}: this changes which program or code actually runs, not only what it is told."
                    ));
                }
            }
        }
        Transport::Remote { url, headers, .. } => {
            if !headers.is_empty() {
                warnings.push(format!(
                    "It sends {} header(s) to {url}: {}.",
                    headers.len(),
                    headers
                        .iter()
                        .map(|(k, _)| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    if let Some(helper) = &config.headers_helper {
        warnings.push(format!(
            "headersHelper runs this shell command on your computer before each connection: {helper}"
        ));
    }
    if let Some(machine) = config.oauth.as_ref().map(|o| &o.machine) {
        if let Some(command) = &machine.assertion_command {
            warnings.push(format!(
                "oauth.assertionCommand runs this shell command on your computer at each login, and sends what it prints (a JWT) to the server's authorization server: {command}"
            ));
        }
        if let Some(file) = &machine.assertion_file {
            warnings.push(format!(
                "oauth.assertionFile sends the token in this file (a JWT) to the server's authorization server at each login: {file}"
            ));
        }
    }
    if let Some(metadata) = config
        .oauth
        .as_ref()
        .and_then(|o| o.auth_server_metadata_url.as_ref())
    {
        warnings.push(format!(
            "oauth.authServerMetadataUrl sends your login to the authorization server described at {metadata}."
        ));
    }
    if !variables.is_empty() {
        warnings.push(format!(
            "It reads {} from your environment when it starts.",
            variables.join(", ")
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loader_variables_are_named() {
        for name in [
            "LD_PRELOAD",
            "DYLD_INSERT_LIBRARIES",
            "NODE_OPTIONS",
            "PYTHONPATH",
            "PATH",
            "ld_library_path",
        ] {
            assert!(is_loader_variable(name), "{name}");
        }
        for name in ["API_KEY", "DEBUG", "HOME", "MYPATH"] {
            assert!(!is_loader_variable(name), "{name}");
        }
    }

    #[test]
    fn variables_are_listed_once_without_defaults() {
        let mut out = Vec::new();
        variables_in("${A} ${B:-x} ${A} $C ${", &mut out);
        assert_eq!(out, vec!["A".to_string(), "B".to_string()]);
    }

    #[test]
    fn a_workload_tokens_command_or_file_is_named_before_approval() {
        let entry = serde_json::json!({
            "type": "http",
            "url": "https://mcp.example/mcp",
            "oauth": {
                "grantType": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                "assertionCommand": "cat ~/.config/gcloud/token"
            }
        });
        let config =
            crate::config::entry::parse_entry(std::path::Path::new(".mcp.json"), "s", &entry)
                .unwrap();
        let said = warnings(&config, &[]).join("\n");
        assert!(
            said.contains("oauth.assertionCommand runs this shell command"),
            "{said}"
        );
        assert!(said.contains("cat ~/.config/gcloud/token"), "{said}");
    }
}
