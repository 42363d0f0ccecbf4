//! An App's document, from the server's `resources/read` answer.
//!
//! The view must be what the tool named: a `ui://` resource whose content is of type
//! `text/html;profile=mcp-app`, as text or as a base64 blob of UTF-8. Its `_meta.ui` (the
//! CSP, permissions, border) comes from the read result's content, else from the resource's
//! entry in `resources/list`. Anything else is refused with a message the window shows in
//! place of the frame: a blank frame explains nothing.

use base64::Engine;
use serde_json::Value;

use crate::AppError;

/// The MIME type of an App's document.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// A view, ready to serve.
#[derive(Debug, Clone, PartialEq)]
pub struct AppDocument {
    pub html: String,
    /// `_meta.ui` of the content, else of the list entry.
    pub ui: Option<Value>,
}

/// Whether `mime` is [`APP_MIME_TYPE`], spaces and case aside.
fn is_app_type(mime: &str) -> bool {
    let parts: Vec<String> = mime
        .split(';')
        .map(|part| part.trim().to_ascii_lowercase().replace(' ', ""))
        .collect();
    parts.first().map(String::as_str) == Some("text/html")
        && parts[1..].iter().any(|p| p == "profile=mcp-app")
}

impl AppDocument {
    /// The document of `uri` in `read` (a ReadResourceResult); `listed` is the `_meta` of the
    /// resource's `resources/list` entry, when known.
    pub fn from_read(
        uri: &str,
        read: &Value,
        listed: Option<&Value>,
    ) -> Result<AppDocument, AppError> {
        if !uri.starts_with("ui://") {
            return Err(AppError::NotUiUri { uri: uri.into() });
        }
        let contents = read
            .get("contents")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let content = contents
            .iter()
            .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri))
            .or_else(|| contents.first())
            .ok_or_else(|| AppError::Empty { uri: uri.into() })?;
        let mime = content
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or("(none)");
        if !is_app_type(mime) {
            return Err(AppError::WrongType {
                uri: uri.into(),
                mime: mime.into(),
            });
        }
        let html = if let Some(text) = content.get("text").and_then(Value::as_str) {
            text.to_string()
        } else if let Some(blob) = content.get("blob").and_then(Value::as_str) {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob.trim())
                .map_err(|err| AppError::Undecodable {
                    uri: uri.into(),
                    reason: format!("its blob is not base64 ({err})"),
                })?;
            String::from_utf8(bytes).map_err(|_| AppError::Undecodable {
                uri: uri.into(),
                reason: "its blob is not UTF-8 text".into(),
            })?
        } else {
            return Err(AppError::Empty { uri: uri.into() });
        };
        let ui = content
            .get("_meta")
            .and_then(|meta| meta.get("ui"))
            .or_else(|| listed.and_then(|meta| meta.get("ui")))
            .cloned();
        Ok(AppDocument { html, ui })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_blob_and_meta_from_content_or_list() {
        let read = json!({ "contents": [{
            "uri": "ui://a/v.html", "mimeType": "text/html;profile=mcp-app", "text": "<p>hi</p>",
            "_meta": { "ui": { "csp": { "connectDomains": ["https://x.example"] } } }
        }]});
        let doc = AppDocument::from_read(
            "ui://a/v.html",
            &read,
            Some(&json!({"ui": {"prefersBorder": true}})),
        )
        .unwrap();
        assert_eq!(doc.html, "<p>hi</p>");
        assert!(
            doc.ui.unwrap().get("csp").is_some(),
            "the content's _meta wins"
        );
        let blob = json!({ "contents": [{
            "uri": "ui://a/v.html", "mimeType": "text/html; profile=mcp-app",
            "blob": base64::engine::general_purpose::STANDARD.encode("<p>blob</p>")
        }]});
        let doc = AppDocument::from_read(
            "ui://a/v.html",
            &blob,
            Some(&json!({"ui": {"prefersBorder": true}})),
        )
        .unwrap();
        assert_eq!(doc.html, "<p>blob</p>");
        assert_eq!(
            doc.ui,
            Some(json!({"prefersBorder": true})),
            "else the list entry's"
        );
    }

    #[test]
    fn wrong_type_empty_and_bad_blob_are_refused() {
        let plain =
            json!({ "contents": [{ "uri": "ui://a/v", "mimeType": "text/html", "text": "x" }]});
        assert!(matches!(
            AppDocument::from_read("ui://a/v", &plain, None),
            Err(AppError::WrongType { .. })
        ));
        assert!(matches!(
            AppDocument::from_read("ui://a/v", &json!({ "contents": [] }), None),
            Err(AppError::Empty { .. })
        ));
        let bad =
            json!({ "contents": [{ "uri": "ui://a/v", "mimeType": APP_MIME_TYPE, "blob": "%%%" }]});
        assert!(matches!(
            AppDocument::from_read("ui://a/v", &bad, None),
            Err(AppError::Undecodable { .. })
        ));
        assert!(matches!(
            AppDocument::from_read("https://a/v", &plain, None),
            Err(AppError::NotUiUri { .. })
        ));
    }
}
