//! The diff's result types: [`ChangeClass`] (what a change means for a client), [`Bump`] (the
//! semver level it needs), [`Change`] (one difference, its wire format), [`Summary`] and
//! [`SurfaceDiff`]. Kept apart from the judges so the contract a caller reads (and the report
//! serialises) is in one place.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// What a change means for a client written against the old surface.
///
/// Ordered from the most to the least severe; serialised in lowercase (`"breaking"`, ...).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
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
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
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

/// The result of [`diff`](super::diff()): every change, sorted by path (stable).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
