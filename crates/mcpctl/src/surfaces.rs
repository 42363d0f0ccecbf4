//! `mcpctl snapshot` and `mcpctl diff`: a server's surface as a normalized file, and what
//! changed against one, with an exit status a server's CI can guard its published tools with.

use crate::failure;
use std::path::Path;

use mcp_manager_collections::surface::{diff as surface_diff, lines};
use mcp_manager_connect::project::LiveProject;
use mcp_manager_core::config::catalog::Catalog;
use mcp_manager_core::{ApiError, Locations};
use serde_json::Value;

/// The surface `server` offers now.
fn live(locations: &Locations, server: &str) -> Result<Value, ApiError> {
    let catalog = Catalog::load(locations);
    catalog.require(server)?;
    crate::runtime::block_on(async {
        let project = LiveProject::open(locations.clone(), crate::runtime::settings());
        project
            .supervisor()
            .start_selected(&catalog, Some(&[server.to_string()]))
            .await;
        let surface = project.surface(server).await;
        project.shutdown().await;
        surface
    })
}

fn text(surface: &Value) -> String {
    let mut text = serde_json::to_string_pretty(surface).expect("a surface serializes");
    text.push('\n');
    text
}

fn read(path: &Path) -> Result<Value, ApiError> {
    let bytes = mcp_manager_core::files::read(path, mcp_manager_core::files::READ_LIMIT)
        .map_err(|err| failure(format!("could not read {err}")))?
        .ok_or_else(|| failure(format!("{} does not exist", path.display())))?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|err| {
        failure(format!(
            "{} is not a surface (line {}, column {}): {err}",
            path.display(),
            err.line(),
            err.column()
        ))
    })?;
    if value.get("tools").is_none() || value.get("server").is_none() {
        return Err(failure(format!(
            "{} is not a surface: write one with `mcpctl snapshot SERVER -o FILE`",
            path.display()
        )));
    }
    Ok(value)
}

/// `mcpctl snapshot SERVER [-o FILE]`.
pub fn snapshot(
    locations: &Locations,
    server: &str,
    output: Option<&Path>,
) -> Result<bool, ApiError> {
    let surface = live(locations, server)?;
    match output {
        Some(path) => {
            use mcp_manager_core::files;
            let how = files::Write::new(files::Mode::SharedOrKept);
            files::write(path, text(&surface).as_bytes(), &how)
                .map_err(|err| failure(format!("the surface was not written: {err}")))?;
            eout!("wrote the surface of \"{server}\" to {}", path.display());
        }
        None => print!("{}", crate::for_terminal(&text(&surface))),
    }
    Ok(true)
}

/// `mcpctl diff SERVER FILE` (the file against the server now) or `mcpctl diff OLD NEW`;
/// fails (exit 1) on a breaking change.
pub fn diff(
    locations: &Locations,
    first: &str,
    second: &Path,
    json: bool,
) -> Result<bool, ApiError> {
    let (old, new) = if Path::new(first).is_file() {
        (read(Path::new(first))?, read(second)?)
    } else {
        (read(second)?, live(locations, first)?)
    };
    let changes = surface_diff(&old, &new);
    if json {
        crate::print_json(&changes);
    } else if changes.items.is_empty() && changes.server.is_none() {
        out!("no changes");
    } else {
        for line in lines(&changes) {
            out!("{line}");
        }
        let breaking = changes.items.iter().filter(|i| i.breaking).count();
        out!("{} changed, {breaking} breaking", changes.items.len());
    }
    Ok(!changes.breaking)
}
