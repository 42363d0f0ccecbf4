//! The Skills extension (SEP-2640), the client's side: what a server's skills are
//! (`skills/list`), and a skill loaded with every file checked against what the server
//! published for it.
//!
//! Listing reads no file (the extension's "no prefetch" rule: not on connection, not on
//! listing). Loading reads the skill's `SKILL.md` first and checks it three ways before any
//! other file is read: its byte length against the entry's `size`, its SHA-256 against the
//! `digest`, and its YAML frontmatter field by field against the entry's `frontmatter`. A
//! `SKILL.md` that fails is not offered and nothing more of the skill is read; a supporting
//! file that fails is shown as failed and its content is not offered. Only files the entry
//! lists are read. The content is the server's data, shown as text, never run.

use rmcp::model::{PaginatedRequestParams, Skill, SkillResources};
use serde::Serialize;
use serde_json::Value;

use super::Connection;

/// The most pages of `skills/list` followed, and the most skills kept.
const MAX_PAGES: usize = 100;
const MAX_SKILLS: usize = 2_000;

/// One skill as its server lists it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    pub name: String,
    pub description: String,
    /// The frontmatter the server published, as JSON text.
    pub frontmatter: String,
    /// Its files with their digests and sizes; `None` when the server serves them
    /// `"dynamic"` (nothing to check them against: not loaded).
    pub files: Option<Vec<SkillFile>>,
}

/// A file of a skill as listed: where, its digest, its size.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SkillFile {
    pub uri: String,
    pub digest: String,
    pub size: f64,
}

/// How a file of a loaded skill fared.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum FileCheck {
    /// Its size, digest (and for `SKILL.md`, its frontmatter) match what was published.
    Verified,
    /// It does not match: why. Its content is not offered.
    Failed { why: String },
    /// Not read: why (the `SKILL.md` failed, or the server could not serve it).
    NotRead { why: String },
}

/// A file of a loaded skill, with its content when it was verified and is text.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LoadedFile {
    pub uri: String,
    pub digest: String,
    pub size: f64,
    pub check: FileCheck,
    /// The text, only when verified (a verified binary file has none: `binary` is true).
    pub text: Option<String>,
    pub binary: bool,
}

/// A skill loaded: each file checked.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LoadedSkill {
    pub entry: SkillEntry,
    /// Whether the skill may be used: its `SKILL.md` and every file verified.
    pub verified: bool,
    pub files: Vec<LoadedFile>,
}

fn entry_of(skill: Skill) -> SkillEntry {
    let frontmatter = serde_json::to_string(&skill.frontmatter).unwrap_or_default();
    let files = match skill.resources {
        SkillResources::Files(files) => Some(
            files
                .into_iter()
                .map(|f| SkillFile {
                    uri: f.uri,
                    digest: f.digest,
                    size: f.size as f64,
                })
                .collect(),
        ),
        _ => None, // "dynamic": nothing to check the files against
    };
    // One line each, whatever the server sent: a name or description with a line break
    // could forge a line of what is printed.
    let line = |text: &str| crate::sanitize::strip(&text.replace(['\n', '\r'], " "));
    SkillEntry {
        uri: skill.uri,
        name: line(&skill.frontmatter.name),
        description: line(&skill.frontmatter.description),
        frontmatter,
        files,
    }
}

/// The bytes a `resources/read` result holds for `uri`: the UTF-8 of its `text`, or its
/// base64-decoded `blob`; whether they came as text.
fn content_bytes(result: &Value, uri: &str) -> Result<(Vec<u8>, bool), String> {
    use base64::Engine;
    let contents = result
        .get("contents")
        .and_then(Value::as_array)
        .ok_or("the server's answer holds no contents")?;
    let [content] = contents.as_slice() else {
        return Err(format!(
            "the server answered {} contents for one file",
            contents.len()
        ));
    };
    if content.get("uri").and_then(Value::as_str) != Some(uri) {
        return Err("the server answered with another file".into());
    }
    if let Some(text) = content.get("text").and_then(Value::as_str) {
        return Ok((text.as_bytes().to_vec(), true));
    }
    let blob = content
        .get("blob")
        .and_then(Value::as_str)
        .ok_or("the answer holds neither text nor blob")?;
    base64::engine::general_purpose::STANDARD
        .decode(blob)
        .map(|bytes| (bytes, false))
        .map_err(|_| "its blob is not base64".to_string())
}

