//! The values a tampering puts in: each one chosen so that the keyword it targets must reject
//! it (a value outside a bound that still has the right type, a string that fails the pattern
//! by the validator's own regex engine), so a tampered value that passes is a real trap, never
//! a badly chosen value.

use serde_json::{Number, Value, json};

use crate::compile::{Options, compile};
use crate::judge::same_json;

/// The JSON types a `type` keyword declares (`"string"`, or each of `["string", "null"]`).
pub(crate) fn declared_types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a value of JSON type `t` is `v`.
fn accepts(t: &str, v: &Value) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => true,
    }
}

/// The first of `"mcpseal: wrong type"`, `0`, `true`, `[]`, `{}`, `null` that none of `types`
/// accepts (so `["string", "null"]` gets `0`, a non-null wrong type); `None` when every type
/// is allowed.
pub(crate) fn wrong_type(types: &[&str]) -> Option<Value> {
    [
        json!("mcpseal: wrong type"),
        json!(0),
        json!(true),
        json!([]),
        json!({}),
        Value::Null,
    ]
    .into_iter()
    .find(|c| !types.iter().any(|t| accepts(t, c)))
}

/// A value outside `allowed`: of `like`'s type when one can be made, else a string.
pub(crate) fn outside(allowed: &[Value], like: &Value) -> Option<Value> {
    let numbers = allowed.iter().filter_map(Value::as_f64);
    let biggest = numbers.fold(like.as_f64().unwrap_or(0.0), f64::max);
    let mut candidates = Vec::new();
    match like {
        Value::Bool(b) => candidates.push(json!(!b)),
        Value::Number(_) if biggest.abs() < 1e15 => {
            // An integer stays an integer, so `type: integer` beside the enum still holds.
            candidates.push(json!(biggest.floor() as i64 + 1));
        }
        _ => {}
    }
    for n in 0..4 {
        candidates.push(json!(format!("mcpseal: not allowed{}", "!".repeat(n))));
    }
    candidates
        .into_iter()
        .find(|c| !allowed.iter().any(|a| same_json(a, c)))
}

/// A JSON number for `f`, as an integer when `integer` (and it is whole).
pub(crate) fn number(f: f64, integer: bool) -> Option<Value> {
    if !f.is_finite() {
        return None;
    }
    if integer {
        if f.fract() != 0.0 || f.abs() > 9.0e15 {
            return None;
        }
        return Some(json!(f as i64));
    }
    Number::from_f64(f).map(Value::Number)
}

/// A string that `pattern` does not match, by the validator's own engine, and whether it keeps
/// within the `[min, max]` length bounds beside the pattern.
///
/// Why the bounds: a string that breaks `minLength` too is rejected whether or not the pattern
/// constrains anything, so its rejection would prove nothing about the pattern. A candidate
/// inside the bounds is preferred; one outside them is returned only when none fits (`false`),
/// so the caller can say so.
pub(crate) fn not_matching(
    pattern: &str,
    real: &str,
    min: Option<u64>,
    max: Option<u64>,
) -> Option<(String, bool)> {
    let schema = json!({"type": "string", "pattern": pattern});
    let check = compile(&schema, Options::default()).ok()?;
    // A filler as long as the bounds ask (capped: a bound this large is never built).
    let want = min.unwrap_or(1).clamp(1, 4096) as usize;
    let mut candidates = vec![
        String::new(),
        " ".to_owned(),
        "mcpseal: does not match".to_owned(),
        "\u{1}".to_owned(),
        "0".to_owned(),
        "~".to_owned(),
        format!("{real}\u{1}"),
        format!("\u{1}{real}"),
        real.chars().rev().collect(),
    ];
    for c in [' ', '\u{1}', '0', '~', 'a', 'A'] {
        candidates.push(std::iter::repeat_n(c, want).collect());
    }
    let fits = |c: &str| {
        let n = c.chars().count() as u64;
        min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m)
    };
    let failing: Vec<String> = candidates
        .into_iter()
        .filter(|c| !check.is_valid(&Value::String(c.clone())))
        .collect();
    if let Some(c) = failing.iter().find(|c| fits(c)) {
        return Some((c.clone(), true));
    }
    failing.into_iter().next().map(|c| (c, false))
}

/// A property name that no `patternProperties` key matches and `properties` does not list.
pub(crate) fn extra_name(schema: &Value) -> Option<String> {
    let listed = schema.get("properties").and_then(Value::as_object);
    let patterns: Vec<&str> = schema
        .get("patternProperties")
        .and_then(Value::as_object)
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let matchers: Vec<_> = patterns
        .iter()
        .filter_map(|p| compile(&json!({"pattern": p}), Options::default()).ok())
        .collect();
    if matchers.len() != patterns.len() {
        return None;
    }
    ["mcpsealUnexpected", "mcpseal-unexpected", "~", "\u{1}"]
        .into_iter()
        .find(|name| {
            !listed.is_some_and(|l| l.contains_key(*name))
                && !matchers.iter().any(|m| m.is_valid(&json!(name)))
        })
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_types_are_never_accepted() {
        assert_eq!(wrong_type(&["string"]), Some(json!(0)));
        assert_eq!(wrong_type(&["string", "null"]), Some(json!(0)));
        assert_eq!(wrong_type(&["integer"]), Some(json!("mcpseal: wrong type")));
        assert_eq!(
            wrong_type(&["string", "number", "boolean", "array", "object", "null"]),
            None
        );
    }

    #[test]
    fn values_outside_a_set_keep_the_type_when_they_can() {
        assert_eq!(outside(&[json!(1), json!(2)], &json!(1)), Some(json!(3)));
        assert_eq!(outside(&[json!(true)], &json!(true)), Some(json!(false)));
        assert_eq!(
            outside(&[json!("a")], &json!("a")),
            Some(json!("mcpseal: not allowed"))
        );
        assert_eq!(number(0.5, true), None);
        assert_eq!(number(2.0, true), Some(json!(2)));
    }

    #[test]
    fn strings_and_names_dodge_their_patterns() {
        assert_eq!(
            not_matching("^[A-Z]", "Lisbon", None, None),
            Some((String::new(), true))
        );
        // Within the length bounds beside the pattern, so only the pattern can reject it.
        assert_eq!(
            not_matching("^[A-Z]", "Lisbon", Some(2), Some(40)),
            Some(("mcpseal: does not match".to_owned(), true))
        );
        assert_eq!(
            not_matching("^[A-Z]", "Lisbon", Some(30), Some(30)),
            Some((" ".repeat(30), true))
        );
        // None fits (every string of length 1 matches): the nearest, said to be outside.
        assert_eq!(
            not_matching("^.$", "x", Some(1), Some(1)),
            Some((String::new(), false))
        );
        assert_eq!(not_matching(".*", "x", None, None), None);
        let s = json!({"properties": {"mcpsealUnexpected": {}}, "patternProperties": {"^mcpseal-": {}}});
        assert_eq!(extra_name(&s), Some("~".to_owned()));
    }
}
