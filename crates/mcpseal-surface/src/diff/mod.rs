//! Semantic diff of two canonical surfaces, with contract-break classes.
//!
//! The fingerprint says *that* a surface changed; this module says *how*, and whether the change
//! can break a client that was written against the old surface. [`diff`] compares two canonical
//! surface objects (`mcpseal/1`, or `mcp-surface/1` with `initialize` in place of `server`) and
//! returns every difference as a [`Change`] with a [`ChangeClass`]. [`SurfaceDiff::required_bump`]
//! turns the classes into the smallest semver bump that may carry the change.
//!
//! # Invariants
//!
//! * **Nothing is dropped.** Every difference between the two objects yields at least one
//!   [`Change`]; a difference the engine does not understand is [`ChangeClass::Unjudged`]. Each
//!   level (document, list, item, schema node, server field) is guarded: if its judges emitted
//!   nothing although its values differ, an `unjudged` change is emitted for it. The one,
//!   deliberate, exception: a tool annotation hint that is absent on one side and explicitly set
//!   to its default on the other (`readOnlyHint: false`, `destructiveHint: true`,
//!   `idempotentHint: false`, `openWorldHint: true`, or an `annotations: {}`) is no change at
//!   all, because every client sees the same effective value. The fingerprints of such two
//!   surfaces still differ, so a caller may see different hashes and an empty diff.
//! * **Pure and total.** No I/O, no panics, whatever JSON is passed; recursion is bounded
//!   ([`MAX_DEPTH`]); beyond it a difference is reported as one `unjudged` change.
//! * **Stable.** Changes are sorted by [`Change::path`] (UTF-16 code units, as the canonical
//!   form orders identities); changes at the same path keep the order they were judged in, so
//!   the same two inputs always give the same list.
//! * **Values compare as their canonical bytes** (RFC 8785): `1` and `1.0` are equal, as they are
//!   in the fingerprint.
//!
//! # Paths
//!
//! [`Change::path`] is a JSON pointer (RFC 6901: `~` is written `~0` and `/` is written `~1`
//! inside a segment) into the canonical surface, except that list items are addressed by their
//! identity (`name=echo`, `uri=fixture:~1~1readme`, `uriTemplate=x:~1~1{id}`), so are prompt
//! arguments (`arguments/name=who`), and a change of whether a property is required is reported
//! at `<schema>/required/<property>`. Examples: `/tools/name=echo/inputSchema/properties/x/type`,
//! `/server/capabilities/tools/listChanged`, `/prompts/name=greet/arguments/name=who/required`.
//!
//! # Classes and the bump they need
//!
//! See [`ChangeClass`] for what falls into each class and [`SurfaceDiff::required_bump`] for
//! the mapping to a semver bump. The judges live in one file per concept: `lists` (items
//! added/removed/changed, renames), `schema` (JSON Schema input/output), `annotations` (tool
//! hints), `tools`, `resources`, `prompts`, `server` (era, capabilities, versions,
//! instructions, identity).

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::jcs::{jcs, utf16_cmp};

mod annotations;
mod lists;
mod prompts;
mod resources;
mod schema;
mod server;
mod tools;

/// How deep the engine follows nested objects before it stops judging and reports the whole
/// remaining subtree as one `unjudged` change (the canonical form's parser limit is 128).
pub const MAX_DEPTH: usize = 160;

