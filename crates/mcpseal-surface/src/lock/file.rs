//! The lock file `surface.lock.json` (`schemaVersion: 1`): model, integrity, bytes.
//!
//! ```json
//! {
//!   "schemaVersion": 1,
//!   "form": "mcpseal/1",
//!   "declared": {
//!     "version": "1.2.0",
//!     "sha256": "<64 hex: SHA-256 of the JCS bytes of `surface` after `exclude`>",
//!     "exclude": ["/tools/name=clock/description"],
//!     "items": {"tools": {"add": {"sha256": "…", "descriptionSha256": "…"}}, "prompts": null},
//!     "surface": {"era": "2026-07-28", "form": "mcpseal/1", "server": {…}, "tools": […]}
//!   }
//! }
//! ```
//!
//! Invariants, checked on every read ([`LockFile::parse`]):
//! * `sha256` is the hash of the stored `surface` with the `exclude` pointers applied, and
//!   `items` are the per-item hashes of that same object (SPEC.md section 7); otherwise the file
//!   was edited by hand and is refused;
//! * a `schemaVersion` above [`LOCK_SCHEMA_VERSION`], merge-conflict markers and invalid JSON
//!   are refused with what to do.
//!
//! The bytes ([`LockFile::render`]) are stable: fixed top-level order, two-space indentation,
//! and every object below `declared.items` and `declared.surface` in JCS key order, so a PR's
//! diff of the lock reads as the surface change. Unknown top-level keys (room for an
//! `anonymous` section) are kept as they were.

use mcpseal_protocol::ListKind;
use serde_json::{Map, Value};
use thiserror::Error;

use super::exclude::{Pointer, PointerError, apply};
use super::version::{Version, VersionError};
use crate::jcs::{jcs, sha256_hex};
use crate::surface::Form;

/// The lock-file format version of a lock without named profiles (this module's
/// [`LockFile`]): byte-for-byte the format from before profiles.
pub const LOCK_SCHEMA_VERSION: u64 = 1;

/// The lock-file format version of a lock whose declared section is a map of named profiles
/// ([`super::profiles::ProfileLock`]). Readers of version 1 only refuse it
/// ([`LockError::Newer`]).
pub const PROFILES_SCHEMA_VERSION: u64 = 2;

/// A lock file.
#[derive(Debug, Clone, PartialEq)]
pub struct LockFile {
    /// The canonical form of the stored surface.
    pub form: Form,
    /// The declared-surface section.
    pub declared: Declared,
    /// Top-level keys this version does not know, kept verbatim.
    pub extra: Map<String, Value>,
}

/// The declared-surface section.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    /// The server version the section was last written under (as written).
    pub version: String,
    /// SHA-256 of the JCS bytes of `surface` after `exclude`.
    pub sha256: String,
    /// Per-item hashes of `surface` after `exclude`.
    pub items: Value,
    /// The canonical surface as captured (exclusions not applied).
    pub surface: Value,
    /// Parts left out of the hash.
    pub exclude: Vec<Pointer>,
}

impl Declared {
    /// A section for `surface` captured under `version`, with `exclude` left out of the hash.
    pub fn new(version: &Version, surface: Value, exclude: Vec<Pointer>) -> Declared {
        let hashed = apply(&surface, &exclude);
        Declared {
            version: version.as_str().to_owned(),
            sha256: sha256_hex(&jcs(&hashed)),
            items: items_of(&hashed),
            surface,
            exclude,
        }
    }

    /// The stored surface with the exclusions applied: what the hash covers and what diffs
    /// compare.
    pub fn hashed_surface(&self) -> Value {
        apply(&self.surface, &self.exclude)
    }

    /// The stored version, parsed.
    ///
    /// # Errors
    /// When the stored text is not a version (the file was edited by hand).
    pub fn parsed_version(&self) -> Result<Version, VersionError> {
        Version::parse(&self.version)
    }
}

