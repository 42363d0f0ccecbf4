//! A collection: a JSON file of cases, written so that a diff of it reads well.
//!
//! Keys come in one order (the fields' order here; inside arguments and snapshots, sorted),
//! two-space indentation, one trailing newline: saving a collection that did not change
//! writes the same bytes, and accepting a new snapshot changes only its lines. A case says
//! which server, what to do (exactly one of `tool`, `resource`, `prompt`), the arguments (a
//! `${VAR}` in a string is taken from the environment when the case runs) and what is
//! expected. A value the tool marks secret is never written: [`protect`] turns it into a
//! `${VAR}` before a case is saved.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::CollectionError;

/// The folder of a project's collections, beside `.mcp.json`: committed with it.
pub const PROJECT_FOLDER: &str = ".mcp-collections";
/// The folder of private collections, in the app's data folder.
pub const PRIVATE_FOLDER: &str = "collections";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Collection {
    pub cases: Vec<Case>,
}

/// One kept call and what its result must be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Case {
    pub name: String,
    pub server: String,
    /// A tool to call…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// …or a resource to read…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// …or a prompt to get.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[specta(type = std::collections::BTreeMap<String, specta_typescript::Unknown>)]
    pub arguments: Map<String, Value>,
    #[serde(default)]
    pub expect: Expect,
}

/// What a case's result must be. Every expectation given is checked; none given, the case
/// passes when the call is made.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Expect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// With outcome `fails`: a regular expression the failure's message matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_matches: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<ValueCheck>,
    /// Each must be found in the result's text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub text_contains: Vec<String>,
    /// Each regular expression must match the result's text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub text_matches: Vec<String>,
    /// The result's `structuredContent` satisfies the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub output_schema: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ms: Option<u32>,
    /// The whole result, as it was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[specta(type = Option<specta_typescript::Unknown>)]
    pub snapshot: Option<Value>,
    /// JSON Pointers left out of the snapshot's comparison (times, ids).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// A result, not `isError`.
    Ok,
    /// A result with `isError: true`.
    ToolError,
    /// No result: the request failed (an error answer, a timeout, a refusal).
    Fails,
}

/// A value at a JSON Pointer of the result's `structuredContent` (or, with `inText`, of its
/// text parsed as JSON).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ValueCheck {
    pub pointer: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_text: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[specta(type = Option<specta_typescript::Unknown>)]
    pub equals: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
    /// `true`: the pointer must lead somewhere; `false`: it must not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

impl Case {
    /// What the case does, in words: `tool get-sum`, `resource demo://x`, `prompt greet`.
    pub fn action(&self) -> Result<(&'static str, &str), CollectionError> {
        match (&self.tool, &self.resource, &self.prompt) {
            (Some(tool), None, None) => Ok(("tool", tool)),
            (None, Some(uri), None) => Ok(("resource", uri)),
            (None, None, Some(prompt)) => Ok(("prompt", prompt)),
            _ => Err(CollectionError::Invalid(format!(
                "case \"{}\" must name exactly one of tool, resource and prompt",
                self.name
            ))),
        }
    }
}

pub use mcp_manager_connect::project::surface::sorted_keys as sorted;

impl Collection {
    /// Reads a collection file; a broken one is an error with its line and column. A file of
    /// `project` is read only inside it (a link out of the project is refused), any other
    /// only inside its own folder (see [`write_root`]).
    pub fn load(path: &Path, project: &Path) -> Result<Collection, CollectionError> {
        // A collection is the repository's file: regular, bounded, read without blocking.
        let unreadable = |reason: String| CollectionError::Unreadable {
            path: path.display().to_string(),
            reason,
        };
        let root = write_root(path, project);
        let text = mcp_manager_core::files::read_text_within(
            path,
            &root,
            mcp_manager_core::files::READ_LIMIT,
        )
        .map_err(|err| unreadable(err.into_io().to_string()))?
        .ok_or_else(|| unreadable("it does not exist".into()))?;
        let collection: Collection =
            serde_json::from_str(&text).map_err(|err| CollectionError::Syntax {
                path: path.display().to_string(),
                line: err.line(),
                column: err.column(),
                reason: err.to_string(),
            })?;
        for case in &collection.cases {
            case.action()?;
        }
        Ok(collection)
    }

