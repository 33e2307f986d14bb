//! `mcpseal diff` and the diff plumbing shared by `lock`, `check` and `verify`.
//!
//! The classification itself is `mcpseal_surface::diff` (pure) and the document is
//! [`mcpseal_report::DiffReport`]; this module loads the two sides (lock file, snapshot JSON,
//! raw capture, or a live server, captured here) and applies the exclusions a lock file
//! records. The changes as findings (rule ids `drift/<class>`) are
//! [`mcpseal_report::drift_findings`].

use std::path::{Path, PathBuf};

use mcpseal_client::{Options, Target};
use mcpseal_report::{DiffDocument, DiffReport, DiffSide, ErrorBody, ErrorKind, SideKind};
use mcpseal_surface::lock::{ChangeKinds, LockError, LockFile, Pointer, exclude};
use mcpseal_surface::{Form, Surface};
use serde_json::Value;
use thiserror::Error;

use crate::connect::OpenError;
use crate::described::Described;
use crate::snapshot::{SnapshotError, SnapshotOptions, capture_trusted};
use engine::SurfaceDiff;
pub use mcpseal_report::{drift_findings, drift_rules, rule_id};
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
    /// What it is.
    pub kind: SideKind,
    /// The file as given, or the server as reports name it.
    pub source: String,
}

impl Side {
    /// The report's description of this side.
    pub fn describe(&self) -> DiffSide {
        DiffSide {
            kind: self.kind,
            source: self.source.clone(),
            form: self.form,
            version: self.version.clone(),
        }
    }
}

/// A side as the user named it: a file to load, or a server to capture.
#[derive(Debug, Clone)]
pub enum SideSpec {
    /// A lock file, snapshot JSON or raw capture.
    File(PathBuf),
    /// A live server.
    Server(Target),
}

impl SideSpec {
    /// An `http://` or `https://` URL is a server; anything else is a file.
    pub fn parse(raw: &str) -> SideSpec {
        if raw.starts_with("http://") || raw.starts_with("https://") {
            SideSpec::Server(Target::http(raw.to_owned()))
        } else {
            SideSpec::File(PathBuf::from(raw))
        }
    }
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
    /// A server side could not be contacted.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// A server side gave no trustworthy surface.
    #[error("no trustworthy surface from `{target}`: {source}")]
    Capture {
        /// The server.
        target: String,
        /// Why.
        #[source]
        source: SnapshotError,
    },
}

impl DiffError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            DiffError::Lock { source, .. } => source.hint(),
            DiffError::FormMismatch(..) => {
                "compare surfaces of one form: re-run `mcpseal snapshot --form …` or `mcpseal lock --form …` to match"
            }
            DiffError::Open(e) => e.hint(),
            DiffError::Capture { source, .. } => source.hint(),
            DiffError::Read { .. } | DiffError::Unknown { .. } => {
                "each side is a `surface.lock.json`, the output of `mcpseal snapshot --format json`, a raw capture (`--save-capture`) or an http(s) URL; the second may also be `-- COMMAND`"
            }
        }
    }
}

impl DiffError {
    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            DiffError::Lock { .. } => ErrorKind::BadLock,
            DiffError::Read { .. } | DiffError::Unknown { .. } | DiffError::FormMismatch(..) => {
                ErrorKind::BadInput
            }
            DiffError::Open(e) => e.kind(),
            DiffError::Capture { source, .. } => source.kind(),
        }
    }
}

impl Described for DiffError {
    fn body(&self) -> ErrorBody {
        ErrorBody {
            kind: self.kind(),
            message: self.to_string(),
            hint: Some(self.hint().to_owned()),
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
            kind: SideKind::LockFile,
            source: shown,
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
            kind: SideKind::Snapshot,
            source: shown,
        });
    }
    if doc.get("lists").is_some() && doc.get("era").is_some() {
        let surface = Surface::from_slice(text.as_bytes()).map_err(|e| unknown(&e.to_string()))?;
        return Ok(Side {
            form: Form::McpSeal1,
            surface: surface.canonical_value(Form::McpSeal1),
            exclude: Vec::new(),
            version: None,
            kind: SideKind::RawCapture,
            source: shown,
        });
    }
    Err(unknown(
        "it has none of `declared` (lock), `surface` + `sha256` (snapshot), `lists` + `era` (capture)",
    ))
}