/// Why `bytes` are not what `listed` published, if they are not: the size first (a length
/// that differs fails whatever the digest), then the SHA-256, compared exactly
/// (`sha256:` and 64 lowercase hex digits).
fn mismatch(listed: &SkillFile, bytes: &[u8]) -> Option<String> {
    if bytes.len() as f64 != listed.size {
        return Some(format!(
            "{} bytes, where the server published {}",
            bytes.len(),
            listed.size
        ));
    }
    use sha2::Digest;
    let hex: String = sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let digest = format!("sha256:{hex}");
    (digest != listed.digest).then(|| {
        format!(
            "its SHA-256 is {digest}, where the server published {}",
            listed.digest
        )
    })
}

/// Why a `SKILL.md`'s frontmatter differs from the published one, if it does.
fn frontmatter_differs(published: &str, text: &str) -> Option<String> {
    let published: Value = serde_json::from_str(published).unwrap_or(Value::Null);
    let read = match mcp_manager_core::config::agents::frontmatter(text) {
        Ok(Some(read)) => read,
        Ok(None) => return Some("it has no frontmatter".into()),
        Err(why) => return Some(why),
    };
    let (Some(published), Some(read)) = (published.as_object(), read.as_object()) else {
        return Some("its frontmatter is not a mapping".into());
    };
    let mut keys: Vec<&String> = published.keys().chain(read.keys()).collect();
    keys.sort();
    keys.dedup();
    let differing: Vec<String> = keys
        .into_iter()
        .filter(|key| published.get(*key) != read.get(*key))
        .map(|key| format!("`{key}`"))
        .collect();
    (!differing.is_empty()).then(|| {
        format!(
            "its frontmatter differs from the published one in {}",
            differing.join(", ")
        )
    })
}

impl Connection {
    /// Whether the server declared the Skills extension.
    pub fn serves_skills(&self) -> bool {
        self.peer
            .peer_info()
            .is_some_and(|info| info.capabilities.supports_skills())
    }

