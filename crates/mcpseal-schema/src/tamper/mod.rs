//! Negative controls: proof that the validator that accepted a real result can say no.
//!
//! A green check means nothing if the check could not have failed. So from the tool's *listed*
//! `outputSchema` and the one real result, [`tamperings`] derives deliberately broken copies:
//! no `structuredContent`; each required field removed; each typed field given a value none of
//! its types accept (a nullable type gets a non-null wrong type); an extra field where
//! `additionalProperties` (or `unevaluatedProperties`) is `false`; a value outside each `enum`
//! or `const`; a number outside each bound (`minimum`, `maximum`, the exclusive ones, draft 4's
//! boolean form included, `multipleOf`); a string outside each `minLength`, `maxLength` and
//! `pattern`; an array outside `minItems`/`maxItems`. Each is a JSON Patch on the result, so no
//! further call is ever made to the server.
//!
//! [`control`] judges a tampered copy with the very judgement (and the very compiled
//! validator) that accepted the real result. A copy that passes is a **trap**: the schema does
//! not constrain what it seems to (a sibling of `$ref` that the declared draft ignores, an
//! `anyOf` branch that admits anything). Where the walk goes: `properties` (recursively, for
//! fields the real value has), local `$ref`s, `allOf`, the `anyOf`/`oneOf` branches the real
//! value satisfies, and the first item of an array. Depth and count are bounded.

mod patch;
mod values;

use mcpseal_protocol::Era;
use serde_json::{Map, Value};

pub use patch::{PatchOp, apply};

use crate::compile::{Options, compile};
use crate::dialect::Dialect;
use crate::judge::{self, Level, Problem};
use crate::refs::resolve_pointer;
use patch::escape;
use values::{declared_types, extra_name, not_matching, number, outside, wrong_type};

/// The most tamperings derived for one result.
pub const MAX_TAMPERINGS: usize = 256;
/// How deep into nested schemas the walk goes.
const MAX_DEPTH: usize = 16;
/// Longest string or array a tampering builds (a `maxLength: 10000000` is left alone).
const MAX_BUILT: u64 = 100_000;

/// What a tampering breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TamperKind {
    /// `structuredContent` removed.
    NoStructuredContent,
    /// A required field removed.
    RequiredRemoved,
    /// A field given a value none of its declared types accept.
    WrongType,
    /// A field added where `additionalProperties`/`unevaluatedProperties` is `false`.
    ExtraProperty,
    /// A value outside the `enum`.
    OutOfEnum,
    /// A value other than the `const`.
    NotConst,
    /// A number below `minimum`.
    BelowMinimum,
    /// A number above `maximum`.
    AboveMaximum,
    /// A number at or below `exclusiveMinimum`.
    AtExclusiveMinimum,
    /// A number at or above `exclusiveMaximum`.
    AtExclusiveMaximum,
    /// A number that is not a multiple of `multipleOf`.
    NotMultipleOf,
    /// A string shorter than `minLength`.
    TooShort,
    /// A string longer than `maxLength`.
    TooLong,
    /// A string that does not match `pattern`.
    PatternMismatch,
    /// An array shorter than `minItems`.
    TooFewItems,
    /// An array longer than `maxItems`.
    TooManyItems,
}

impl TamperKind {
    /// The permanent camelCase name (`requiredRemoved`, `belowMinimum`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TamperKind::NoStructuredContent => "noStructuredContent",
            TamperKind::RequiredRemoved => "requiredRemoved",
            TamperKind::WrongType => "wrongType",
            TamperKind::ExtraProperty => "extraProperty",
            TamperKind::OutOfEnum => "outOfEnum",
            TamperKind::NotConst => "notConst",
            TamperKind::BelowMinimum => "belowMinimum",
            TamperKind::AboveMaximum => "aboveMaximum",
            TamperKind::AtExclusiveMinimum => "atExclusiveMinimum",
            TamperKind::AtExclusiveMaximum => "atExclusiveMaximum",
            TamperKind::NotMultipleOf => "notMultipleOf",
            TamperKind::TooShort => "tooShort",
            TamperKind::TooLong => "tooLong",
            TamperKind::PatternMismatch => "patternMismatch",
            TamperKind::TooFewItems => "tooFewItems",
            TamperKind::TooManyItems => "tooManyItems",
        }
    }
}

