//! Which tools have a view, and who may call them.
//!
//! A tool names its view in `_meta.ui.resourceUri` (or the deprecated flat
//! `_meta["ui/resourceUri"]`, which loses to the nested one), a `ui://` resource. Its
//! `_meta.ui.visibility` says who may call it: `"model"` (Claude) and/or `"app"` (its App);
//! absent means both. The App's calls are checked against this in Rust ([`crate::AppHost`]),
//! never in the page.
//!
//! A `_meta.ui` that cannot be read (not an object, a `visibility` that is not a list of
//! names, a view that is not `ui://`, a `_meta` that is not JSON) grants an App nothing: the
//! tool is the model's only ([`ToolUi::callable`]). What a server failed to say is never
//! read as the widest permission.

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
    /// For the model only: what a tool whose `_meta.ui` cannot be read is.
    pub const MODEL_ONLY: ToolUi = ToolUi {
        resource_uri: None,
        model: true,
        app: false,
    };

    /// Who may call a tool whose `_meta` is `meta` (JSON text, as listed): as [`ToolUi::of`]
    /// reads it, and [`ToolUi::MODEL_ONLY`] when it cannot be read.
    pub fn callable(meta: Option<&str>) -> ToolUi {
        let Some(text) = meta else {
            return ToolUi::of(None).unwrap_or(ToolUi::MODEL_ONLY);
        };
        serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|meta| ToolUi::of(Some(&meta)).ok())
            .unwrap_or(ToolUi::MODEL_ONLY)
    }

    /// Reads a tool's `_meta`. A `resourceUri` that is not a `ui://` URI, and a `_meta` or
    /// `_meta.ui` that is not an object or a `visibility` that is not a list of names, are
    /// errors: so that the person sees why no view appears, and no App calls such a tool.
    pub fn of(meta: Option<&Value>) -> Result<ToolUi, AppError> {
        let malformed = |what: &str| AppError::MalformedUi { what: what.into() };
        if meta.is_some_and(|meta| !meta.is_object() && !meta.is_null()) {
            return Err(malformed("_meta is not an object"));
        }
        let ui = meta.and_then(|meta| meta.get("ui"));
        if ui.is_some_and(|ui| !ui.is_object() && !ui.is_null()) {
            return Err(malformed("_meta.ui is not an object"));
        }
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
            None | Some(Value::Null) => (true, true),
            Some(Value::Array(who)) if who.iter().all(Value::is_string) => (
                who.iter().any(|w| w == "model"),
                who.iter().any(|w| w == "app"),
            ),
            Some(_) => {
                return Err(malformed(
                    "_meta.ui.visibility is not a list of \"model\" and \"app\"",
                ))
            }
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

    /// What an App may call is decided from `_meta.ui`; one that cannot be read says nothing
    /// an App may rely on, so the tool stays the model's (it was callable by any App).
    #[test]
    fn a_tool_whose_ui_cannot_be_read_is_for_the_model_only() {
        for (rule, meta) in [
            (
                "visibility is a string, not a list",
                r#"{"ui":{"visibility":"model"}}"#,
            ),
            (
                "visibility holds what is not a name",
                r#"{"ui":{"visibility":[{"app":true}]}}"#,
            ),
            ("ui is not an object", r#"{"ui":"app"}"#),
            (
                "the view is not ui://",
                r#"{"ui":{"resourceUri":"https://example.com/x.html"}}"#,
            ),
            (
                "the view is not a string",
                r#"{"ui":{"resourceUri":7,"visibility":["app"]}}"#,
            ),
            ("_meta is not JSON", r#"{"ui":{"visibility":["app"]"#),
            ("_meta is not an object", r#"["app"]"#),
        ] {
            let ui = ToolUi::callable(Some(meta));
            assert!(!ui.app && ui.model, "{rule}: {ui:?}");
        }
        let both = ToolUi::callable(None);
        assert!(both.app && both.model, "no _meta: both, as the spec says");
        let both = ToolUi::callable(Some(r#"{"ui":{"resourceUri":"ui://a/v.html"}}"#));
        assert!(both.app && both.model, "no visibility: both");
        let app = ToolUi::callable(Some(r#"{"ui":{"visibility":["app"]}}"#));
        assert!(app.app && !app.model);
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