/// Why a lock file cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum LockError {
    /// Git merge-conflict markers.
    #[error("the lock file has merge-conflict markers (line {line})")]
    Conflict {
        /// 1-based line of the first marker.
        line: usize,
    },
    /// Not JSON.
    #[error("the lock file is not valid JSON: {0}")]
    NotJson(String),
    /// Written by a newer mcpseal.
    #[error(
        "the lock file has `schemaVersion` {found}; this mcpseal reads versions {LOCK_SCHEMA_VERSION} and {PROFILES_SCHEMA_VERSION}"
    )]
    Newer {
        /// The version found.
        found: u64,
    },
    /// A lock with named profiles (`schemaVersion: 2`) where one surface was expected: the
    /// caller reads one profile of it ([`super::profiles::AnyLock`]) or refuses it.
    #[error(
        "the lock file holds configuration profiles ({}; `schemaVersion` 2), not one surface",
        if names.is_empty() { "none named".to_owned() } else { names.join(", ") }
    )]
    Profiles {
        /// The profile names.
        names: Vec<String>,
    },
    /// A profile the lock does not have.
    #[error("the lock file has no profile `{name}` (it has: {})", if have.is_empty() { "none".to_owned() } else { have.join(", ") })]
    NoProfile {
        /// The profile asked for.
        name: String,
        /// The profiles the lock has.
        have: Vec<String>,
    },
    /// A lock without profiles where a profile was asked for (or the reverse on write).
    #[error("the lock file has no named profiles; `--profile {name}` needs a lock with profiles")]
    NotProfiled {
        /// The profile asked for.
        name: String,
    },
    /// JSON, but not a lock file of this shape.
    #[error("the lock file is malformed: {0}")]
    Shape(String),
    /// The stored hash does not match the stored surface.
    #[error(
        "the lock file was edited by hand: the stored `{field}` does not match its surface (stored {stored}, computed {computed})"
    )]
    EditedByHand {
        /// `sha256` or `items`.
        field: &'static str,
        /// What the file says (shortened).
        stored: String,
        /// What the surface hashes to (shortened).
        computed: String,
    },
    /// A stored version that is not one.
    #[error("the lock file's version is unusable: {0}")]
    Version(#[source] VersionError),
    /// A stored pointer that is not one.
    #[error("the lock file's exclusion is unusable: {0}")]
    Pointer(#[source] PointerError),
}

impl LockError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            LockError::Conflict { .. } => {
                "do not merge lock files by hand: take either side (`git checkout --theirs surface.lock.json`), then run `mcpseal lock` against the merged server"
            }
            LockError::NotJson(_) | LockError::Shape(_) => {
                "restore it from version control (`git checkout -- surface.lock.json`) or delete it and run `mcpseal lock`"
            }
            LockError::Newer { .. } => "upgrade mcpseal to the version that wrote this lock file",
            LockError::Profiles { .. } => {
                "pass `--profile NAME` to pick one profile (`check` and `verify` read them all by default); this command reads one surface"
            }
            LockError::NoProfile { .. } => {
                "pass one of the lock's profiles, or lock this one first: `mcpseal lock --profile NAME TARGET`"
            }
            LockError::NotProfiled { .. } => {
                "drop `--profile` for this lock, or lock profiles into another file (`--lock FILE`): a lock holds either one surface or named profiles"
            }
            LockError::EditedByHand { .. } | LockError::Version(_) | LockError::Pointer(_) => {
                "lock files are written by `mcpseal lock` only: restore it with `git checkout -- surface.lock.json`, or delete it and run `mcpseal lock`"
            }
        }
    }
}

impl LockFile {
    /// A new lock file.
    pub fn new(form: Form, declared: Declared) -> LockFile {
        LockFile {
            form,
            declared,
            extra: Map::new(),
        }
    }

