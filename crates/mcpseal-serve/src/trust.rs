//! The trust model: nothing leaves the server that the signed manifest does not vouch for.
//!
//! The manifest is fetched once per process and cached (optionally only for `manifest_ttl`);
//! with a signature mode other than `off` its Sigstore bundle is fetched and verified with it,
//! once per manifest fetch, in stdio and HTTP mode alike. Every artifact is fetched, hashed and
//! compared with its manifest entry on every request. A mismatch refetches the manifest once
//! (a deploy may have landed between the two reads: the new manifest may vouch for the new bytes,
//! or the bytes may be fetched again to match it) and only then fails, with both digests. Loads
//! are single-flight: concurrent requests wait for one fetch instead of each starting their own.
//! A directory origin's verified bytes are kept while the file keeps its identity
//! ([`crate::recheck`]: re-validated on every request, re-read and re-hashed whenever it changed).

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde::Serialize;
use tokio::sync::Mutex;

use crate::config::SignatureMode;
use crate::error::{FetchError, VerifyError};
use crate::manifest::{Manifest, sha256_hex};
use crate::origin::Origin;
use crate::recheck::{Cache, Stamp, json_text};
use crate::signature::{SignaturePolicy, SignatureStatus, verify_bundle};

/// How often a `require`-mode server whose signature failed tries again (a deploy may have been
/// half-way).
const REQUIRE_RETRY: Duration = Duration::from_secs(5);

/// Where lines for people go (warnings in `warn` mode, manifest refetches).
pub type Notes = Arc<dyn Fn(&str) + Send + Sync>;

/// One fetched manifest and what its signature said.
#[derive(Debug)]
pub struct Snapshot {
    /// The manifest.
    pub manifest: Manifest,
    /// Its signature.
    pub signature: SignatureStatus,
    /// [`Snapshot::signature`] as the JSON text every result's verification facts carry,
    /// written once per manifest fetch (in `serde_json`'s sorted form).
    signature_json: Arc<str>,
    at: Instant,
    generation: u64,
}

/// An artifact that matched the signed manifest.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The manifest path.
    pub path: String,
    /// Where the bytes came from.
    pub url: String,
    /// Their SHA-256 (= the manifest entry).
    pub sha256: String,
    /// The bytes (shared with the verified-bytes cache).
    pub bytes: Arc<[u8]>,
    /// SHA-256 of the manifest that vouched for them.
    pub manifest_sha256: String,
    /// The manifest's signature status.
    pub signature: SignatureStatus,
    /// The bytes as a JSON string literal when the verified-bytes cache holds it (see
    /// [`Verified::json_text`]).
    text: Option<Arc<str>>,
    /// `signature` as JSON text, as its snapshot wrote it (see [`Verified::facts_json`]).
    signature_json: Arc<str>,
}

impl Verified {
    /// The bytes as a JSON string literal (quotes included), when they are UTF-8: kept with
    /// the cached bytes (escaped once per file identity), else written now.
    pub fn json_text(&self) -> Option<Arc<str>> {
        self.text.clone().or_else(|| json_text(&self.bytes))
    }

    /// The verification facts every result carries (`path`, `url`, `sha256`,
    /// `manifestSha256`, `signature`) as one JSON object's text, in `serde_json`'s sorted form:
    /// written into one buffer per call, the signature's text kept from when the manifest was
    /// verified, instead of a tree of copied strings built and serialised per call.
    pub fn facts_json(&self) -> String {
        fn member(out: &mut Vec<u8>, key: &str, value: &str) {
            out.extend_from_slice(key.as_bytes());
            // Serialising a `str` into a `Vec` cannot fail.
            let _ = serde_json::to_writer(&mut *out, value);
        }
        // The keys, braces and quotes are 65 bytes; escapes in the path or URL may add more.
        let mut out = Vec::with_capacity(
            80 + self.manifest_sha256.len()
                + self.path.len()
                + self.sha256.len()
                + self.signature_json.len()
                + self.url.len(),
        );
        member(&mut out, "{\"manifestSha256\":", &self.manifest_sha256);
        member(&mut out, ",\"path\":", &self.path);
        member(&mut out, ",\"sha256\":", &self.sha256);
        out.extend_from_slice(b",\"signature\":");
        out.extend_from_slice(self.signature_json.as_bytes());
        member(&mut out, ",\"url\":", &self.url);
        out.push(b'}');
        // Only `str`s and JSON text were written.
        String::from_utf8(out).unwrap_or_else(|_| "{}".to_owned())
    }
}

