//! Which era one request is in, judged from the request alone.
//!
//! 2026-07-28 requests say everything in `params._meta` (and, over HTTP, repeat the version,
//! method and target in headers); 2025 requests say nothing but, over HTTP, their revision in
//! `MCP-Protocol-Version`. The rules, in order (`legacy` = the server also serves 2025 clients):
//!
//! 1. `params` must be an object when present, `_meta` an object when present (`-32602`).
//! 2. `_meta` names `2026-07-28`: a modern request. `clientCapabilities` must be an object
//!    (`-32602`); over HTTP `MCP-Protocol-Version` must equal it (`-32020`).
//! 3. `_meta` names another version: `-32022` with the supported versions (over HTTP a header
//!    that disagrees with `_meta` is `-32020` first).
//! 4. No version in `_meta`: `initialize` is the 2025 handshake (refused with `-32022` on a
//!    modern-only server, naming what it supports). Otherwise, over HTTP, the header decides: it
//!    names 2026-07-28 → the envelope is incomplete (`-32602`); a 2025 revision → a 2025 request;
//!    anything else → `-32022`. With no header (HTTP) or on stdio, a 2025 request when legacy
//!    clients are served and the method exists in 2025, else `-32602`.
//!
//! No state: a stdio `initialize` does not switch the process, because nothing a 2025 request
//! needs comes from the handshake (the server keeps no session), and a 2026 request must not be
//! judged by an earlier one.

use std::borrow::Cow;

use mcpseal_protocol::method::code;
use mcpseal_protocol::{
    Era, LATEST_LEGACY_REVISION, MODERN_REVISION, keys, legacy_revision, method,
};
use serde_json::{Map, Value, json};

use crate::error::RpcError;

/// The routing headers of one HTTP request, decoded (`=?base64?…?=` values already turned back
/// into text; a header that is repeated or whose value is invalid is `Some(None)`).
#[derive(Debug, Default, Clone)]
pub(crate) struct RoutingHeaders<'a> {
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<Option<Header<'a>>>,
    /// `Mcp-Method`.
    pub method: Option<Option<Header<'a>>>,
    /// `Mcp-Name`.
    pub name: Option<Option<Header<'a>>>,
    /// `Mcp-Param-*`, names without the prefix.
    pub params: Vec<(&'a str, Option<Header<'a>>)>,
}

/// A routing header's decoded value: borrowed from the request unless it was base64-encoded.
pub(crate) type Header<'a> = Cow<'a, str>;

/// The dress of a request the dispatcher accepted.
#[derive(Debug, Clone)]
pub(crate) struct Dress {
    pub era: Era,
    pub revision: &'static str,
}

/// What a call's `Context` says about the client, from the request's `params._meta`.
#[derive(Debug)]
pub(crate) struct ClientFacts {
    pub capabilities: Value,
    pub info: Option<Value>,
    pub progress_token: Option<Value>,
}

/// Takes the client's facts out of the `params` of a call whose dress was judged `era` (so a
/// 2026 call's `_meta` holds an object `clientCapabilities`). They are moved, not cloned: the
/// dispatcher passes handlers only a call's name, arguments or URI, never its `_meta`. A 2025
/// request carries no capabilities or client info outside `initialize`.
pub(crate) fn take_client_facts(era: Era, params: &mut Map<String, Value>) -> ClientFacts {
    let mut meta = match params.get_mut(keys::META) {
        Some(Value::Object(m)) => Some(m),
        _ => None,
    };
    let mut take = |key: &str| meta.as_mut().and_then(|m| m.remove(key));
    let progress_token = take(keys::META_PROGRESS_TOKEN);
    match era {
        Era::Modern => ClientFacts {
            capabilities: take(keys::META_CLIENT_CAPABILITIES).unwrap_or_else(|| json!({})),
            info: take(keys::META_CLIENT_INFO),
            progress_token,
        },
        Era::Legacy => ClientFacts {
            capabilities: json!({}),
            info: None,
            progress_token,
        },
    }
}

/// The versions a modern request may name (`supportedVersions`, `-32022` data).
pub(crate) fn supported_versions() -> Vec<&'static str> {
    vec![MODERN_REVISION]
}