/// What a change means for a client written against the old surface.
///
/// Ordered from the most to the least severe; serialised in lowercase (`"breaking"`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeClass {
    /// Can break an existing client; needs a new compatibility line. An item or a served list
    /// gone; a protocol version, capability or capability flag gone; the era back from modern
    /// to legacy; on a tool's input schema anything that refuses input that used to be valid
    /// (parameter removed or newly required, a type or enum/const value no longer accepted, a
    /// bound tightened, at any depth); on its output schema anything that may return what a
    /// client did not expect (a guaranteed field removed or made optional, a type or value
    /// widened, a bound loosened, the `outputSchema` dropped); a prompt argument removed or
    /// newly required; a resource `mimeType` changed or removed.
    Breaking,
    /// Always shown to a reviewer: the server may now do more on the user's behalf, or the text
    /// the model reads changed. A new tool that may write (or destroy); a tool turning from
    /// read-only to writing, from non-destructive to destructive, from closed to open world,
    /// from idempotent to not, or newly *claiming* read-only (hosts skip confirmation for
    /// read-only tools); any `description` rewritten (tool, parameter, resource, template,
    /// prompt, prompt argument); the server's `instructions` changed; the server's name
    /// changed; a resource newly addressed to the assistant.
    Security,
    /// Compatible growth: new read-only items, new optional parameters, input bounds loosened,
    /// new input enum values, output guarantees strengthened, new capabilities, new protocol
    /// versions, new output fields.
    Additive,
    /// Presentation only: `title`s, `icons`, annotation `title`, `serverInfo` fields other than
    /// `name`, a resource's `name` or `size`, equivalent spellings (`"string"` vs `["string"]`,
    /// reordered `required`, absent vs `false` capability flags).
    Cosmetic,
    /// A difference the engine does not judge: `anyOf`/`oneOf`/`allOf`/`not`, `$ref`/`$defs`,
    /// `if`/`then`/`else`, `pattern`, `format`, `patternProperties`, `dependentRequired`..., an
    /// `additionalProperties: false` added or removed, `_meta` of items, unknown fields, JSON
    /// that is not shaped as the canonical form expects. Listed, never dropped.
    Unjudged,
}

impl ChangeClass {
    /// All classes, most severe first.
    pub const ALL: [ChangeClass; 5] = [
        ChangeClass::Breaking,
        ChangeClass::Security,
        ChangeClass::Additive,
        ChangeClass::Cosmetic,
        ChangeClass::Unjudged,
    ];

    /// The serialised name (`"breaking"`, `"security"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeClass::Breaking => "breaking",
            ChangeClass::Security => "security",
            ChangeClass::Additive => "additive",
            ChangeClass::Cosmetic => "cosmetic",
            ChangeClass::Unjudged => "unjudged",
        }
    }

    /// The smallest bump that may carry a change of this class (see
    /// [`SurfaceDiff::required_bump`]).
    pub fn bump(self) -> Bump {
        match self {
            ChangeClass::Breaking => Bump::Major,
            ChangeClass::Security | ChangeClass::Additive => Bump::Minor,
            ChangeClass::Cosmetic | ChangeClass::Unjudged => Bump::Patch,
        }
    }
}

impl fmt::Display for ChangeClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A semver bump level, ordered `None < Patch < Minor < Major`; serialised in lowercase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    /// No change: the version may stay.
    None,
    /// Any change at all.
    Patch,
    /// A compatible change a client or reviewer should know about.
    Minor,
    /// A change that can break a client: a new compatibility line. In `0.x` the caller maps
    /// this to a minor bump (`0.5.x` → `0.6.0`), as semver and mcp-surface do.
    Major,
}

impl Bump {
    /// The serialised name (`"none"`, `"patch"`, `"minor"`, `"major"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

impl fmt::Display for Bump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One difference between two surfaces. Serialised in camelCase; `before`/`after` are omitted
/// when the value is absent on that side (a present JSON `null` is written as `null`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// The class, which decides the bump ([`ChangeClass::bump`]).
    pub class: ChangeClass,
    /// Where, as a JSON-pointer-like path into the canonical surface with items addressed by
    /// identity (see the module docs): `/tools/name=echo/inputSchema/properties/x/type`.
    pub path: String,
    /// The item the change belongs to, for people: `"tool echo"`, `"resource fixture://readme"`,
    /// `"template x://{id}"`, `"prompt greet"`, `"server"`; `None` for a whole list or the
    /// document itself.
    pub item: Option<String>,
    /// The value at `path` before, `None` when absent. For tool annotation hints this is the
    /// *effective* value (the spec's default when the hint is absent).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub before: Option<Value>,
    /// The value at `path` after, `None` when absent (same conventions as `before`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub after: Option<Value>,
    /// Why the change has its class, in one sentence for people.
    pub explanation: String,
}

/// Keeps a present `null` as `Some(Value::Null)` (serde's default would read it as `None`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// How many changes of each class a diff holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Summary {
    /// [`ChangeClass::Breaking`] changes.
    pub breaking: usize,
    /// [`ChangeClass::Security`] changes.
    pub security: usize,
    /// [`ChangeClass::Additive`] changes.
    pub additive: usize,
    /// [`ChangeClass::Cosmetic`] changes.
    pub cosmetic: usize,
    /// [`ChangeClass::Unjudged`] changes.
    pub unjudged: usize,
}

