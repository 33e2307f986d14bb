//! The live surface as the guard has seen it, in the lock's canonical form, ready for the one
//! lock comparison (`mcpseal_surface::lock::compare`).
//!
//! A guard never captures a whole surface at once: it sees the server part when the host's
//! `server/discover` or `initialize` passes through, and one list whenever the host lists it (or
//! a `list_changed` makes it re-read it). So the live surface is the **locked** surface with what
//! was seen put in its place; what was not seen yet compares equal by construction and is judged
//! only once it is seen. Each seen part goes through the same normalisation as a capture
//! (`Surface::from_capture`: identities, sorting, canonical bytes), so a guard and `mcpseal lock`
//! agree on what "the same item" means.
//!
//! Two parts are never compared, because a proxy passes them through and does not choose them:
//! the era and `supportedVersions` (in 2025 the negotiated `protocolVersion`, which follows the
//! host's request). When the host speaks another era than the lock was captured in (a dual-era
//! server), the capabilities are not comparable either (they differ by era on such servers);
//! then only the instructions and the server's identity are.

use mcpseal_protocol::{Era, ListCapture, ListKind, RawCapture};
use mcpseal_surface::{Form, Surface, SurfaceError};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

/// One list as read from the upstream.
#[derive(Debug, Clone, PartialEq)]
pub enum ListRead {
    /// Every item of every page, in the upstream's order.
    Items(Vec<Value>),
    /// The upstream answered that it does not serve the list (`-32601`).
    NotServed,
}

/// What the guard has seen of the live surface.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// The era and the result of the last `server/discover` or `initialize`.
    pub server: Option<(Era, Value)>,
    /// The last read of each list ([`ListKind::index`] order).
    pub lists: [Option<ListRead>; 4],
}

/// Builds the live canonical surface: `locked` (the lock's stored surface, `mcpseal/1`) with
/// every seen part put in its place (see the module docs).
///
/// # Errors
/// [`SurfaceError`] when a seen list cannot be normalised (an item without an identity,
/// duplicate identities, a lone surrogate): such a list cannot be verified item by item.
pub fn live_surface(locked: &Value, seen: &Seen) -> Result<Value, SurfaceError> {
    let locked_era = locked
        .get("era")
        .and_then(Value::as_str)
        .and_then(Era::from_revision)
        .unwrap_or(Era::Modern);
    let era = seen.server.as_ref().map_or(locked_era, |(e, _)| *e);
    let mut capture = RawCapture::new(era);
    if let Some((_, result)) = &seen.server {
        capture.server = raw(result);
    }
    for kind in ListKind::ALL {
        let Some(read) = &seen.lists[kind.index()] else {
            continue;
        };
        let page = match read {
            ListRead::Items(items) => {
                let mut page = Map::new();
                page.insert(kind.key().to_owned(), Value::Array(items.clone()));
                raw(&Value::Object(page))
            }
            ListRead::NotServed => None,
        };
        *capture.lists.slot(kind) = Some(match page {
            Some(p) => ListCapture {
                pages: vec![p],
                failure: None,
            },
            None => ListCapture {
                pages: Vec::new(),
                // The upstream answered -32601: the one outcome that means "not served".
                failure: Some(mcpseal_protocol::ListFailure {
                    code: Some(-32601),
                    ..mcpseal_protocol::ListFailure::new(
                        mcpseal_protocol::FailureCause::MethodNotFound,
                        "-32601 not served",
                    )
                }),
            },
        });
    }
    let surface = Surface::from_capture(&capture)?;
    let fresh = surface.canonical_value(Form::McpSeal1);
    let mut live = locked.clone();
    for kind in ListKind::ALL {
        if seen.lists[kind.index()].is_some()
            && let Some(v) = fresh.get(kind.key())
        {
            live[kind.key()] = v.clone();
        }
    }
    if seen.server.is_some() {
        let mut server = fresh.get("server").cloned().unwrap_or(Value::Null);
        let locked_server = locked.get("server").cloned().unwrap_or(Value::Null);
        if era == locked_era {
            // Passed through, not chosen by the server's author: never compared.
            server["supportedVersions"] = locked_server
                .get("supportedVersions")
                .cloned()
                .unwrap_or(Value::Null);
        } else {
            let mut mixed = match locked_server {
                Value::Object(_) => locked_server,
                _ => json!({}),
            };
            for key in ["instructions", "serverInfo"] {
                mixed[key] = server.get(key).cloned().unwrap_or(Value::Null);
            }
            server = mixed;
        }
        live["server"] = server;
    }
    Ok(live)
}

fn raw(value: &Value) -> Option<Box<RawValue>> {
    RawValue::from_string(value.to_string()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpseal_surface::jcs;

    fn locked() -> Value {
        json!({"form": "mcpseal/1", "era": "2026-07-28",
            "server": {"capabilities": {"tools": {}}, "instructions": "Hi",
                       "serverInfo": {"name": "demo"}, "supportedVersions": ["2026-07-28"]},
            "tools": [{"name": "a", "inputSchema": {"type": "object"}},
                      {"name": "b", "inputSchema": {"type": "object"}}],
            "resources": [], "resourceTemplates": null, "prompts": null})
    }

    #[test]
    fn unseen_parts_are_the_locked_ones() {
        let live = live_surface(&locked(), &Seen::default()).expect("ok");
        assert_eq!(jcs(&live), jcs(&locked()));
    }

    #[test]
    fn seen_lists_are_normalised_in_place() {
        let mut seen = Seen::default();
        seen.lists[ListKind::Tools.index()] = Some(ListRead::Items(vec![
            json!({"name": "b", "inputSchema": {"type": "object"}}),
            json!({"name": "c", "inputSchema": {"type": "object"}, "description": "new"}),
        ]));
        seen.lists[ListKind::Prompts.index()] = Some(ListRead::NotServed);
        let live = live_surface(&locked(), &seen).expect("ok");
        let names: Vec<&str> = live["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, ["b", "c"], "sorted by identity");
        assert_eq!(live["prompts"], Value::Null);
        assert_eq!(live["resources"], json!([]));
    }

    #[test]
    fn versions_are_never_compared_and_other_eras_keep_the_locked_capabilities() {
        let mut seen = Seen {
            server: Some((
                Era::Modern,
                json!({"supportedVersions": ["2026-07-28", "2027-01-01"], "capabilities": {"tools": {}},
                   "instructions": "Hi", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "demo", "version": "2"}}}),
            )),
            ..Seen::default()
        };
        let live = live_surface(&locked(), &seen).expect("ok");
        assert_eq!(jcs(&live), jcs(&locked()));
        seen.server = Some((
            Era::Legacy,
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": true}},
                   "instructions": "Changed", "serverInfo": {"name": "demo", "version": "2"}}),
        ));
        let live = live_surface(&locked(), &seen).expect("ok");
        assert_eq!(live["server"]["capabilities"], json!({"tools": {}}));
        assert_eq!(live["server"]["instructions"], "Changed");
        assert_eq!(live["era"], "2026-07-28");
    }

    #[test]
    fn ambiguous_lists_fail() {
        let mut seen = Seen::default();
        seen.lists[0] = Some(ListRead::Items(vec![
            json!({"name": "a"}),
            json!({"name": "a"}),
        ]));
        assert!(live_surface(&locked(), &seen).is_err());
    }
}
