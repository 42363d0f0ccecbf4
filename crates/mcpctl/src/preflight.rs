//! `mcpctl preflight`: what each stdio entry's `npx`, `uvx`, `pnpm dlx`, `bunx`, `pipx run` or
//! `docker run` will fetch, whether its version is fixed, and what the registry says of it,
//! before anything starts; `--pin` starts the server, reads which version really runs, and
//! pins the entry to it (the diff printed, then written as the window's editor writes it).
//! Exit 1 when a package is not pinned or its version is deprecated or deleted.

use crate::failure;
use mcp_manager_connect::project::LiveProject;
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::config::draft::{self, EntryRef};
use mcp_manager_core::config::entry::Transport;
use mcp_manager_core::{ApiError, Locations};
use mcp_manager_registry::preflight::{self, Ecosystem, Preflight};
use mcp_manager_registry::Status;

/// Runs the preflight of `server`, or of every stdio entry in force; with `pin`, pins
/// `server` to the version running now. `Ok(false)` (exit 1) when something needs a look.
pub fn run(
    locations: &Locations,
    registry_flag: Option<&str>,
    server: Option<&str>,
    pin: bool,
    json: bool,
) -> Result<bool, ApiError> {
    let catalog = Catalog::load(locations);
    let entries: Vec<_> = match server {
        Some(name) => vec![catalog.require(name)?.clone()],
        None => catalog
            .entries
            .iter()
            .filter(|e| e.shadowed_by.is_none())
            .cloned()
            .collect(),
    };
    let registry = crate::registry::open(locations, registry_flag)?;
    crate::runtime::block_on(async {
        let mut pid = None;
        let mut project = None;
        if pin {
            let name = server.unwrap_or_default();
            let entry = &entries[0];
            if !entry.will_start() {
                return Err(failure(format!(
                    "\"{name}\" does not start here (not approved, disabled or waiting for trust), so no version of it runs: see `mcpctl get {name}`"
                )));
            }
            let live = LiveProject::open(locations.clone(), crate::runtime::settings());
            live.supervisor()
                .start_selected(&catalog, Some(&[name.to_string()]))
                .await;
            pid = live.supervisor().connection(name).and_then(|c| c.pid());
            project = Some(live);
        }
        let mut found: Vec<Preflight> = Vec::new();
        for entry in &entries {
            let Transport::Stdio { command, args, .. } = &entry.config.transport else {
                continue;
            };
            if let Some(p) = preflight::preflight(&registry, &entry.name, command, args, pid).await
            {
                found.push(p);
            }
        }
        if let Some(live) = project {
            live.shutdown().await;
        }
        if let (Some(name), true) = (server, found.is_empty()) {
            return Err(failure(format!(
                "\"{name}\" runs no package of npx, pnpm dlx, bunx, uvx, pipx run or docker run: there is nothing to check"
            )));
        }
        if pin {
            return pin_running(locations, &entries[0], &found[0], json);
        }
        let clean = found.iter().all(|p| {
            p.package.pinned && !matches!(p.registry.status, Status::Deprecated | Status::Deleted)
        });
        if json {
            crate::print_json(&serde_json::json!({ "servers": found, "needsALook": !clean }));
        } else if found.is_empty() {
            out!("No entry runs a package of npx, pnpm dlx, bunx, uvx, pipx run or docker run.");
        } else {
            for p in &found {
                print(p);
            }
        }
        Ok(clean)
    })
}

fn from(ecosystem: Ecosystem) -> &'static str {
    match ecosystem {
        Ecosystem::Npm => "npm",
        Ecosystem::Pypi => "PyPI",
        Ecosystem::Oci => "an image registry",
    }
}