impl Summary {
    /// The number of changes of one class.
    pub fn count(&self, class: ChangeClass) -> usize {
        match class {
            ChangeClass::Breaking => self.breaking,
            ChangeClass::Security => self.security,
            ChangeClass::Additive => self.additive,
            ChangeClass::Cosmetic => self.cosmetic,
            ChangeClass::Unjudged => self.unjudged,
        }
    }

    /// All changes.
    pub fn total(&self) -> usize {
        self.breaking + self.security + self.additive + self.cosmetic + self.unjudged
    }
}

/// The result of [`diff`]: every change, sorted by path (stable).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurfaceDiff {
    /// The changes, sorted by [`Change::path`] in UTF-16 code-unit order; changes at one path
    /// keep the order they were judged in.
    pub changes: Vec<Change>,
}

impl SurfaceDiff {
    /// True when the two surfaces are equivalent (see the module docs for the one case where
    /// equivalent surfaces have different bytes).
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Counts per class.
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for c in &self.changes {
            match c.class {
                ChangeClass::Breaking => s.breaking += 1,
                ChangeClass::Security => s.security += 1,
                ChangeClass::Additive => s.additive += 1,
                ChangeClass::Cosmetic => s.cosmetic += 1,
                ChangeClass::Unjudged => s.unjudged += 1,
            }
        }
        s
    }

    /// The smallest semver bump that may carry these changes.
    ///
    /// * any `breaking` change → [`Bump::Major`] (a new compatibility line; the caller maps it
    ///   to a minor bump in `0.x`);
    /// * else any `security` or `additive` change → [`Bump::Minor`]. Security changes need a
    ///   minor, not just a patch, because they change what the server may do on the user's
    ///   behalf or what the model reads: a description rewrite is the shape of tool poisoning,
    ///   and a host that pins `~1.2` (patches only) must not take it silently. They are not a
    ///   major: the old client still works;
    /// * else any other change (`cosmetic`, `unjudged`) → [`Bump::Patch`]: every surface change
    ///   bumps the version, so that a registry version names one surface. An unjudged change
    ///   gets a patch, not a guess; it is listed so a person can raise the bump;
    /// * no change → [`Bump::None`].
    pub fn required_bump(&self) -> Bump {
        self.changes
            .iter()
            .map(|c| c.class.bump())
            .max()
            .unwrap_or(Bump::None)
    }

    /// True when at least one change has this class.
    pub fn has(&self, class: ChangeClass) -> bool {
        self.changes.iter().any(|c| c.class == class)
    }

    /// The changes of one class, in path order.
    pub fn of(&self, class: ChangeClass) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.class == class)
    }
}

/// Compares two canonical surface objects and classifies every difference.
///
/// Both arguments are canonical surfaces as `Surface::canonical_value` writes them
/// (`mcpseal/1`: `{"form","era","server":{...},"tools","resources","resourceTemplates",
/// "prompts"}`); `mcp-surface/1` objects (`initialize` instead of `server`, no `form`/`era`)
/// are judged the same way. Any other JSON is accepted: what cannot be judged is reported as
/// [`ChangeClass::Unjudged`]. Never panics.
///
/// ```
/// use mcpseal_surface::diff::{diff, Bump, ChangeClass};
/// use serde_json::json;
///
/// let before = json!({"form":"mcpseal/1","era":"2025-11-25","server":null,"resources":null,
///   "resourceTemplates":null,"prompts":null,
///   "tools":[{"name":"echo","inputSchema":{"type":"object",
///     "properties":{"text":{"type":"string"}},"required":["text"]}}]});
/// let mut after = before.clone();
/// after["tools"][0]["inputSchema"]["properties"]["text"]["type"] = json!("number");
/// let d = diff(&before, &after);
/// assert!(d.has(ChangeClass::Breaking));
/// assert_eq!(d.required_bump(), Bump::Major);
/// assert_eq!(d.changes[0].path, "/tools/name=echo/inputSchema/properties/text/type");
/// ```
pub fn diff(before: &Value, after: &Value) -> SurfaceDiff {
    let mut out = Out::default();
    document(before, after, &mut out);
    if out.changes.is_empty() && !equivalent_documents(before, after) {
        out.push(
            ChangeClass::Unjudged,
            String::new(),
            Some(before),
            Some(after),
            "the surfaces differ in a way the diff engine does not classify".to_owned(),
        );
    }
    let mut changes = out.changes;
    changes.sort_by(|a, b| utf16_cmp(&a.path, &b.path));
    SurfaceDiff { changes }
}

