//! One MCP server entry: parsed under Claude Code's rules, written in Claude Code's key order,
//! and hashed over the fields that affect the connection.
//!
//! Parsing follows Claude Code: `type` defaults to `stdio` when `command` is present;
//! `streamable-http` is read as `http`; a `url` without a `type` is an error. Values stay as
//! written (no `${VAR}` expansion here: see [`super::expand`]).
//!
//! Writing follows `claude mcp add`, whose schema fixes the key order: `type, command, args,
//! env` for stdio and `type, url, headers, headersHelper, oauth` for remote servers, with
//! `oauth` as `clientId, callbackPort`. Keys Claude Code does not know are kept after them, in
//! the order they came.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::document::{not_an_object, push_key};
use crate::error::ConfigError;

/// How a server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// A child process spoken to over stdin and stdout.
    Stdio,
    /// Streamable HTTP (MCP 2025-03-26 and later).
    Http,
    /// The legacy HTTP+SSE transport (MCP 2024-11-05).
    Sse,
    /// WebSocket.
    Ws,
}

impl TransportKind {
    /// The word used in `type` and by `claude mcp add -t`.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
            TransportKind::Sse => "sse",
            TransportKind::Ws => "ws",
        }
    }

    /// Reads a `type` value or a `-t` argument; `streamable-http` is `http`.
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "stdio" => Some(TransportKind::Stdio),
            "http" | "streamable-http" => Some(TransportKind::Http),
            "sse" => Some(TransportKind::Sse),
            "ws" => Some(TransportKind::Ws),
            _ => None,
        }
    }
}

/// A transport with what it needs to connect. Values are as written in the file.
#[derive(Clone, PartialEq, Eq)]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        /// In file order. Values are often secrets: `Debug` redacts them.
        env: Vec<(String, String)>,
    },
    Remote {
        kind: TransportKind,
        url: String,
        /// In file order. Values are often tokens: `Debug` redacts them.
        headers: Vec<(String, String)>,
    },
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let redacted = |pairs: &[(String, String)]| -> Vec<String> {
            pairs
                .iter()
                .map(|(k, _)| format!("{k}=[redacted]"))
                .collect()
        };
        match self {
            Transport::Stdio { command, args, env } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &redacted(env))
                .finish(),
            Transport::Remote { kind, url, headers } => f
                .debug_struct("Remote")
                .field("kind", kind)
                .field("url", url)
                .field("headers", &redacted(headers))
                .finish(),
        }
    }
}

/// `oauth` of a remote entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthConfig {
    /// A pre-registered client id (its secret lives in the OS keychain, never in a file).
    pub client_id: Option<String>,
    /// A fixed port for the loopback redirect, for servers that registered one.
    pub callback_port: Option<u16>,
    /// Overrides authorization-server discovery; HTTPS only.
    pub auth_server_metadata_url: Option<String>,
    /// Scopes to ask for, as written (a space-separated string or a list).
    pub scopes: Option<Vec<String>>,
    /// `clientMetadataUrl`: this client's Client ID Metadata Document (HTTPS), used as its
    /// client id when the authorization server supports such documents. Not a Claude Code key.
    pub client_metadata_url: Option<String>,
    /// The grants that need no person, and what they need (none are Claude Code keys).
    pub machine: MachineGrant,
    /// `dpop` (ours): `true` requires DPoP-bound tokens (RFC 9449), and a login whose
    /// authorization server offers none says so; `false` never binds them; absent: bound
    /// whenever the authorization server offers DPoP.
    pub dpop: Option<bool>,
}

