//! Server names and fully qualified tool names, as Claude Code forms them.
//!
//! A new server name must match `^[a-zA-Z0-9_-]{1,64}$`. Names read from files are taken as
//! they are, but wherever a name becomes part of a tool name (`mcp__<server>__<tool>`) or is
//! compared against an approval list, every character outside `[a-zA-Z0-9_-]` becomes `_`.
//! Names that start with `claude.ai ` (Claude's own connectors) also lose runs of `_` and
//! leading or trailing `_`, as in Claude Code.

/// Why a new server name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a server name cannot be empty")]
    Empty,
    #[error("server name \"{0}\" is longer than 64 characters")]
    TooLong(String),
    #[error(
        "invalid server name \"{0}\": names can only contain letters, numbers, hyphens and underscores"
    )]
    Invalid(String),
}

/// Checks a name for a new server.
pub fn validate_new_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if !name.chars().all(is_name_char) {
        return Err(NameError::Invalid(name.to_string()));
    }
    if name.len() > 64 {
        return Err(NameError::TooLong(name.to_string()));
    }
    Ok(())
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The name as it appears inside tool names and in approval comparisons.
pub fn normalize(name: &str) -> String {
    let replaced: String = name
        .chars()
        .map(|c| if is_name_char(c) { c } else { '_' })
        .collect();
    if !name.starts_with("claude.ai ") {
        return replaced;
    }
    let mut collapsed = String::with_capacity(replaced.len());
    for c in replaced.chars() {
        if c == '_' && collapsed.ends_with('_') {
            continue;
        }
        collapsed.push(c);
    }
    collapsed.trim_matches('_').to_string()
}

/// `mcp__<server>__<tool>`, both parts normalised.
pub fn qualified_tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{}__{}", normalize(server), normalize(tool))
}

/// A parsed `mcp__<server>[__<tool>]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QualifiedName {
    pub server: String,
    /// Absent for `mcp__server` (all of a server's tools). A tool name may itself contain `__`.
    pub tool: Option<String>,
}

/// The reverse of [`qualified_tool_name`]: splits on `__`; the first part must be `mcp`, the
/// second (the server) must not be empty, and the rest, joined again, is the tool.
pub fn parse_qualified(name: &str) -> Option<QualifiedName> {
    let mut parts = name.split("__");
    if parts.next()? != "mcp" {
        return None;
    }
    let server = parts.next().filter(|s| !s.is_empty())?;
    let rest: Vec<&str> = parts.collect();
    Some(QualifiedName {
        server: server.to_string(),
        tool: if rest.is_empty() {
            None
        } else {
            Some(rest.join("__"))
        },
    })
}
