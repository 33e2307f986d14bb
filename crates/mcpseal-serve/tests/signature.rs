//! The manifest's signature: the real Sigstore vector, and `warn` vs `require` on a site whose
//! bundle does not cover its manifest.

#![cfg(feature = "sigstore")]
#![expect(clippy::disallowed_methods, reason = "the test writes its inputs")]

mod common;

use std::sync::{Arc, Mutex};

use mcpseal_serve::signature::SignatureStatus;
use mcpseal_serve::{Site, SiteOptions, VERIFICATION_FAILED};
use serde_json::json;

use common::{SiteDir, call, server_with};

const IDENTITY: &str =
    "https://github.com/bounded-systems/site/.github/workflows/deploy.yml@refs/heads/main";
const ISSUER: &str = "https://token.actions.githubusercontent.com";
const VECTOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sigstore");

fn signed(mode: &str, identity: &str, issuer: &str) -> String {
    format!(
        "signature_mode = \"{mode}\"\nexpected_identity = '{identity}'\nexpected_issuer = \"{issuer}\""
    )
}

/// A site directory holding the real manifest and bundle (its files are not part of the vector).
fn vector_site() -> SiteDir {
    let site = SiteDir {
        dir: tempfile::tempdir().expect("tempdir"),
    };
    std::fs::create_dir_all(site.public()).expect("mkdir");
    for f in ["site.sha256", "site.sha256.sigstore.json"] {
        std::fs::copy(format!("{VECTOR}/{f}"), site.public().join(f)).expect("copy");
    }
    site
}

fn site(cfg: &std::path::Path) -> Site {
    Site::new(
        &mcpseal_serve::config::load(cfg).expect("load"),
        SiteOptions::default(),
    )
    .expect("site")
}

#[tokio::test]
async fn the_real_bundle_verifies_in_require_mode_offline() {
    let v = vector_site();
    for identity in [IDENTITY.to_owned(), "regex:https://github\\.com/bounded-systems/[^/]+/\\.github/workflows/deploy\\.yml@refs/heads/.+".to_owned()] {
        let cfg = v.config("public", &signed("require", &identity, ISSUER));
        let s = site(&cfg);
        let snap = s.trust().snapshot().await.expect("manifest loads");
        match &snap.signature {
            SignatureStatus::Verified { signer } => {
                assert_eq!((signer.identity.as_str(), signer.issuer.as_str()), (IDENTITY, ISSUER));
            }
            other => panic!("not verified with {identity}: {other:?}"),
        }
        assert_eq!(snap.manifest.sha256(), "75386a73066f8cc0c5d022ce8d739dcc54ea76cde5ad8680a8482a90bb5be895");
        let check = s.trust().check_all().await.expect("check");
        assert!(matches!(check.signature, SignatureStatus::Verified { .. }));
        assert_eq!(check.entries, 42);
        assert_eq!(check.failures.len(), 42, "the vector ships no site files, so every entry fails to fetch");
        assert!(check.failures.iter().all(|f| f.reason == "fetch-failed"));
    }
}

#[tokio::test]
async fn another_identity_issuer_or_manifest_byte_does_not_verify() {
    for (what, identity, issuer, flip) in [
        (
            "identity",
            "https://github.com/someone/else/.github/workflows/deploy.yml@refs/heads/main",
            ISSUER,
            false,
        ),
        ("issuer", IDENTITY, "https://accounts.google.com", false),
        ("digest", IDENTITY, ISSUER, true),
    ] {
        let v = vector_site();
        if flip {
            let p = v.public().join("site.sha256");
            let mut bytes = std::fs::read(&p).expect("read");
            bytes[0] = if bytes[0] == b'0' { b'1' } else { b'0' };
            std::fs::write(&p, bytes).expect("write");
        }
        let s = site(&v.config("public", &signed("require", identity, issuer)));
        let snap = s.trust().snapshot().await.expect("manifest loads");
        match &snap.signature {
            SignatureStatus::Unverified { reason } => {
                assert!(reason.contains(what), "{what}: {reason}")
            }
            other => panic!("{what}: verified anyway: {other:?}"),
        }
    }
    let v = vector_site();
    let p = v.public().join("site.sha256.sigstore.json");
    let mut bundle: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&p).expect("read")).expect("json");
    bundle["verificationMaterial"]["tlogEntries"][0]
        .as_object_mut()
        .expect("entry")
        .remove("inclusionProof");
    std::fs::write(&p, serde_json::to_vec(&bundle).expect("json")).expect("write");
    let s = site(&v.config("public", &signed("require", IDENTITY, ISSUER)));
    let snap = s.trust().snapshot().await.expect("manifest loads");
    assert!(
        matches!(&snap.signature, SignatureStatus::Unverified { reason } if reason.contains("inclusion proof")),
        "{:?}",
        snap.signature
    );
}

