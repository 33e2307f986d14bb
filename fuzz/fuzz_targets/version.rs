//! Server versions (`mcpseal_surface::lock::Version`: semver, a leading `v`, PEP 440 mapped to
//! semver) on arbitrary UTF-8, one text or two separated by a NUL byte. Besides "no panic":
//!
//! * the mapping is idempotent: the semver a text maps to parses again (as semver) to itself,
//!   and the text as stored (`as_str`) parses to the same semver;
//! * ordering is semver precedence with build metadata ignored, and `Eq` agrees with it;
//! * a text that is not semver is accepted only if PEP 440 (uv's `pep440_rs`) accepts it too,
//!   without an epoch, a dev part or more than three release numbers, and it maps to exactly
//!   that release, pre-release and post-release; every PEP 440 version of that kind is
//!   accepted;
//! * for two such texts the mapping keeps PEP 440's order, as the docs claim: post-releases
//!   and local versions compare equal to their release (`1.0.post1 == 1.0`), everything else
//!   is PEP 440's order.
#![no_main]

use std::cmp::Ordering;
use std::str::FromStr;

use libfuzzer_sys::fuzz_target;
use mcpseal_surface::lock::Version;
use pep440_rs::{PrereleaseKind, Version as Pep440};

/// The text without surrounding whitespace and one leading `v`: what semver is tried on.
fn body(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix(['v', 'V']).unwrap_or(t)
}

/// The PEP 440 reading of a text that is not semver, when PEP 440 has one.
fn pep440_of(text: &str) -> Option<Pep440> {
    if semver::Version::parse(body(text)).is_ok() {
        return None;
    }
    Pep440::from_str(text.trim()).ok()
}

/// Whether mcpseal's mapping covers this PEP 440 version (module docs: no epoch, no dev part,
/// at most three release numbers).
fn mappable(p: &Pep440) -> bool {
    p.epoch() == 0 && p.dev().is_none() && p.release().len() <= 3
}

/// What the docs say a PEP 440 version compares as: its release and pre-release only.
fn pep440_key(p: &Pep440) -> Pep440 {
    Pep440::new(p.release().iter().copied()).with_pre(p.pre())
}

fn check_one(text: &str) -> Option<(Version, Option<Pep440>)> {
    let parsed = Version::parse(text);
    let pep = pep440_of(text);
    let is_semver = semver::Version::parse(body(text)).is_ok();
    let Ok(v) = parsed else {
        if let Some(p) = &pep {
            assert!(
                !mappable(p),
                "{text:?} is PEP 440 `{p}` that maps to semver, but was refused"
            );
        }
        assert!(!is_semver, "{text:?} is semver, but was refused");
        return None;
    };
    // Idempotent: the semver meaning is a fixed point, and so is the stored text.
    let semver_text = v.semver().to_string();
    let again = Version::parse(&semver_text).expect("the mapped semver parses");
    assert_eq!(again.semver(), v.semver(), "{text:?} → {semver_text}");
    assert_eq!(again.cmp(&v), Ordering::Equal);
    let stored = Version::parse(v.as_str()).expect("the stored text parses");
    assert_eq!(stored.semver(), v.semver());
    assert_eq!(v.as_str(), text.trim());
    let line = if v.semver().major == 0 {
        (0, v.semver().minor)
    } else {
        (v.semver().major, 0)
    };
    assert_eq!(v.line(), line);
    if is_semver {
        assert_eq!(
            *v.semver(),
            semver::Version::parse(body(text)).expect("semver")
        );
        return Some((v, None));
    }
    // Not semver: it must be PEP 440, mapped faithfully.
    let Some(p) = pep else {
        panic!("{text:?} is neither semver nor PEP 440, but mapped to {semver_text}");
    };
    assert!(mappable(&p), "{text:?} (PEP 440 `{p}`) has no semver counterpart");
    let release: Vec<u64> = (0..3)
        .map(|i| p.release().get(i).copied().unwrap_or(0))
        .collect();
    let s = v.semver();
    assert_eq!([s.major, s.minor, s.patch][..], release[..], "{text:?} → {s}");
    let pre = p.pre().map(|pre| {
        let label = match pre.kind {
            PrereleaseKind::Alpha => "alpha",
            PrereleaseKind::Beta => "beta",
            PrereleaseKind::Rc => "rc",
        };
        format!("{label}.{}", pre.number)
    });
    assert_eq!(
        (!s.pre.is_empty()).then(|| s.pre.as_str().to_owned()),
        pre,
        "{text:?} → {s}: pre-release"
    );
    // Build metadata: `post.N` for a post-release, then the local part (whose segments both
    // sides spell alike only up to leading zeros, so just its presence is compared).
    let build = s.build.as_str();
    let post = p.post().map(|n| format!("post.{n}"));
    match (&post, p.local().is_empty()) {
        (Some(post), true) => assert_eq!(build, post, "{text:?} → {s}: post-release"),
        (Some(post), false) => assert!(
            build.starts_with(&format!("{post}.")),
            "{text:?} → {s}: post-release and local"
        ),
        (None, true) => assert_eq!(build, "", "{text:?} → {s}: no build metadata"),
        (None, false) => assert!(!build.is_empty(), "{text:?} → {s}: local part"),
    }
    Some((v, Some(p)))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(2, '\0');
    let a = parts.next().and_then(check_one);
    let b = parts.next().and_then(check_one);
    let (Some((va, pa)), Some((vb, pb))) = (a, b) else {
        return;
    };
    let ours = va.cmp(&vb);
    assert_eq!(ours, va.precedence().cmp(&vb.precedence()));
    assert_eq!(va == vb, ours == Ordering::Equal);
    if let (Some(pa), Some(pb)) = (pa, pb) {
        assert_eq!(
            ours,
            pep440_key(&pa).cmp(&pep440_key(&pb)),
            "{pa} vs {pb}: the mapping changed PEP 440's order"
        );
    }
});
