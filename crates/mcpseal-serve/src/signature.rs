//! The manifest's Sigstore signature, verified offline.
//!
//! With the `sigstore` feature (default), a bundle (`application/vnd.dev.sigstore.bundle…+json`)
//! over the manifest bytes is verified by `sigstore-verify` against the public-good trusted root
//! embedded in that crate: the Fulcio certificate chain and SCT, the Rekor inclusion proof and
//! checkpoint (or SET), the RFC 3161 timestamps, the message digest against the manifest, and the
//! certificate's identity (SAN) and OIDC issuer against the configured ones. Nothing is fetched:
//! no TUF refresh, no OpenSSL. The embedded root changes only when the crate is bumped, which is
//! why its minor is pinned.

use serde::Serialize;

/// Which signer identities are accepted.
#[derive(Debug, Clone)]
pub enum IdentityPolicy {
    /// Exactly this SAN.
    Exact(String),
    /// A SAN the whole of which matches this pattern.
    Regex(regex::Regex),
}

impl IdentityPolicy {
    /// `regex:PATTERN` or an exact identity.
    ///
    /// # Errors
    /// The pattern does not compile.
    pub fn parse(text: &str) -> Result<IdentityPolicy, String> {
        match text.strip_prefix("regex:") {
            Some(p) => regex::Regex::new(&format!("^(?:{p})$"))
                .map(IdentityPolicy::Regex)
                .map_err(|e| format!("`{p}` is not a valid regular expression: {e}")),
            None => Ok(IdentityPolicy::Exact(text.to_owned())),
        }
    }

    /// Whether `identity` is accepted.
    pub fn accepts(&self, identity: &str) -> bool {
        match self {
            IdentityPolicy::Exact(e) => e == identity,
            IdentityPolicy::Regex(r) => r.is_match(identity),
        }
    }
}

/// The identity and issuer a bundle must carry.
#[derive(Debug, Clone)]
pub struct SignaturePolicy {
    /// The signer identity.
    pub identity: IdentityPolicy,
    /// The OIDC issuer, exact.
    pub issuer: String,
}

/// Who signed, as verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Signer {
    /// The certificate's SAN.
    pub identity: String,
    /// The certificate's OIDC issuer.
    pub issuer: String,
    /// When the transparency log integrated the entry (RFC 3339), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrated_time: Option<String>,
}

/// The state of the manifest's signature, as every result reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum SignatureStatus {
    /// `signature_mode = "off"`: not checked.
    Off,
    /// Verified for this manifest.
    Verified {
        /// Who signed.
        #[serde(flatten)]
        signer: Signer,
    },
    /// Checked and failed (`warn` mode serves, marked with this).
    Unverified {
        /// Why.
        reason: String,
    },
}

impl SignatureStatus {
    /// `off`, `verified` or `unverified`.
    pub fn as_str(&self) -> &'static str {
        match self {
            SignatureStatus::Off => "off",
            SignatureStatus::Verified { .. } => "verified",
            SignatureStatus::Unverified { .. } => "unverified",
        }
    }
}

/// True when this build can verify signatures (the `sigstore` feature).
pub const SIGSTORE_BUILT: bool = cfg!(feature = "sigstore");

/// Verifies `bundle` (JSON bytes) over `manifest` against `policy`, offline.
///
/// # Errors
/// Why it did not verify (parse error, digest, chain, log, identity, issuer), for people.
#[cfg(feature = "sigstore")]
pub fn verify_bundle(
    manifest: &[u8],
    bundle: &[u8],
    policy: &SignaturePolicy,
) -> Result<Signer, String> {
    use sigstore_verify::VerificationPolicy;
    use sigstore_verify::trust_root::{SIGSTORE_PRODUCTION_TRUSTED_ROOT, TrustedRoot};
    use sigstore_verify::types::Bundle;

    let root = TrustedRoot::from_json(SIGSTORE_PRODUCTION_TRUSTED_ROOT)
        .map_err(|e| format!("the embedded trusted root does not load: {e}"))?;
    let text =
        std::str::from_utf8(bundle).map_err(|_| "the bundle is not UTF-8 JSON".to_owned())?;
    let bundle =
        Bundle::from_json(text).map_err(|e| format!("the bundle is not a Sigstore bundle: {e}"))?;
    let mut p = VerificationPolicy::any_identity().require_issuer(policy.issuer.clone());
    if let IdentityPolicy::Exact(id) = &policy.identity {
        p = p.require_identity(id.clone());
    }
    let result =
        sigstore_verify::verify(manifest, &bundle, &p, &root).map_err(|e| e.to_string())?;
    let identity = result
        .identity()
        .map(|i| i.as_str().to_owned())
        .ok_or_else(|| "the certificate names no identity".to_owned())?;
    if !policy.identity.accepts(&identity) {
        return Err(format!(
            "identity mismatch: `{identity}` does not match the expected pattern"
        ));
    }
    Ok(Signer {
        identity,
        issuer: result.issuer().unwrap_or(&policy.issuer).to_owned(),
        integrated_time: result.integrated_time().map(|t| t.to_string()),
    })
}