#[tokio::test]
async fn warn_serves_marked_unverified_and_require_refuses() {
    let site = SiteDir::new();
    // The real bundle, over another manifest: it cannot verify this site's manifest.
    std::fs::copy(
        format!("{VECTOR}/site.sha256.sigstore.json"),
        site.public().join("site.sha256.sigstore.json"),
    )
    .expect("copy");
    let notes = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&notes);
    let options = SiteOptions {
        manifest_ttl: None,
        notes: Arc::new(move |l: &str| sink.lock().expect("notes").push(l.to_owned())),
    };
    let warn = server_with(
        &site.config("public", &signed("warn", IDENTITY, ISSUER)),
        options.clone(),
    );
    let r = call(&warn, "get_profile", json!({})).await;
    assert_eq!(
        r["result"]["content"][0]["text"], r#"{"name":"Ada"}"#,
        "warn serves: {r}"
    );
    let sig = &r["result"]["_meta"]["verification"]["signature"];
    assert_eq!(sig["status"], "unverified");
    assert!(
        sig["reason"].as_str().is_some_and(|r| r.contains("digest")),
        "{sig}"
    );
    assert!(
        notes
            .lock()
            .expect("notes")
            .iter()
            .any(|n| n.starts_with("warning:"))
    );

    let require = server_with(
        &site.config("public", &signed("require", IDENTITY, ISSUER)),
        options,
    );
    let r = call(&require, "get_profile", json!({})).await;
    assert!(r.get("result").is_none(), "require refuses: {r}");
    assert_eq!(r["error"]["code"], VERIFICATION_FAILED);
    assert_eq!(r["error"]["data"]["reason"], "signature");

    // A bundle that is missing altogether: warn still serves, require still refuses.
    std::fs::remove_file(site.public().join("site.sha256.sigstore.json")).expect("rm");
    let warn = server_with(
        &site.config("public", &signed("warn", IDENTITY, ISSUER)),
        SiteOptions::default(),
    );
    let r = call(&warn, "get_profile", json!({})).await;
    assert_eq!(
        r["result"]["_meta"]["verification"]["signature"]["status"],
        "unverified"
    );
    let require = server_with(
        &site.config("public", &signed("require", IDENTITY, ISSUER)),
        SiteOptions::default(),
    );
    assert_eq!(
        call(&require, "get_profile", json!({})).await["error"]["data"]["reason"],
        "signature"
    );
}

#[test]
fn a_signature_mode_without_identity_and_issuer_is_a_config_error() {
    let site = SiteDir::new();
    let cfg = site.config("public", "signature_mode = \"require\"");
    let e = Site::new(
        &mcpseal_serve::config::load(&cfg).expect("load"),
        SiteOptions::default(),
    )
    .err();
    assert!(e.is_some_and(|e| e.to_string().contains("expected_identity")));
    let cfg = site.config("public", &signed("warn", "regex:([", ISSUER));
    let e = Site::new(
        &mcpseal_serve::config::load(&cfg).expect("load"),
        SiteOptions::default(),
    )
    .err();
    assert!(e.is_some_and(|e| e.to_string().contains("regular expression")));
}