    /// Reads a lock file and checks its integrity (see the module docs).
    ///
    /// # Errors
    /// [`LockError`]: conflict markers, not JSON, newer schema, wrong shape, edited by hand.
    pub fn parse(text: &str) -> Result<LockFile, LockError> {
        let mut top = parse_top(text)?;
        let shape = |m: &str| LockError::Shape(m.to_owned());
        match top.remove("schemaVersion").as_ref().and_then(Value::as_u64) {
            Some(LOCK_SCHEMA_VERSION) => {}
            Some(PROFILES_SCHEMA_VERSION) => {
                let names = top
                    .get("declared")
                    .and_then(|d| d.get("profiles"))
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                return Err(LockError::Profiles { names });
            }
            Some(found) if found > PROFILES_SCHEMA_VERSION => {
                return Err(LockError::Newer { found });
            }
            Some(_) => return Err(shape("`schemaVersion` must be 1 or 2")),
            None => return Err(shape("`schemaVersion` is missing")),
        }
        let form = parse_form(&mut top)?;
        if top
            .get("declared")
            .and_then(|d| d.get("profiles"))
            .is_some()
        {
            return Err(shape(
                "a lock of `schemaVersion` 1 has no `declared.profiles`",
            ));
        }
        let Some(Value::Object(d)) = top.remove("declared") else {
            return Err(shape("`declared` is missing"));
        };
        let fresh = parse_declared(d, "declared")?;
        Ok(LockFile {
            form,
            declared: fresh,
            extra: top,
        })
    }

    /// The file's bytes (see the module docs): always ends with a newline.
    pub fn render(&self) -> String {
        let d = &self.declared;
        let mut out = String::from("{\n");
        out.push_str(&format!("  \"schemaVersion\": {LOCK_SCHEMA_VERSION},\n"));
        out.push_str(&format!("  \"form\": {},\n", quote(self.form.as_str())));
        out.push_str("  \"declared\": {\n");
        out.push_str(&render_declared(d, 1));
        out.push('\n');
        out.push_str("  }");
        render_extra(&mut out, &self.extra, 1);
        out.push_str("\n}\n");
        out
    }
}

/// The top-level object of a lock file's text: conflict markers and invalid JSON refused
/// first (so the user is told the real trouble, not a shape error).
pub(crate) fn parse_top(text: &str) -> Result<Map<String, Value>, LockError> {
    if let Some(i) = text.lines().position(|l| {
        l.starts_with("<<<<<<<") || l.starts_with(">>>>>>>") || l.starts_with("=======")
    }) {
        return Err(LockError::Conflict { line: i + 1 });
    }
    let doc: Value = serde_json::from_str(text).map_err(|e| LockError::NotJson(e.to_string()))?;
    match doc {
        Value::Object(top) => Ok(top),
        _ => Err(LockError::Shape("the top level is not an object".into())),
    }
}

/// The lock's `form`, taken out of the top-level object.
pub(crate) fn parse_form(top: &mut Map<String, Value>) -> Result<Form, LockError> {
    match top.remove("form") {
        Some(Value::String(f)) => f
            .parse::<Form>()
            .map_err(|_| LockError::Shape(format!("unknown form `{f}`"))),
        _ => Err(LockError::Shape("`form` is missing".into())),
    }
}

