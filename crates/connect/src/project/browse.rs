//! A connected server's resources and prompts, for the window: lists, a read, a resource
//! followed as it changes (`resources/subscribe`), a prompt got with its arguments, and
//! `completion/complete` suggestions while an argument is typed; and what the person sets
//! for a session: the server's logging level and the roots every server is told of.
//!
//! As for tools, what servers send crosses to the window as JSON text, whole: the window
//! renders it by type, and nothing a later spec adds is dropped on the way.

use mcp_manager_core::ApiError;
use serde::Serialize;
use serde_json::Value;

use super::refused;
use super::LiveProject;

/// A server's resources and resource templates, as JSON text (arrays, as listed).
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLists {
    pub resources: String,
    pub templates: String,
}

impl LiveProject {
    async fn asked<T>(
        &self,
        server: &str,
        answer: Result<T, crate::connection::ServiceError>,
        connection: &crate::Connection,
    ) -> Result<T, ApiError> {
        match answer {
            Ok(value) => Ok(value),
            Err(err) => Err(refused(format!(
                "\"{server}\": {}",
                connection.explain(&err).await
            ))),
        }
    }

    /// The resources and templates a connected server lists now.
    pub async fn resources(&self, server: &str) -> Result<ResourceLists, ApiError> {
        let connection = self.connected(server)?;
        let resources = connection.list_resources().await;
        let resources = self.asked(server, resources, &connection).await?;
        let templates = connection.list_resource_templates().await;
        let templates = self.asked(server, templates, &connection).await?;
        Ok(ResourceLists {
            resources: Value::Array(resources).to_string(),
            templates: Value::Array(templates).to_string(),
        })
    }

