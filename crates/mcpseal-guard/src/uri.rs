//! Does a URI belong to a resource template? (RFC 6570, the expressions MCP servers use.)
//!
//! A `resources/read` of a URI that no listed resource has is allowed only when an approved
//! template produces it. Matching is deliberately narrow, so a URI is never attributed to a
//! template that could not have produced it: literal text must match exactly; `{var}` (simple
//! expansion) matches one or more characters other than `/`, `?` and `#`; `{+var}` and `{#var}`
//! (reserved and fragment expansion) match any characters; `{/var}` matches `/` and a segment;
//! `{.var}` matches `.` and a label; `{?a,b}` and `{&a}` match the rest of a query. Any other
//! operator makes the template match nothing (fail closed).

/// Longest URI judged (longer ones match no template).
pub const MAX_URI: usize = 2048;
/// Most literal and expression parts in a template (more: it matches nothing).
pub const MAX_PARTS: usize = 32;

/// Whether `uri` could have been expanded from `template`.
///
/// Bounded: at most [`MAX_PARTS`] parts and [`MAX_URI`] bytes (beyond either, no match), and each
/// (part, position) pair is judged once, so a hostile template cannot make matching explode.
pub fn matches(template: &str, uri: &str) -> bool {
    let Some(parts) = parse(template) else {
        return false;
    };
    if parts.len() > MAX_PARTS || uri.len() > MAX_URI {
        return false;
    }
    let mut memo = vec![None; (parts.len() + 1) * (uri.len() + 1)];
    Matcher {
        parts: &parts,
        uri: uri.as_bytes(),
        memo: &mut memo,
    }
    .at(0, 0)
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    /// Non-empty, no `/`, `?` or `#`.
    Segment,
    /// Anything (possibly empty).
    Any,
    /// A prefix character then a non-empty run without `/`, `?` or `#` (or nothing).
    Prefixed(u8),
    /// A query: nothing, or `?`/`&` and the rest.
    Query(u8),
}

fn parse(template: &str) -> Option<Vec<Part>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            parts.push(Part::Literal(rest[..open].to_owned()));
        }
        let close = rest[open..].find('}')? + open;
        let expr = &rest[open + 1..close];
        let part = match expr.as_bytes().first()? {
            b'+' | b'#' => Part::Any,
            b'/' => Part::Prefixed(b'/'),
            b'.' => Part::Prefixed(b'.'),
            b'?' => Part::Query(b'?'),
            b'&' => Part::Query(b'&'),
            c if c.is_ascii_alphanumeric() || *c == b'_' => Part::Segment,
            _ => return None,
        };
        parts.push(part);
        rest = &rest[close + 1..];
    }
    if rest.contains('}') {
        return None;
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest.to_owned()));
    }
    Some(parts)
}

fn stop(b: u8) -> bool {
    matches!(b, b'/' | b'?' | b'#')
}

struct Matcher<'a> {
    parts: &'a [Part],
    uri: &'a [u8],
    memo: &'a mut [Option<bool>],
}

impl Matcher<'_> {
    /// Does `parts[i..]` match `uri[pos..]`?
    fn at(&mut self, i: usize, pos: usize) -> bool {
        let slot = i * (self.uri.len() + 1) + pos;
        if let Some(known) = self.memo[slot] {
            return known;
        }
        let result = self.judge(i, pos);
        self.memo[slot] = Some(result);
        result
    }

    fn judge(&mut self, i: usize, pos: usize) -> bool {
        let uri = &self.uri[pos..];
        let Some(part) = self.parts.get(i).cloned() else {
            return uri.is_empty();
        };
        match part {
            Part::Literal(lit) => {
                uri.starts_with(lit.as_bytes()) && self.at(i + 1, pos + lit.len())
            }
            Part::Segment => {
                let run = uri.iter().take_while(|b| !stop(**b)).count();
                (1..=run).any(|n| self.at(i + 1, pos + n))
            }
            Part::Any => (0..=uri.len()).any(|n| self.at(i + 1, pos + n)),
            Part::Prefixed(p) => {
                if self.at(i + 1, pos) {
                    return true;
                }
                if uri.first() != Some(&p) {
                    return false;
                }
                let run = uri[1..]
                    .iter()
                    .take_while(|b| !stop(**b) && **b != p)
                    .count();
                (1..=run).any(|n| self.at(i + 1, pos + 1 + n))
            }
            Part::Query(q) => {
                i + 1 == self.parts.len()
                    && (uri.is_empty() || uri.first() == Some(&q) || uri.first() == Some(&b'&'))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn simple_templates() {
        assert!(matches("fixture://items/{id}", "fixture://items/42"));
        assert!(!matches("fixture://items/{id}", "fixture://items/"));
        assert!(!matches("fixture://items/{id}", "fixture://items/4/2"));
        assert!(!matches("fixture://items/{id}", "fixture://other/42"));
        assert!(matches(
            "test://static/resource/{id}",
            "test://static/resource/7"
        ));
        assert!(matches("file:///{+path}", "file:///etc/hosts"));
        assert!(matches("repo://{owner}/{repo}", "repo://a/b"));
        assert!(!matches("repo://{owner}/{repo}", "repo://a"));
        assert!(matches("x://search{?q,lang}", "x://search?q=a&lang=en"));
        assert!(matches("x://search{?q}", "x://search"));
        assert!(matches("x://a{/seg}", "x://a/b"));
        assert!(matches("x://a{/seg}", "x://a"));
        assert!(!matches("x://a{/seg}", "x://a/b/c"));
    }

    #[test]
    fn broken_templates_match_nothing() {
        assert!(!matches("x://{id", "x://1"));
        assert!(!matches("x://{;id}", "x://;id=1"));
        assert!(!matches("x://}", "x://}"));
    }
}