/// `-32022` naming what is supported and what was asked.
pub(crate) fn unsupported(requested: &Value) -> RpcError {
    RpcError::new(
        code::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(json!({ "supported": supported_versions(), "requested": requested }))
}

/// `-32020` for one header.
pub(crate) fn header_mismatch(
    header: &str,
    value: Option<&Option<Header<'_>>>,
    expected: &Value,
) -> RpcError {
    let (why, value) = match value {
        None => ("is missing", Value::Null),
        Some(None) => ("is repeated or not a valid value", Value::Null),
        Some(Some(v)) => ("does not match the body", json!(v)),
    };
    RpcError::new(
        code::HEADER_MISMATCH,
        format!("Header mismatch: {header} {why}"),
    )
    .with_data(json!({ "header": header, "value": value, "expected": expected }))
}

fn missing_meta(missing: &[&str]) -> RpcError {
    RpcError::invalid_params(format!(
        "The request's `_meta` lacks {}: 2026-07-28 requests carry `io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities`",
        missing.join(" and ")
    ))
    .with_data(json!({ "missing": missing, "supported": supported_versions() }))
}

/// Methods that exist only in 2026-07-28 (refused in 2025 dress).
fn modern_only(method: &str) -> bool {
    matches!(
        method,
        method::SERVER_DISCOVER | method::SUBSCRIPTIONS_LISTEN
    )
}

/// Judges one request's dress. `headers` is `None` on stdio.
pub(crate) fn judge(
    method: &str,
    params: Option<&Value>,
    headers: Option<&RoutingHeaders<'_>>,
    legacy: bool,
) -> Result<Dress, RpcError> {
    let params = match params {
        None | Some(Value::Null) => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => return Err(RpcError::invalid_params("`params` must be an object")),
    };
    let meta = match params.and_then(|p| p.get(keys::META)) {
        None => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => return Err(RpcError::invalid_params("`params._meta` must be an object")),
    };
    let header_version = headers.and_then(|h| h.protocol_version.as_ref());
    match meta.and_then(|m| m.get(keys::META_PROTOCOL_VERSION)) {
        Some(Value::String(v)) => {
            if let Some(h) = headers
                && header_version.and_then(Option::as_deref) != Some(v.as_str())
            {
                return Err(header_mismatch(
                    keys::HEADER_PROTOCOL_VERSION,
                    h.protocol_version.as_ref(),
                    &json!(v),
                ));
            }
            if v != MODERN_REVISION {
                return Err(unsupported(&json!(v)));
            }
            modern(meta.unwrap_or(&Map::new()))
        }
        Some(other) => Err(RpcError::invalid_params(
            "`io.modelcontextprotocol/protocolVersion` must be a string",
        )
        .with_data(json!({ "protocolVersion": other }))),
        None => versionless(
            method,
            params,
            meta,
            header_version,
            headers.is_some(),
            legacy,
        ),
    }
}

fn modern(meta: &Map<String, Value>) -> Result<Dress, RpcError> {
    if !meta
        .get(keys::META_CLIENT_CAPABILITIES)
        .is_some_and(Value::is_object)
    {
        return Err(missing_meta(&[keys::META_CLIENT_CAPABILITIES]));
    }
    Ok(Dress {
        era: Era::Modern,
        revision: MODERN_REVISION,
    })
}

fn versionless(
    method: &str,
    params: Option<&Map<String, Value>>,
    meta: Option<&Map<String, Value>>,
    header_version: Option<&Option<Header<'_>>>,
    http: bool,
    legacy: bool,
) -> Result<Dress, RpcError> {
    let legacy_dress = |revision: &'static str| Dress {
        era: Era::Legacy,
        revision,
    };
    if method == method::INITIALIZE {
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .cloned()
            .unwrap_or(Value::Null);
        return if legacy {
            Ok(legacy_dress(
                requested
                    .as_str()
                    .and_then(legacy_revision)
                    .unwrap_or(LATEST_LEGACY_REVISION),
            ))
        } else {
            Err(unsupported(&requested))
        };
    }
    let mut missing = vec![keys::META_PROTOCOL_VERSION];
    if !meta.is_some_and(|m| {
        m.get(keys::META_CLIENT_CAPABILITIES)
            .is_some_and(Value::is_object)
    }) {
        missing.push(keys::META_CLIENT_CAPABILITIES);
    }
    match header_version {
        Some(Some(h)) if h == MODERN_REVISION => Err(missing_meta(&missing)),
        Some(Some(h)) => match legacy_revision(h) {
            Some(revision) if legacy => {
                if modern_only(method) {
                    return Err(missing_meta(&missing));
                }
                Ok(legacy_dress(revision))
            }
            _ => Err(unsupported(&json!(h))),
        },
        Some(None) => Err(header_mismatch(
            keys::HEADER_PROTOCOL_VERSION,
            header_version,
            &Value::Null,
        )),
        None if legacy && !modern_only(method) => {
            // HTTP without a version header: a 2025 client before 2025-06-18 sends none; stdio
            // 2025 requests never name a version.
            let _ = http;
            Ok(legacy_dress(LATEST_LEGACY_REVISION))
        }
        None => Err(missing_meta(&missing)),
    }
}

