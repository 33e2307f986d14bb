//! `mcpseal diff` and the diff plumbing shared by `lock`, `check` and `verify`.
//!
//! The classification itself is `mcpseal_surface::diff` (pure); this module loads the two
//! sides (lock file, snapshot JSON, raw capture, or a live server), applies the exclusions a
//! lock file records, and maps changes to the lock rules' [`ChangeKinds`] and to report
//! [`Finding`]s.
//!
//! # JSON document (`--format json`, `schemaVersion: 1`)
//!
//! ```json
//! {"schemaVersion": 1,
//!  "changes": [{"class": "breaking", "path": "/tools/name=echo", "item": "tool echo",
//!               "before": {…}, "after": {…}, "explanation": "…"}],
//!  "summary": {"breaking": 1, "security": 0, "additive": 0, "cosmetic": 0, "unjudged": 0},
//!  "requiredBump": "major"}
//! ```
//!
//! `before`/`after` are left out when the value is absent on that side; `item` is `null` for a
//! whole list or the document. Changes are in the engine's order (by path).
//!
//! # Findings
//!
//! Each change becomes a finding with rule id `drift/<class>` (`drift/breaking`,
//! `drift/security`, `drift/additive`, `drift/cosmetic`, `drift/unjudged`), severity `error` for
//! breaking and `warning` otherwise, title = the explanation, observed = item and path, and
//! evidence = `{path, before, after}`.

use std::path::Path;

use mcpseal_report::{Finding, Remediation, RuleInfo, Severity};
use mcpseal_surface::lock::{ChangeKinds, LockError, LockFile, Pointer, exclude};
use mcpseal_surface::{Form, Surface};
use serde_json::{Map, Value, json};
use thiserror::Error;

use engine::{ChangeClass, SurfaceDiff};
pub use mcpseal_surface::diff as engine;

/// One side of a diff: a canonical surface and the exclusions its lock recorded.
#[derive(Debug, Clone)]
pub struct Side {
    /// The canonical form of `surface`.
    pub form: Form,
    /// The canonical surface (exclusions not applied).
    pub surface: Value,
    /// Exclusions recorded in a lock file (empty otherwise).
    pub exclude: Vec<Pointer>,
    /// The version a lock file records.
    pub version: Option<String>,
    /// What it is, for people: `lock file`, `snapshot`, `raw capture`, `server`.
    pub kind: &'static str,
}

/// Why a diff could not be made (exit 2).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DiffError {
    /// A file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A lock file that fails its checks.
    #[error("`{path}`: {source}")]
    Lock {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: LockError,
    },
    /// Not a lock file, snapshot or raw capture.
    #[error("`{path}` is not a lock file, snapshot JSON or raw capture: {why}")]
    Unknown {
        /// The file.
        path: String,
        /// Why.
        why: String,
    },
    /// The two sides are in different canonical forms.
    #[error("the two sides are in different forms (`{0}` and `{1}`)")]
    FormMismatch(Form, Form),
}

impl DiffError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            DiffError::Lock { source, .. } => source.hint(),
            DiffError::FormMismatch(..) => {
                "compare surfaces of one form: re-run `mcpseal snapshot --form …` or `mcpseal lock --form …` to match"
            }
            _ => {
                "pass a `surface.lock.json`, the output of `mcpseal snapshot --format json`, a raw capture (`--save-capture`), an http(s) URL, or `-- COMMAND` as the second side"
            }
        }
    }
}

