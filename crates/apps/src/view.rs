//! Which tools have a view, and who may call them.
//!
//! A tool names its view in `_meta.ui.resourceUri` (or the deprecated flat
//! `_meta["ui/resourceUri"]`, which loses to the nested one), a `ui://` resource. Its
//! `_meta.ui.visibility` says who may call it: `"model"` (Claude) and/or `"app"` (its App);
//! absent means both. The App's calls are checked against this in Rust ([`crate::AppHost`]),
//! never in the page.

use serde_json::Value;

use crate::AppError;

/// What a tool's `_meta` says about its App.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolUi {
    /// The view, a `ui://` URI, when the tool has one.
    pub resource_uri: Option<String>,
    /// Whether Claude (the model) may call it.
    pub model: bool,
    /// Whether an App may call it.
    pub app: bool,
}

impl ToolUi {
    /// Reads a tool's `_meta`. A `resourceUri` that is not a `ui://` URI is an error, so that
    /// the person sees why no view appears.
    pub fn of(meta: Option<&Value>) -> Result<ToolUi, AppError> {
        let ui = meta.and_then(|meta| meta.get("ui"));
        let nested = ui.and_then(|ui| ui.get("resourceUri"));
        let flat = meta.and_then(|meta| meta.get("ui/resourceUri"));
        let resource_uri = match nested.or(flat) {
            None | Some(Value::Null) => None,
            Some(Value::String(uri)) if uri.starts_with("ui://") && uri.len() > 5 => {
                Some(uri.clone())
            }
            Some(other) => {
                return Err(AppError::NotUiUri {
                    uri: match other {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    },
                })
            }
        };
        let (model, app) = match ui.and_then(|ui| ui.get("visibility")) {
            Some(Value::Array(who)) => (
                who.iter().any(|w| w == "model"),
                who.iter().any(|w| w == "app"),
            ),
            _ => (true, true),
        };
        Ok(ToolUi {
            resource_uri,
            model,
            app,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_wins_over_flat_and_visibility_defaults_to_both() {
        let ui = ToolUi::of(Some(&json!({
            "ui": { "resourceUri": "ui://a/view.html" },
            "ui/resourceUri": "ui://b/old.html"
        })))
        .unwrap();
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://a/view.html"));
        assert!(ui.model && ui.app);
        let flat = ToolUi::of(Some(&json!({ "ui/resourceUri": "ui://b/old.html" }))).unwrap();
        assert_eq!(flat.resource_uri.as_deref(), Some("ui://b/old.html"));
        assert_eq!(ToolUi::of(None).unwrap().resource_uri, None);
    }

    #[test]
    fn visibility_names_who_may_call() {
        let app_only = ToolUi::of(Some(&json!({ "ui": { "visibility": ["app"] } }))).unwrap();
        assert!(app_only.app && !app_only.model);
        let model_only = ToolUi::of(Some(&json!({ "ui": { "visibility": ["model"] } }))).unwrap();
        assert!(model_only.model && !model_only.app);
    }

    #[test]
    fn a_view_that_is_not_ui_is_refused() {
        for uri in [
            json!("https://evil.example/app.html"),
            json!("ui://"),
            json!(7),
        ] {
            let err = ToolUi::of(Some(&json!({ "ui": { "resourceUri": uri } }))).unwrap_err();
            assert!(matches!(err, AppError::NotUiUri { .. }), "{err}");
        }
    }
}