/// Over HTTP, a request's `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` must agree with its body
/// (2026-07-28 requires them on modern requests; on a 2025 request only a header that is present
/// and disagrees is refused). `tool_schema` is the `inputSchema` of the called tool, whose
/// `x-mcp-header` properties name the `Mcp-Param-*` headers.
pub(crate) fn check_routing(
    method: &str,
    params: Option<&Value>,
    headers: &RoutingHeaders<'_>,
    era: Era,
    tool_schema: Option<&Value>,
) -> Result<(), RpcError> {
    let required = era == Era::Modern;
    let same = |h: &Option<Option<Header<'_>>>, want: &str| matches!(h, Some(Some(v)) if v == want);
    if (required || headers.method.is_some()) && !same(&headers.method, method) {
        return Err(header_mismatch(
            keys::HEADER_MCP_METHOD,
            headers.method.as_ref(),
            &json!(method),
        ));
    }
    let name_key = match method {
        method::TOOLS_CALL | method::PROMPTS_GET => Some("name"),
        method::RESOURCES_READ => Some("uri"),
        _ => None,
    };
    if let Some(key) = name_key {
        let want = params.and_then(|p| p.get(key));
        let ok = want
            .and_then(Value::as_str)
            .is_some_and(|w| same(&headers.name, w));
        if (required || headers.name.is_some()) && !ok {
            return Err(header_mismatch(
                keys::HEADER_MCP_NAME,
                headers.name.as_ref(),
                want.unwrap_or(&Value::Null),
            ));
        }
    }
    if era == Era::Modern
        && let Some(schema) = tool_schema
    {
        let args = params.and_then(|p| p.get("arguments"));
        for (path, header) in mirrored(schema) {
            let value = path.iter().try_fold(args, |v, k| Some(v?.get(k))).flatten();
            check_param(header, value, headers)?;
        }
    }
    Ok(())
}