/// One deliberately broken copy of a result.
#[derive(Debug, Clone, PartialEq)]
pub struct Tampering {
    /// What it breaks.
    pub kind: TamperKind,
    /// JSON Pointer into `structuredContent` of the field it edits (`""` = the whole value).
    pub field: String,
    /// JSON Pointer into the `outputSchema` of the keyword that must reject it (`""` = the
    /// schema as a whole).
    pub schema_path: String,
    /// For people: `` `city` removed (it is required) ``.
    pub description: String,
    /// The edit, as JSON Patch operations on the whole result.
    pub patch: Vec<PatchOp>,
    /// Why the targeted keyword may not apply, when the schema's draft says so (e.g. a keyword
    /// beside `$ref` in drafts 4 to 7).
    pub note: Option<String>,
}

impl Tampering {
    /// The tampered copy of `result` (`None` if the patch does not apply to it).
    pub fn apply(&self, result: &Value) -> Option<Value> {
        apply(result, &self.patch)
    }
}

/// A tampering and what the judgement said of the tampered copy.
#[derive(Debug, Clone, PartialEq)]
pub struct Control {
    /// The tampering.
    pub tampering: Tampering,
    /// The errors that rejected the copy; empty means a trap.
    pub rejected_by: Vec<Problem>,
}

impl Control {
    /// True when the tampered copy passed: the schema does not constrain what it seems to.
    pub fn is_trap(&self) -> bool {
        self.rejected_by.is_empty()
    }
}

/// Judges `tampering` of `result` with [`judge::tool_result`] for `tool` (the same judgement,
/// the same cached validator, that judged the real result). `None` when the patch does not
/// apply (it was derived from another result).
pub fn control(
    era: Era,
    result: &Value,
    tool: Option<&Value>,
    tampering: &Tampering,
) -> Option<Control> {
    let tampered = tampering.apply(result)?;
    let rejected_by = judge::tool_result(era, &tampered, tool)
        .into_iter()
        .filter(|p| p.level == Level::Error)
        .collect();
    Some(Control {
        tampering: tampering.clone(),
        rejected_by,
    })
}

/// The tamperings of `result` (a `tools/call` result) that `output_schema` must reject, in a
/// stable order: `structuredContent` removed first, then field by field as the walk meets them.
/// Empty when the result has no `structuredContent` to tamper with.
pub fn tamperings(output_schema: &Value, result: &Value) -> Vec<Tampering> {
    let Some(real) = result.get("structuredContent") else {
        return Vec::new();
    };
    let mut walk = Walk {
        root: output_schema,
        old_refs: matches!(
            Dialect::of(output_schema),
            Ok(Dialect::Draft4 | Dialect::Draft6 | Dialect::Draft7)
        ),
        draft4: Dialect::of(output_schema) == Ok(Dialect::Draft4),
        out: Vec::new(),
    };
    walk.push(Tampering {
        kind: TamperKind::NoStructuredContent,
        field: String::new(),
        schema_path: String::new(),
        description: "`structuredContent` removed".into(),
        patch: vec![PatchOp::Remove {
            path: "/structuredContent".into(),
        }],
        note: None,
    });
    walk.node(output_schema, "", real, "", 0);
    walk.out
}

struct Walk<'a> {
    root: &'a Value,
    /// Drafts 4–7: keywords beside a `$ref` are ignored by the validator. The walk reads them
    /// anyway (the author wrote them, so the schema *seems* to say them) and notes why a
    /// tampering of one passes.
    old_refs: bool,
    /// Draft 4: `exclusiveMinimum`/`exclusiveMaximum` are booleans modifying the bounds.
    draft4: bool,
    out: Vec<Tampering>,
}

/// `field` for messages: `` `city` ``, `` `items/0/name` ``, or `the whole value`.
fn named(field: &str) -> String {
    match field.strip_prefix('/') {
        Some(f) => format!("`{f}`"),
        None => "the whole `structuredContent`".to_owned(),
    }
}

fn replace(field: &str, value: Value) -> Vec<PatchOp> {
    vec![PatchOp::Replace {
        path: format!("/structuredContent{field}"),
        value,
    }]
}