/// The top level: form, era, server part, the four lists, anything else.
fn document(before: &Value, after: &Value, out: &mut Out) {
    let (Some(b), Some(a)) = (before.as_object(), after.as_object()) else {
        if !same(before, after) {
            out.push(
                ChangeClass::Unjudged,
                String::new(),
                Some(before),
                Some(after),
                "not a canonical surface object on both sides: compared as plain JSON".to_owned(),
            );
        }
        return;
    };
    // One side `mcpseal/1`, the other `mcp-surface/1`: compare the server parts in one shape.
    let (b, a) = (server_shaped(b, a), server_shaped(a, b));
    let (b, a) = (b.as_ref(), a.as_ref());
    for key in union(b, a) {
        let (bv, av) = (b.get(key), a.get(key));
        let path = child("", key);
        match key {
            "form" => changed(
                out,
                ChangeClass::Unjudged,
                &path,
                bv,
                av,
                "the canonical form differs: the two surfaces were written in different forms, \
                 compare surfaces of one form",
            ),
            "era" => {
                out.item = Some("server".to_owned());
                server::era(&path, bv, av, out);
                out.item = None;
            }
            "server" | "initialize" => {
                out.item = Some("server".to_owned());
                server::server(&path, bv, av, out);
                out.item = None;
            }
            "tools" | "resources" | "resourceTemplates" | "prompts" => {
                lists::list(key, bv, av, out);
            }
            _ => generic(
                out,
                ChangeClass::Unjudged,
                &path,
                bv,
                av,
                "not part of the canonical form",
                0,
            ),
        }
    }
}

/// `doc` with its `initialize` (an `mcp-surface/1` object) rewritten as an `mcpseal/1` `server`
/// part when `other` has a `server` part and no `initialize`: `protocolVersion` becomes the
/// one-element `supportedVersions`, as SPEC.md section 3 maps a 2025 capture. Otherwise `doc`
/// unchanged.
fn server_shaped<'a>(
    doc: &'a Map<String, Value>,
    other: &Map<String, Value>,
) -> std::borrow::Cow<'a, Map<String, Value>> {
    let cross = doc.contains_key("initialize")
        && !doc.contains_key("server")
        && other.contains_key("server")
        && !other.contains_key("initialize");
    if !cross {
        return std::borrow::Cow::Borrowed(doc);
    }
    let mut doc = doc.clone();
    if let Some(init) = doc.remove("initialize") {
        let server = match init {
            Value::Object(mut m) => {
                let versions = match m.remove("protocolVersion") {
                    None | Some(Value::Null) => Value::Null,
                    Some(v) => Value::Array(vec![v]),
                };
                m.insert("supportedVersions".to_owned(), versions);
                Value::Object(m)
            }
            other => other,
        };
        doc.insert("server".to_owned(), server);
    }
    std::borrow::Cow::Owned(doc)
}

/// True when the two documents are equal once tool annotation hints that spell out their
/// default are removed (the only difference the engine deliberately reports as no change).
fn equivalent_documents(before: &Value, after: &Value) -> bool {
    if same(before, after) {
        return true;
    }
    same(
        &annotations::normalize_document(before),
        &annotations::normalize_document(after),
    )
}

/// Collects changes; `item` is the label of the item being judged.
#[derive(Default)]
struct Out {
    changes: Vec<Change>,
    item: Option<String>,
}

impl Out {
    fn push(
        &mut self,
        class: ChangeClass,
        path: String,
        before: Option<&Value>,
        after: Option<&Value>,
        explanation: String,
    ) {
        self.changes.push(Change {
            class,
            path,
            item: self.item.clone(),
            before: before.cloned(),
            after: after.cloned(),
            explanation,
        });
    }

    fn len(&self) -> usize {
        self.changes.len()
    }
}

/// Equal as canonical bytes (so `1` equals `1.0`).
fn same(a: &Value, b: &Value) -> bool {
    a == b || jcs(a) == jcs(b)
}