/// `oauth.grantType` and its companions: how a server is authorized without a browser.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MachineGrant {
    /// `grantType`: `client_credentials`, or `urn:ietf:params:oauth:grant-type:jwt-bearer`
    /// (enterprise-managed cross-app access). Absent: the authorization code, with a person.
    pub grant_type: Option<String>,
    /// `tokenEndpointAuthMethod`: `client_secret_basic`, `client_secret_post` or
    /// `private_key_jwt` (its key, PEM, in the keychain).
    pub token_endpoint_auth_method: Option<String>,
    /// `signingAlgorithm` for `private_key_jwt`, such as `ES256`.
    pub signing_algorithm: Option<String>,
    /// `idpIssuer`, `idpTokenEndpoint`, `idpClientId`: the enterprise identity provider whose
    /// ID token (in the keychain) is exchanged for an ID-JAG.
    pub idp_issuer: Option<String>,
    pub idp_token_endpoint: Option<String>,
    pub idp_client_id: Option<String>,
    /// `assertionFile` or `assertionCommand`: where a workload's identity token (a JWT its
    /// platform issues, such as a Kubernetes service account token or a CI job's OIDC token)
    /// comes from, for workload identity federation (SEP-1933): the JWT bearer grant with
    /// that token as the assertion. A file is read at each grant (platforms rotate it); a
    /// command prints the token.
    pub assertion_file: Option<String>,
    pub assertion_command: Option<String>,
}

impl MachineGrant {
    /// The keys in file order, with their values.
    fn fields(&self) -> [(&'static str, &Option<String>); 8] {
        [
            ("grantType", &self.grant_type),
            ("tokenEndpointAuthMethod", &self.token_endpoint_auth_method),
            ("signingAlgorithm", &self.signing_algorithm),
            ("idpIssuer", &self.idp_issuer),
            ("idpTokenEndpoint", &self.idp_token_endpoint),
            ("idpClientId", &self.idp_client_id),
            ("assertionFile", &self.assertion_file),
            ("assertionCommand", &self.assertion_command),
        ]
    }

    /// Whether this is workload identity federation: the JWT bearer grant with an assertion
    /// from the workload's platform.
    pub fn is_workload(&self) -> bool {
        self.assertion_file.is_some() || self.assertion_command.is_some()
    }
}

/// Which protocol era to open a server's sessions in: our own `"protocol"` key of an entry,
/// which Claude Code ignores (it is carried along like any key it does not know).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProtocolChoice {
    /// Found out per server (the default; see the connection engine's `era` module).
    #[default]
    Auto,
    /// The stateless protocol of 2026-07-28 only.
    Modern,
    /// The `initialize` handshake only.
    Legacy,
}

impl ProtocolChoice {
    /// `"auto"`, `"2026-07-28"` or `"legacy"`.
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "auto" => Some(ProtocolChoice::Auto),
            "2026-07-28" => Some(ProtocolChoice::Modern),
            "legacy" => Some(ProtocolChoice::Legacy),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolChoice::Auto => "auto",
            ProtocolChoice::Modern => "2026-07-28",
            ProtocolChoice::Legacy => "legacy",
        }
    }
}

/// One server entry, as far as connecting to it is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    pub transport: Transport,
    /// A command whose output supplies extra headers (remote servers).
    pub headers_helper: Option<String>,
    pub oauth: Option<OAuthConfig>,
    /// `timeout`, as written (milliseconds in Claude Code).
    pub timeout: Option<u64>,
    /// `alwaysLoad`: the server's tools are always loaded rather than deferred.
    pub always_load: Option<bool>,
    /// `protocol` (ours): the era to open sessions in. Written back only as the entry had it.
    pub protocol: ProtocolChoice,
}

impl ServerConfig {
    /// A stdio entry with nothing else set.
    pub fn stdio(
        command: impl Into<String>,
        args: Vec<String>,
        env: Vec<(String, String)>,
    ) -> Self {
        Self::with_transport(Transport::Stdio {
            command: command.into(),
            args,
            env,
        })
    }

    /// A remote entry with nothing else set.
    pub fn remote(
        kind: TransportKind,
        url: impl Into<String>,
        headers: Vec<(String, String)>,
    ) -> Self {
        Self::with_transport(Transport::Remote {
            kind,
            url: url.into(),
            headers,
        })
    }

    fn with_transport(transport: Transport) -> Self {
        ServerConfig {
            transport,
            headers_helper: None,
            oauth: None,
            timeout: None,
            always_load: None,
            protocol: ProtocolChoice::Auto,
        }
    }