/// Without the `sigstore` feature nothing verifies.
///
/// # Errors
/// Always: this build cannot verify signatures.
#[cfg(not(feature = "sigstore"))]
pub fn verify_bundle(
    _manifest: &[u8],
    _bundle: &[u8],
    _policy: &SignaturePolicy,
) -> Result<Signer, String> {
    Err(
        "this build of mcpseal has no Sigstore support (built without the `sigstore` feature)"
            .into(),
    )
}

#[cfg(all(test, feature = "sigstore"))]
mod tests {
    use super::*;

    const MANIFEST: &[u8] = include_bytes!("../tests/data/sigstore/site.sha256");
    const BUNDLE: &[u8] = include_bytes!("../tests/data/sigstore/site.sha256.sigstore.json");
    const IDENTITY: &str =
        "https://github.com/bounded-systems/site/.github/workflows/deploy.yml@refs/heads/main";
    const ISSUER: &str = "https://token.actions.githubusercontent.com";

    fn policy(identity: &str, issuer: &str) -> SignaturePolicy {
        SignaturePolicy {
            identity: IdentityPolicy::parse(identity).expect("identity"),
            issuer: issuer.into(),
        }
    }

    #[test]
    fn the_real_bundle_verifies_offline() {
        let signer = verify_bundle(MANIFEST, BUNDLE, &policy(IDENTITY, ISSUER)).expect("verifies");
        assert_eq!(signer.identity, IDENTITY);
        assert_eq!(signer.issuer, ISSUER);
        assert!(
            signer
                .integrated_time
                .is_some_and(|t| t.starts_with("2026-06-29"))
        );
        let re = policy(
            "regex:https://github\\.com/bounded-systems/.+/\\.github/workflows/deploy\\.yml@refs/heads/main",
            ISSUER,
        );
        assert!(verify_bundle(MANIFEST, BUNDLE, &re).is_ok());
    }

    #[test]
    fn every_tampering_fails() {
        let mut changed = MANIFEST.to_vec();
        changed[100] ^= 1;
        let e = verify_bundle(&changed, BUNDLE, &policy(IDENTITY, ISSUER)).err();
        assert!(
            e.is_some_and(|e| e.contains("digest")),
            "one changed byte of the manifest"
        );
        let e = verify_bundle(
            MANIFEST,
            BUNDLE,
            &policy(
                "https://github.com/someone/else/.github/workflows/deploy.yml@refs/heads/main",
                ISSUER,
            ),
        )
        .err();
        assert!(
            e.is_some_and(|e| e.contains("identity")),
            "another identity"
        );
        let e = verify_bundle(
            MANIFEST,
            BUNDLE,
            &policy("regex:https://github\\.com/other/.*", ISSUER),
        )
        .err();
        assert!(
            e.is_some_and(|e| e.contains("identity")),
            "an identity pattern that does not match"
        );
        let e = verify_bundle(
            MANIFEST,
            BUNDLE,
            &policy(IDENTITY, "https://accounts.google.com"),
        )
        .err();
        assert!(e.is_some_and(|e| e.contains("issuer")), "another issuer");
        let mut b: serde_json::Value = serde_json::from_slice(BUNDLE).expect("bundle json");
        let entry = b["verificationMaterial"]["tlogEntries"][0]
            .as_object_mut()
            .expect("a tlog entry");
        assert!(entry.remove("inclusionProof").is_some());
        let stripped = serde_json::to_vec(&b).expect("json");
        let e = verify_bundle(MANIFEST, &stripped, &policy(IDENTITY, ISSUER)).err();
        assert!(
            e.is_some_and(|e| e.contains("inclusion proof")),
            "the inclusion proof removed"
        );
        assert!(verify_bundle(MANIFEST, b"{}", &policy(IDENTITY, ISSUER)).is_err());
        assert!(verify_bundle(MANIFEST, b"\xff", &policy(IDENTITY, ISSUER)).is_err());
    }
}
