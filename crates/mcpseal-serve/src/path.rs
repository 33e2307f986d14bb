//! Path templates (`posts/{slug}.json`) and URI templates (`site://posts/{slug}`): filling them
//! safely, and matching a URI back to its variables.
//!
//! A variable fills part of one path segment, never more: a value with `/` or `\`, a value that
//! is `.` or `..`, an empty value or one with control characters is refused, so no argument can
//! walk out of the site or name an absolute path. The filled path is the manifest key as is
//! (`posts/hello world.json`); the fetch URL percent-encodes it segment by segment.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// A parsed template: literal text and `{name}` variables, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Var(String),
}

impl Template {
    /// Parses `text`: `{name}` with `name` of `A-Za-z0-9_`, no nesting, no RFC 6570 operators.
    ///
    /// # Errors
    /// A message saying what is wrong with the template.
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            if rest[..open].contains('}') {
                return Err(format!("unbalanced `}}` in `{text}`"));
            }
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let close = after
                .find('}')
                .ok_or_else(|| format!("unclosed `{{` in `{text}`"))?;
            let name = &after[..close];
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(format!(
                    "`{{{name}}}` in `{text}` is not a variable (letters, digits and `_`; RFC 6570 operators are not supported)"
                ));
            }
            if matches!(parts.last(), Some(Part::Var(_))) {
                return Err(format!(
                    "two variables in a row in `{text}` cannot be told apart"
                ));
            }
            parts.push(Part::Var(name.to_owned()));
            rest = &after[close + 1..];
        }
        if rest.contains('}') {
            return Err(format!("unbalanced `}}` in `{text}`"));
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(Template { parts })
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var(v) => Some(v.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// Fills the template from `args` (strings, integers and booleans; numbers as written).
    ///
    /// # Errors
    /// A message naming the variable that is missing or whose value is refused.
    pub fn fill(&self, args: &Map<String, Value>) -> Result<String, String> {
        let mut out = String::with_capacity(64);
        for part in &self.parts {
            match part {
                Part::Literal(l) => out.push_str(l),
                Part::Var(name) => {
                    let value: Cow<'_, str> = match args.get(name) {
                        Some(Value::String(s)) => Cow::Borrowed(s),
                        Some(v @ (Value::Number(_) | Value::Bool(_))) => Cow::Owned(v.to_string()),
                        Some(_) => {
                            return Err(format!(
                                "`{name}` must be a string, a number or a boolean"
                            ));
                        }
                        None => return Err(format!("`{name}` is missing")),
                    };
                    check_value(name, &value)?;
                    out.push_str(&value);
                }
            }
        }
        Ok(out)
    }

    /// Matches `text` against the template, returning each variable's (percent-decoded) value;
    /// `None` when it does not match or a value is refused.
    pub fn matches(&self, text: &str) -> Option<Map<String, Value>> {
        let mut vars = Map::new();
        let mut rest = text;
        let mut parts = self.parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(l) => rest = rest.strip_prefix(l.as_str())?,
                Part::Var(name) => {
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let value = percent_decode(&rest[..end])?;
                    check_value(name, &value).ok()?;
                    vars.insert(name.clone(), Value::String(value));
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(vars)
    }
}

fn check_value(name: &str, value: &str) -> Result<(), String> {
    if value.is_empty() || value == "." || value == ".." {
        return Err(format!("`{name}` may not be `{value}`"));
    }
    if value.contains(['/', '\\']) || value.chars().any(char::is_control) {
        return Err(format!(
            "`{name}` may not contain `/`, `\\` or control characters (it fills one path segment)"
        ));
    }
    Ok(())
}

/// Percent-encodes one path for a URL: every byte outside RFC 3986 unreserved characters and
/// `/` becomes `%XX`.
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b & 15)]));
        }
    }
    out
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Joins the API prefix and a filled path into the manifest key, refusing anything that is not a
/// plain relative path inside the site.
pub fn site_path(prefix: &str, path: &str) -> Result<String, String> {
    let joined: Cow<'_, str> = match prefix.trim_matches('/') {
        "" => Cow::Borrowed(path),
        p => Cow::Owned(format!("{p}/{path}")),
    };
    crate::manifest::normalise(&joined)
        .ok_or_else(|| format!("`{joined}` is not a relative path inside the site"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn fills_and_refuses() {
        let t = Template::parse("posts/{slug}.json").expect("template");
        assert_eq!(t.variables().collect::<Vec<_>>(), ["slug"]);
        assert_eq!(
            t.fill(&args(json!({"slug": "hello world"}))).as_deref(),
            Ok("posts/hello world.json")
        );
        assert_eq!(
            t.fill(&args(json!({"slug": 7}))).as_deref(),
            Ok("posts/7.json")
        );
        for bad in [
            json!({}),
            json!({"slug": ".."}),
            json!({"slug": "a/b"}),
            json!({"slug": ""}),
            json!({"slug": ["x"]}),
            json!({"slug": "a\\b"}),
        ] {
            assert!(t.fill(&args(bad.clone())).is_err(), "{bad}");
        }
        for bad in ["a{", "a}", "{a}{b}", "{a b}", "{+path}"] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            encode_path("posts/hello world%.json"),
            "posts/hello%20world%25.json"
        );
        assert_eq!(
            site_path("api/v1/", "posts/x.json").as_deref(),
            Ok("api/v1/posts/x.json")
        );
        assert!(site_path("", "/etc/passwd").is_err() && site_path("../x", "y").is_err());
    }

    #[test]
    fn matches_uris_back_to_variables() {
        let t = Template::parse("site://posts/{slug}").expect("template");
        assert_eq!(
            t.matches("site://posts/hello%20there"),
            Some(args(json!({"slug": "hello there"})))
        );
        assert_eq!(
            t.matches("site://posts/a%2Fb"),
            None,
            "an encoded slash is still refused"
        );
        assert_eq!(t.matches("site://posts/.."), None);
        assert_eq!(t.matches("site://other/x"), None);
        let t = Template::parse("site://{kind}/{id}.json").expect("template");
        assert_eq!(
            t.matches("site://posts/7.json"),
            Some(args(json!({"kind": "posts", "id": "7"})))
        );
    }
}