    /// The time a tool call may take, from `timeout`: Claude Code ignores a value below its
    /// 1000 ms minimum.
    pub fn tool_timeout(&self) -> Option<std::time::Duration> {
        self.timeout
            .filter(|ms| *ms >= 1000)
            .map(std::time::Duration::from_millis)
    }

    pub fn kind(&self) -> TransportKind {
        match &self.transport {
            Transport::Stdio { .. } => TransportKind::Stdio,
            Transport::Remote { kind, .. } => *kind,
        }
    }

    /// What a person recognises the server by: the command line, or the URL. Never includes
    /// `env` or `headers`, which carry secrets.
    pub fn target(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => std::iter::once(command)
                .chain(args)
                .map(|word| shell_word(word))
                .collect::<Vec<_>>()
                .join(" "),
            Transport::Remote { url, .. } => url.clone(),
        }
    }

    /// The entry as `claude mcp add` writes it: known keys in Claude Code's schema order.
    /// `extra` holds keys Claude Code does not know; they follow, in their order.
    pub fn to_json(&self, extra: &Map<String, Value>) -> Value {
        let mut out = Map::new();
        out.insert("type".into(), self.kind().as_str().into());
        match &self.transport {
            Transport::Stdio { command, args, env } => {
                out.insert("command".into(), command.clone().into());
                out.insert(
                    "args".into(),
                    Value::Array(args.iter().cloned().map(Value::String).collect()),
                );
                out.insert("env".into(), pairs(env));
            }
            Transport::Remote { url, headers, .. } => {
                out.insert("url".into(), url.clone().into());
                if !headers.is_empty() {
                    out.insert("headers".into(), pairs(headers));
                }
            }
        }
        if let Some(helper) = &self.headers_helper {
            out.insert("headersHelper".into(), helper.clone().into());
        }
        if let Some(oauth) = &self.oauth {
            let mut o = Map::new();
            if let Some(id) = &oauth.client_id {
                o.insert("clientId".into(), id.clone().into());
            }
            if let Some(port) = oauth.callback_port {
                o.insert("callbackPort".into(), port.into());
            }
            if let Some(url) = &oauth.auth_server_metadata_url {
                o.insert("authServerMetadataUrl".into(), url.clone().into());
            }
            if let Some(scopes) = &oauth.scopes {
                o.insert("scopes".into(), scopes.join(" ").into());
            }
            if let Some(url) = &oauth.client_metadata_url {
                o.insert("clientMetadataUrl".into(), url.clone().into());
            }
            if let Some(dpop) = oauth.dpop {
                o.insert("dpop".into(), dpop.into());
            }
            for (key, value) in oauth.machine.fields() {
                if let Some(value) = value {
                    o.insert(key.into(), value.clone().into());
                }
            }
            out.insert("oauth".into(), Value::Object(o));
        }
        if let Some(timeout) = self.timeout {
            out.insert("timeout".into(), timeout.into());
        }
        if let Some(always) = self.always_load {
            out.insert("alwaysLoad".into(), always.into());
        }
        for (key, value) in extra {
            if !out.contains_key(key) && !KNOWN_KEYS.contains(&key.as_str()) {
                out.insert(key.clone(), value.clone());
            }
        }
        Value::Object(out)
    }

    /// SHA-256 (hex) over what names the program a server is: its type, and its command and
    /// arguments or its URL. What protocol a server speaks depends on this alone, so the era
    /// found for it (`crates/connect`'s era memory) survives a changed `env` value, header,
    /// `timeout` or login setting, and not a changed command, argument or URL.
    pub fn program_hash(&self) -> String {
        hash_fields(|field| {
            field("type", self.kind().as_str());
            match &self.transport {
                Transport::Stdio { command, args, .. } => {
                    field("command", command);
                    for arg in args {
                        field("arg", arg);
                    }
                }
                Transport::Remote { url, .. } => field("url", url),
            }
        })
    }

    /// SHA-256 (hex) over the fields that affect the connection, in a fixed order; the scope,
    /// the order of `env` and `headers`, and keys Claude Code does not know do not count.
    /// Equal hashes mean a running connection need not restart.
    pub fn content_hash(&self) -> String {
        hash_fields(|field| {
            field("type", self.kind().as_str());
            let sorted = |pairs: &[(String, String)]| {
                let mut pairs = pairs.to_vec();
                pairs.sort();
                pairs
            };
            match &self.transport {
                Transport::Stdio { command, args, env } => {
                    field("command", command);
                    for arg in args {
                        field("arg", arg);
                    }
                    for (k, v) in sorted(env) {
                        field("env", &k);
                        field("=", &v);
                    }
                }
                Transport::Remote { url, headers, .. } => {
                    field("url", url);
                    for (k, v) in sorted(headers) {
                        field("header", &k);
                        field("=", &v);
                    }
                }
            }
            if let Some(helper) = &self.headers_helper {
                field("headersHelper", helper);
            }
            if let Some(oauth) = &self.oauth {
                field("oauth", "");
                if let Some(v) = &oauth.client_id {
                    field("clientId", v);
                }
                if let Some(v) = oauth.callback_port {
                    field("callbackPort", &v.to_string());
                }
                if let Some(v) = &oauth.auth_server_metadata_url {
                    field("authServerMetadataUrl", v);
                }
                for scope in oauth.scopes.iter().flatten() {
                    field("scope", scope);
                }
                if let Some(v) = &oauth.client_metadata_url {
                    field("clientMetadataUrl", v);
                }
                if let Some(v) = oauth.dpop {
                    field("dpop", &v.to_string());
                }
                for (key, value) in oauth.machine.fields() {
                    if let Some(value) = value {
                        field(key, value);
                    }
                }
            }
            if let Some(timeout) = self.timeout {
                field("timeout", &timeout.to_string());
            }
            if self.protocol != ProtocolChoice::Auto {
                field("protocol", self.protocol.as_str());
            }
        })
    }
}