/// One declared section (`declared`, or one profile of `declared.profiles` at `at`) read and
/// checked: the stored hash and items must be those of the stored surface after the stored
/// exclusions. The keys it knows are taken out of `d`; the rest is left for the caller.
pub(crate) fn parse_declared(mut d: Map<String, Value>, at: &str) -> Result<Declared, LockError> {
    let shape = |m: String| LockError::Shape(m);
    let text_of = |d: &mut Map<String, Value>, k: &str| match d.remove(k) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(LockError::Shape(format!("`{at}.{k}` must be a string"))),
    };
    let version = text_of(&mut d, "version")?;
    let parsed = Version::parse(&version).map_err(LockError::Version)?;
    let sha256 = text_of(&mut d, "sha256")?;
    let exclude = match d.remove("exclude") {
        None => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .map(|p| match p {
                Value::String(s) => Pointer::parse(s).map_err(LockError::Pointer),
                _ => Err(shape(format!("`{at}.exclude` must hold strings"))),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(shape(format!("`{at}.exclude` must be an array"))),
    };
    let surface = match d.remove("surface") {
        Some(s @ Value::Object(_)) => s,
        _ => return Err(shape(format!("`{at}.surface` must be an object"))),
    };
    let items = d.remove("items").unwrap_or(Value::Null);
    let fresh = Declared::new(&parsed, surface, exclude);
    unedited(&sha256, &fresh.sha256)?;
    if fresh.items != items {
        return Err(LockError::EditedByHand {
            field: "items",
            stored: short(&sha256_hex(&jcs(&items))),
            computed: short(&sha256_hex(&jcs(&fresh.items))),
        });
    }
    Ok(fresh)
}

/// The body of one declared section at `depth` (its fields in the fixed order, JCS below),
/// without the braces: shared by `declared` and every profile.
pub(crate) fn render_declared(d: &Declared, depth: usize) -> String {
    let pad = "  ".repeat(depth + 1);
    let exclude = Value::Array(d.exclude.iter().map(|p| Value::from(p.as_str())).collect());
    let mut out = String::new();
    out.push_str(&format!("{pad}\"version\": {},\n", quote(&d.version)));
    out.push_str(&format!("{pad}\"sha256\": {},\n", quote(&d.sha256)));
    out.push_str(&format!(
        "{pad}\"exclude\": {},\n",
        pretty(&exclude, depth + 1)
    ));
    out.push_str(&format!(
        "{pad}\"items\": {},\n",
        pretty(&d.items, depth + 1)
    ));
    out.push_str(&format!(
        "{pad}\"surface\": {}",
        pretty(&d.surface, depth + 1)
    ));
    out
}

/// `Ok` when the stored `sha256` is the one computed from the stored surface; else the file
/// was edited by hand ([`LockError::EditedByHand`], both hashes shortened).
pub(crate) fn unedited(stored: &str, computed: &str) -> Result<(), LockError> {
    if stored == computed {
        return Ok(());
    }
    Err(LockError::EditedByHand {
        field: "sha256",
        stored: short(stored),
        computed: short(computed),
    })
}

/// The keys kept next to a section's own (`extra`), in JCS order, each written after `,` and
/// a newline at `depth` (two spaces a level), its value pretty at that depth.
pub(crate) fn render_extra(out: &mut String, extra: &Map<String, Value>, depth: usize) {
    let pad = "  ".repeat(depth);
    let mut keys: Vec<(&String, &Value)> = extra.iter().collect();
    keys.sort_by(|a, b| crate::jcs::utf16_cmp(a.0, b.0));
    for (k, v) in keys {
        out.push_str(&format!(",\n{pad}{}: {}", quote(k), pretty(v, depth)));
    }
}

pub(crate) fn short(hex: &str) -> String {
    hex.chars().take(12).collect()
}

pub(crate) fn quote(s: &str) -> String {
    String::from_utf8(jcs(&Value::from(s))).unwrap_or_default()
}

/// Per-item hashes of a canonical surface object (SPEC.md section 7): for each list present,
/// `null` when not served, else identity → `{sha256, descriptionSha256}`.
pub fn items_of(surface: &Value) -> Value {
    let mut out = Map::new();
    for kind in ListKind::ALL {
        let (list, id) = (kind.key(), kind.identity_key());
        match surface.get(list) {
            None => {}
            Some(Value::Array(items)) => {
                let mut map = Map::new();
                for item in items {
                    let key = match item.get(id) {
                        Some(Value::String(s)) => s.clone(),
                        Some(other) => other.to_string(),
                        None => continue,
                    };
                    let description = match item.get("description") {
                        Some(Value::String(s)) => Value::from(sha256_hex(s.as_bytes())),
                        _ => Value::Null,
                    };
                    let mut h = Map::new();
                    h.insert("sha256".into(), Value::from(sha256_hex(&jcs(item))));
                    h.insert("descriptionSha256".into(), description);
                    map.insert(key, Value::Object(h));
                }
                out.insert(list.into(), Value::Object(map));
            }
            Some(_) => {
                out.insert(list.into(), Value::Null);
            }
        }
    }
    Value::Object(out)
}

/// `value` pretty-printed with two-space indentation in JCS key order, nested `depth` levels
/// deep (the first line is not indented). Empty objects and arrays stay `{}` and `[]`.
pub fn pretty(value: &Value, depth: usize) -> String {
    let compact = String::from_utf8(jcs(value)).unwrap_or_default();
    let mut out = String::with_capacity(compact.len() * 2);
    let mut level = depth;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, level: usize| {
        out.push('\n');
        for _ in 0..level {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                if matches!(chars.peek(), Some('}' | ']')) {
                    if let Some(close) = chars.next() {
                        out.push(close);
                    }
                } else {
                    level += 1;
                    newline(&mut out, level);
                }
            }
            '}' | ']' => {
                level = level.saturating_sub(1);
                newline(&mut out, level);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, level);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lock() -> LockFile {
        let surface = json!({"form": "mcpseal/1", "era": "2026-07-28",
            "server": {"instructions": "a \"q\" {x}, [y]: z", "capabilities": {}},
            "tools": [{"name": "clock", "description": "t 1", "inputSchema": {"type": "object"}}],
            "resources": [], "resourceTemplates": null, "prompts": []});
        let v = Version::parse("1.0.0").expect("version");
        let ex = vec![Pointer::parse("/tools/name=clock/description").expect("pointer")];
        LockFile::new(Form::McpSeal1, Declared::new(&v, surface, ex))
    }

    #[test]
    fn round_trip_is_byte_stable() {
        let l = lock();
        let text = l.render();
        let back = LockFile::parse(&text).expect("parses");
        assert_eq!(back, l);
        assert_eq!(back.render(), text);
        assert!(text.starts_with("{\n  \"schemaVersion\": 1,\n  \"form\": \"mcpseal/1\",\n"));
        assert!(text.contains("\"resourceTemplates\": null"));
        assert!(text.contains("\"resources\": []"));
        // Exclusion: the description is stored, not hashed.
        assert!(text.contains("\"t 1\""));
        assert_eq!(
            l.declared.items["tools"]["clock"]["descriptionSha256"],
            Value::Null
        );
    }

    #[test]
    fn hand_edits_are_refused() {
        let text = lock().render();
        let edited = text.replace("\"type\": \"object\"", "\"type\": \"string\"");
        assert!(matches!(
            LockFile::parse(&edited),
            Err(LockError::EditedByHand {
                field: "sha256",
                ..
            })
        ));
        // An edit inside an excluded part is not covered by the hash.
        assert!(LockFile::parse(&text.replace("\"t 1\"", "\"t 2\"")).is_ok());
        let l = lock();
        let mut items = l.clone();
        items.declared.items = json!({});
        assert!(matches!(
            LockFile::parse(&items.render()),
            Err(LockError::EditedByHand { field: "items", .. })
        ));
    }

    #[test]
    fn refusals() {
        let text = lock().render();
        let conflict = format!("<<<<<<< HEAD\n{text}=======\n{text}>>>>>>> branch\n");
        assert_eq!(
            LockFile::parse(&conflict),
            Err(LockError::Conflict { line: 1 })
        );
        assert!(matches!(LockFile::parse("{"), Err(LockError::NotJson(_))));
        let newer = text.replace("\"schemaVersion\": 1", "\"schemaVersion\": 3");
        assert_eq!(LockFile::parse(&newer), Err(LockError::Newer { found: 3 }));
        assert!(matches!(LockFile::parse("[]"), Err(LockError::Shape(_))));
        let bad_version = text.replace("\"version\": \"1.0.0\"", "\"version\": \"latest\"");
        assert!(matches!(
            LockFile::parse(&bad_version),
            Err(LockError::Version(_))
        ));
    }

    #[test]
    fn unknown_sections_are_kept() {
        let text = lock().render();
        let with = text.replacen("{\n", "{\n  \"anonymous\": {\"x\": 1},\n", 1);
        let l = LockFile::parse(&with).expect("parses");
        assert_eq!(l.extra["anonymous"], json!({"x": 1}));
        assert!(l.render().contains("\"anonymous\": {\n    \"x\": 1\n  }"));
    }
}
