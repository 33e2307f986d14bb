//! Server versions: semver, with a leading `v` dropped and PEP 440 versions that map to semver.
//!
//! Why a mapping: a Python server's version comes from `pyproject.toml`, written the PEP 440
//! way (`0.1`, `1.0rc1`), and the lock rules are semver rules. The mapping is only accepted
//! where it keeps PEP 440's order:
//!
//! | PEP 440 | semver | why |
//! |---|---|---|
//! | `0.1`, `1` | `0.1.0`, `1.0.0` | missing release parts are zero |
//! | `1.0a2`, `1.0alpha2` | `1.0.0-alpha.2` | `a < b < rc` holds as `alpha < beta < rc` |
//! | `1.0b1`, `1.0beta1` | `1.0.0-beta.1` | |
//! | `1.0rc1`, `1.0c1`, `1.0pre1`, `1.0preview1` | `1.0.0-rc.1` | PEP 440 spellings of rc |
//! | `1.0.post1`, `1.0-1`, `1.0rev1` | `1.0.0+post.1` | a post-release fixes packaging or docs, never the API: it compares **equal** to `1.0.0`, so a surface change under it is refused like one under `1.0.0` |
//! | `1.0+local.1` | `1.0.0+local.1` | local version = build metadata (ignored in comparisons) |
//! | `1.0.dev3` | refused | PEP 440 puts `dev` before `a`; semver would put `-dev` after `-beta`: no faithful mapping, and a development build should not be locked (use `--server-version`) |
//! | `1!2.0` (epoch), `1.2.3.4` | refused | no semver counterpart |
//!
//! Comparison always ignores build metadata (semver precedence; the `semver` crate's `Ord`
//! would order `+build.5 < +build.6`).

use std::cmp::Ordering;
use std::fmt;

use thiserror::Error;

/// A server version: the text as written, and its semver meaning.
#[derive(Debug, Clone)]
pub struct Version {
    text: String,
    semver: semver::Version,
}

/// A version text that is neither semver nor a PEP 440 version that maps to semver.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("`{text}` is not a semver version: {why}")]
pub struct VersionError {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub why: String,
}

impl Version {
    /// Parses `text`: semver (`1.2.3`, `1.2.3-rc.1+b5`), with one leading `v` dropped, or a
    /// PEP 440 version that maps to semver (see the module docs).
    ///
    /// # Errors
    /// [`VersionError`] when it is neither, saying why.
    pub fn parse(text: &str) -> Result<Version, VersionError> {
        let trimmed = text.trim();
        let body = trimmed
            .strip_prefix('v')
            .or_else(|| trimmed.strip_prefix('V'))
            .unwrap_or(trimmed);
        let err = |why: &str| VersionError {
            text: text.to_owned(),
            why: why.to_owned(),
        };
        if body.is_empty() {
            return Err(err("it is empty"));
        }
        let semver = match semver::Version::parse(body) {
            Ok(v) => v,
            Err(_) => pep440(body).map_err(|why| err(&why))?,
        };
        Ok(Version {
            text: trimmed.to_owned(),
            semver,
        })
    }

    /// The text as written (what the lock stores).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The semver meaning, build metadata included.
    pub fn semver(&self) -> &semver::Version {
        &self.semver
    }

    /// The semver meaning without build metadata: what comparisons use.
    pub fn precedence(&self) -> semver::Version {
        let mut v = self.semver.clone();
        v.build = semver::BuildMetadata::EMPTY;
        v
    }

