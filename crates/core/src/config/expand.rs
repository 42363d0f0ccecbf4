//! `${VAR}` and `${VAR:-default}` expansion, exactly as Claude Code expands them.
//!
//! Applied to `command`, `args`, `env` values, `url` and `headers` values when a server is
//! about to be used, never when a file is written back (the file keeps the `${...}` text).
//! The rules mirror Claude Code: the text between `${` and the next `}` is split on `:-`; a
//! variable that is set (even to the empty string) wins; else the default, when there is one;
//! else the `${...}` text stays as it is and a warning names the variable and the field.

use crate::config::entry::{ServerConfig, Transport};

/// A variable that was not set and had no default.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, specta::Type)]
pub struct MissingVariable {
    pub variable: String,
    /// Where it was used: `command`, `args[1]`, `env.TOKEN`, `url`, `headers.Authorization`.
    pub field: String,
}

impl std::fmt::Display for MissingVariable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "environment variable {} (used in {}) is not set and has no default",
            self.variable, self.field
        )
    }
}

/// Expands one string. `lookup` answers for a variable name.
pub fn expand_str(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    field: &str,
    missing: &mut Vec<MissingVariable>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        // `[^}]+`: at least one character before the closing brace.
        match after.find('}').filter(|&end| end > 0) {
            Some(end) => {
                let inner = &after[..end];
                let mut parts = inner.split(":-");
                let name = parts.next().unwrap_or_default();
                let default = parts.next();
                match (lookup(name), default) {
                    (Some(value), _) => out.push_str(&value),
                    (None, Some(default)) => out.push_str(default),
                    (None, None) => {
                        if !missing
                            .iter()
                            .any(|m| m.variable == name && m.field == field)
                        {
                            missing.push(MissingVariable {
                                variable: name.to_string(),
                                field: field.to_string(),
                            });
                        }
                        out.push_str(&rest[start..start + 2 + end + 1]);
                    }
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Expands every field Claude Code expands; returns the expanded config and what was missing.
pub fn expand_config(
    config: &ServerConfig,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> (ServerConfig, Vec<MissingVariable>) {
    let mut missing = Vec::new();
    let mut out = config.clone();
    let pairs = |pairs: &[(String, String)], prefix: &str, missing: &mut Vec<_>| {
        pairs
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    expand_str(v, lookup, &format!("{prefix}.{k}"), missing),
                )
            })
            .collect::<Vec<_>>()
    };
    out.transport = match &config.transport {
        Transport::Stdio { command, args, env } => Transport::Stdio {
            command: expand_str(command, lookup, "command", &mut missing),
            args: args
                .iter()
                .enumerate()
                .map(|(i, a)| expand_str(a, lookup, &format!("args[{i}]"), &mut missing))
                .collect(),
            env: pairs(env, "env", &mut missing),
        },
        Transport::Remote { kind, url, headers } => Transport::Remote {
            kind: *kind,
            url: expand_str(url, lookup, "url", &mut missing),
            headers: pairs(headers, "headers", &mut missing),
        },
    };
    (out, missing)
}

/// Looks variables up in the process environment.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}
