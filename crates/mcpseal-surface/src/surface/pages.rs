//! List normalisation: the pages of one list → its items, each canonicalised and hashed, sorted
//! by identity (UTF-16 code units), with missing and duplicate identities refused when strict.
//! First the capture's record decides the list's state: *not served* only when the server
//! answered that the method does not exist, *failed* for everything else that ended it; and a
//! malformed page fails the list too, never a guess at what it held.

use std::cmp::Ordering;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::compat::js_string;
use super::error::json_error;
use super::{
    Failed, FailedKind, Item, ListKind, ListState, NotServed, NotServedKind, SurfaceError,
};
use crate::jcs::{utf16_cmp, write_jcs};
use mcpseal_protocol::{Era, FailureCause, FailureKind, ListCapture, ListFailure};

/// What the capture says about the server, as far as judging a list needs it: the era, and
/// which lists' capabilities the server advertises.
#[derive(Debug, Clone, Copy)]
pub(super) struct Context {
    era: Era,
    advertised: [bool; 4],
}

impl Context {
    /// The context of a capture in `era` whose server result is `server` (`None` when the
    /// server did not describe itself, or its result is not JSON this reads).
    pub(super) fn new(era: Era, server: Option<&Value>) -> Context {
        let caps = server
            .and_then(|s| s.get("capabilities"))
            .and_then(Value::as_object);
        // Advertised: the capability is present and not `null`.
        let advertised = ListKind::ALL.map(|k| {
            caps.and_then(|c| c.get(k.capability()))
                .is_some_and(|v| !v.is_null())
        });
        Context { era, advertised }
    }

    /// The context of a server result given as JSON text.
    pub(super) fn of_text(era: Era, server: Option<&str>) -> Context {
        let value = server.and_then(|t| serde_json::from_str::<Value>(t).ok());
        Context::new(era, value.as_ref())
    }

    fn advertises(&self, kind: ListKind) -> bool {
        self.advertised[kind.index()]
    }
}

fn failure_state(kind: FailedKind, message: impl Into<String>) -> ListState {
    ListState::Failed(Failed {
        kind,
        message: message.into(),
        record: None,
    })
}

/// One list's state from its capture; `strict` refuses missing and duplicate identities
/// (mcpseal/1), otherwise they sort as mcp-surface does ([`js_string`], ties in capture order).
pub(super) fn build_list(
    kind: ListKind,
    capture: Option<&ListCapture>,
    cx: Context,
    strict: bool,
) -> Result<ListState, SurfaceError> {
    let Some(capture) = capture else {
        return Ok(not_captured());
    };
    if let Some(f) = &capture.failure {
        return Ok(failed(kind, f, cx));
    }
    if capture.pages.is_empty() {
        return Ok(no_page());
    }
    let key = kind.key();
    let where_ = |page: usize| format!("{kind} page {}", page + 1);

    // Pass 1: structure. Every page must be an object with an array under the list key.
    let mut pages: Vec<Entries<'_>> = Vec::with_capacity(capture.pages.len());
    for (p, raw) in capture.pages.iter().enumerate() {
        let text = raw.get();
        if !text.trim_start().starts_with('{') {
            return Ok(not_an_object(p));
        }
        let map: Entries<'_> = serde_json::from_str(text).map_err(|e| json_error(where_(p), e))?;
        let is_array = map
            .last(key)
            .is_some_and(|v| v.get().trim_start().starts_with('['));
        if !is_array {
            return Ok(no_array(p, key));
        }
        pages.push(map);
    }

    // Pass 2: content (already validated: no lone surrogate, no out-of-range number). Items
    // are canonicalised one at a time and their trees dropped at once.
    let id_key = kind.identity_key();
    let mut items: Vec<Item> = Vec::new();
    for (p, map) in pages.iter().enumerate() {
        let Some(array) = map.last(key) else { continue };
        let raw_items: Vec<&RawValue> =
            serde_json::from_str(array.get()).map_err(|e| json_error(where_(p), e))?;
        for raw_item in raw_items {
            let value: Value =
                serde_json::from_str(raw_item.get()).map_err(|e| json_error(where_(p), e))?;
            let identity = match (value.as_object(), value.get(id_key)) {
                (_, Some(Value::String(s))) => s.clone(),
                _ if !strict => js_string(value.as_object().and_then(|o| o.get(id_key))),
                (None, _) => {
                    return Err(missing(kind, items.len(), "an item that is not an object"));
                }
                (Some(_), None) => return Err(missing(kind, items.len(), "nothing")),
                (Some(_), Some(v)) => return Err(missing(kind, items.len(), type_name(v))),
            };
            let mut canonical = Vec::with_capacity(raw_item.get().len());
            write_jcs(&value, &mut canonical);
            let description = value
                .get("description")
                .and_then(Value::as_str)
                .map(str::as_bytes);
            items.push(Item::new(identity, canonical, description));
        }
    }
    sort_items(&mut items);
    if strict && let Some(identity) = first_duplicate(&items) {
        return Err(SurfaceError::DuplicateIdentity {
            list: kind,
            key: id_key,
            identity: identity.to_owned(),
        });
    }
    Ok(ListState::Served(items))
}