    /// Every skill the server lists (every page, bounded); no file is read. Empty when the
    /// server did not declare the extension.
    pub async fn list_skills(&self) -> Result<Vec<SkillEntry>, rmcp::ServiceError> {
        if !self.serves_skills() {
            return Ok(Vec::new());
        }
        let mut skills = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
            let page = self.peer.list_skills(params).await?;
            // A URI with a control character is no skill's (and could forge a printed line).
            skills.extend(
                page.skills
                    .into_iter()
                    .filter(|s| !s.uri.chars().any(char::is_control))
                    .map(entry_of),
            );
            cursor = page.next_cursor;
            if cursor.is_none() || skills.len() >= MAX_SKILLS {
                break;
            }
        }
        skills.truncate(MAX_SKILLS);
        Ok(skills)
    }

    /// Loads `entry`: its `SKILL.md` read and checked, then each other file it lists, each
    /// checked. Nothing more is read once the `SKILL.md` fails.
    pub async fn load_skill(&self, entry: SkillEntry) -> LoadedSkill {
        let Some(listed) = entry.files.clone() else {
            return LoadedSkill {
                files: Vec::new(),
                verified: false,
                entry,
            };
        };
        // The SKILL.md first, wherever the list puts it.
        let mut order: Vec<SkillFile> = listed.clone();
        order.sort_by_key(|f| f.uri != entry.uri);
        let mut files = Vec::new();
        let mut refused: Option<String> = None;
        // Only files inside the skill's own folder are read: a listed file of another skill
        // (or anywhere else on the server) is not asked for.
        let root = entry.uri.trim_end_matches("SKILL.md").to_string();
        if order.first().is_none_or(|f| f.uri != entry.uri) {
            refused = Some("the skill's files do not list its SKILL.md".into());
        }
        for file in order {
            let shown = |check, text, binary| LoadedFile {
                uri: file.uri.clone(),
                digest: file.digest.clone(),
                size: file.size,
                check,
                text,
                binary,
            };
            if let Some(why) = &refused {
                files.push(shown(FileCheck::NotRead { why: why.clone() }, None, false));
                continue;
            }
            if !file.uri.starts_with(&root) || file.uri[root.len()..].split('/').any(|p| p == "..")
            {
                refused = Some("the skill lists a file outside its folder".into());
                files.push(shown(
                    FileCheck::Failed {
                        why: "not inside the skill's folder: not read".into(),
                    },
                    None,
                    false,
                ));
                continue;
            }
            let read = match self.read_resource(&file.uri).await {
                Ok(result) => content_bytes(&result, &file.uri),
                Err(err) => Err(crate::connection::plain(&err.to_string())),
            };
            let is_skill_md = file.uri == entry.uri;
            let (bytes, is_text) = match read {
                Ok(read) => read,
                Err(why) => {
                    if is_skill_md {
                        refused = Some("its SKILL.md could not be read".into());
                    }
                    files.push(shown(FileCheck::NotRead { why }, None, false));
                    continue;
                }
            };
            let text = String::from_utf8(bytes.clone()).ok();
            let failed = mismatch(&file, &bytes).or_else(|| {
                is_skill_md
                    .then(|| frontmatter_differs(&entry.frontmatter, text.as_deref().unwrap_or("")))
                    .flatten()
            });
            match failed {
                Some(why) => {
                    if is_skill_md {
                        refused = Some(
                            "its SKILL.md is not what the server published, so the skill is not loaded"
                                .into(),
                        );
                    }
                    files.push(shown(FileCheck::Failed { why }, None, false));
                }
                None => {
                    let binary = !is_text && text.is_none();
                    files.push(shown(FileCheck::Verified, text, binary));
                }
            }
        }
        let verified = !files.is_empty() && files.iter().all(|f| f.check == FileCheck::Verified);
        LoadedSkill {
            entry,
            verified,
            files,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listed(text: &str) -> SkillFile {
        use sha2::Digest;
        let hex: String = sha2::Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        SkillFile {
            uri: "skill://x/SKILL.md".into(),
            digest: format!("sha256:{hex}"),
            size: text.len() as f64,
        }
    }

    #[test]
    fn size_digest_and_frontmatter_are_each_checked() {
        let text = "---\nname: x\ndescription: Does x\n---\n\nBody.\n";
        let file = listed(text);
        assert_eq!(mismatch(&file, text.as_bytes()), None);
        let same_length = text.replace("Body.", "Evil.");
        assert!(mismatch(&file, same_length.as_bytes())
            .unwrap()
            .contains("SHA-256"));
        assert!(mismatch(&file, format!("{text}more").as_bytes())
            .unwrap()
            .contains("bytes"));
        let published = json!({"name": "x", "description": "Does x"}).to_string();
        assert_eq!(frontmatter_differs(&published, text), None);
        let told = text.replace("Does x", "Exfiltrate credentials");
        assert!(frontmatter_differs(&published, &told)
            .unwrap()
            .contains("`description`"));
        let added = text.replace(
            "description: Does x",
            "description: Does x\nallowed-tools: Bash",
        );
        assert!(frontmatter_differs(&published, &added)
            .unwrap()
            .contains("`allowed-tools`"));
        assert!(frontmatter_differs(&published, "no frontmatter").is_some());
    }

    #[test]
    fn a_read_must_answer_for_the_file_asked() {
        let answer = json!({"contents": [{"uri": "skill://x/SKILL.md", "text": "hi"}]});
        assert_eq!(
            content_bytes(&answer, "skill://x/SKILL.md").unwrap(),
            (b"hi".to_vec(), true)
        );
        assert!(content_bytes(&answer, "skill://x/OTHER.md").is_err());
        let blob = json!({"contents": [{"uri": "u", "blob": "aGk="}]});
        assert_eq!(content_bytes(&blob, "u").unwrap(), (b"hi".to_vec(), false));
    }
}