/// SHA-256 (hex) over the named fields `fill` gives, each one length-prefixed so that no two
/// lists of fields hash alike.
fn hash_fields(fill: impl FnOnce(&mut dyn FnMut(&str, &str))) -> String {
    let mut hasher = Sha256::new();
    fill(&mut |name: &str, value: &str| {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update((value.len() as u64).to_le_bytes());
        hasher.update(value.as_bytes());
    });
    let digest = hasher.finalize();
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// An entry given whole (`add-json`) as Claude Code stores it: the keys it knows in its
/// schema's order, only those given (but `args`, which defaults to `[]` for stdio), and
/// `oauth`'s keys in order too; keys it does not know follow in their order (Claude Code drops
/// them; we keep them, since nothing a person wrote is lost).
pub fn claude_order(entry: &Map<String, Value>, kind: TransportKind) -> Map<String, Value> {
    let order: &[&str] = match kind {
        TransportKind::Stdio => &["type", "command", "args", "env"],
        _ => &["type", "url", "headers", "headersHelper", "oauth"],
    };
    let mut out = Map::new();
    for key in order.iter().chain(&["timeout", "alwaysLoad"]) {
        match entry.get(*key) {
            Some(Value::Object(oauth)) if *key == "oauth" => {
                let mut sorted = Map::new();
                for k in [
                    "clientId",
                    "callbackPort",
                    "authServerMetadataUrl",
                    "scopes",
                ] {
                    if let Some(v) = oauth.get(k) {
                        sorted.insert(k.into(), v.clone());
                    }
                }
                for (k, v) in oauth {
                    sorted.entry(k.clone()).or_insert_with(|| v.clone());
                }
                out.insert("oauth".into(), Value::Object(sorted));
            }
            Some(value) => {
                out.insert((*key).to_string(), value.clone());
            }
            None if *key == "args" && kind == TransportKind::Stdio => {
                out.insert("args".into(), Value::Array(Vec::new()));
            }
            None => {}
        }
    }
    for (key, value) in entry {
        out.entry(key.clone()).or_insert_with(|| value.clone());
    }
    out
}

/// Keys this module reads; anything else in an entry is carried along untouched.
pub const KNOWN_KEYS: &[&str] = &[
    "type",
    "command",
    "args",
    "env",
    "url",
    "headers",
    "headersHelper",
    "oauth",
    "timeout",
    "alwaysLoad",
];

/// `[(name, value)]` as a JSON object of strings, in order (`env`, `headers`).
pub fn pairs(pairs: &[(String, String)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// Quotes a word for display when it would otherwise read as several.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && !word
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\'')
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The entries of one `mcpServers` object, in file order, each parsed on its own.
pub type Entries = Vec<(String, Result<ServerConfig, ConfigError>)>;

/// The `mcpServers` object found by following `keys` from the document's root, if any.
pub fn servers_object<'a>(
    path: &Path,
    document: &'a Value,
    keys: &[&str],
) -> Result<Option<&'a Map<String, Value>>, ConfigError> {
    let mut node = document;
    let mut walked = String::new();
    for key in keys {
        let object = node
            .as_object()
            .ok_or_else(|| not_an_object(path, &walked))?;
        match object.get(*key) {
            Some(next) => node = next,
            None => return Ok(None),
        }
        push_key(&mut walked, key);
    }
    node.as_object()
        .map(Some)
        .ok_or_else(|| not_an_object(path, &walked))
}