    /// The compatibility line: the major, or `0.<minor>` in 0.x. A contract break must move to
    /// a new line.
    pub fn line(&self) -> (u64, u64) {
        if self.semver.major == 0 {
            (0, self.semver.minor)
        } else {
            (self.semver.major, 0)
        }
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    /// Semver precedence: build metadata ignored.
    fn cmp(&self, other: &Self) -> Ordering {
        self.precedence().cmp(&other.precedence())
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Maps a PEP 440 version to semver, or says why it cannot.
fn pep440(text: &str) -> Result<semver::Version, String> {
    let mut lower = text.to_ascii_lowercase();
    if let Some((epoch, rest)) = lower.split_once('!') {
        // Epoch 0 is every version's default, so `0!1.2` is `1.2` (found by the `version`
        // fuzz target); any other epoch sorts above all versions without one.
        if epoch.is_empty()
            || !epoch.bytes().all(|b| b.is_ascii_digit())
            || epoch.bytes().any(|b| b != b'0')
        {
            return Err("PEP 440 epochs (`N!`) have no semver counterpart".into());
        }
        lower = rest.to_owned();
    }
    let (public, local) = match lower.split_once('+') {
        Some((p, l)) => (p, Some(l)),
        None => (lower.as_str(), None),
    };
    // A separator after a number leads to something in PEP 440: `1.`, `1.0-` and `1.0rc1.` are
    // not versions (the trimming below would otherwise read them as `1`, `1.0`, `1.0rc1`; found
    // by the `version` fuzz target). After a label it may end the text: `2.rc.` is `2rc0` and
    // `1.0.post.` is `1.0.post0` (an implicit number, as in `packaging`'s grammar).
    if let Some(head) = public.strip_suffix(['.', '-', '_'])
        && !head.ends_with(|c: char| c.is_ascii_alphabetic())
    {
        return Err("a version cannot end with `.`, `-` or `_` after a number".into());
    }
    // Release: digits and dots.
    let release_end = public
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(public.len());
    let release_text = public[..release_end].trim_end_matches('.');
    let mut rest = &public[release_text.len()..];
    let parts: Vec<&str> = release_text.split('.').collect();
    if release_text.is_empty() || parts.iter().any(|p| p.is_empty()) {
        return Err("expected `MAJOR.MINOR.PATCH` (semver) or a PEP 440 version".into());
    }
    if parts.len() > 3 {
        return Err("more than three release numbers have no semver counterpart".into());
    }
    let mut nums = [0u64; 3];
    for (slot, p) in nums.iter_mut().zip(&parts) {
        *slot = p
            .parse()
            .map_err(|_| format!("release number `{p}` is too large"))?;
    }
    let mut pre = None;
    let mut post = None;
    for (names, label) in [
        (&["alpha", "a"][..], "alpha"),
        (&["beta", "b"][..], "beta"),
        (&["preview", "pre", "rc", "c"][..], "rc"),
    ] {
        if pre.is_some() {
            break;
        }
        let trimmed = one_separator(rest, &['.', '-', '_']);
        if let Some(after) = names.iter().find_map(|n| trimmed.strip_prefix(n)) {
            let (n, after) = number(one_separator(after, &['.', '-', '_']));
            pre = Some(format!("{label}.{}", n.unwrap_or(0)));
            rest = after;
        }
    }
    let before_post = rest;
    // `.post1`, `-post1`, `_r1`, `rev1`: any one separator before the label (`8.1b1-r9` is
    // `8.1b1.post9`; found by the `version` fuzz target), else the implicit `-N`.
    if let Some(after) = ["post", "rev", "r"]
        .iter()
        .find_map(|n| one_separator(rest, &['.', '-', '_']).strip_prefix(n))
    {
        let (n, after) = number(one_separator(after, &['.', '-', '_']));
        post = Some(n.unwrap_or(0));
        rest = after;
    } else if let Some(after) = before_post.strip_prefix('-') {
        let (n, after) = number(after);
        if let Some(n) = n {
            post = Some(n);
            rest = after;
        }
    }
    let rest = one_separator(rest, &['.', '-', '_']);
    if rest.starts_with("dev") {
        return Err(
            "PEP 440 development releases (`.devN`) sort before alphas, which semver cannot say; lock a release or pass `--server-version`"
                .into(),
        );
    }
    if !rest.is_empty() {
        return Err(format!(
            "`{rest}` is neither semver nor a PEP 440 pre-release, post-release or local part"
        ));
    }
    let mut build = Vec::new();
    if let Some(n) = post {
        build.push(format!("post.{n}"));
    }
    if let Some(l) = local {
        if l.is_empty() {
            return Err("an empty local version after `+`".into());
        }
        build.push(l.replace(['-', '_'], "."));
    }
    let mut s = format!("{}.{}.{}", nums[0], nums[1], nums[2]);
    if let Some(p) = pre {
        s.push('-');
        s.push_str(&p);
    }
    if !build.is_empty() {
        s.push('+');
        s.push_str(&build.join("."));
    }
    semver::Version::parse(&s).map_err(|e| format!("maps to `{s}`, which semver refuses: {e}"))
}

/// `s` without one leading separator: PEP 440 allows at most one between two parts (`1.-rc1`
/// is not a version; found by the `version` fuzz target, which `trim_start_matches` accepted).
fn one_separator<'a>(s: &'a str, separators: &[char]) -> &'a str {
    match s.chars().next() {
        Some(c) if separators.contains(&c) => &s[c.len_utf8()..],
        _ => s,
    }
}

/// Splits leading digits off `s`.
fn number(s: &str) -> (Option<u64>, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    match s[..end].parse() {
        Ok(n) => (Some(n), &s[end..]),
        // Too large for u64: left unread, so the caller refuses it instead of reading an
        // implicit 0 (`0.1b952785957859527859527785` was `0.1.0-beta.0`; found by fuzzing).
        Err(_) => (None, s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sv(text: &str) -> String {
        Version::parse(text)
            .map(|v| v.semver().to_string())
            .unwrap_or_else(|e| format!("ERR {}", e.why))
    }

    #[test]
    fn semver_and_leading_v() {
        assert_eq!(sv("1.2.3"), "1.2.3");
        assert_eq!(sv("v1.2.3"), "1.2.3");
        assert_eq!(sv("1.2.3-rc.1+build.5"), "1.2.3-rc.1+build.5");
        assert_eq!(
            Version::parse("v2.0.0").map(|v| v.as_str().to_owned()).ok(),
            Some("v2.0.0".to_owned())
        );
    }

    #[test]
    fn pep440_mapping() {
        assert_eq!(sv("0.1"), "0.1.0");
        assert_eq!(sv("1"), "1.0.0");
        assert_eq!(sv("1.0rc1"), "1.0.0-rc.1");
        assert_eq!(sv("1.0a2"), "1.0.0-alpha.2");
        assert_eq!(sv("1.0b1"), "1.0.0-beta.1");
        assert_eq!(sv("1.0.0rc1"), "1.0.0-rc.1");
        assert_eq!(sv("1.0-rc.1"), "1.0.0-rc.1");
        assert_eq!(sv("1.0c1"), "1.0.0-rc.1");
        assert_eq!(sv("1.0.post1"), "1.0.0+post.1");
        assert_eq!(sv("1.0-1"), "1.0.0+post.1");
        assert_eq!(sv("1.0+ubuntu-1"), "1.0.0+ubuntu.1");
        assert_eq!(sv("2.0rc1.post2"), "2.0.0-rc.1+post.2");
        // A separator may end the text after a label (an implicit 0), as PEP 440 allows.
        assert_eq!(sv("v2.rc."), "2.0.0-rc.0");
        assert_eq!(sv("1.0.post."), "1.0.0+post.0");
        assert_eq!(sv("8.1b1-r9"), "8.1.0-beta.1+post.9");
        assert_eq!(sv("0!3"), "3.0.0");
    }

    #[test]
    fn refused() {
        for bad in [
            "1.0.dev3",
            "1!2.0",
            "1.2.3.4",
            "",
            "latest",
            "1.x",
            "1..2",
            "1.0foo",
            "1.",
            "1.0-",
            "1.0rc1.",
            "1.0_",
            "1.0.post1.",
        ] {
            assert!(
                sv(bad).starts_with("ERR"),
                "{bad} should be refused: {}",
                sv(bad)
            );
        }
        let e = Version::parse("1.0.dev3").err().map(|e| e.to_string());
        assert!(e.is_some_and(|m| m.contains("development releases")));
    }

    #[test]
    fn order_ignores_build_metadata() {
        let p = |s| Version::parse(s).expect("valid");
        assert_eq!(p("1.0.0+build.5"), p("1.0.0+build.6"));
        assert_eq!(p("1.0.post1"), p("1.0.0"));
        assert!(p("1.0a1") < p("1.0b1"));
        assert!(p("1.0b1") < p("1.0rc1"));
        assert!(p("1.0rc1") < p("1.0"));
        assert!(p("0.4.0") < p("0.4.1"));
        assert_eq!(p("0.4.9").line(), (0, 4));
        assert_eq!(p("3.1.0").line(), (3, 0));
    }
}