impl Walk<'_> {
    fn push(&mut self, t: Tampering) {
        if self.out.len() < MAX_TAMPERINGS
            && !self
                .out
                .iter()
                .any(|o| o.patch == t.patch && o.kind == t.kind)
        {
            self.out.push(t);
        }
    }

    fn node(&mut self, schema: &Value, sp: &str, value: &Value, field: &str, depth: usize) {
        if depth > MAX_DEPTH || self.out.len() >= MAX_TAMPERINGS {
            return;
        }
        let Some(s) = schema.as_object() else {
            return;
        };
        if let Some(pointer) = s
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|t| t.strip_prefix('#'))
            && let Some(resolved) = resolve_pointer(self.root, pointer)
        {
            self.node(resolved, pointer, value, field, depth + 1);
        }
        let before = self.out.len();
        if let Some(Value::Array(all)) = s.get("allOf") {
            for (i, b) in all.iter().enumerate() {
                self.node(b, &format!("{sp}/allOf/{i}"), value, field, depth + 1);
            }
        }
        for kw in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = s.get(kw) {
                for (i, b) in branches.iter().enumerate() {
                    if self.satisfies(b, value) {
                        self.node(b, &format!("{sp}/{kw}/{i}"), value, field, depth + 1);
                    }
                }
            }
        }
        self.types(s, sp, field);
        self.choices(s, sp, value, field);
        match value {
            Value::Object(map) => self.object(s, sp, map, field, depth),
            Value::Array(items) => self.array(s, sp, items, field, depth),
            Value::Number(_) => self.number(s, sp, value, field),
            Value::String(text) => self.string(s, sp, text, field),
            _ => {}
        }
        if self.old_refs && s.contains_key("$ref") {
            for t in &mut self.out[before..] {
                let here = t
                    .schema_path
                    .rsplit_once('/')
                    .is_some_and(|(at, _)| at == sp);
                if here && t.note.is_none() {
                    t.note = Some(
                        "drafts 4 to 7 ignore every keyword beside `$ref`, so this one is never applied"
                            .into(),
                    );
                }
            }
        }
    }

    /// Whether `value` validates against `branch` (compiled with the root's definitions, so
    /// its local `$ref`s resolve); `false` when it cannot be compiled alone.
    fn satisfies(&self, branch: &Value, value: &Value) -> bool {
        let Some(b) = branch.as_object() else {
            return branch.as_bool() == Some(true);
        };
        let mut merged = Map::new();
        if let Some(root) = self.root.as_object() {
            for key in ["$schema", "$defs", "definitions"] {
                if let Some(v) = root.get(key) {
                    merged.insert(key.into(), v.clone());
                }
            }
        }
        for (k, v) in b {
            merged.insert(k.clone(), v.clone());
        }
        compile(&Value::Object(merged), Options::default()).is_ok_and(|c| c.is_valid(value))
    }

    fn types(&mut self, s: &Map<String, Value>, sp: &str, field: &str) {
        let node = Value::Object(s.clone());
        let types = declared_types(&node);
        if types.is_empty() {
            return;
        }
        if let Some(wrong) = wrong_type(&types) {
            self.push(Tampering {
                kind: TamperKind::WrongType,
                field: field.to_owned(),
                schema_path: format!("{sp}/type"),
                description: format!(
                    "{} given {wrong} (its type is {})",
                    named(field),
                    types.join(" or ")
                ),
                patch: replace(field, wrong),
                note: None,
            });
        }
    }

    fn choices(&mut self, s: &Map<String, Value>, sp: &str, value: &Value, field: &str) {
        if let Some(Value::Array(allowed)) = s.get("enum")
            && let Some(v) = outside(allowed, value)
        {
            self.push(Tampering {
                kind: TamperKind::OutOfEnum,
                field: field.to_owned(),
                schema_path: format!("{sp}/enum"),
                description: format!("{} set to {v}, outside its `enum`", named(field)),
                patch: replace(field, v),
                note: None,
            });
        }
        if let Some(c) = s.get("const")
            && let Some(v) = outside(std::slice::from_ref(c), value)
        {
            self.push(Tampering {
                kind: TamperKind::NotConst,
                field: field.to_owned(),
                schema_path: format!("{sp}/const"),
                description: format!("{} set to {v}, not its `const`", named(field)),
                patch: replace(field, v),
                note: None,
            });
        }
    }

    fn object(
        &mut self,
        s: &Map<String, Value>,
        sp: &str,
        map: &Map<String, Value>,
        field: &str,
        depth: usize,
    ) {
        let properties = s.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(required)) = s.get("required") {
            for r in required.iter().filter_map(Value::as_str) {
                if map.contains_key(r) {
                    let at = format!("{field}/{}", escape(r));
                    self.push(Tampering {
                        kind: TamperKind::RequiredRemoved,
                        field: at.clone(),
                        schema_path: format!("{sp}/required"),
                        description: format!("{} removed (it is required)", named(&at)),
                        patch: vec![PatchOp::Remove {
                            path: format!("/structuredContent{at}"),
                        }],
                        note: None,
                    });
                }
            }
        }
        for keyword in ["additionalProperties", "unevaluatedProperties"] {
            if s.get(keyword) == Some(&Value::Bool(false))
                && let Some(name) = extra_name(&Value::Object(s.clone()))
                && !map.contains_key(&name)
            {
                let at = format!("{field}/{}", escape(&name));
                self.push(Tampering {
                    kind: TamperKind::ExtraProperty,
                    field: at.clone(),
                    schema_path: format!("{sp}/{keyword}"),
                    description: format!(
                        "{} added to {} (`{keyword}` is false)",
                        named(&at),
                        named(field)
                    ),
                    patch: vec![PatchOp::Add {
                        path: format!("/structuredContent{at}"),
                        value: Value::String("mcpseal: unexpected".into()),
                    }],
                    note: None,
                });
            }
        }
        if let Some(properties) = properties {
            for (k, sub) in properties {
                if let Some(v) = map.get(k) {
                    let key = escape(k);
                    self.node(
                        sub,
                        &format!("{sp}/properties/{key}"),
                        v,
                        &format!("{field}/{key}"),
                        depth + 1,
                    );
                }
            }
        }
    }

    fn array(
        &mut self,
        s: &Map<String, Value>,
        sp: &str,
        items: &[Value],
        field: &str,
        depth: usize,
    ) {
        if let Some(n) = s.get("minItems").and_then(Value::as_u64)
            && n > 0
            && items.len() as u64 >= n
        {
            let fewer: Vec<Value> = items.iter().take((n - 1) as usize).cloned().collect();
            self.push(Tampering {
                kind: TamperKind::TooFewItems,
                field: field.to_owned(),
                schema_path: format!("{sp}/minItems"),
                description: format!(
                    "{} cut to {} items (`minItems` is {n})",
                    named(field),
                    n - 1
                ),
                patch: replace(field, Value::Array(fewer)),
                note: None,
            });
        }
        if let Some(n) = s.get("maxItems").and_then(Value::as_u64)
            && n < MAX_BUILT
            && let Some(last) = items.last()
            && items.len() as u64 <= n
        {
            let mut more = items.to_vec();
            while (more.len() as u64) <= n {
                more.push(last.clone());
            }
            self.push(Tampering {
                kind: TamperKind::TooManyItems,
                field: field.to_owned(),
                schema_path: format!("{sp}/maxItems"),
                description: format!(
                    "{} grown to {} items (`maxItems` is {n})",
                    named(field),
                    n + 1
                ),
                patch: replace(field, Value::Array(more)),
                note: None,
            });
        }
        if let (Some(item_schema @ Value::Object(_)), Some(first)) = (s.get("items"), items.first())
        {
            self.node(
                item_schema,
                &format!("{sp}/items"),
                first,
                &format!("{field}/0"),
                depth + 1,
            );
        }
    }

    fn number(&mut self, s: &Map<String, Value>, sp: &str, value: &Value, field: &str) {
        let node = Value::Object(s.clone());
        let types = declared_types(&node);
        // Integers are numbers too: an integer tampering suits `integer` and `number` alike,
        // while a fraction would be rejected by `type: integer` instead of the bound.
        let integer = types.contains(&"integer") || value.is_i64() || value.is_u64();
        let bound = |k: &str| s.get(k).and_then(Value::as_f64);
        let draft4_exclusive = |k: &str| self.draft4 && s.get(k) == Some(&Value::Bool(true));
        let min_exclusive = draft4_exclusive("exclusiveMinimum");
        let max_exclusive = draft4_exclusive("exclusiveMaximum");
        let mut found: Vec<(TamperKind, &str, f64, String)> = Vec::new();
        if let Some(m) = bound("minimum") {
            if min_exclusive {
                let t = if integer { m.floor() } else { m };
                found.push((
                    TamperKind::AtExclusiveMinimum,
                    "minimum",
                    t,
                    format!("at its exclusive `minimum` {m}"),
                ));
            } else {
                let t = if integer { m.ceil() - 1.0 } else { m - 1.0 };
                if t < m {
                    found.push((
                        TamperKind::BelowMinimum,
                        "minimum",
                        t,
                        format!("below its `minimum` {m}"),
                    ));
                }
            }
        }
        if let Some(m) = bound("maximum") {
            if max_exclusive {
                let t = if integer { m.ceil() } else { m };
                found.push((
                    TamperKind::AtExclusiveMaximum,
                    "maximum",
                    t,
                    format!("at its exclusive `maximum` {m}"),
                ));
            } else {
                let t = if integer { m.floor() + 1.0 } else { m + 1.0 };
                if t > m {
                    found.push((
                        TamperKind::AboveMaximum,
                        "maximum",
                        t,
                        format!("above its `maximum` {m}"),
                    ));
                }
            }
        }
        if let Some(e) = bound("exclusiveMinimum") {
            let t = if integer { e.floor() } else { e };
            found.push((
                TamperKind::AtExclusiveMinimum,
                "exclusiveMinimum",
                t,
                format!("not above its `exclusiveMinimum` {e}"),
            ));
        }
        if let Some(e) = bound("exclusiveMaximum") {
            let t = if integer { e.ceil() } else { e };
            found.push((
                TamperKind::AtExclusiveMaximum,
                "exclusiveMaximum",
                t,
                format!("not below its `exclusiveMaximum` {e}"),
            ));
        }
        if let (Some(k), Some(v)) = (bound("multipleOf"), value.as_f64())
            && k > 0.0
        {
            let t = if integer { v + 1.0 } else { v + k / 2.0 };
            if (t / k).fract() != 0.0 {
                found.push((
                    TamperKind::NotMultipleOf,
                    "multipleOf",
                    t,
                    format!("not a multiple of {k}"),
                ));
            }
        }
        for (kind, keyword, t, why) in found {
            if let Some(t) = number(t, integer) {
                self.push(Tampering {
                    kind,
                    field: field.to_owned(),
                    schema_path: format!("{sp}/{keyword}"),
                    description: format!("{} set to {t}, {why}", named(field)),
                    patch: replace(field, t),
                    note: None,
                });
            }
        }
    }

    fn string(&mut self, s: &Map<String, Value>, sp: &str, text: &str, field: &str) {
        let len = text.chars().count() as u64;
        if let Some(n) = s.get("minLength").and_then(Value::as_u64)
            && n > 0
            && len >= n
        {
            let short: String = text.chars().take((n - 1) as usize).collect();
            self.push(Tampering {
                kind: TamperKind::TooShort,
                field: field.to_owned(),
                schema_path: format!("{sp}/minLength"),
                description: format!(
                    "{} cut to {} character{} (`minLength` is {n})",
                    named(field),
                    n - 1,
                    if n == 2 { "" } else { "s" }
                ),
                patch: replace(field, Value::String(short)),
                note: None,
            });
        }
        if let Some(n) = s.get("maxLength").and_then(Value::as_u64)
            && n < MAX_BUILT
            && len <= n
        {
            let pad = text.chars().last().unwrap_or('x');
            let mut long = text.to_owned();
            for _ in len..=n {
                long.push(pad);
            }
            self.push(Tampering {
                kind: TamperKind::TooLong,
                field: field.to_owned(),
                schema_path: format!("{sp}/maxLength"),
                description: format!(
                    "{} grown to {} characters (`maxLength` is {n})",
                    named(field),
                    n + 1
                ),
                patch: replace(field, Value::String(long)),
                note: None,
            });
        }
        let (min, max) = (
            s.get("minLength").and_then(Value::as_u64),
            s.get("maxLength").and_then(Value::as_u64),
        );
        if let Some(pattern) = s.get("pattern").and_then(Value::as_str)
            && let Some((t, fits)) = not_matching(pattern, text, min, max)
        {
            self.push(Tampering {
                kind: TamperKind::PatternMismatch,
                field: field.to_owned(),
                schema_path: format!("{sp}/pattern"),
                description: format!(
                    "{} set to {}, which its `pattern` does not match",
                    named(field),
                    Value::String(t.clone())
                ),
                patch: replace(field, Value::String(t)),
                note: (!fits).then(|| {
                    "no string the pattern refuses keeps within `minLength`/`maxLength`, so the length may be what rejects this one".to_owned()
                }),
            });
        }
    }
}

#[cfg(test)]
mod tests;