/// The verifying client of one site.
pub struct Trust {
    origin: Origin,
    manifest_path: String,
    signature_path: String,
    mode: SignatureMode,
    policy: Option<SignaturePolicy>,
    ttl: Option<Duration>,
    current: RwLock<Option<Arc<Snapshot>>>,
    loading: Mutex<u64>,
    notes: Notes,
    cache: Cache,
}

impl std::fmt::Debug for Trust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trust")
            .field("origin", &self.origin.base())
            .field("manifest_path", &self.manifest_path)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

/// One failing entry of a deploy check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckFailure {
    /// The manifest path.
    pub path: String,
    /// `digest-mismatch`, `timeout`, `oversize`, `fetch-failed`, `outside-origin`.
    pub reason: String,
    /// The manifest's digest.
    pub expected: String,
    /// The digest of what was fetched, when something was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// For people.
    pub detail: String,
}

/// The result of `mcpseal serve --check`: the signature and every entry re-hashed. Its JSON
/// Schema is `schemas/serve-check-report.schema.json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[schemars(title = "mcpseal serve --check report")]
#[serde(rename_all = "camelCase")]
pub struct DeployCheck {
    /// Always 1 for this shape.
    #[schemars(range(min = 1, max = 1))]
    pub schema_version: u32,
    /// The origin (base URL or directory).
    pub origin: String,
    /// Where the manifest was read.
    pub manifest: String,
    /// SHA-256 of the manifest bytes.
    pub manifest_sha256: String,
    /// The signature mode.
    pub signature_mode: SignatureMode,
    /// The signature.
    pub signature: SignatureStatus,
    /// Entries in the manifest.
    pub entries: usize,
    /// Entries that verified.
    pub verified: usize,
    /// Entries that did not, sorted by path.
    pub failures: Vec<CheckFailure>,
}

impl DeployCheck {
    /// Every entry verified, and the signature too unless the mode is `off`.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
            && (self.signature_mode == SignatureMode::Off
                || matches!(self.signature, SignatureStatus::Verified { .. }))
    }
}

impl Trust {
    /// A verifying client. `policy` must be set unless `mode` is off (the config layer checks).
    pub fn new(
        origin: Origin,
        manifest_path: String,
        signature_path: String,
        mode: SignatureMode,
        policy: Option<SignaturePolicy>,
        ttl: Option<Duration>,
        notes: Notes,
    ) -> Trust {
        Trust {
            origin,
            manifest_path,
            signature_path,
            mode,
            policy,
            ttl,
            current: RwLock::new(None),
            loading: Mutex::new(0),
            notes,
            cache: Cache::default(),
        }
    }

    /// The origin.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The signature mode.
    pub fn mode(&self) -> SignatureMode {
        self.mode
    }

    fn cached(&self) -> Option<Arc<Snapshot>> {
        let guard = self
            .current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        guard.clone()
    }

    fn fresh(&self, s: &Snapshot) -> bool {
        let ttl_ok = self.ttl.is_none_or(|ttl| s.at.elapsed() < ttl);
        let retry_due = self.mode == SignatureMode::Require
            && !matches!(s.signature, SignatureStatus::Verified { .. })
            && s.at.elapsed() >= REQUIRE_RETRY;
        ttl_ok && !retry_due
    }

    /// The current manifest, fetched (and its signature verified) when none is cached or the
    /// cached one expired.
    ///
    /// # Errors
    /// [`VerifyError::Manifest`] when the manifest or bundle cannot be fetched or parsed.
    pub async fn snapshot(&self) -> Result<Arc<Snapshot>, VerifyError> {
        if let Some(s) = self.cached().filter(|s| self.fresh(s)) {
            return Ok(s);
        }
        let seen = self.cached().map_or(0, |s| s.generation);
        self.reload(seen).await
    }

