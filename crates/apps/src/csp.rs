//! The Content-Security-Policy an App's document is served with.
//!
//! An App declares what it reaches outside its own document in `_meta.ui.csp`:
//! `connectDomains` (fetch, XHR, WebSocket), `resourceDomains` (scripts, styles, images, fonts,
//! media), `frameDomains` (nested frames) and `baseUriDomains` (`<base href>`). Absent, the
//! spec's strict default holds: inline scripts and styles, `data:` images and media, no
//! network at all. We differ from the spec's default in one way, on purpose: no `'self'`.
//! The App's own origin is our `mcpapp:` scheme, which serves nothing an App needs (its
//! document is one file) and must never be reachable from it.
//!
//! Every declared entry is checked before it reaches the header: only `http`, `https`, `ws`
//! and `wss` origins (a `*.` wildcard subdomain and a port, `*` included, are allowed), no
//! quotes, `;`, `,` or whitespace (which would smuggle keywords or directives in), nothing
//! else (`*`, `data:`, `'unsafe-eval'`, `ipc:`, `tauri:`, `mcpapp:` are dropped). What was
//! dropped is reported, so the consent screen can say so. `object-src 'none'` always.
//!
//! The person's consent is kept per list ([`Origins`]), as the header uses them: allowing an
//! App to fetch from an origin does not allow it to run scripts from it or frame it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What an App declared, each list checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DeclaredDomains {
    /// The accepted origins, list by list: what the person is asked to allow.
    #[serde(flatten)]
    pub origins: Origins,
    /// Entries that were not accepted, as declared.
    pub dropped: Vec<String>,
}

/// External origins by what an App does with them: the lists of [`DeclaredDomains`] without
/// what was dropped. What the person allows, and what their consent covers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Origins {
    /// `connect-src`: fetch, XHR, WebSocket.
    pub connect: Vec<String>,
    /// `script-src`, `style-src`, `img-src`, `font-src`, `media-src`.
    pub resource: Vec<String>,
    /// `frame-src`.
    pub frame: Vec<String>,
    /// `base-uri`.
    pub base_uri: Vec<String>,
}

impl Origins {
    /// Whether every origin of `wanted` is in the same list here.
    pub fn covers(&self, wanted: &Origins) -> bool {
        let within =
            |allowed: &[String], wanted: &[String]| wanted.iter().all(|w| allowed.contains(w));
        within(&self.connect, &wanted.connect)
            && within(&self.resource, &wanted.resource)
            && within(&self.frame, &wanted.frame)
            && within(&self.base_uri, &wanted.base_uri)
    }

    /// Whether no list holds an origin.
    pub fn is_empty(&self) -> bool {
        self.connect.is_empty()
            && self.resource.is_empty()
            && self.frame.is_empty()
            && self.base_uri.is_empty()
    }
}

impl DeclaredDomains {
    /// Reads `_meta.ui.csp` (the `ui` object given).
    pub fn of(ui: Option<&Value>) -> DeclaredDomains {
        let csp = ui.and_then(|ui| ui.get("csp"));
        let mut declared = DeclaredDomains::default();
        let mut take = |key: &str| -> Vec<String> {
            let mut kept = Vec::new();
            for entry in csp
                .and_then(|csp| csp.get(key))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match entry.as_str().filter(|text| source_ok(text)) {
                    Some(text) => {
                        let text = text.trim_end_matches('/').to_string();
                        if !kept.contains(&text) {
                            kept.push(text)
                        }
                    }
                    None => declared.dropped.push(match entry {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    }),
                }
            }
            kept
        };
        let connect = take("connectDomains");
        let resource = take("resourceDomains");
        let frame = take("frameDomains");
        let base_uri = take("baseUriDomains");
        DeclaredDomains {
            origins: Origins {
                connect,
                resource,
                frame,
                base_uri,
            },
            dropped: declared.dropped,
        }
    }

    /// The header's value.
    pub fn header(&self) -> String {
        let list = |fixed: &[&str], domains: &[String]| -> String {
            let mut parts: Vec<&str> = fixed.to_vec();
            parts.extend(domains.iter().map(String::as_str));
            if parts.is_empty() {
                "'none'".into()
            } else {
                parts.join(" ")
            }
        };
        let Origins {
            connect,
            resource,
            frame,
            base_uri,
        } = &self.origins;
        [
            "default-src 'none'".to_string(),
            format!("script-src {}", list(&["'unsafe-inline'"], resource)),
            format!("style-src {}", list(&["'unsafe-inline'"], resource)),
            format!("img-src {}", list(&["data:"], resource)),
            format!("font-src {}", list(&["data:"], resource)),
            format!("media-src {}", list(&["data:"], resource)),
            format!("connect-src {}", list(&[], connect)),
            format!("frame-src {}", list(&[], frame)),
            format!("base-uri {}", list(&[], base_uri)),
            "object-src 'none'".into(),
            "form-action 'none'".into(),
        ]
        .join("; ")
    }
}

