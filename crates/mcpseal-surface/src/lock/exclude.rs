//! Exclusions: parts of a surface left out of the lock's hash, named by JSON Pointer.
//!
//! Syntax: RFC 6901 (`/` separates segments, `~1` is `/`, `~0` is `~`), read against the
//! canonical surface object, with one extension for arrays, whose order is the canonical order
//! rather than anything a person would count on: a segment `KEY=VALUE` under an array selects
//! the element whose member `KEY` equals `VALUE` (a string member compares as its text, any
//! other as its JSON text). A plain number still selects by index.
//!
//! * `/resources`: the whole resource list;
//! * `/tools/name=clock/description`: the `clock` tool's description;
//! * `/resources/uri=fixture:~1~1readme`: one resource (`/` in a value is written `~1`);
//! * `/server/instructions`.
//!
//! Excluding removes the member (or the array element). The root (`""`) cannot be excluded.
//! A pointer that selects nothing removes nothing; the lock workflow refuses such a pointer
//! when it is new, because a typo would otherwise silently exclude nothing.

use std::fmt;

use serde_json::Value;
use thiserror::Error;

/// A parsed exclusion pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    text: String,
    segments: Vec<String>,
}

/// A pointer that is not one.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("`{text}` is not an exclusion pointer: {why}")]
pub struct PointerError {
    /// The text given.
    pub text: String,
    /// What is wrong.
    pub why: String,
}

impl Pointer {
    /// Parses `text` (see the module docs).
    ///
    /// # Errors
    /// [`PointerError`] for an empty pointer, one that does not start with `/`, or a `~` not
    /// followed by `0` or `1`.
    pub fn parse(text: &str) -> Result<Pointer, PointerError> {
        let err = |why: &str| PointerError {
            text: text.to_owned(),
            why: why.to_owned(),
        };
        let Some(rest) = text.strip_prefix('/') else {
            return Err(err(if text.is_empty() {
                "the whole surface cannot be excluded"
            } else {
                "it must start with `/`"
            }));
        };
        let mut segments = Vec::new();
        for raw in rest.split('/') {
            let mut seg = String::with_capacity(raw.len());
            let mut chars = raw.chars();
            while let Some(c) = chars.next() {
                if c == '~' {
                    match chars.next() {
                        Some('0') => seg.push('~'),
                        Some('1') => seg.push('/'),
                        _ => {
                            return Err(err(
                                "`~` must be followed by `0` (for `~`) or `1` (for `/`)",
                            ));
                        }
                    }
                } else {
                    seg.push(c);
                }
            }
            segments.push(seg);
        }
        Ok(Pointer {
            text: text.to_owned(),
            segments,
        })
    }

    /// The pointer as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Removes what the pointer selects from `value`; returns whether anything was removed.
    pub fn remove_from(&self, value: &mut Value) -> bool {
        let Some((last, parents)) = self.segments.split_last() else {
            return false;
        };
        let mut node = value;
        for seg in parents {
            let Some(next) = step(node, seg) else {
                return false;
            };
            node = next;
        }
        match node {
            Value::Object(map) => map.remove(last).is_some(),
            Value::Array(items) => match position(items, last) {
                Some(i) => {
                    items.remove(i);
                    true
                }
                None => false,
            },
            _ => false,
        }
    }

    /// Whether the pointer selects something in `value`.
    pub fn matches(&self, value: &Value) -> bool {
        let mut copy = value.clone();
        self.remove_from(&mut copy)
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn step<'v>(node: &'v mut Value, seg: &str) -> Option<&'v mut Value> {
    match node {
        Value::Object(map) => map.get_mut(seg),
        Value::Array(items) => {
            let i = position(items, seg)?;
            items.get_mut(i)
        }
        _ => None,
    }
}

fn position(items: &[Value], seg: &str) -> Option<usize> {
    if let Some((key, want)) = seg.split_once('=') {
        return items.iter().position(|item| match item.get(key) {
            Some(Value::String(s)) => s == want,
            Some(other) => json_text(other) == want,
            None => false,
        });
    }
    let i: usize = seg.parse().ok()?;
    (i < items.len()).then_some(i)
}

fn json_text(v: &Value) -> String {
    v.to_string()
}

/// `surface` with every pointer's selection removed.
pub fn apply(surface: &Value, pointers: &[Pointer]) -> Value {
    let mut out = surface.clone();
    for p in pointers {
        p.remove_from(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn surface() -> Value {
        json!({"form": "mcpseal/1", "server": {"instructions": "hi"},
               "tools": [{"name": "add", "description": "a"}, {"name": "clock", "description": "t 1"}],
               "resources": [{"uri": "fixture://readme", "name": "readme"}], "prompts": null})
    }

    fn p(s: &str) -> Pointer {
        Pointer::parse(s).expect("valid pointer")
    }

    #[test]
    fn removes_members_and_elements() {
        let s = surface();
        let out = apply(
            &s,
            &[
                p("/tools/name=clock/description"),
                p("/server/instructions"),
            ],
        );
        assert_eq!(out["tools"][1], json!({"name": "clock"}));
        assert_eq!(out["server"], json!({}));
        let out = apply(&s, &[p("/resources/uri=fixture:~1~1readme")]);
        assert_eq!(out["resources"], json!([]));
        let out = apply(&s, &[p("/resources")]);
        assert!(out.get("resources").is_none());
        let out = apply(&s, &[p("/tools/0")]);
        assert_eq!(out["tools"][0]["name"], "clock");
    }

    #[test]
    fn misses_remove_nothing() {
        let s = surface();
        for miss in [
            "/tools/name=nope/description",
            "/nothing",
            "/tools/9",
            "/prompts/name=x",
            "/form/x",
        ] {
            assert!(!p(miss).matches(&s), "{miss}");
            assert_eq!(apply(&s, &[p(miss)]), s);
        }
    }

    #[test]
    fn bad_pointers() {
        for bad in ["", "tools", "/a~2b"] {
            assert!(Pointer::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(p("/a~0b~1c").segments, ["a~b/c"]);
    }
}
