//! `mcpctl registry search|show|refresh`, `mcpctl install` and `mcpctl secret-header`: the
//! registry browser of the window on the command line, over `mcp_manager_registry`.

use std::collections::BTreeMap;

use mcp_manager_core::api;
use mcp_manager_core::secrets::{configured_store, Secret};
use mcp_manager_core::{ConfigError, Locations, Scope};
use mcp_manager_registry::install::{self, Answers, Choice, SecretPlacement};
use mcp_manager_registry::model::{Argument, Input, Listed, ServerJson};
use mcp_manager_registry::{self as registry, Registry};

use crate::{print_json, Outcome};

fn fail(message: impl Into<String>) -> mcp_manager_core::ApiError {
    ConfigError::Invalid(message.into()).into()
}

pub fn open(
    locations: &Locations,
    flag: Option<&str>,
) -> Result<Registry, mcp_manager_core::ApiError> {
    let data = locations.app_data_dir();
    let setting = registry::setting(&data);
    let base = registry::base_url(flag, setting.as_deref());
    Registry::open(&base, &data).map_err(|err| fail(err.to_string()))
}

fn kinds(server: &ServerJson) -> String {
    let mut out: Vec<String> = server
        .packages
        .iter()
        .map(|p| p.registry_type.clone())
        .collect();
    out.extend(server.remotes.iter().map(|_| "remote".to_string()));
    out.dedup();
    out.join(", ")
}

fn status_note(listed: &Listed) -> String {
    let official = listed.official();
    match official.status {
        registry::Status::Active => String::new(),
        other => format!(
            " [{}{}]",
            match other {
                registry::Status::Deprecated => "deprecated",
                _ => "deleted",
            },
            official
                .status_message
                .as_ref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        ),
    }
}

pub fn search(locations: &Locations, flag: Option<&str>, text: &str, json: bool) -> Outcome {
    let registry = open(locations, flag)?;
    if !json {
        eout!("Asking {} …", registry.client.base());
    }
    let listing = crate::runtime::block_on(registry.search(text, None));
    if json {
        print_json(&listing);
        return Ok(());
    }
    if let Some(why) = &listing.offline {
        eout!(
            "warning: {why}\nShowing the cached listing as of {}.",
            listing
                .as_of
                .as_deref()
                .filter(|a| !a.is_empty())
                .unwrap_or("(never refreshed)")
        );
    }
    if listing.servers.is_empty() {
        out!("No server in {} matches \"{text}\".", listing.registry);
    }
    for listed in &listing.servers {
        match listed {
            Listed::Valid { server, .. } => out!(
                "{} {} ({}) — {}{}",
                server.name,
                server.version,
                kinds(server),
                server.description,
                status_note(listed)
            ),
            Listed::Invalid {
                name,
                version,
                problem,
                ..
            } => {
                out!("{name} {version} — cannot be installed: {problem}")
            }
        }
    }
    if listing.next_cursor.is_some() {
        out!("(more: refine the search)");
    }
    Ok(())
}

pub fn refresh(locations: &Locations, flag: Option<&str>, json: bool) -> Outcome {
    let registry = open(locations, flag)?;
    if !json {
        eout!(
            "Refreshing the cached listing of {} …",
            registry.client.base()
        );
    }
    let done = crate::runtime::block_on(registry.refresh()).map_err(|e| fail(e.to_string()))?;
    if json {
        print_json(&done);
    } else {
        out!(
            "{} {} entries; {} servers held, as of {}.",
            if done.incremental {
                "Changed since the last refresh:"
            } else {
                "Read"
            },
            done.changed,
            done.held,
            done.as_of
        );
    }
    Ok(())
}

