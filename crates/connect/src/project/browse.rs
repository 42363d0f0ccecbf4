//! A connected server's resources and prompts, for the window: lists, a read, a prompt got
//! with its arguments, and `completion/complete` suggestions while an argument is typed.
//!
//! As for tools, what servers send crosses to the window as JSON text, whole: the window
//! renders it by type, and nothing a later spec adds is dropped on the way.

use mcp_manager_core::ApiError;
use serde::Serialize;
use serde_json::Value;

use super::calls::refused;
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
}
