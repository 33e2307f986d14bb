//! Writing cards from a lock (and `server.json` for the v1 shape), byte-stable: members in a
//! fixed order, two-space indentation, a final newline. The same inputs always give the same
//! bytes.
//!
//! * v1: `$schema`, `name`, `version` (the lock's), `description`, then `title`, `websiteUrl`,
//!   `repository`, `icons` when `server.json` has them, and `remotes` (each `server.json` remote
//!   with `supportedProtocolVersions` from the locked surface). No primitives.
//! * Smithery: `serverInfo {name, version}` (the locked identity and version), `capabilities`
//!   and `instructions` when locked, `authentication {required}` from the anonymous section
//!   (required when `tools/list` does not answer anonymously; left out when the lock has no
//!   anonymous section), then the served lists as locked.

use mcpseal_protocol::ListKind;
use mcpseal_surface::Form;
use mcpseal_surface::lock::LockFile;
use serde_json::Value;
use thiserror::Error;

use crate::anonymous::{AnonymousError, LockAnonymous};
use crate::keys::CARD_SCHEMA_URL;
use crate::ordered::Ordered;

/// Why a card cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EmitError {
    /// A v1 card needs a field `server.json` lacks.
    #[error("`server.json` has no string `{0}`, which a v1 card requires")]
    Missing(&'static str),
    /// The locked surface has no server name.
    #[error("the locked surface has no `serverInfo.name`, which a Smithery card requires")]
    NoServerName,
    /// The lock's anonymous section is unusable.
    #[error("{0}")]
    Anonymous(#[from] AnonymousError),
}

/// The server part of a locked surface in either form.
fn server_part(lock: &LockFile) -> Option<&Value> {
    let s = &lock.declared.surface;
    match lock.form {
        Form::McpSeal1 => s.get("server"),
        Form::McpSurface1 => s.get("initialize"),
    }
}

/// The protocol versions the locked surface supports.
pub fn locked_versions(lock: &LockFile) -> Option<Vec<String>> {
    let server = server_part(lock)?;
    let strings = |v: &Value| -> Option<Vec<String>> {
        v.as_array()?
            .iter()
            .map(|x| x.as_str().map(str::to_owned))
            .collect()
    };
    match lock.form {
        Form::McpSeal1 => strings(server.get("supportedVersions")?),
        Form::McpSurface1 => Some(vec![server.get("protocolVersion")?.as_str()?.to_owned()]),
    }
}

fn text(v: &str) -> Ordered {
    Ordered::String(v.to_owned())
}

/// The v1 card (see the module docs).
///
/// # Errors
/// [`EmitError::Missing`] when `server.json` lacks `name` or `description`.
pub fn v1(server: &Value, lock: &LockFile) -> Result<Ordered, EmitError> {
    let field = |k: &'static str| {
        server
            .get(k)
            .and_then(Value::as_str)
            .ok_or(EmitError::Missing(k))
    };
    let mut members = vec![
        ("$schema".to_owned(), text(CARD_SCHEMA_URL)),
        ("name".to_owned(), text(field("name")?)),
        ("version".to_owned(), text(&lock.declared.version)),
        ("description".to_owned(), text(field("description")?)),
    ];
    for k in ["title", "websiteUrl", "repository", "icons"] {
        if let Some(v) = server.get(k) {
            members.push((k.to_owned(), Ordered::from_value(v)));
        }
    }
    let versions = locked_versions(lock);
    if let Some(remotes) = server.get("remotes").and_then(Value::as_array) {
        let remotes = remotes
            .iter()
            .map(|r| {
                let mut out = Vec::new();
                for k in ["type", "url", "headers", "variables"] {
                    if let Some(v) = r.get(k) {
                        out.push((k.to_owned(), Ordered::from_value(v)));
                    }
                }
                if let Some(vs) = &versions {
                    out.push((
                        "supportedProtocolVersions".to_owned(),
                        Ordered::Array(vs.iter().map(|v| text(v)).collect()),
                    ));
                }
                Ordered::Object(out)
            })
            .collect();
        members.push(("remotes".to_owned(), Ordered::Array(remotes)));
    }
    Ok(Ordered::Object(members))
}

/// The Smithery card (see the module docs).
///
/// # Errors
/// [`EmitError::NoServerName`], [`EmitError::Anonymous`].
pub fn smithery(lock: &LockFile) -> Result<Ordered, EmitError> {
    let server = server_part(lock);
    let info = server.and_then(|s| s.get("serverInfo"));
    let name = info
        .and_then(|i| i.get("name"))
        .and_then(Value::as_str)
        .ok_or(EmitError::NoServerName)?;
    let mut server_info = vec![
        ("name".to_owned(), text(name)),
        ("version".to_owned(), text(&lock.declared.version)),
    ];
    if let Some(title) = info.and_then(|i| i.get("title")).and_then(Value::as_str) {
        server_info.push(("title".to_owned(), text(title)));
    }
    let mut members = vec![("serverInfo".to_owned(), Ordered::Object(server_info))];
    for k in ["capabilities", "instructions"] {
        if let Some(v) = server.and_then(|s| s.get(k)).filter(|v| !v.is_null()) {
            members.push((k.to_owned(), Ordered::from_value(v)));
        }
    }
    if let Some(anonymous) = LockAnonymous::from_lock_extra(&lock.extra)? {
        let open = anonymous
            .answers
            .get("tools/list")
            .is_some_and(|a| a.answers);
        members.push((
            "authentication".to_owned(),
            Ordered::Object(vec![("required".to_owned(), Ordered::Bool(!open))]),
        ));
    }
    for kind in ListKind::ALL {
        if let Some(list @ Value::Array(_)) = lock.declared.surface.get(kind.key()) {
            members.push((kind.key().to_owned(), Ordered::from_value(list)));
        }
    }
    Ok(Ordered::Object(members))
}