fn describe(input: &Input) -> String {
    let mut parts = Vec::new();
    if let Some(d) = &input.description {
        parts.push(d.clone());
    }
    if input.is_required {
        parts.push("required".into());
    }
    if input.is_secret {
        parts.push("secret".into());
    }
    if let Some(f) = &input.format {
        parts.push(format!("format {f}"));
    }
    if let Some(d) = &input.default {
        parts.push(format!("default {d}"));
    }
    if !input.choices.is_empty() {
        parts.push(format!("one of {}", input.choices.join(", ")));
    }
    if let Some(v) = &input.value {
        parts.push(format!("value {v}"));
    }
    parts.join("; ")
}

pub fn show(
    locations: &Locations,
    flag: Option<&str>,
    name: &str,
    version: Option<&str>,
    json: bool,
) -> Outcome {
    let registry = open(locations, flag)?;
    let (versions, chosen) = crate::runtime::block_on(async {
        let versions = registry.versions(name).await;
        let chosen = registry
            .client
            .version(name, version.unwrap_or("latest"))
            .await;
        (versions, chosen)
    });
    let versions = versions.map_err(|e| fail(e.to_string()))?;
    let chosen = chosen.map_err(|e| fail(e.to_string()))?;
    if json {
        print_json(&serde_json::json!({"versions": versions, "server": chosen}));
        return Ok(());
    }
    out!(
        "Versions: {}",
        versions
            .iter()
            .map(|v| format!("{}{}", v.version(), status_note(v)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let server = match &chosen {
        Listed::Invalid { problem, .. } => {
            return Err(fail(format!(
                "{name} {}: cannot be installed: {problem}",
                chosen.version()
            )))
        }
        Listed::Valid { server, .. } => server,
    };
    out!("{} {}{}", server.name, server.version, status_note(&chosen));
    if let Some(title) = &server.title {
        out!("  {title}");
    }
    out!("  {}", server.description);
    if let Some(repo) = &server.repository {
        out!("  Repository: {}", repo.url);
    }
    if let Some(site) = &server.website_url {
        out!("  Website: {site}");
    }
    for (i, package) in server.packages.iter().enumerate() {
        out!(
            "  Package {}: {} {}{} (transport {}{})",
            i + 1,
            package.registry_type,
            package.identifier,
            package
                .version
                .as_ref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default(),
            package.transport.kind,
            package
                .runtime_hint
                .as_ref()
                .map(|h| format!(", runtime {h}"))
                .unwrap_or_default()
        );
        for argument in package
            .runtime_arguments
            .iter()
            .chain(&package.package_arguments)
        {
            let label = match argument {
                Argument::Named { name, .. } => name.clone(),
                Argument::Positional { value_hint, .. } => {
                    format!("<{}>", value_hint.clone().unwrap_or_default())
                }
            };
            out!("    argument {label}: {}", describe(argument.input()));
        }
        for env in &package.environment_variables {
            out!("    env {}: {}", env.name, describe(&env.input));
        }
    }
    for (i, remote) in server.remotes.iter().enumerate() {
        out!(
            "  Remote {}: {} {}",
            i + 1,
            remote.kind,
            remote.url.as_deref().unwrap_or("")
        );
        for (name, input) in &remote.variables {
            out!("    URL variable {name}: {}", describe(input));
        }
        for header in &remote.headers {
            out!("    header {}: {}", header.name, describe(&header.input));
        }
    }
    Ok(())
}

/// `mcpctl install`'s flags.
#[derive(clap::Args)]
pub struct InstallArgs {
    /// The registry's name of the server (io.github.owner/name).
    pub name: String,
    #[arg(long)]
    pub version: Option<String>,
    #[arg(short, long, value_parser = crate::parse_scope, default_value = "local")]
    pub scope: Scope,
    /// Which package: a number from 1 or a type (npm, pypi, nuget, oci).
    #[arg(long, conflicts_with = "remote")]
    pub package: Option<String>,
    /// Which remote: a number from 1.
    #[arg(long)]
    pub remote: Option<String>,
    /// A setting the server asks for (environment variable, header, argument, URL
    /// variable), KEY=VALUE; repeat for more.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = crate::parse_env)]
    pub set: Vec<(String, String)>,
    /// The entry's name (default: the part of the registry name after the slash).
    #[arg(long = "as", value_name = "NAME")]
    pub as_name: Option<String>,
    /// Where secrets go: variable (${NAME}, the default), file (~/.claude.json, user and
    /// local scopes) or keychain (a remote's headers, printed by a headersHelper).
    #[arg(long, value_parser = crate::parse_secrets)]
    pub secrets: Option<SecretPlacement>,
}

/// `--package` / `--remote`: a number from 1, or a package's type (`npm`).
fn choose(server: &ServerJson, args: &InstallArgs) -> Result<Choice, mcp_manager_core::ApiError> {
    let number =
        |word: &str, count: usize, what: &str| -> Result<u32, mcp_manager_core::ApiError> {
            match word.parse::<usize>() {
                Ok(n) if n >= 1 && n <= count => Ok((n - 1) as u32),
                _ => Err(fail(format!(
                    "{what} {word}: this server has {count} {what}s (numbered from 1)"
                ))),
            }
        };
    if let Some(word) = &args.remote {
        return Ok(Choice::Remote(number(
            word,
            server.remotes.len(),
            "remote",
        )?));
    }
    if let Some(word) = &args.package {
        if let Some(i) = server
            .packages
            .iter()
            .position(|p| &p.registry_type == word)
        {
            return Ok(Choice::Package(i as u32));
        }
        return Ok(Choice::Package(number(
            word,
            server.packages.len(),
            "package",
        )?));
    }
    if let Some(i) = server
        .packages
        .iter()
        .position(|p| p.registry_type != "mcpb" && p.transport.kind == "stdio")
    {
        return Ok(Choice::Package(i as u32));
    }
    if !server.remotes.is_empty() {
        return Ok(Choice::Remote(0));
    }
    Ok(Choice::Package(0))
}

pub fn install(
    locations: &Locations,
    flag: Option<&str>,
    args: InstallArgs,
    json: bool,
) -> Outcome {
    let registry = open(locations, flag)?;
    if !json {
        eout!("Reading {} from {} …", args.name, registry.client.base());
    }
    let (server, official) =
        crate::runtime::block_on(registry.installable(&args.name, args.version.as_deref()))
            .map_err(|e| fail(e.to_string()))?;
    let choice = choose(&server, &args)?;
    let entry_name = args.as_name.clone().unwrap_or_else(|| {
        server
            .name
            .rsplit('/')
            .next()
            .unwrap_or(&server.name)
            .to_string()
    });
    let mut answers = Answers {
        values: args.set.iter().cloned().collect::<BTreeMap<_, _>>(),
        secrets: args.secrets.unwrap_or_default(),
    };
    if answers.secrets == SecretPlacement::Keychain && args.scope != Scope::Project {
        ask_keychain_secrets(&server, choice, &entry_name, &mut answers)?;
    }
    let helper = registry::helper_command(&entry_name, &registry::mcpctl_command());
    let plan = install::plan(&server, choice, args.scope, &answers, &entry_name, &helper).map_err(
        |e| {
            let said = match &e {
                install::InstallError::Missing { key, .. } => {
                    format!("{e}; pass it with --set '{key}=VALUE'")
                }
                _ => e.to_string(),
            };
            fail(format!("{} {}: {said}", server.name, server.version))
        },
    )?;
    if !plan.keychain_headers.is_empty() {
        // Only headers that go to the keychain are read literally: an entry that reads a
        // secret from `${NAME}` needs no value here.
        let keychain =
            install::keychain_values(&server, choice, &answers).map_err(|e| fail(e.to_string()))?;
        let (store, _) = configured_store();
        store
            .set(
                &registry::secret_headers_account(&entry_name),
                &Secret::new(registry::secret_headers_value(&keychain)),
            )
            .map_err(|err| {
                fail(format!(
                    "the headers could not be kept in the keychain: {err}"
                ))
            })?;
    }
    let text = serde_json::to_string(&plan.entry).expect("an entry serialises");
    let (written, _) = api::add_json(locations, &entry_name, args.scope, &text)?;
    if json {
        print_json(&serde_json::json!({
            "written": written, "name": entry_name, "plan": plan, "status": official.status,
        }));
        return Ok(());
    }
    out!(
        "Added {} {} as \"{entry_name}\" to {} config: {}\nFile modified: {}",
        server.name,
        server.version,
        written.scope,
        plan.runs,
        written.path
    );
    if !plan.runtime_options.is_empty() {
        eout!(
            "warning: the registry document adds options to {} itself: {} — they change what runs and what it may touch (a shell command, a mounted folder, privileges); read them, and remove the entry if you did not expect them",
            plan.runtime.as_deref().unwrap_or("the runtime"),
            plan.runtime_options.join(" ")
        );
    }
    if official.status == registry::Status::Deprecated {
        eout!(
            "warning: the registry marks it deprecated{}",
            official
                .status_message
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        );
    }
    if !plan.variables_to_set.is_empty() {
        out!(
            "Set {} in your environment before it starts (the entry refers to {}).",
            plan.variables_to_set.join(", "),
            plan.variables_to_set
                .iter()
                .map(|v| format!("${{{v}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for name in &plan.already_set {
        eout!(
            "warning: {name} is already set in this environment: the server will receive its value"
        );
    }
    if !plan.keychain_headers.is_empty() {
        out!(
            "{} kept in the OS keychain; the entry's headersHelper ({helper}) prints it.",
            plan.keychain_headers.join(", ")
        );
    }
    if let Some(runtime) = &plan.runtime {
        if !crate::runtime_present(runtime) {
            eout!(
                "warning: {runtime} is not installed here; {}",
                mcp_manager_doctor::local::runtime_hint(runtime)
            );
        }
    }
    Ok(())
}

/// The secret headers that go to the keychain and were not given with `--set`: asked for on
/// a terminal (not echoed), else named with what to pass.
fn ask_keychain_secrets(
    server: &ServerJson,
    choice: Choice,
    entry_name: &str,
    answers: &mut Answers,
) -> Outcome {
    use std::io::IsTerminal;
    let fields = install::fields(server, choice).map_err(|e| fail(e.to_string()))?;
    let wanted = fields.iter().filter(|f| {
        f.role == "header"
            && f.secret
            && f.required
            && f.default.is_none()
            && answers.values.get(&f.key).is_none_or(String::is_empty)
    });
    let wanted: Vec<_> = wanted.cloned().collect();
    for field in wanted {
        if !std::io::stdin().is_terminal() {
            return Err(fail(format!(
                "{} {}: the header {key} is required and goes to the keychain: pass --set '{key}=VALUE', or leave out --secrets keychain and set ${var} in your environment, which the entry then reads",
                server.name,
                server.version,
                key = field.key,
                var = install::secret_variable(entry_name, &field.key),
            )));
        }
        let prompt = format!(
            "{}{} (kept in the OS keychain, not shown): ",
            field.key,
            field
                .description
                .as_ref()
                .map(|d| format!(" — {d}"))
                .unwrap_or_default()
        );
        let value = rpassword::prompt_password(prompt)
            .map_err(|err| fail(format!("{} could not be read: {err}", field.key)))?;
        if value.is_empty() {
            return Err(fail(format!(
                "{} is required; nothing was installed",
                field.key
            )));
        }
        answers.values.insert(field.key.clone(), value);
    }
    Ok(())
}

pub fn secret_header(name: &str) -> Outcome {
    let (store, _) = configured_store();
    let held = store
        .get(&registry::secret_headers_account(name))
        .map_err(|err| fail(format!("the keychain could not be read: {err}")))?
        .ok_or_else(|| {
            fail(format!(
                "no secret headers for \"{name}\" in the keychain; install it again with --secrets keychain"
            ))
        })?;
    out!("{}", held.expose());
    Ok(())
}