fn print(p: &Preflight) {
    let package = &p.package;
    let why = if !package.also.is_empty() {
        format!("it also fetches {}", package.also.join(", "))
    } else if !package.unknown_options.is_empty() {
        format!(
            "options this does not read: {}",
            package.unknown_options.join(" ")
        )
    } else {
        "not one version; what is published next runs next".into()
    };
    let version = match (&package.version, package.pinned) {
        (Some(v), true) => format!("version {v} (pinned)"),
        (Some(v), false) => format!("\"{v}\" (not pinned: {why})"),
        (None, _) => "no version given (not pinned): whatever was published last runs".into(),
    };
    shown!(
        "{}: {} fetches {} from {}, {version}",
        p.server,
        package.runner,
        package.name,
        from(package.ecosystem)
    );
    if let Some(running) = &p.running {
        shown!("  running now: {running}");
    }
    let verdict = &p.registry;
    match &verdict.server {
        None if verdict.unchecked.is_empty() => {
            shown!("  not published in the registry {}", verdict.registry)
        }
        None => {}
        Some(name) => {
            let version = verdict
                .version
                .as_deref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default();
            let status = match verdict.status {
                Status::Active => "active".to_string(),
                Status::Deprecated => "DEPRECATED".to_string(),
                Status::Deleted => "DELETED".to_string(),
            };
            let message = verdict
                .status_message
                .as_deref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default();
            shown!("  registry: {name}{version} is {status}{message}");
        }
    }
    if let Some(newer) = &verdict.newer {
        let mut said = format!("  a newer version: {}", newer.version);
        if !newer.new_required.is_empty() {
            said.push_str(&format!("; it requires {}", newer.new_required.join(", ")));
        }
        if !newer.removed.is_empty() {
            said.push_str(&format!(
                "; it no longer takes {}",
                newer.removed.join(", ")
            ));
        }
        shown!("{said}");
        if let Some(text) = &newer.post_install_instructions {
            shown!(
                "  after installing {}, its publisher says (text, not run):",
                newer.version
            );
            for line in text.lines() {
                shown!("    {line}");
            }
        }
    }
    if let Some(text) = &verdict.post_install_instructions {
        shown!("  after installing, its publisher says (text, not run):");
        for line in text.lines() {
            shown!("    {line}");
        }
    }
    for what in &verdict.unchecked {
        shown!("  not checked: {what}");
    }
}

fn pin_running(
    locations: &Locations,
    entry: &mcp_manager_core::config::catalog::CatalogEntry,
    p: &Preflight,
    json: bool,
) -> Result<bool, ApiError> {
    let name = &entry.name;
    let Some(args) = &p.pin_args else {
        return match (&p.running, p.package.ecosystem) {
            (Some(v), _) => {
                out!("\"{name}\" is already pinned to {v}, the version running now.");
                Ok(true)
            }
            (None, Ecosystem::Oci) => Err(failure(format!(
                "\"{name}\" runs in a container, whose image digest is not read here: pin it by hand with {}@sha256:…",
                p.package.name
            ))),
            (None, _) => Err(failure(format!(
                "which version of {} \"{name}\" runs could not be told (it did not start, or runs from somewhere unknown): see `mcpctl status`",
                p.package.name
            ))),
        };
    };
    let original = EntryRef {
        name: name.clone(),
        scope: entry.scope,
    };
    let mut edited = draft::draft_of(locations, &original)?;
    edited.args = args.clone();
    let check = draft::check(locations, &edited, Some(&original));
    if let Some(problem) = check.problems.first() {
        return Err(failure(problem.message.clone()));
    }
    let written = draft::save(locations, &edited, Some(&original))?;
    if json {
        crate::print_json(&serde_json::json!({
            "server": name,
            "version": p.running,
            "changes": check.changes,
            "written": written,
        }));
    } else {
        for change in &check.changes {
            shown!("{}", change.path);
            for line in &change.lines {
                shown!("{}{}", line.sign, line.text);
            }
        }
        shown!(
            "Pinned \"{name}\" to {} {}, the version running now.",
            p.package.name,
            p.running.as_deref().unwrap_or_default()
        );
    }
    Ok(true)
}