/// [`same`] for optional values; absent equals only absent.
fn same_opt(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same(a, b),
        _ => false,
    }
}

/// `path` + `/` + the RFC 6901-escaped segment.
fn child(path: &str, segment: &str) -> String {
    let mut s = String::with_capacity(path.len() + segment.len() + 1);
    s.push_str(path);
    s.push('/');
    for ch in segment.chars() {
        match ch {
            '~' => s.push_str("~0"),
            '/' => s.push_str("~1"),
            c => s.push(c),
        }
    }
    s
}

/// An object, or `empty` for an absent value (and for `null` when `null_is_empty`); `None` for
/// any other value.
fn object_or_empty<'a>(
    v: Option<&'a Value>,
    empty: &'a Map<String, Value>,
    null_is_empty: bool,
) -> Option<&'a Map<String, Value>> {
    match v {
        None => Some(empty),
        Some(Value::Null) if null_is_empty => Some(empty),
        Some(Value::Object(m)) => Some(m),
        Some(_) => None,
    }
}

/// The keys of both objects, sorted and deduplicated.
fn union<'a>(b: &'a Map<String, Value>, a: &'a Map<String, Value>) -> BTreeSet<&'a str> {
    b.keys().chain(a.keys()).map(String::as_str).collect()
}

/// "added", "removed" or "changed", from which side holds a value.
fn verb(b: Option<&Value>, a: Option<&Value>) -> &'static str {
    match (b, a) {
        (None, Some(_)) => "added",
        (Some(_), None) => "removed",
        _ => "changed",
    }
}

/// The last segment of a path, unescaped, for explanations.
fn last_segment(path: &str) -> String {
    path.rsplit('/')
        .next()
        .unwrap_or(path)
        .replace("~1", "/")
        .replace("~0", "~")
}

/// One change at `path` when the two values differ: "`<last segment>` <verb>: <why>".
fn changed(
    out: &mut Out,
    class: ChangeClass,
    path: &str,
    b: Option<&Value>,
    a: Option<&Value>,
    why: &str,
) {
    if same_opt(b, a) {
        return;
    }
    let explanation = format!("`{}` {}: {why}", last_segment(path), verb(b, a));
    out.push(class, path.to_owned(), b, a, explanation);
}

/// A structural diff for values the engine has no judge for: objects are followed key by key
/// (so the path names the deepest differing key), anything else is one change of `class`.
fn generic(
    out: &mut Out,
    class: ChangeClass,
    path: &str,
    b: Option<&Value>,
    a: Option<&Value>,
    why: &str,
    depth: usize,
) {
    if same_opt(b, a) {
        return;
    }
    match (b, a) {
        (Some(Value::Object(bm)), Some(Value::Object(am))) if depth < MAX_DEPTH => {
            for key in union(bm, am) {
                generic(
                    out,
                    class,
                    &child(path, key),
                    bm.get(key),
                    am.get(key),
                    why,
                    depth + 1,
                );
            }
        }
        _ => changed(out, class, path, b, a, why),
    }
}

/// An item's `_meta` (tool, prompt, resource or template): one policy for all of them. It is
/// not specified as model-facing, so it is not judged, but poisoned text can hide there, so
/// every difference is listed (key by key) as `unjudged` and never folded away.
fn meta(out: &mut Out, path: &str, b: Option<&Value>, a: Option<&Value>) {
    generic(
        out,
        ChangeClass::Unjudged,
        path,
        b,
        a,
        "`_meta` is not judged, but text hidden there may reach a model; review it",
        0,
    );
}

/// Runs `judge`; when it emitted nothing although `differs`, emits one `unjudged` change for
/// the whole of `path`. This is what keeps the "nothing is dropped" invariant local.
fn guard(
    out: &mut Out,
    path: &str,
    b: Option<&Value>,
    a: Option<&Value>,
    differs: bool,
    judge: impl FnOnce(&mut Out),
) {
    let n = out.len();
    judge(out);
    if out.len() == n && differs {
        out.push(
            ChangeClass::Unjudged,
            path.to_owned(),
            b,
            a,
            format!(
                "`{}` changed in a way the diff engine does not classify",
                last_segment(path)
            ),
        );
    }
}

/// Compares strings by UTF-16 code units (re-exported for the judges' sorting).
fn cmp16(a: &str, b: &str) -> Ordering {
    utf16_cmp(a, b)
}