    /// The bytes of the file: stable key order, two spaces, a final newline.
    pub fn to_text(&self) -> String {
        let mut canonical = self.clone();
        for case in &mut canonical.cases {
            case.arguments = match sorted(&Value::Object(case.arguments.clone())) {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            case.expect.snapshot = case.expect.snapshot.as_ref().map(sorted);
        }
        let mut text = serde_json::to_string_pretty(&canonical).expect("a collection serializes");
        text.push('\n');
        text
    }

    /// Writes the file whole through [`mcp_manager_core::files::write`], never outside `root`
    /// once links are resolved (see [`write_root`]). A new private collection is `0600`, a
    /// new shared one gets the usual mode of a project file.
    pub fn save(&self, path: &Path, root: &Path, private: bool) -> Result<(), CollectionError> {
        use mcp_manager_core::files;
        let mode = if private {
            files::Mode::PrivateOrKept
        } else {
            files::Mode::SharedOrKept
        };
        files::write(
            path,
            self.to_text().as_bytes(),
            &files::Write::new(mode).within(root),
        )
        .map_err(|err| CollectionError::Unwritable {
            path: path.display().to_string(),
            reason: err.into_io().to_string(),
        })
    }

    /// Adds `case`, or replaces the case of the same name.
    pub fn put(&mut self, case: Case) {
        match self.cases.iter_mut().find(|c| c.name == case.name) {
            Some(existing) => *existing = case,
            None => self.cases.push(case),
        }
    }
}

/// The folder a collection file must stay inside when it is written: the project, for a file
/// of the project (so that a committed `.mcp-collections -> ~/.config` or `smoke.json ->
/// ~/.bashrc` is refused), otherwise the file's own folder.
pub fn write_root(path: &Path, project: &Path) -> PathBuf {
    if path.starts_with(project) {
        project.to_path_buf()
    } else {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    }
}

/// A collection of a project folder the person has not trusted is not written: the
/// repository would choose what the file becomes, before anyone decided to trust it.
pub fn may_write(path: &Path, project: &Path, trusted: bool) -> Result<(), CollectionError> {
    trusted_or(
        path,
        project,
        trusted,
        "so it was not written",
        ", or save the case to a private collection",
    )
}

/// `Ok` for a collection outside `project` or in a trusted one; otherwise the refusal, with
/// what was not done (`outcome`) and what else the person may do (`or_else`).
pub(crate) fn trusted_or(
    path: &Path,
    project: &Path,
    trusted: bool,
    outcome: &str,
    or_else: &str,
) -> Result<(), CollectionError> {
    if trusted || !path.starts_with(project) {
        return Ok(());
    }
    Err(CollectionError::Invalid(format!(
        "{} belongs to a project folder you have not trusted, {outcome}. Trust the folder first (the window's Trust, `mcpctl trust`, or Claude Code's trust dialog){or_else}",
        path.display()
    )))
}

/// Where a collection named `name` (or given as a path: it has a `/` or ends in `.json`) is.
pub fn locate(project: &Path, name: &str) -> PathBuf {
    if name.contains('/') || name.ends_with(".json") {
        let path = PathBuf::from(name);
        if path.is_absolute() {
            path
        } else {
            std::env::current_dir().unwrap_or_default().join(path)
        }
    } else {
        project.join(PROJECT_FOLDER).join(format!("{name}.json"))
    }
}

/// The collection files of a folder, by name.
pub fn list(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// `arguments` safe to write: every value the tool's `input_schema` marks secret
/// (`writeOnly`, `format: "password"`, or a name that says so) becomes `${NAME}` (the field's
/// name in capitals), unless it already is a `${…}`. Returns the variables it introduced.
pub fn protect(
    arguments: &Map<String, Value>,
    input_schema: &Value,
) -> (Map<String, Value>, Vec<String>) {
    let original = Value::Object(arguments.clone());
    let scrubbed = mcp_manager_history::scrub(&original, input_schema);
    let mut out = original.clone();
    let mut introduced = Vec::new();
    replace(&mut out, &scrubbed, None, &mut introduced);
    match out {
        Value::Object(map) => (map, introduced),
        _ => (arguments.clone(), introduced),
    }
}

fn replace(value: &mut Value, scrubbed: &Value, key: Option<&str>, introduced: &mut Vec<String>) {
    match (value, scrubbed) {
        (Value::Object(map), Value::Object(clean)) => {
            for (k, item) in map.iter_mut() {
                if let Some(clean_item) = clean.get(k) {
                    replace(item, clean_item, Some(k), introduced);
                }
            }
        }
        (Value::Array(items), Value::Array(clean)) => {
            for (item, clean_item) in items.iter_mut().zip(clean) {
                replace(item, clean_item, key, introduced);
            }
        }
        // A secret value, or one the history already left out ("[not stored]").
        (value, Value::String(marker)) if marker == mcp_manager_history::NOT_STORED => {
            let already = value
                .as_str()
                .is_some_and(|s| s.starts_with("${") && s.ends_with('}'));
            if !already {
                let name: String = key
                    .unwrap_or("SECRET")
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() {
                            c.to_ascii_uppercase()
                        } else {
                            '_'
                        }
                    })
                    .collect();
                *value = Value::String(format!("${{{name}}}"));
                if !introduced.contains(&name) {
                    introduced.push(name);
                }
            }
        }
        _ => {}
    }
}

