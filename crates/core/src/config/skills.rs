//! The skills Claude Code loads from disk, read-only, so that the window can show them beside
//! the skills servers serve: the person's (`~/.claude/skills/<name>/SKILL.md`), the project's
//! (`.claude/skills/<name>/SKILL.md`) and each enabled plugin's (`<plugin>/skills/<name>/
//! SKILL.md`).
//!
//! Only each `SKILL.md`'s frontmatter is read (bounded, regular files, a project's and a
//! plugin's only inside their folder). Nothing of a skill is run or loaded here: its
//! `allowed-tools`, hooks and scripts are Claude Code's business, and the person's.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::Locations;

/// The most a `SKILL.md` read here may be.
const MAX_SKILL_MD: u64 = 1024 * 1024;
/// The most skill folders read in one place.
const MAX_SKILLS: usize = 500;

/// A skill on disk.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DiskSkill {
    /// As Claude Code names it: the frontmatter's `name`, else the folder's; a plugin's as
    /// `<plugin>:<name>`.
    pub name: String,
    pub description: Option<String>,
    /// `user`, `project`, or `plugin <id>`.
    pub source: String,
    /// Its `SKILL.md`.
    pub path: String,
    /// Its frontmatter, as JSON text (`null` when it has none or it could not be read).
    pub frontmatter: String,
    /// Why it could not be read, if it could not.
    pub problem: Option<String>,
}

/// Every skill Claude Code finds on disk for this project.
pub fn disk_skills(locations: &Locations) -> Vec<DiskSkill> {
    let mut places: Vec<(String, PathBuf, Option<PathBuf>, Option<String>)> = vec![
        (
            "user".into(),
            locations.claude_dir().join("skills"),
            None,
            None,
        ),
        (
            "project".into(),
            locations.project_root().join(".claude/skills"),
            Some(locations.project_root()),
            None,
        ),
    ];
    for plugin in crate::config::plugins::PluginSet::load(locations).plugins {
        if let (true, false, Some(root)) = (plugin.enabled, plugin.refused, plugin.root.as_ref()) {
            let root = PathBuf::from(root);
            places.push((
                format!("plugin {}", plugin.id),
                root.join("skills"),
                Some(root),
                Some(plugin.name.clone()),
            ));
        }
    }
    let mut skills = Vec::new();
    for (source, folder, within, plugin) in places {
        for dir in skill_folders(&folder) {
            skills.push(read_skill(
                &source,
                &dir,
                within.as_deref(),
                plugin.as_deref(),
            ));
        }
    }
    skills
}

fn skill_folders(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("SKILL.md").exists())
        .take(MAX_SKILLS)
        .collect();
    dirs.sort();
    dirs
}

fn read_skill(source: &str, dir: &Path, within: Option<&Path>, plugin: Option<&str>) -> DiskSkill {
    let path = dir.join("SKILL.md");
    let folder_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let read = match within {
        Some(root) => crate::files::read_text_within(&path, root, MAX_SKILL_MD),
        None => crate::files::read_text(&path, MAX_SKILL_MD),
    };
    let (frontmatter, problem) = match read {
        Ok(Some(text)) => match crate::config::agents::frontmatter(&text) {
            Ok(Some(front)) => (front, None),
            Ok(None) => (Value::Null, None),
            // Claude Code still loads it, every field dropped.
            Err(why) => (
                Value::Null,
                Some(format!("{why}; Claude Code loads it without its fields")),
            ),
        },
        Ok(None) => (Value::Null, Some("it went away".into())),
        Err(err) => (Value::Null, Some(err.to_string())),
    };
    let name = frontmatter
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or(folder_name);
    DiskSkill {
        name: match plugin {
            Some(plugin) => format!("{plugin}:{name}"),
            None => name,
        },
        description: frontmatter
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
        source: source.to_string(),
        path: path.display().to_string(),
        frontmatter: frontmatter.to_string(),
        problem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_persons_and_the_projects_skills_are_found_and_a_link_out_of_the_project_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project) = (root.join("home"), root.join("project"));
        std::fs::create_dir_all(home.join(".claude/skills/notes")).unwrap();
        std::fs::write(
            home.join(".claude/skills/notes/SKILL.md"),
            "---\nname: notes\ndescription: Keep notes\n---\nBody\n",
        )
        .unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(project.join(".claude/skills/release")).unwrap();
        std::fs::write(
            project.join(".claude/skills/release/SKILL.md"),
            "no frontmatter at all\n",
        )
        .unwrap();
        // A project skill whose SKILL.md is a link to the person's private file.
        std::fs::write(root.join("secret.md"), "---\nname: secret\n---\n").unwrap();
        std::fs::create_dir_all(project.join(".claude/skills/sneaky")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            root.join("secret.md"),
            project.join(".claude/skills/sneaky/SKILL.md"),
        )
        .unwrap();
        let locations = Locations::new(home.clone(), None, &project).unwrap();
        let skills = disk_skills(&locations);
        let by_name = |n: &str| {
            skills
                .iter()
                .find(|s| s.name == n)
                .unwrap_or_else(|| panic!("{n}: {skills:?}"))
        };
        assert_eq!(by_name("notes").source, "user");
        assert_eq!(by_name("notes").description.as_deref(), Some("Keep notes"));
        assert_eq!(by_name("release").source, "project");
        #[cfg(unix)]
        {
            let sneaky = by_name("sneaky");
            assert!(sneaky.problem.is_some(), "{sneaky:?}");
            assert_eq!(sneaky.frontmatter, "null");
        }
    }
}
