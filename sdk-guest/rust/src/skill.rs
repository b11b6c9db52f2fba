//! Skills (ABI.md §5a): a plugin ships Agent Skills, each a path and its
//! files, embedded at build time with `include_str!` / `include_bytes!`,
//! and the host serves them as `skill://<path>/<file>` resources.
//!
//! Like `resource.rs`, everything here is `#[inline]`, so plugins without
//! skills keep their exact bytes.

use crate::io::{output, set_error};
use crate::json::Value;
use crate::result::base64;

/// One skill: its path (the last segment is its name) and every file,
/// `SKILL.md` included.
#[derive(Clone, Debug)]
pub struct Skill {
    /// The skill path, such as `"textkit-review"` or `"acme/billing/refunds"`.
    pub path: &'static str,
    files: Vec<(&'static str, SkillFile)>,
}

#[derive(Clone, Debug)]
enum SkillFile {
    Text(&'static str),
    Bytes(&'static [u8], &'static str),
}

impl Skill {
    /// A skill at `path`, with no files yet.
    #[inline]
    pub fn new(path: &'static str) -> Skill {
        Skill { path, files: Vec::new() }
    }

    /// Adds a text file at `path`, relative to the skill's root:
    /// `.text("SKILL.md", include_str!("../skills/review/SKILL.md"))`.
    #[inline]
    pub fn text(mut self, path: &'static str, content: &'static str) -> Skill {
        self.files.push((path, SkillFile::Text(content)));
        self
    }

    /// Adds a binary file (sent as base64), with its MIME type ("" to let the
    /// host guess it from the extension).
    #[inline]
    pub fn bytes(mut self, path: &'static str, content: &'static [u8], mime_type: &'static str) -> Skill {
        self.files.push((path, SkillFile::Bytes(content, mime_type)));
        self
    }

    /// The skill as `list_skills` reports it, or why it is wrong: no
    /// `SKILL.md`, a file twice, or a path with an empty, `.` or `..`
    /// segment, absolute or with a backslash. The host checks the rest
    /// (names, frontmatter, limits) at load.
    #[inline]
    pub fn to_value(&self) -> Result<Value, String> {
        check_path(self.path).map_err(|e| format!("skill {:?}: {}", self.path, e))?;
        let mut files = Value::array();
        for (i, (p, f)) in self.files.iter().enumerate() {
            check_path(p).map_err(|e| format!("skill {}: file {:?}: {}", self.path, p, e))?;
            if self.files[..i].iter().any(|(q, _)| q == p) {
                return Err(format!("skill {}: file {} is declared twice", self.path, p));
            }
            files.push(match f {
                SkillFile::Text(t) => Value::object().with("path", *p).with("text", *t),
                SkillFile::Bytes(b, m) => {
                    let v = Value::object().with("path", *p).with("blob", base64(b));
                    if m.is_empty() {
                        v
                    } else {
                        v.with("mimeType", *m)
                    }
                }
            });
        }
        if !self.files.iter().any(|(p, _)| *p == "SKILL.md") {
            return Err(format!("skill {} has no SKILL.md", self.path));
        }
        Ok(Value::object().with("path", self.path).with("files", files))
    }
}

#[inline]
fn check_path(p: &str) -> Result<(), &'static str> {
    if p.is_empty() || p.starts_with('/') || p.contains('\\') {
        return Err("the path is empty, absolute or has a backslash");
    }
    if p.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
        return Err("the path has an empty, . or .. segment");
    }
    Ok(())
}

/// The body of the `list_skills` export [`crate::skills!`] defines.
#[doc(hidden)]
#[inline]
pub fn list_skills(skills: &[Skill]) -> i32 {
    let mut list = Value::array();
    for (i, s) in skills.iter().enumerate() {
        if skills[..i].iter().any(|t| t.path == s.path) {
            set_error(&format!("skill {} is declared twice", s.path));
            return 1;
        }
        match s.to_value() {
            Ok(v) => list.push(v),
            Err(e) => {
                set_error(&e);
                return 1;
            }
        }
    }
    output(Value::object().with("skills", list).to_json().as_bytes());
    0
}