/// `arguments` with every `${VAR}` (and `${VAR:-default}`) in its strings taken from `lookup`;
/// the variables that were not set, when any.
pub fn resolve(
    arguments: &Map<String, Value>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Map<String, Value>, Vec<String>> {
    let mut missing = Vec::new();
    let mut value = Value::Object(arguments.clone());
    expand(&mut value, lookup, &mut missing);
    if !missing.is_empty() {
        let mut names: Vec<String> = missing.into_iter().map(|m| m.variable).collect();
        names.dedup();
        return Err(names);
    }
    match value {
        Value::Object(map) => Ok(map),
        _ => Ok(Map::new()),
    }
}

fn expand(
    value: &mut Value,
    lookup: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<mcp_manager_core::config::expand::MissingVariable>,
) {
    match value {
        Value::String(text) if text.contains("${") => {
            *text =
                mcp_manager_core::config::expand::expand_str(text, lookup, "arguments", missing);
        }
        Value::Object(map) => map.values_mut().for_each(|v| expand(v, lookup, missing)),
        Value::Array(items) => items.iter_mut().for_each(|v| expand(v, lookup, missing)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn case() -> Case {
        Case {
            name: "sum".into(),
            server: "everything".into(),
            tool: Some("get-sum".into()),
            resource: None,
            prompt: None,
            arguments: json!({"b": 2, "a": 1}).as_object().unwrap().clone(),
            expect: Expect {
                outcome: Some(Outcome::Ok),
                snapshot: Some(json!({"z": 1, "content": [{"type": "text", "text": "3"}]})),
                ..Expect::default()
            },
        }
    }

    #[test]
    fn the_file_is_stable_and_reads_back_the_same() {
        let collection = Collection {
            cases: vec![case()],
        };
        let text = collection.to_text();
        assert_eq!(
            text,
            "{\n  \"cases\": [\n    {\n      \"name\": \"sum\",\n      \"server\": \"everything\",\n      \"tool\": \"get-sum\",\n      \"arguments\": {\n        \"a\": 1,\n        \"b\": 2\n      },\n      \"expect\": {\n        \"outcome\": \"ok\",\n        \"snapshot\": {\n          \"content\": [\n            {\n              \"text\": \"3\",\n              \"type\": \"text\"\n            }\n          ],\n          \"z\": 1\n        }\n      }\n    }\n  ]\n}\n"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        collection.save(&path, dir.path(), false).unwrap();
        let again = Collection::load(&path, dir.path()).unwrap();
        assert_eq!(again.to_text(), text, "saving again writes the same bytes");
    }

    #[test]
    fn a_broken_file_says_where_and_a_case_must_do_one_thing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        std::fs::write(&path, "{\n  \"cases\": [\n    {,\n  ]\n}\n").unwrap();
        match Collection::load(&path, dir.path()) {
            Err(CollectionError::Syntax { line, column, .. }) => assert_eq!((line, column), (3, 6)),
            other => panic!("{other:?}"),
        }
        std::fs::write(
            &path,
            r#"{"cases": [{"name": "x", "server": "s", "tool": "a", "prompt": "b"}]}"#,
        )
        .unwrap();
        let err = Collection::load(&path, dir.path()).unwrap_err();
        assert!(
            err.to_string()
                .contains("exactly one of tool, resource and prompt"),
            "{err}"
        );
    }

    #[test]
    fn secrets_become_variables_and_variables_resolve() {
        let schema = json!({"type": "object", "properties": {
            "apiKey": {"type": "string", "format": "password"},
            "city": {"type": "string"},
            "nested": {"type": "object", "properties": {"pin": {"type": "string", "writeOnly": true}}}
        }});
        let args = json!({"apiKey": "sk-live-123", "city": "Oslo", "nested": {"pin": "1234"}});
        let (safe, introduced) = protect(args.as_object().unwrap(), &schema);
        assert_eq!(
            Value::Object(safe.clone()),
            json!({"apiKey": "${APIKEY}", "city": "Oslo", "nested": {"pin": "${PIN}"}})
        );
        assert_eq!(introduced, vec!["APIKEY", "PIN"]);
        let (kept, none) = protect(&safe, &schema);
        assert_eq!(kept, safe, "a ${{VAR}} stays");
        assert!(none.is_empty());
        // What the history already left out becomes a variable too.
        let stored = json!({"password": "[not stored]", "city": "Oslo"});
        let (from_history, named) = protect(stored.as_object().unwrap(), &Value::Null);
        assert_eq!(from_history["password"], "${PASSWORD}");
        assert_eq!(named, vec!["PASSWORD"]);
        let env = |name: &str| (name == "APIKEY").then(|| "sk-test".to_string());
        assert_eq!(resolve(&safe, &env).unwrap_err(), vec!["PIN"]);
        let env = |name: &str| Some(format!("<{name}>"));
        let resolved = resolve(&safe, &env).unwrap();
        assert_eq!(resolved["nested"]["pin"], "<PIN>");
        assert_eq!(resolved["city"], "Oslo");
    }

    #[test]
    fn names_and_paths() {
        let project = Path::new("/p");
        assert_eq!(
            locate(project, "smoke"),
            PathBuf::from("/p/.mcp-collections/smoke.json")
        );
        assert_eq!(locate(project, "/tmp/x.json"), PathBuf::from("/tmp/x.json"));
        assert!(locate(project, "sub/x.json").is_absolute());
    }
}