/// A comma-separated list for explanations, cut after ten entries (`..., and 7 more`).
fn listing(items: &[String]) -> String {
    const MAX: usize = 10;
    let mut s = items
        .iter()
        .take(MAX)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > MAX {
        s.push_str(&format!(", and {} more", items.len() - MAX));
    }
    s
}

/// A short, bounded rendering of a value for explanations.
fn show(v: &Value) -> String {
    let bytes = jcs(v);
    let text = String::from_utf8_lossy(&bytes);
    if text.chars().count() > 80 {
        let cut: String = text.chars().take(77).collect();
        format!("{cut}...")
    } else {
        text.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn path_segments_are_escaped() {
        assert_eq!(child("/resources", "uri=a/b~c"), "/resources/uri=a~1b~0c");
        assert_eq!(last_segment("/resources/uri=a~1b~0c"), "uri=a/b~c");
    }

    #[test]
    fn bump_mapping() {
        assert_eq!(SurfaceDiff::default().required_bump(), Bump::None);
        for (class, bump) in [
            (ChangeClass::Breaking, Bump::Major),
            (ChangeClass::Security, Bump::Minor),
            (ChangeClass::Additive, Bump::Minor),
            (ChangeClass::Cosmetic, Bump::Patch),
            (ChangeClass::Unjudged, Bump::Patch),
        ] {
            let d = SurfaceDiff {
                changes: vec![Change {
                    class,
                    path: "/x".to_owned(),
                    item: None,
                    before: None,
                    after: None,
                    explanation: String::new(),
                }],
            };
            assert_eq!(d.required_bump(), bump);
            assert!(d.has(class));
            assert_eq!(d.summary().count(class), 1);
            assert_eq!(d.summary().total(), 1);
        }
        assert!(Bump::None < Bump::Patch && Bump::Patch < Bump::Minor && Bump::Minor < Bump::Major);
    }

    #[test]
    fn change_serde_keeps_present_null() {
        let c = Change {
            class: ChangeClass::Breaking,
            path: "/prompts".to_owned(),
            item: None,
            before: Some(json!([])),
            after: Some(Value::Null),
            explanation: "x".to_owned(),
        };
        let text = serde_json::to_string(&c).unwrap_or_default();
        assert!(text.contains("\"after\":null"), "{text}");
        assert!(text.contains("\"class\":\"breaking\""), "{text}");
        let back: Result<Change, _> = serde_json::from_str(&text);
        assert_eq!(back.ok(), Some(c.clone()));
        let absent = Change { after: None, ..c };
        let text = serde_json::to_string(&absent).unwrap_or_default();
        assert!(!text.contains("after"), "{text}");
        let back: Result<Change, _> = serde_json::from_str(&text);
        assert_eq!(back.ok(), Some(absent));
        assert_eq!(serde_json::to_value(Bump::Minor).ok(), Some(json!("minor")));
    }

    #[test]
    fn non_objects_do_not_panic() {
        assert!(diff(&json!(1), &json!(1.0)).is_empty());
        let d = diff(&json!([1]), &json!("x"));
        assert_eq!(d.changes.len(), 1);
        assert_eq!(d.changes[0].class, ChangeClass::Unjudged);
        assert_eq!(d.changes[0].path, "");
    }

    #[test]
    fn cross_form_server_parts_are_compared_in_one_shape() {
        let b = json!({"initialize": {"protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}}, "instructions": null, "serverInfo": {"name": "d"}},
            "tools": []});
        let a = json!({"form": "mcpseal/1", "era": "2025-11-25", "server": {
            "supportedVersions": ["2025-11-25"], "capabilities": {"tools": {}},
            "instructions": null, "serverInfo": {"name": "d"}}, "tools": []});
        let d = diff(&b, &a);
        let paths: Vec<&str> = d.changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, vec!["/era", "/form"], "{d:#?}");
        assert!(d.changes.iter().all(|c| c.class == ChangeClass::Unjudged));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut b = json!(1);
        let mut a = json!(2);
        for _ in 0..(MAX_DEPTH * 2) {
            b = json!({ "k": b });
            a = json!({ "k": a });
        }
        let d = diff(&json!({ "x": b }), &json!({ "x": a }));
        assert_eq!(d.changes.len(), 1);
    }
}
