//! The server part of a surface (capabilities, instructions, identity, versions), computed once
//! for both forms. Volatile fields (`serverInfo.version`, the 2026 `protocolVersion`) are
//! dropped here so they never reach a hash.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::SurfaceError;
use super::error::json_error;
use crate::jcs::utf16_cmp;
use mcpseal_protocol::{Era, RawCapture};

/// The `_meta` key under which 2026 servers put their identity in `server/discover`.
pub const SERVER_INFO_META_KEY: &str = mcpseal_protocol::keys::META_SERVER_INFO;

/// The server part of a surface, pre-computed for both forms.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ServerPart {
    /// `{capabilities, instructions, serverInfo, supportedVersions}` (mcpseal/1).
    pub(super) seal: Value,
    /// `{protocolVersion, capabilities, instructions, serverInfo}` (mcp-surface/1 `initialize`).
    pub(super) compat: Value,
}

fn present(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

fn or_null(v: Option<&Value>) -> Value {
    present(v).cloned().unwrap_or(Value::Null)
}

fn without_version(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut m = m.clone();
            m.remove("version");
            Value::Object(m)
        }
        other => other.clone(),
    }
}

/// Both forms' server objects from a capture's server result (`null` when absent).
pub(super) fn server_part(capture: &RawCapture) -> Result<ServerPart, SurfaceError> {
    server_part_of(capture.era, capture.server.as_deref().map(RawValue::get))
}

/// Both forms' server objects from the JSON text of a server result (`None`: absent or `null`).
pub(super) fn server_part_of(era: Era, server: Option<&str>) -> Result<ServerPart, SurfaceError> {
    let parsed: Value = match server {
        Some(text) => serde_json::from_str(text).map_err(|e| json_error("server".into(), e))?,
        None => Value::Null,
    };
    let empty = Map::new();
    let obj = parsed.as_object().unwrap_or(&empty);

    let supported_versions = match era {
        Era::Modern => match present(obj.get("supportedVersions")) {
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => {
                let mut a = a.clone();
                a.sort_by(|x, y| utf16_cmp(x.as_str().unwrap_or(""), y.as_str().unwrap_or("")));
                Value::Array(a)
            }
            Some(other) => other.clone(),
            None => Value::Null,
        },
        Era::Legacy => match present(obj.get("protocolVersion")) {
            Some(v) => Value::Array(vec![v.clone()]),
            None => Value::Null,
        },
    };
    let server_info = match era {
        Era::Modern => present(obj.get("_meta").and_then(|m| m.get(SERVER_INFO_META_KEY)))
            .or_else(|| present(obj.get("serverInfo"))),
        Era::Legacy => present(obj.get("serverInfo")),
    }
    .map_or(Value::Null, without_version);

    let mut seal = Map::new();
    seal.insert("capabilities".into(), or_null(obj.get("capabilities")));
    seal.insert("instructions".into(), or_null(obj.get("instructions")));
    seal.insert("serverInfo".into(), server_info);
    seal.insert("supportedVersions".into(), supported_versions);

    let mut compat = Map::new();
    compat.insert(
        "protocolVersion".into(),
        or_null(obj.get("protocolVersion")),
    );
    compat.insert("capabilities".into(), or_null(obj.get("capabilities")));
    compat.insert("instructions".into(), or_null(obj.get("instructions")));
    compat.insert(
        "serverInfo".into(),
        match present(obj.get("serverInfo")) {
            Some(v @ Value::Object(_)) => without_version(v),
            _ => Value::Object(Map::new()),
        },
    );
    Ok(ServerPart {
        seal: Value::Object(seal),
        compat: Value::Object(compat),
    })
}