/// Whether `source` is an http(s)/ws(s) origin we put in a header as it is.
fn source_ok(source: &str) -> bool {
    if source.is_empty()
        || source.len() > 512
        || source
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '\'' | '"' | ';' | ','))
    {
        return false;
    }
    let Some((scheme, rest)) = source.split_once("://") else {
        return false;
    };
    if !matches!(
        scheme.to_ascii_lowercase().as_str(),
        "http" | "https" | "ws" | "wss"
    ) {
        return false;
    }
    let authority = rest.split('/').next().unwrap_or_default();
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => {
            (host, Some(port))
        }
        _ => (authority, None),
    };
    if let Some(port) = port {
        if port != "*" && (port.is_empty() || port.parse::<u16>().is_err()) {
            return false;
        }
    }
    let host = host.strip_prefix("*.").unwrap_or(host);
    !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'))
        && !host.contains('*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn no_declaration_is_the_strict_default() {
        let header = DeclaredDomains::of(None).header();
        assert_eq!(
            header,
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             img-src data:; font-src data:; media-src data:; connect-src 'none'; \
             frame-src 'none'; base-uri 'none'; object-src 'none'; form-action 'none'"
        );
        assert!(!header.contains("'self'"), "our scheme is never a source");
    }

    #[test]
    fn each_list_reaches_its_directives() {
        let declared = DeclaredDomains::of(Some(&json!({ "csp": {
            "connectDomains": ["https://api.example.com", "wss://live.example.com:8443"],
            "resourceDomains": ["https://*.cdn.example.net"],
            "frameDomains": ["https://www.youtube.com/"],
            "baseUriDomains": ["https://base.example.org"]
        }})));
        let header = declared.header();
        assert!(header.contains("connect-src https://api.example.com wss://live.example.com:8443;"));
        for directive in ["script-src 'unsafe-inline'", "style-src 'unsafe-inline'"] {
            assert!(header.contains(&format!("{directive} https://*.cdn.example.net;")));
        }
        for directive in ["img-src data:", "font-src data:", "media-src data:"] {
            assert!(header.contains(&format!("{directive} https://*.cdn.example.net;")));
        }
        assert!(header.contains("frame-src https://www.youtube.com;"));
        assert!(header.contains("base-uri https://base.example.org;"));
        assert!(header.ends_with("object-src 'none'; form-action 'none'"));
        let origins = &declared.origins;
        assert_eq!(
            [
                origins.connect.len(),
                origins.resource.len(),
                origins.frame.len(),
                origins.base_uri.len()
            ],
            [2, 1, 1, 1]
        );
        assert!(declared.dropped.is_empty());
    }

    #[test]
    fn hostile_entries_are_dropped_and_reported() {
        let hostile = [
            "https://ok.example.com; script-src 'unsafe-eval'",
            "'unsafe-eval'",
            "'self'",
            "*",
            "https://*",
            "data:",
            "ipc://localhost",
            "tauri://localhost",
            "mcpapp://0123456789abcdef",
            "javascript:alert(1)",
            "https://a.example.com https://b.example.com",
            "https://a.example.com,https://b.example.com",
            "https://quote\".example.com",
            "https://example.com:99999",
            "file:///etc/passwd",
            "http://tab\t.example.com",
        ];
        let declared = DeclaredDomains::of(Some(&json!({ "csp": {
            "connectDomains": hostile,
            "resourceDomains": [42, "https://fine.example.com"],
        }})));
        assert!(
            declared.origins.connect.is_empty(),
            "{:?}",
            declared.origins
        );
        assert_eq!(declared.origins.resource, vec!["https://fine.example.com"]);
        assert_eq!(declared.dropped.len(), hostile.len() + 1);
        let header = declared.header();
        for bad in [
            "unsafe-eval",
            "'self'",
            "ipc:",
            "tauri:",
            "mcpapp:",
            "javascript:",
            "data:,",
        ] {
            assert!(!header.contains(bad), "{bad} in {header}");
        }
        assert!(header.contains("connect-src 'none'"));
    }

    #[test]
    fn loopback_ports_and_wildcard_ports_are_origins() {
        let declared = DeclaredDomains::of(Some(&json!({ "csp": {
            "connectDomains": ["http://127.0.0.1:4321", "http://localhost:*", "http://[::1]:8080"]
        }})));
        assert_eq!(declared.origins.connect.len(), 3, "{:?}", declared.dropped);
    }
}