/// Loads a lock file, snapshot JSON or raw capture, told apart by their keys: `declared` (lock
/// file, integrity checked), `surface` + `sha256` (snapshot), `lists` + `era` (raw capture,
/// normalised in `mcpseal/1`).
///
/// # Errors
/// [`DiffError`].
pub fn load_file(path: &Path) -> Result<Side, DiffError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| DiffError::Read {
        path: shown.clone(),
        source,
    })?;
    let unknown = |why: &str| DiffError::Unknown {
        path: shown.clone(),
        why: why.to_owned(),
    };
    if text.contains("<<<<<<<")
        && let Err(source @ LockError::Conflict { .. }) = LockFile::parse(&text)
    {
        return Err(DiffError::Lock {
            path: shown,
            source,
        });
    }
    let doc: Value = serde_json::from_str(&text).map_err(|e| unknown(&e.to_string()))?;
    if doc.get("declared").is_some() {
        let lock = LockFile::parse(&text).map_err(|source| DiffError::Lock {
            path: shown.clone(),
            source,
        })?;
        return Ok(Side {
            form: lock.form,
            surface: lock.declared.surface,
            exclude: lock.declared.exclude,
            version: Some(lock.declared.version),
            kind: "lock file",
        });
    }
    if let (Some(surface), Some(_)) = (doc.get("surface"), doc.get("sha256")) {
        let form = doc
            .get("form")
            .and_then(Value::as_str)
            .unwrap_or("mcpseal/1")
            .parse::<Form>()
            .map_err(|_| unknown("unknown `form`"))?;
        return Ok(Side {
            form,
            surface: surface.clone(),
            exclude: Vec::new(),
            version: None,
            kind: "snapshot",
        });
    }
    if doc.get("lists").is_some() && doc.get("era").is_some() {
        let surface = Surface::from_slice(text.as_bytes()).map_err(|e| unknown(&e.to_string()))?;
        return Ok(Side {
            form: Form::McpSeal1,
            surface: surface.canonical_value(Form::McpSeal1),
            exclude: Vec::new(),
            version: None,
            kind: "raw capture",
        });
    }
    Err(unknown(
        "it has none of `declared` (lock), `surface` + `sha256` (snapshot), `lists` + `era` (capture)",
    ))
}

/// A live server's side, in `form`.
pub fn server_side(surface: &Surface, form: Form) -> Side {
    Side {
        form,
        surface: surface.canonical_value(form),
        exclude: Vec::new(),
        version: None,
        kind: "server",
    }
}

/// Diffs two sides, with the union of their recorded exclusions applied to both.
///
/// # Errors
/// [`DiffError::FormMismatch`].
pub fn diff_sides(a: &Side, b: &Side) -> Result<SurfaceDiff, DiffError> {
    if a.form != b.form {
        return Err(DiffError::FormMismatch(a.form, b.form));
    }
    let mut pointers = a.exclude.clone();
    pointers.extend(b.exclude.iter().filter(|p| !a.exclude.contains(p)).cloned());
    Ok(engine::diff(
        &exclude::apply(&a.surface, &pointers),
        &exclude::apply(&b.surface, &pointers),
    ))
}

/// The lock rules' view of a diff.
pub fn change_kinds(diff: &SurfaceDiff) -> ChangeKinds {
    ChangeKinds {
        any: !diff.is_empty(),
        breaking: diff.has(ChangeClass::Breaking),
        security: diff.has(ChangeClass::Security),
        additive: diff.has(ChangeClass::Additive),
    }
}

/// The public JSON document of a diff (see the module docs).
pub fn document(diff: &SurfaceDiff) -> Value {
    let changes: Vec<Value> = diff
        .changes
        .iter()
        .map(|c| {
            let mut m = Map::new();
            m.insert("class".into(), Value::from(c.class.as_str()));
            m.insert("path".into(), Value::from(c.path.clone()));
            m.insert(
                "item".into(),
                c.item.clone().map_or(Value::Null, Value::from),
            );
            if let Some(b) = &c.before {
                m.insert("before".into(), b.clone());
            }
            if let Some(a) = &c.after {
                m.insert("after".into(), a.clone());
            }
            m.insert("explanation".into(), Value::from(c.explanation.clone()));
            Value::Object(m)
        })
        .collect();
    let s = diff.summary();
    json!({
        "schemaVersion": 1,
        "changes": changes,
        "summary": {"breaking": s.breaking, "security": s.security, "additive": s.additive,
                    "cosmetic": s.cosmetic, "unjudged": s.unjudged},
        "requiredBump": diff.required_bump().as_str(),
    })
}

