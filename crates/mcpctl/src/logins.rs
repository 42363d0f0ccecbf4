//! `mcpctl logins` and `mcpctl refresh`: the keeper's list and its refresh, on the command
//! line (`mcp_manager_connect::keeper`). No token's value is ever printed.

use mcp_manager_connect::keeper::{self, ClientRegistration, Login};
use mcp_manager_core::{ApiError, Locations};
use mcp_manager_oauth::claude_store::LoginStore;

/// `mcpctl logins [--json]`.
pub fn list(locations: &Locations, json: bool) -> Result<bool, ApiError> {
    let logins = crate::runtime::runtime().block_on(keeper::logins(locations));
    if json {
        crate::print_json(&serde_json::json!({ "logins": logins }));
        return Ok(true);
    }
    if logins.is_empty() {
        out!("No logins are held for the servers of this configuration.");
        return Ok(true);
    }
    let now = keeper::now_ms();
    for login in &logins {
        print_login(login, now);
    }
    Ok(true)
}

fn print_login(login: &Login, now: f64) {
    let store = match login.store {
        LoginStore::Keychain => "MCP Manager's keychain",
        LoginStore::ClaudeCode => "Claude Code's store",
    };
    out!(
        "{} ({} scope), kept in {store}",
        login.server,
        login.scope.as_str()
    );
    out!(
        "  Issuer: {}",
        login.issuer.as_deref().unwrap_or("(not recorded)")
    );
    if !login.scopes.is_empty() {
        out!("  Scopes: {}", login.scopes.join(" "));
    }
    out!("  Expires: {}", when(login.expires_at_ms, now));
    out!(
        "  Refresh token: {}",
        if login.has_refresh_token { "yes" } else { "no" }
    );
    out!("  Client: {}", client_words(login.client));
    match &login.last_refresh {
        Some(last) => out!(
            "  Last refresh: {} ({})",
            ago(last.at_ms, now),
            one_line(&last.words)
        ),
        None => out!("  Last refresh: none yet"),
    }
    match (&login.lapsed, login.refresh_at_ms, &login.not_kept) {
        (Some(why), _, _) => out!(
            "  ! Needs a new login: {} (mcpctl login {})",
            one_line(why),
            login.server
        ),
        (None, Some(_), _) if login.left_for_claude_code => out!(
            "  Next refresh: due, and left to Claude Code, which runs now (it refreshes this login itself when it needs it)"
        ),
        (None, Some(at), _) => out!("  Next refresh: {}", when(Some(at), now)),
        (None, None, Some(why)) => out!("  Keeper: {why}"),
        (None, None, None) => {}
    }
}

pub fn client_words(client: ClientRegistration) -> &'static str {
    match client {
        ClientRegistration::PreRegistered => "pre-registered (oauth.clientId)",
        ClientRegistration::MetadataDocument => "client metadata document",
        ClientRegistration::Dynamic => "registered dynamically by MCP Manager",
        ClientRegistration::Machine => "machine grant",
        ClientRegistration::Unknown => "registered elsewhere",
    }
}

fn span(ms: f64) -> String {
    let s = (ms / 1000.0).abs().round() as u64;
    match s {
        0..=119 => format!("{s} s"),
        120..=7199 => format!("{} min", s / 60),
        7200..=172_799 => format!("{} h", s / 3600),
        _ => format!("{} days", s / 86_400),
    }
}

fn when(at: Option<f64>, now: f64) -> String {
    match at {
        None => "not said by the server".into(),
        Some(at) if at <= now => format!("{} ago (expired)", span(now - at)),
        Some(at) => format!("in {}", span(at - now)),
    }
}

fn ago(at: f64, now: f64) -> String {
    format!("{} ago", span(now - at))
}

