//! A server's surface: what it offers, normalized so that two readings of an unchanged
//! server are the same text, and kept in the history when it changed.
//!
//! Normalized: tools by name (name, title, description, inputSchema, outputSchema,
//! annotations), resources by URI, templates by URI template, prompts by name, the server's
//! name and version; every object's keys sorted. What differs between two readings of one
//! server (`_meta`, icons, the order a server lists in) is left out, so only a change a client
//! can see is a change.

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::refused;
use super::LiveProject;
use mcp_manager_core::ApiError;

/// `value` with every object's keys sorted, all the way down.
pub fn sorted_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted_keys(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted_keys).collect()),
        other => other.clone(),
    }
}

fn pick(item: &Value, keys: &[&str]) -> Value {
    let mut out = Map::new();
    for key in keys {
        if let Some(value) = item.get(*key).filter(|v| !v.is_null()) {
            out.insert((*key).to_string(), value.clone());
        }
    }
    Value::Object(out)
}

fn by(items: Vec<Value>, key: &str) -> Vec<Value> {
    let mut items = items;
    items.sort_by(|a, b| {
        a[key]
            .as_str()
            .unwrap_or("")
            .cmp(b[key].as_str().unwrap_or(""))
    });
    items
}

/// A surface changed: when, and since when.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SurfaceChange {
    pub server: String,
    /// When the surface it differs from was kept (ms since the epoch).
    pub since_ms: f64,
    pub at_ms: f64,
    pub previous_id: u32,
    pub id: u32,
}

impl LiveProject {
    /// The surface `server` offers now.
    pub async fn surface(&self, server: &str) -> Result<Value, ApiError> {
        let connection = self.connected(server)?;
        let failed = |err: rmcp::ServiceError| {
            refused(format!(
                "\"{server}\": {}",
                crate::connection::plain(&err.to_string())
            ))
        };
        let tools: Vec<Value> = connection
            .list_tools()
            .await
            .map_err(failed)?
            .into_iter()
            .map(|tool| {
                let mut item = Map::new();
                item.insert("name".into(), json!(tool.name));
                for (key, value) in [
                    ("title", tool.title.map(Value::String)),
                    ("description", tool.description.map(Value::String)),
                    ("inputSchema", Some(tool.input_schema)),
                    ("outputSchema", tool.output_schema),
                    ("annotations", tool.annotations),
                ] {
                    if let Some(value) = value {
                        item.insert(key.into(), value);
                    }
                }
                Value::Object(item)
            })
            .collect();
        let resources = connection.list_resources().await.map_err(failed)?;
        let templates = connection.list_resource_templates().await.map_err(failed)?;
        let prompts = connection.list_prompts().await.map_err(failed)?;
        let info = connection.info();
        Ok(sorted_keys(&json!({
            "server": { "name": info.server_name, "version": info.server_version },
            "tools": by(tools, "name"),
            "resources": by(resources.iter().map(|r| pick(r, &["uri", "name", "title", "description", "mimeType"])).collect(), "uri"),
            "resourceTemplates": by(templates.iter().map(|t| pick(t, &["uriTemplate", "name", "title", "description", "mimeType"])).collect(), "uriTemplate"),
            "prompts": by(prompts.iter().map(|p| pick(p, &["name", "title", "description", "arguments"])).collect(), "name"),
        })))
    }

    /// Reads `server`'s surface and keeps it in the history when it changed; the change, when
    /// there was a surface before to differ from.
    ///
    /// Asks that come while a reading is under way are answered by one reading after it: a
    /// server that says five times at once that its tools changed (server-everything does, as
    /// it connects) is read twice, not six times with four requests each. An ask a reading
    /// began after gets `None`: that reading has announced whatever changed.
    pub async fn keep_surface(&self, server: &str) -> Result<Option<SurfaceChange>, ApiError> {
        let ask = {
            let mut asks = self.surface_asks.lock().expect("surface asks lock");
            let (asked, _) = asks.entry(server.to_string()).or_default();
            *asked += 1;
            *asked
        };
        let _one_at_a_time = self.surfaces.lock().await;
        let asked = {
            let asks = self.surface_asks.lock().expect("surface asks lock");
            let (asked, read) = asks.get(server).copied().unwrap_or_default();
            if read >= ask {
                return Ok(None);
            }
            asked
        };
        let surface = self.surface(server).await?;
        // Every ask made before this reading began is answered by it.
        if let Some((_, read)) = self
            .surface_asks
            .lock()
            .expect("surface asks lock")
            .get_mut(server)
        {
            *read = (*read).max(asked);
        }
        let Some(history) = self.history() else {
            return Ok(None);
        };
        let at_ms = mcp_manager_history::now_ms();
        let kept = history
            .keep_surface(
                &self.locations.project.display().to_string(),
                server,
                &surface.to_string(),
                at_ms,
            )
            .await
            .map_err(|err| refused(err.to_string()))?;
        Ok(match kept {
            mcp_manager_history::Kept::Changed { previous, id } => Some(SurfaceChange {
                server: server.into(),
                since_ms: previous.at_ms,
                at_ms: at_ms as f64,
                previous_id: previous.id,
                id,
            }),
            _ => None,
        })
    }

    /// The surfaces kept of `server`, newest first.
    pub async fn surfaces(
        &self,
        server: &str,
    ) -> Result<Vec<mcp_manager_history::SurfaceRecord>, ApiError> {
        let Some(history) = self.history() else {
            return Err(refused(
                "the history is not open: no surfaces are kept".into(),
            ));
        };
        history
            .surfaces(&self.locations.project.display().to_string(), server, 50)
            .await
            .map_err(|err| refused(err.to_string()))
    }
}