    /// `resources/read` of `uri`: the ReadResourceResult as JSON text.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<String, ApiError> {
        let connection = self.connected(server)?;
        let read = connection.read_resource(uri).await;
        Ok(self.asked(server, read, &connection).await?.to_string())
    }

    /// The prompts a connected server lists now, as JSON text.
    pub async fn prompts(&self, server: &str) -> Result<String, ApiError> {
        let connection = self.connected(server)?;
        let prompts = connection.list_prompts().await;
        Ok(Value::Array(self.asked(server, prompts, &connection).await?).to_string())
    }

    /// The skills a connected server lists (SEP-2640); no file is read.
    pub async fn skills(&self, server: &str) -> Result<Vec<crate::skills::SkillEntry>, ApiError> {
        let connection = self.connected(server)?;
        let skills = connection.list_skills().await;
        self.asked(server, skills, &connection).await
    }

    /// Loads the skill `uri` of a connected server, each file checked against what the server
    /// lists for it now (the entry is taken from a new `skills/list`, not from the window).
    pub async fn load_skill(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<crate::skills::LoadedSkill, ApiError> {
        let connection = self.connected(server)?;
        let skills = connection.list_skills().await;
        let entry = self
            .asked(server, skills, &connection)
            .await?
            .into_iter()
            .find(|skill| skill.uri == uri)
            .ok_or_else(|| {
                refused(format!(
                    "\"{server}\" no longer lists the skill {uri}: refresh its skills"
                ))
            })?;
        Ok(connection.load_skill(entry).await)
    }

    /// `prompts/get` with `arguments` (a JSON object of strings, as text): the GetPromptResult
    /// as JSON text.
    pub async fn get_prompt(
        &self,
        server: &str,
        prompt: &str,
        arguments: &str,
    ) -> Result<String, ApiError> {
        let arguments: serde_json::Map<String, Value> = serde_json::from_str(arguments)
            .map_err(|err| refused(format!("the arguments are not a JSON object: {err}")))?;
        let connection = self.connected(server)?;
        let got = connection.get_prompt(prompt, Some(arguments)).await;
        Ok(self.asked(server, got, &connection).await?.to_string())
    }

    /// `completion/complete` for an argument of `prompt` being typed (`value`), with the other
    /// arguments given so far as context. A server that offers no completion gives none.
    pub async fn complete_prompt_argument(
        &self,
        server: &str,
        prompt: &str,
        argument: &str,
        value: &str,
        context: &str,
    ) -> Result<Vec<String>, ApiError> {
        let connection = self.connected(server)?;
        if !connection.info().capabilities.completions {
            return Ok(Vec::new());
        }
        let context: Option<serde_json::Map<String, Value>> = serde_json::from_str(context).ok();
        let reference = serde_json::json!({"type": "ref/prompt", "name": prompt});
        let values = connection
            .complete(reference, argument, value, context)
            .await;
        self.asked(server, values, &connection).await
    }

    /// `resources/subscribe` to `uri`: the receiver hears the URI of every
    /// `notifications/resources/updated` of this server from now on (the caller keeps those of
    /// `uri`). A server that cannot be subscribed to says so.
    pub async fn subscribe_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<tokio::sync::broadcast::Receiver<String>, ApiError> {
        let connection = self.connected(server)?;
        if !connection.info().capabilities.resources_subscribe {
            return Err(refused(format!(
                "\"{server}\" does not offer resource subscriptions: read the resource again to see a change"
            )));
        }
        // Listening first: no update falls between the subscription and the receiver.
        let updates = connection.resource_updates();
        let subscribed = connection.subscribe(uri).await;
        self.asked(server, subscribed, &connection).await?;
        Ok(updates)
    }

    /// `resources/unsubscribe` from `uri`. A server no longer connected has nothing to stop.
    pub async fn unsubscribe_resource(&self, server: &str, uri: &str) -> Result<(), ApiError> {
        let Some(connection) = self.supervisor.connection(server) else {
            return Ok(());
        };
        let unsubscribed = connection.unsubscribe(uri).await;
        self.asked(server, unsubscribed, &connection).await
    }

    /// `logging/setLevel`: the server sends its log messages of `level` and above as
    /// `notifications/message` (see the protocol log).
    pub async fn set_log_level(&self, server: &str, level: &str) -> Result<(), ApiError> {
        const LEVELS: [&str; 8] = [
            "debug",
            "info",
            "notice",
            "warning",
            "error",
            "critical",
            "alert",
            "emergency",
        ];
        if !LEVELS.contains(&level) {
            return Err(refused(format!(
                "\"{level}\" is not a logging level: use one of {}",
                LEVELS.join(", ")
            )));
        }
        let connection = self.connected(server)?;
        if !connection.info().capabilities.logging {
            return Err(refused(format!(
                "\"{server}\" does not offer logging: it sends no log messages to set a level for"
            )));
        }
        let set = connection.set_log_level(level).await;
        self.asked(server, set, &connection).await
    }

    /// The folders every server of the project is told it may work in (`roots/list`).
    pub fn roots(&self) -> Vec<String> {
        self.supervisor
            .roots()
            .iter()
            .map(|uri| folder_of(uri))
            .collect()
    }

    /// Replaces the roots with `folders` (absolute paths of existing folders, none twice) and
    /// tells every live session. Nothing changes when one is refused.
    pub async fn set_roots(&self, folders: &[String]) -> Result<Vec<String>, ApiError> {
        let mut checked: Vec<std::path::PathBuf> = Vec::new();
        for folder in folders {
            let path = std::path::Path::new(folder.trim());
            if !path.is_absolute() {
                return Err(refused(format!(
                    "\"{folder}\" is not an absolute path: give the folder from / on"
                )));
            }
            if !path.is_dir() {
                return Err(refused(format!(
                    "\"{folder}\" is not a folder that exists here"
                )));
            }
            if !checked.iter().any(|c| c == path) {
                checked.push(path.to_path_buf());
            }
        }
        self.supervisor.set_roots(&checked).await;
        Ok(self.roots())
    }
}