/// The entries of the `mcpServers` object found by following `keys` from the document's root,
/// in file order, each parsed on its own. A missing object means no servers.
pub fn servers_at(path: &Path, document: &Value, keys: &[&str]) -> Result<Entries, ConfigError> {
    Ok(servers_object(path, document, keys)?
        .map(|servers| {
            servers
                .iter()
                .map(|(name, entry)| (name.clone(), parse_entry(path, name, entry)))
                .collect()
        })
        .unwrap_or_default())
}

/// Parses one server entry under Claude Code's rules.
pub fn parse_entry(path: &Path, name: &str, entry: &Value) -> Result<ServerConfig, ConfigError> {
    parse_entry_value(entry).map_err(|message| ConfigError::Entry {
        path: path.to_path_buf(),
        name: name.to_string(),
        message,
    })
}

/// Parses one server entry; the error is the message alone.
pub fn parse_entry_value(entry: &Value) -> Result<ServerConfig, String> {
    let object = entry
        .as_object()
        .ok_or_else(|| "the entry must be a JSON object".to_string())?;
    let ty = match object.get("type") {
        None | Some(Value::Null) => None,
        Some(Value::String(ty)) => Some(ty.as_str()),
        Some(_) => return Err("`type` must be a string".into()),
    };
    let kind = match ty {
        Some("local") => {
            return Err(
                "`type` \"local\" is GitHub Copilot's word for a server it starts; \
                        Claude Code skips the entry (unknown MCP server type \"local\"): use \
                        \"stdio\", which both read"
                    .into(),
            )
        }
        Some(word) => TransportKind::parse(word)
            .ok_or_else(|| format!("unknown `type` \"{word}\": use stdio, http, sse or ws"))?,
        None if object.contains_key("command") => TransportKind::Stdio,
        None if object.contains_key("url") => {
            return Err(
                "has a `url` but no `type`: add \"type\": \"http\" (or \"sse\", \"ws\")".into(),
            )
        }
        None => return Err("needs a `command` (stdio) or a `type` and a `url`".into()),
    };
    let transport = if kind == TransportKind::Stdio {
        let command = string_field(object, "command")?
            .ok_or_else(|| "a stdio server needs a `command`".to_string())?;
        if command.trim().is_empty() {
            return Err("`command` is empty".into());
        }
        let args = match object.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| "`args` must be a list of strings".to_string())?,
            Some(_) => return Err("`args` must be a list of strings".into()),
        };
        Transport::Stdio {
            command,
            args,
            env: string_map(object, "env")?,
        }
    } else {
        let url = string_field(object, "url")?
            .ok_or_else(|| format!("a {} server needs a `url`", kind.as_str()))?;
        Transport::Remote {
            kind,
            url,
            headers: string_map(object, "headers")?,
        }
    };
    let oauth = match object.get("oauth") {
        None | Some(Value::Null) => None,
        Some(Value::Object(o)) => Some(parse_oauth(o)?),
        Some(_) => return Err("`oauth` must be an object".into()),
    };
    let timeout = match object.get("timeout") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| "`timeout` must be a whole number of milliseconds".to_string())?,
        ),
    };
    let always_load = match object.get("alwaysLoad") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return Err("`alwaysLoad` must be true or false".into()),
    };
    let protocol = match object.get("protocol") {
        None | Some(Value::Null) => ProtocolChoice::Auto,
        Some(Value::String(word)) => ProtocolChoice::parse(word).ok_or_else(|| {
            format!("unknown `protocol` \"{word}\": use auto, 2026-07-28 or legacy")
        })?,
        Some(_) => return Err("`protocol` must be auto, 2026-07-28 or legacy".into()),
    };
    Ok(ServerConfig {
        transport,
        headers_helper: string_field(object, "headersHelper")?,
        oauth,
        timeout,
        always_load,
        protocol,
    })
}

