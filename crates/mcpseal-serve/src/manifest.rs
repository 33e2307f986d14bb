//! The `sha256sum` manifest: `<64 hex digits><space><space or *><path>`, one line per file.
//!
//! Accepted as GNU `sha256sum` writes it: text (`  `) and binary (` *`) separators, a leading
//! `./` on paths (from `find . -type f | xargs sha256sum`). Refused: a malformed line (named by
//! number), the escaped form sha256sum writes for names with `\\` or a newline (such names are
//! not site paths), an absolute path or one with `..`, the same path twice with different
//! digests, and an empty manifest (it would vouch for nothing, which must not read as "all
//! good").

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

/// A parsed manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    entries: BTreeMap<String, String>,
    sha256: String,
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    out
}

impl Manifest {
    /// Parses manifest bytes.
    ///
    /// # Errors
    /// A message naming the first bad line, or saying the manifest is empty.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, String> {
        let text =
            std::str::from_utf8(bytes).map_err(|_| "the manifest is not UTF-8 text".to_owned())?;
        let mut entries = BTreeMap::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let bad = |why: &str| format!("line {}: {why}: `{}`", n + 1, cut(line));
            if line.starts_with('\\') {
                return Err(bad(
                    "an escaped file name (with `\\` or a newline) is not a site path",
                ));
            }
            let (hex, rest) = line
                .split_at_checked(64)
                .ok_or_else(|| bad("too short for a digest"))?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad("not a 64-digit hex SHA-256"));
            }
            let path = rest
                .strip_prefix("  ")
                .or_else(|| rest.strip_prefix(" *"))
                .ok_or_else(|| bad("expected two spaces (or ` *`) between digest and path"))?;
            let path = normalise(path).ok_or_else(|| bad("not a relative path inside the site"))?;
            let hex = hex.to_ascii_lowercase();
            if let Some(old) = entries.insert(path.clone(), hex.clone())
                && old != hex
            {
                return Err(bad("the same path listed twice with different digests"));
            }
        }
        if entries.is_empty() {
            return Err("the manifest lists no files".into());
        }
        Ok(Manifest {
            entries,
            sha256: sha256_hex(bytes),
        })
    }

    /// The digest the manifest lists for `path`.
    pub fn get(&self, path: &str) -> Option<&str> {
        self.entries.get(path).map(String::as_str)
    }

    /// Every `(path, digest)`, sorted by path.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(p, d)| (p.as_str(), d.as_str()))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Never true for a parsed manifest (an empty one is refused).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// SHA-256 of the manifest's own bytes (what its signature covers).
    pub fn sha256(&self) -> &str {
        &self.sha256
    }
}

fn cut(s: &str) -> String {
    s.chars().take(80).collect()
}

/// `./a/b` → `a/b`; `None` for absolute paths, `..`, empty segments or control characters.
pub(crate) fn normalise(path: &str) -> Option<String> {
    let path = path.strip_prefix("./").unwrap_or(path);
    let ok = !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && !path.chars().any(char::is_control)
        && path
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..");
    ok.then(|| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    #[test]
    fn parses_what_sha256sum_writes() {
        let text = format!(
            "{A}  ./index.html\n{} *api/v1/a.json\r\n\n{A}  b c.json\n",
            A.to_uppercase()
        );
        let m = Manifest::parse(text.as_bytes()).expect("valid");
        assert_eq!(m.get("index.html"), Some(A));
        assert_eq!(m.get("api/v1/a.json"), Some(A), "lowercased, binary mode");
        assert_eq!(m.get("b c.json"), Some(A));
        assert_eq!(m.len(), 3);
        assert_eq!(m.sha256(), sha256_hex(text.as_bytes()));
        assert_eq!(sha256_hex(b"hello"), A);
    }

    #[test]
    fn refuses_what_would_vouch_for_the_wrong_thing() {
        for bad in [
            String::new(),
            "\n\n".into(),
            format!("{A} one-space"),
            format!("{}  x", &A[..63]),
            format!("{A}  /etc/passwd"),
            format!("{A}  a/../b"),
            format!("{A}  a//b"),
            format!("\\{A}  a\\nb"),
            format!("{A}  x\n{}  x", A.replace('2', "3")),
        ] {
            assert!(Manifest::parse(bad.as_bytes()).is_err(), "{bad:?}");
        }
        let e = Manifest::parse(format!("{A}  ok\nnonsense").as_bytes()).err();
        assert!(e.is_some_and(|e| e.starts_with("line 2:")));
    }

    #[test]
    fn the_real_vector_parses() {
        let bytes = include_bytes!("../tests/data/sigstore/site.sha256");
        let m = Manifest::parse(bytes).expect("the bounded-systems manifest");
        assert_eq!(m.len(), 42);
        assert_eq!(
            m.sha256(),
            "75386a73066f8cc0c5d022ce8d739dcc54ea76cde5ad8680a8482a90bb5be895"
        );
    }
}