/// `mcpctl refresh [NAME] [--json]`: one server's login now, or every login the keeper would
/// refresh (those kept in MCP Manager's keychain whose entry may start).
pub fn refresh(locations: &Locations, name: Option<&str>, json: bool) -> Result<bool, ApiError> {
    let runtime = crate::runtime::runtime();
    let names: Vec<String> = match name {
        Some(name) => vec![name.to_string()],
        None => runtime
            .block_on(keeper::logins(locations))
            .into_iter()
            .filter(|login| login.not_kept.is_none())
            .map(|login| login.server)
            .collect(),
    };
    let mut all_ok = true;
    let mut results = Vec::new();
    for name in &names {
        let outcome = runtime.block_on(keeper::refresh_one(locations, name));
        all_ok &= outcome.is_ok();
        match (&outcome, json) {
            (Ok(login), false) => out!(
                "{name}: refreshed; the new token expires {}",
                when(login.expires_at_ms, keeper::now_ms())
            ),
            (Err(err), false) => eout!("{}", one_line(&err.message)),
            _ => {}
        }
        results.push(match outcome {
            Ok(login) => serde_json::json!({"server": name, "refreshed": true, "login": login}),
            Err(err) => {
                serde_json::json!({"server": name, "refreshed": false, "error": err.message})
            }
        });
    }
    if json {
        crate::print_json(&serde_json::json!({ "refreshes": results }));
    } else if names.is_empty() {
        out!("No login here is refreshed by the keeper: nothing to refresh.");
    }
    Ok(all_ok)
}

/// `mcpctl keep [--for SECONDS] [--claude-code]`: the keeper, in the foreground. Each
/// refresh, failure and lapse is one line (one JSON object with `--json`); it runs until Ctrl-C
/// or the time given; exit 1 when a login lapsed meanwhile.
pub fn keep(
    locations: &Locations,
    seconds: Option<u64>,
    claude_code: bool,
    json: bool,
) -> Result<bool, ApiError> {
    let runtime = crate::runtime::runtime();
    let mut settings = keeper::KeeperSettings::read(locations)?;
    settings.refresh_claude_code_logins |= claude_code;
    // Logins left for a running Claude Code (or whose refresh lock is held): said when that
    // starts, not at every look.
    let mut waiting: Vec<String> = Vec::new();
    let until = seconds.map(|s| std::time::Instant::now() + std::time::Duration::from_secs(s));
    let mut lapsed_any = false;
    runtime.block_on(async {
        let interrupted = tokio::signal::ctrl_c();
        tokio::pin!(interrupted);
        loop {
            let tick = keeper::tick(locations, &settings).await;
            let now = keeper::now_ms();
            for server in &tick.refreshed {
                if json {
                    json_line(&serde_json::json!({"at": now, "server": server, "refreshed": true}));
                } else {
                    out!("{server}: refreshed");
                }
            }
            for (server, why) in &tick.failed {
                if json {
                    json_line(&serde_json::json!({"at": now, "server": server, "refreshed": false, "error": why}));
                } else {
                    out!("{server}: {}", one_line(why));
                }
            }
            for (server, why) in &tick.lapsed {
                lapsed_any = true;
                if json {
                    json_line(&serde_json::json!({"at": now, "server": server, "lapsed": why}));
                } else {
                    out!("{server}: needs a new login: {} (mcpctl login {server})", one_line(why));
                }
            }
            for server in tick.waiting.iter().filter(|s| !waiting.contains(s)) {
                if json {
                    json_line(&serde_json::json!({"at": now, "server": server, "waiting": true}));
                } else {
                    out!("{server}: due, and left for now: a Claude Code runs, or holds its refresh lock for this login");
                }
            }
            waiting = tick.waiting.clone();
            let mut wait = tick.next;
            if let Some(until) = until {
                let left = until.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    break;
                }
                wait = wait.min(left);
            }
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = &mut interrupted => break,
            }
        }
    });
    Ok(!lapsed_any)
}

/// A server's or an authorization server's words on one line: a line break in them cannot
/// forge a line of ours.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One JSON object on one line (`mcpctl keep --json`: a line per event).
fn json_line(value: &serde_json::Value) {
    use std::io::Write;
    let text = mcp_manager_connect::sanitize::escape_hidden_in_json(&value.to_string());
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}