// The verdicts below are shared with the fast path (`scan`), so both say exactly the same.

/// A list with a recorded failure: not served only for the server's answers that the method
/// does not exist (SPEC.md §4), failed otherwise. Either way `null` in the bytes.
pub(super) fn failed(kind: ListKind, f: &ListFailure, cx: Context) -> ListState {
    let advertised = cx.advertises(kind);
    let not_served = |k: NotServedKind| {
        ListState::NotServed(NotServed {
            kind: k,
            message: f.message.clone(),
            advertised,
        })
    };
    match (f.cause, f.kind) {
        (Some(FailureCause::MethodNotFound), _) => not_served(NotServedKind::MethodNotFound),
        // 2025-11-25 servers answered an un-advertised list with whatever error they chose.
        (Some(FailureCause::ErrorAnswer), _) if cx.era == Era::Legacy && !advertised => {
            not_served(NotServedKind::NotAdvertised)
        }
        // Written before causes were recorded: that build read every error as not served
        // (the bytes it hashed say `null`); the code is not known.
        (None, FailureKind::Error) => not_served(NotServedKind::Error),
        _ => ListState::Failed(Failed {
            kind: FailedKind::Recorded,
            message: f.message.clone(),
            record: Some(f.clone()),
        }),
    }
}

/// A list absent from the capture.
pub(super) fn not_captured() -> ListState {
    failure_state(FailedKind::NotCaptured, "not captured")
}

/// A list without a failure and without pages.
pub(super) fn no_page() -> ListState {
    failure_state(FailedKind::Malformed, "no page captured")
}

/// Page `p` (zero-based) is not an object.
pub(super) fn not_an_object(p: usize) -> ListState {
    failure_state(
        FailedKind::Malformed,
        format!("page {}: result is not an object", p + 1),
    )
}

/// Page `p` (zero-based) has no array under the list key.
pub(super) fn no_array(p: usize, key: &str) -> ListState {
    failure_state(
        FailedKind::Malformed,
        format!("page {}: no array under `{key}`", p + 1),
    )
}

/// Sorts items by identity (UTF-16 code units). Stable: ties keep capture order (only possible
/// when not strict).
pub(super) fn sort_items(items: &mut [Item]) {
    items.sort_by(|a, b| utf16_cmp(&a.identity, &b.identity));
}

/// The first identity held by two items of a sorted list.
pub(super) fn first_duplicate(items: &[Item]) -> Option<&str> {
    items
        .windows(2)
        .find(|w| utf16_cmp(&w[0].identity, &w[1].identity) == Ordering::Equal)
        .map(|w| w[0].identity.as_str())
}

/// The members of a page object in document order, duplicates included: the last
/// occurrence of a key wins (as in JavaScript), but every value is still validated.
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'a> Entries<'a> {
    fn last(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut m: M,
            ) -> Result<Self::Value, M::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

fn missing(list: ListKind, index: usize, found: &'static str) -> SurfaceError {
    SurfaceError::MissingIdentity {
        list,
        key: list.identity_key(),
        index,
        found,
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