/// A live server's side, in `form`; `source` names it (`Target::display`).
pub fn server_side(surface: &Surface, form: Form, source: String) -> Side {
    Side {
        form,
        surface: surface.canonical_value(form),
        exclude: Vec::new(),
        version: None,
        kind: SideKind::Server,
        source,
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

/// The lock rules' view of a diff ([`ChangeKinds::of`]).
pub fn change_kinds(diff: &SurfaceDiff) -> ChangeKinds {
    ChangeKinds::of(diff)
}

/// The public JSON document of a diff ([`DiffDocument`]) as a JSON value.
pub fn document(diff: &SurfaceDiff) -> Value {
    serde_json::to_value(DiffDocument::of(diff)).unwrap_or(Value::Null)
}

/// `mcpseal diff A B`: loads the file sides first (their form decides the form a live side is
/// captured in; `mcpseal/1` when both are servers), captures the server sides one after the
/// other, and diffs them with the union of the recorded exclusions.
///
/// # Errors
/// [`DiffError`].
pub async fn run(
    a: &SideSpec,
    b: &SideSpec,
    connect: Options,
    page_cap: usize,
) -> Result<DiffReport, DiffError> {
    let load = |spec: &SideSpec| match spec {
        SideSpec::File(p) => load_file(p).map(Some),
        SideSpec::Server(_) => Ok(None),
    };
    let (fa, fb) = (load(a)?, load(b)?);
    let form = fa
        .as_ref()
        .or(fb.as_ref())
        .map_or(Form::McpSeal1, |s| s.form);
    let a = side(a, fa, &connect, form, page_cap).await?;
    let b = side(b, fb, &connect, form, page_cap).await?;
    let diff = diff_sides(&a, &b)?;
    Ok(DiffReport {
        diff: diff.into(),
        a: a.describe(),
        b: b.describe(),
    })
}

/// The loaded file side, or the server side captured now.
async fn side(
    spec: &SideSpec,
    loaded: Option<Side>,
    connect: &Options,
    form: Form,
    page_cap: usize,
) -> Result<Side, DiffError> {
    match (spec, loaded) {
        (_, Some(side)) => Ok(side),
        (SideSpec::Server(target), None) => {
            capture_side(target, connect.clone(), form, page_cap).await
        }
        (SideSpec::File(p), None) => load_file(p),
    }
}

async fn capture_side(
    target: &Target,
    connect: Options,
    form: Form,
    page_cap: usize,
) -> Result<Side, DiffError> {
    let conn = crate::open(target, connect).await?;
    let captured = capture_trusted(&conn, &SnapshotOptions { form, page_cap }).await;
    conn.close().await;
    let captured = captured.map_err(|e| DiffError::Capture {
        target: target.display(),
        source: e.with_server_stderr(&conn.diagnostics()),
    })?;
    Ok(server_side(&captured.surface, form, target.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_document_and_kinds_of_a_diff() {
        let before = json!({"form": "mcpseal/1", "era": "2026-07-28", "server": null,
            "resources": null, "resourceTemplates": null, "prompts": null,
            "tools": [{"name": "a", "inputSchema": {"type": "object"}}]});
        let mut after = before.clone();
        after["tools"] = json!([]);
        let d = engine::diff(&before, &after);
        let doc = document(&d);
        assert_eq!(doc["requiredBump"], "major");
        assert_eq!(doc["schemaVersion"], 1);
        assert!(change_kinds(&d).breaking);
        assert_eq!(drift_findings(&d.changes)[0].rule_id, "drift/breaking");
    }

    #[test]
    fn urls_are_servers_and_the_rest_files() {
        assert!(matches!(
            SideSpec::parse("https://x/mcp"),
            SideSpec::Server(_)
        ));
        assert!(matches!(
            SideSpec::parse("surface.lock.json"),
            SideSpec::File(_)
        ));
    }
}