fn parse_oauth(o: &Map<String, Value>) -> Result<OAuthConfig, String> {
    let callback_port = match o.get("callbackPort") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .filter(|p| (1..=65535).contains(p))
                .map(|p| p as u16)
                .ok_or_else(|| {
                    "`oauth.callbackPort` must be a port number (1-65535)".to_string()
                })?,
        ),
    };
    let auth_server_metadata_url = string_field(o, "authServerMetadataUrl")
        .map_err(|m| format!("`oauth.{}", m.trim_start_matches('`')))?;
    if let Some(url) = &auth_server_metadata_url {
        if !url.starts_with("https://") {
            return Err("`oauth.authServerMetadataUrl` must be an https:// URL".into());
        }
    }
    let scopes = match o.get("scopes") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.split_whitespace().map(str::to_string).collect()),
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|i| i.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    "`oauth.scopes` must be a string or a list of strings".to_string()
                })?,
        ),
        Some(_) => return Err("`oauth.scopes` must be a string or a list of strings".into()),
    };
    let client_metadata_url = string_field(o, "clientMetadataUrl")
        .map_err(|m| format!("`oauth.{}", m.trim_start_matches('`')))?;
    if let Some(url) = &client_metadata_url {
        if !url.starts_with("https://") {
            return Err("`oauth.clientMetadataUrl` must be an https:// URL".into());
        }
    }
    let text = |key: &str| {
        string_field(o, key).map_err(|m| format!("`oauth.{}", m.trim_start_matches('`')))
    };
    let machine = MachineGrant {
        grant_type: text("grantType")?,
        token_endpoint_auth_method: text("tokenEndpointAuthMethod")?,
        signing_algorithm: text("signingAlgorithm")?,
        idp_issuer: text("idpIssuer")?,
        idp_token_endpoint: text("idpTokenEndpoint")?,
        idp_client_id: text("idpClientId")?,
        assertion_file: text("assertionFile")?,
        assertion_command: text("assertionCommand")?,
    };
    if machine.assertion_file.is_some() && machine.assertion_command.is_some() {
        return Err("`oauth.assertionFile` and `oauth.assertionCommand` are two sources of one token: keep one".into());
    }
    Ok(OAuthConfig {
        client_id: text("clientId")?,
        callback_port,
        auth_server_metadata_url,
        scopes,
        client_metadata_url,
        machine,
        dpop: match o.get("dpop") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return Err("`oauth.dpop` must be true or false".into()),
        },
    })
}

fn string_field(object: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

fn string_map(object: &Map<String, Value>, key: &str) -> Result<Vec<(String, String)>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(format!("`{key}.{k}` must be a string")),
            })
            .collect(),
        Some(_) => Err(format!("`{key}` must be an object of strings")),
    }
}