/// The `x-mcp-header` annotations of a schema: (property path, header name), reachable through
/// `properties` only, as 2026-07-28 defines them.
fn mirrored(schema: &Value) -> Vec<(Vec<&str>, &str)> {
    fn walk<'a>(
        schema: &'a Value,
        path: &mut Vec<&'a str>,
        out: &mut Vec<(Vec<&'a str>, &'a str)>,
    ) {
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (name, sub) in props {
            path.push(name);
            if let Some(h) = sub.get(keys::SCHEMA_X_MCP_HEADER).and_then(Value::as_str) {
                out.push((path.clone(), h));
            }
            if path.len() < 16 {
                walk(sub, path, out);
            }
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

fn check_param(
    header: &str,
    value: Option<&Value>,
    headers: &RoutingHeaders<'_>,
) -> Result<(), RpcError> {
    let full = format!("{}{header}", keys::HEADER_MCP_PARAM_PREFIX);
    let got = headers
        .params
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(header))
        .map(|(_, v)| v.clone());
    let want = match value {
        None | Some(Value::Null) => {
            // Absent or null: the client omits the header; one sent anyway cannot match.
            return match got {
                None => Ok(()),
                Some(v) => Err(header_mismatch(&full, Some(&v), &Value::Null)),
            };
        }
        Some(v) => v,
    };
    let matches = match (&got, want) {
        (Some(Some(g)), Value::String(s)) => g == s,
        (Some(Some(g)), Value::Bool(b)) => g.as_ref() == if *b { "true" } else { "false" },
        (Some(Some(g)), Value::Number(n)) => match (g.trim().parse::<i64>(), n.as_i64()) {
            (Ok(a), Some(b)) => a == b,
            _ => g.trim().parse::<f64>().ok() == n.as_f64(),
        },
        _ => false,
    };
    if matches {
        Ok(())
    } else {
        Err(header_mismatch(&full, got.as_ref(), want))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modern_params() -> Value {
        json!({"_meta": {keys::META_PROTOCOL_VERSION: MODERN_REVISION, keys::META_CLIENT_CAPABILITIES: {}}})
    }

    fn http(version: Option<&str>) -> RoutingHeaders<'_> {
        RoutingHeaders {
            protocol_version: version.map(|v| Some(v.into())),
            ..RoutingHeaders::default()
        }
    }

    #[test]
    fn modern_requests_need_the_whole_envelope() {
        let ok = judge("tools/list", Some(&modern_params()), None, true);
        assert_eq!(ok.map(|d| d.era).ok(), Some(Era::Modern));
        let no_caps = json!({"_meta": {keys::META_PROTOCOL_VERSION: MODERN_REVISION}});
        let e = judge("tools/list", Some(&no_caps), None, true).err();
        assert_eq!(e.map(|e| e.code), Some(code::INVALID_PARAMS));
        let bogus = json!({"_meta": {keys::META_PROTOCOL_VERSION: "1999-01-01", keys::META_CLIENT_CAPABILITIES: {}}});
        let e = judge("tools/list", Some(&bogus), None, true).err();
        assert_eq!(
            e.as_ref().map(|e| e.code),
            Some(code::UNSUPPORTED_PROTOCOL_VERSION)
        );
        assert_eq!(
            e.and_then(|e| e.data).map(|d| d["requested"].clone()),
            Some(json!("1999-01-01"))
        );
    }

    #[test]
    fn versionless_requests_are_2025_only_when_legacy_is_served() {
        assert_eq!(
            judge("tools/list", None, None, true).map(|d| d.era).ok(),
            Some(Era::Legacy)
        );
        assert_eq!(
            judge("tools/list", None, None, false).err().map(|e| e.code),
            Some(code::INVALID_PARAMS)
        );
        assert_eq!(
            judge("server/discover", None, None, true)
                .err()
                .map(|e| e.code),
            Some(code::INVALID_PARAMS)
        );
        let init = json!({"protocolVersion": "2025-06-18"});
        assert_eq!(
            judge("initialize", Some(&init), None, true)
                .map(|d| d.revision)
                .ok(),
            Some("2025-06-18")
        );
        assert_eq!(
            judge("initialize", Some(&init), None, false)
                .err()
                .map(|e| e.code),
            Some(code::UNSUPPORTED_PROTOCOL_VERSION)
        );
    }

    #[test]
    fn http_headers_must_agree_with_the_body() {
        let e = judge(
            "tools/list",
            Some(&modern_params()),
            Some(&http(None)),
            true,
        )
        .err();
        assert_eq!(e.map(|e| e.code), Some(code::HEADER_MISMATCH));
        let e = judge(
            "tools/list",
            Some(&modern_params()),
            Some(&http(Some("2025-11-25"))),
            true,
        )
        .err();
        assert_eq!(e.map(|e| e.code), Some(code::HEADER_MISMATCH));
        let d = judge("tools/list", None, Some(&http(Some("2025-06-18"))), true);
        assert_eq!(d.map(|d| d.revision).ok(), Some("2025-06-18"));
        let e = judge("tools/list", None, Some(&http(Some(MODERN_REVISION))), true).err();
        assert_eq!(e.map(|e| e.code), Some(code::INVALID_PARAMS));

        let params = json!({"name": "t", "arguments": {"region": "eu", "n": 3}});
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"}}});
        let mut h = RoutingHeaders {
            method: Some(Some("tools/call".into())),
            name: Some(Some("t".into())),
            params: vec![("region", Some("eu".into())), ("n", Some("3".into()))],
            ..RoutingHeaders::default()
        };
        assert!(check_routing("tools/call", Some(&params), &h, Era::Modern, Some(&schema)).is_ok());
        h.params[1].1 = Some("4".into());
        assert!(
            check_routing("tools/call", Some(&params), &h, Era::Modern, Some(&schema)).is_err()
        );
        h.name = None;
        assert!(check_routing("tools/call", Some(&params), &h, Era::Modern, None).is_err());
        assert!(check_routing("tools/call", Some(&params), &h, Era::Legacy, None).is_ok());
    }
}