/// Saves one content of a `resources/read` result (`{uri, mimeType, text | blob}`, JSON text)
/// as a file of `folder`, its bytes decoded from base64 for a blob; returns its path. The name
/// comes from the server, the URI's last segment and the time, reduced to `[A-Za-z0-9_-]`, and
/// the extension from the MIME type (`.bin` when unknown; never one a browser would run).
pub fn save_resource(
    folder: &std::path::Path,
    server: &str,
    content: &str,
) -> Result<std::path::PathBuf, String> {
    use base64::Engine;
    let content: Value =
        serde_json::from_str(content).map_err(|err| format!("not a resource content: {err}"))?;
    let bytes = if let Some(blob) = content.get("blob").and_then(Value::as_str) {
        base64::engine::general_purpose::STANDARD
            .decode(blob.trim())
            .map_err(|err| format!("the blob is not base64: {err}"))?
    } else if let Some(text) = content.get("text").and_then(Value::as_str) {
        text.as_bytes().to_vec()
    } else {
        return Err("the content has neither text nor blob".into());
    };
    let uri = content
        .get("uri")
        .and_then(Value::as_str)
        .unwrap_or("resource");
    let last = uri
        .trim_end_matches('/')
        .rsplit(['/', ':'])
        .next()
        .unwrap_or("resource");
    let mime = content
        .get("mimeType")
        .and_then(Value::as_str)
        .unwrap_or("");
    let safe = |name: &str| mcp_manager_core::config::names::normalize(name);
    mcp_manager_core::private::dir(folder).map_err(|err| err.to_string())?;
    let path = folder.join(format!(
        "{}__{}__{}.{}",
        safe(server),
        safe(last),
        mcp_manager_history::now_ms(),
        extension(mime, content.get("blob").is_some())
    ));
    mcp_manager_core::private::write_within(&path, folder, &bytes)
        .map_err(|err| err.to_string())?;
    Ok(path)
}

fn extension(mime: &str, blob: bool) -> &'static str {
    match mime.split(';').next().unwrap_or("").trim() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "application/pdf" => "pdf",
        "audio/wav" | "audio/x-wav" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "application/json" => "json",
        "text/markdown" => "md",
        "text/csv" => "csv",
        "text/plain" => "txt",
        _ if !blob => "txt",
        _ => "bin",
    }
}

/// The folder a `file://` root names (percent-escapes undone).
fn folder_of(uri: &str) -> String {
    let path = uri.strip_prefix("file://").unwrap_or(uri).as_bytes();
    let mut bytes = Vec::with_capacity(path.len());
    let mut i = 0;
    while i < path.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if path[i] == b'%' && i + 2 < path.len() {
            if let (Some(h), Some(l)) = (hex(path[i + 1]), hex(path[i + 2])) {
                bytes.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        bytes.push(path[i]);
        i += 1;
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_root_uri_gives_back_its_folder() {
        let roots = crate::Roots::of(&["/tmp/a b/ü%".into()]);
        let uri = &roots.uris()[0];
        assert_eq!(uri, "file:///tmp/a%20b/%C3%BC%25");
        assert_eq!(super::folder_of(uri), "/tmp/a b/ü%");
        assert_eq!(super::folder_of("file:///x/%2"), "/x/%2");
    }

    #[test]
    fn a_saved_blob_is_its_bytes_in_the_folder_and_never_a_page() {
        let dir = tempfile::tempdir().unwrap();
        let blob = r#"{"uri":"demo://resource/static/../x/file 2","mimeType":"image/png","blob":"iVBORw0KGgo="}"#;
        let path = super::save_resource(dir.path(), "every/thing", blob).unwrap();
        assert_eq!(path.parent().unwrap(), dir.path());
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            name.starts_with("every_thing__file_2__") && name.ends_with(".png"),
            "{name}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"\x89PNG\r\n\x1a\n");
        let page = r#"{"uri":"x://a","mimeType":"text/html","text":"<script>"}"#;
        let path = super::save_resource(dir.path(), "s", page).unwrap();
        assert!(
            path.to_string_lossy().ends_with(".txt"),
            "{}",
            path.display()
        );
        let bad = r#"{"uri":"x://a","blob":"***"}"#;
        assert!(super::save_resource(dir.path(), "s", bad)
            .unwrap_err()
            .contains("base64"));
    }
}