    /// Loads a new manifest unless one newer than generation `seen` was loaded meanwhile.
    async fn reload(&self, seen: u64) -> Result<Arc<Snapshot>, VerifyError> {
        let mut generation = self.loading.lock().await;
        if let Some(s) = self
            .cached()
            .filter(|s| s.generation > seen && self.fresh(s))
        {
            return Ok(s);
        }
        let snap = Arc::new(self.load(*generation + 1).await?);
        *generation += 1;
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::clone(&snap));
        Ok(snap)
    }

    async fn load(&self, generation: u64) -> Result<Snapshot, VerifyError> {
        let manifest_err = |e: FetchError| VerifyError::Manifest {
            reason: e.to_string(),
        };
        let bytes = self
            .origin
            .fetch(&self.manifest_path)
            .await
            .map_err(manifest_err)?;
        let manifest = Manifest::parse(&bytes).map_err(|reason| VerifyError::Manifest {
            reason: format!("`{}`: {reason}", self.origin.location(&self.manifest_path)),
        })?;
        let signature = match (&self.mode, &self.policy) {
            (SignatureMode::Off, _) | (_, None) => SignatureStatus::Off,
            (_, Some(policy)) => match self.origin.fetch(&self.signature_path).await {
                Err(e) => SignatureStatus::Unverified {
                    reason: format!("the bundle could not be fetched: {e}"),
                },
                Ok(bundle) => {
                    let policy = policy.clone();
                    let verified = tokio::task::spawn_blocking(move || {
                        verify_bundle(&bytes, &bundle, &policy)
                    })
                    .await
                    .unwrap_or_else(|e| Err(format!("verification stopped: {e}")));
                    match verified {
                        Ok(signer) => SignatureStatus::Verified { signer },
                        Err(reason) => SignatureStatus::Unverified { reason },
                    }
                }
            },
        };
        if let SignatureStatus::Unverified { reason } = &signature {
            let what = if self.mode == SignatureMode::Require {
                "refusing every request"
            } else {
                "serving results marked unverified"
            };
            (self.notes)(&format!(
                "warning: the manifest's signature did not verify ({reason}); {what}"
            ));
        }
        let signature_json = serde_json::to_value(&signature)
            .map_or_else(|_| Arc::from("null"), |v| Arc::from(v.to_string()));
        Ok(Snapshot {
            manifest,
            signature,
            signature_json,
            at: Instant::now(),
            generation,
        })
    }

    fn admit(&self, s: &Snapshot) -> Result<(), VerifyError> {
        match (&self.mode, &s.signature) {
            (SignatureMode::Require, SignatureStatus::Unverified { reason }) => {
                Err(VerifyError::Signature {
                    reason: reason.clone(),
                })
            }
            _ => Ok(()),
        }
    }

    /// Fetches `path` and returns it only if its SHA-256 equals the signed manifest's entry.
    ///
    /// # Errors
    /// [`VerifyError`]: not in the manifest, digest mismatch (after one manifest refetch),
    /// signature refused (`require`), manifest or artifact not fetched.
    pub async fn get(&self, path: &str) -> Result<Verified, VerifyError> {
        let snap = self.snapshot().await?;
        self.admit(&snap)?;
        let expected = snap
            .manifest
            .get(path)
            .ok_or_else(|| VerifyError::NotSigned {
                path: path.to_owned(),
            })?;
        if let Some(stamp) = self.origin.stamp(path)?
            && let Some((bytes, text)) = self.cache.get(path, &stamp, expected)
        {
            // Hashed to `expected` when read, from this very file, unchanged since.
            let mut v = self.verified(path, bytes, expected.to_owned(), &snap);
            v.text = text;
            return Ok(v);
        }
        let (bytes, stamp) = self.origin.fetch_stamped(path).await?;
        let actual = sha256_hex(&bytes);
        if actual == expected {
            let bytes: Arc<[u8]> = Arc::from(bytes);
            self.remember(path, stamp, &actual, &bytes);
            return Ok(self.verified(path, bytes, actual, &snap));
        }
        (self.notes)(&format!(
            "note: `{path}` does not match the cached manifest; fetching the manifest again"
        ));
        let snap = self.reload(snap.generation).await?;
        self.admit(&snap)?;
        let expected = snap
            .manifest
            .get(path)
            .ok_or_else(|| VerifyError::NotSigned {
                path: path.to_owned(),
            })?;
        if actual == expected {
            let bytes: Arc<[u8]> = Arc::from(bytes);
            self.remember(path, stamp, &actual, &bytes);
            return Ok(self.verified(path, bytes, actual, &snap));
        }
        let (bytes, stamp) = self.origin.fetch_stamped(path).await?;
        let again = sha256_hex(&bytes);
        if again == expected {
            let bytes: Arc<[u8]> = Arc::from(bytes);
            self.remember(path, stamp, &again, &bytes);
            return Ok(self.verified(path, bytes, again, &snap));
        }
        Err(VerifyError::Mismatch {
            path: path.to_owned(),
            url: self.origin.location(path),
            expected: expected.to_owned(),
            actual: again,
        })
    }

    fn remember(&self, path: &str, stamp: Option<Stamp>, sha256: &str, bytes: &Arc<[u8]>) {
        if let Some(stamp) = stamp {
            self.cache.put(path, stamp, sha256, Arc::clone(bytes));
        }
    }

    fn verified(&self, path: &str, bytes: Arc<[u8]>, sha256: String, snap: &Snapshot) -> Verified {
        Verified {
            path: path.to_owned(),
            url: self.origin.location(path),
            sha256,
            bytes,
            manifest_sha256: snap.manifest.sha256().to_owned(),
            signature: snap.signature.clone(),
            text: None,
            signature_json: Arc::clone(&snap.signature_json),
        }
    }

    /// The deploy check: a fresh manifest, its signature, and every entry fetched and re-hashed
    /// (eight at a time).
    ///
    /// # Errors
    /// [`VerifyError::Manifest`] when the manifest cannot be read at all.
    pub async fn check_all(&self) -> Result<DeployCheck, VerifyError> {
        let seen = self.cached().map_or(0, |s| s.generation);
        let snap = self.reload(seen).await?;
        let entries: Vec<(String, String)> = snap
            .manifest
            .entries()
            .map(|(p, d)| (p.to_owned(), d.to_owned()))
            .collect();
        let mut failures: Vec<CheckFailure> = futures_util::stream::iter(entries)
            .map(|(path, expected)| async move {
                match self.origin.fetch(&path).await {
                    Ok(bytes) => {
                        let actual = sha256_hex(&bytes);
                        (actual != expected).then(|| CheckFailure {
                            detail: format!("expected sha256 {expected}, got {actual}"),
                            path,
                            reason: "digest-mismatch".into(),
                            expected,
                            actual: Some(actual),
                        })
                    }
                    Err(e) => Some(CheckFailure {
                        path,
                        reason: VerifyError::Fetch(e.clone()).data()["reason"]
                            .as_str()
                            .unwrap_or("fetch-failed")
                            .to_owned(),
                        expected,
                        actual: None,
                        detail: e.to_string(),
                    }),
                }
            })
            .buffer_unordered(8)
            .filter_map(|f| async move { f })
            .collect()
            .await;
        failures.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(DeployCheck {
            schema_version: 1,
            origin: self.origin.base(),
            manifest: self.origin.location(&self.manifest_path),
            manifest_sha256: snap.manifest.sha256().to_owned(),
            signature_mode: self.mode,
            signature: snap.signature.clone(),
            entries: snap.manifest.len(),
            verified: snap.manifest.len() - failures.len(),
            failures,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::signature::Signer;

    /// The pre-written facts are the bytes `serde_json` writes for the same facts as a value, in
    /// every signature state, with strings that need escaping.
    #[test]
    fn the_facts_text_is_the_facts_value_written() {
        let states = [
            SignatureStatus::Off,
            SignatureStatus::Unverified {
                reason: "no \"bundle\"\n".into(),
            },
            SignatureStatus::Verified {
                signer: Signer {
                    identity: "https://github.com/o/r/.github/workflows/w.yml@refs/heads/main"
                        .into(),
                    issuer: "https://token.actions.githubusercontent.com".into(),
                    integrated_time: Some("2026-01-01T00:00:00Z".into()),
                },
            },
        ];
        for signature in states {
            let signature_json: Arc<str> = Arc::from(
                serde_json::to_value(&signature)
                    .unwrap_or_default()
                    .to_string(),
            );
            let v = Verified {
                path: "posts/é \"q\".json".into(),
                url: "file:///site/posts/%C3%A9.json".into(),
                sha256: "ab".repeat(32),
                bytes: Arc::from(&b"{}"[..]),
                manifest_sha256: "cd".repeat(32),
                signature: signature.clone(),
                text: None,
                signature_json,
            };
            let as_value = json!({
                "path": v.path,
                "url": v.url,
                "sha256": v.sha256,
                "manifestSha256": v.manifest_sha256,
                "signature": signature,
            });
            assert_eq!(v.facts_json(), as_value.to_string());
            let parsed: Value = serde_json::from_str(&v.facts_json()).unwrap_or_default();
            assert_eq!(parsed, as_value);
        }
    }
}