/// The rule id of a class: `drift/<class>`.
pub fn rule_id(class: ChangeClass) -> String {
    format!("drift/{}", class.as_str())
}

const SPEC_REF: &str = "https://github.com/mcpseal/mcpseal/blob/main/SPEC.md#9-lock-file";

/// The drift rule catalogue (for SARIF drivers): one rule per class.
pub fn drift_rules() -> Vec<RuleInfo> {
    ChangeClass::ALL
        .iter()
        .map(|&class| RuleInfo {
            id: rule_id(class),
            title: match class {
                ChangeClass::Breaking => "A change that can break an existing client",
                ChangeClass::Security => {
                    "A change a reviewer must see (more power, or new text for the model)"
                }
                ChangeClass::Additive => "Compatible growth",
                ChangeClass::Cosmetic => "Presentation only",
                ChangeClass::Unjudged => "A change mcpseal does not judge",
            }
            .into(),
            severity: severity(class),
            remediation: Remediation::Application,
            spec_ref: SPEC_REF.into(),
            transports: vec!["stdio".into(), "http".into()],
            anchor_id: None,
            rationale: format!(
                "Surface changes of class `{}` need at least a {} version bump.",
                class.as_str(),
                class.bump().as_str()
            ),
        })
        .collect()
}

fn severity(class: ChangeClass) -> Severity {
    if class == ChangeClass::Breaking {
        Severity::Error
    } else {
        Severity::Warning
    }
}

/// Each change as a finding (see the module docs).
pub fn findings(diff: &SurfaceDiff) -> Vec<Finding> {
    diff.changes
        .iter()
        .map(|c| Finding {
            rule_id: rule_id(c.class),
            severity: severity(c.class),
            remediation: Remediation::Application,
            title: c.explanation.clone(),
            observed: match &c.item {
                Some(item) => format!("{item} at `{}`", c.path),
                None => format!("`{}`", c.path),
            },
            expected: format!(
                "a surface change of class `{}` ships with at least a {} version bump",
                c.class.as_str(),
                c.class.bump().as_str()
            ),
            fix: "bump the server's version as required, then run `mcpseal lock`".into(),
            spec_ref: SPEC_REF.into(),
            evidence: vec![json!({"path": c.path, "before": c.before, "after": c.after})],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule ids are public (SARIF, dashboards): they never change.
    #[test]
    fn drift_rule_ids_are_pinned() {
        let ids: Vec<String> = drift_rules().into_iter().map(|r| r.id).collect();
        assert_eq!(
            ids,
            [
                "drift/breaking",
                "drift/security",
                "drift/additive",
                "drift/cosmetic",
                "drift/unjudged"
            ]
        );
    }

    #[test]
    fn changes_map_to_findings() {
        let before = json!({"form": "mcpseal/1", "era": "2026-07-28", "server": null,
            "resources": null, "resourceTemplates": null, "prompts": null,
            "tools": [{"name": "a", "inputSchema": {"type": "object"}}]});
        let mut after = before.clone();
        after["tools"] = json!([]);
        let d = engine::diff(&before, &after);
        let f = findings(&d);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule_id, "drift/breaking");
        assert_eq!(f[0].severity, Severity::Error);
        assert_eq!(f[0].evidence[0]["path"], "/tools/name=a");
        assert_eq!(f[0].evidence[0]["after"], Value::Null);
        let doc = document(&d);
        assert_eq!(doc["requiredBump"], "major");
        assert!(
            doc["changes"][0].get("after").is_none(),
            "absent side left out"
        );
        assert!(change_kinds(&d).breaking);
    }
}
