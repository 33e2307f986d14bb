//! npm: the packument (`GET <registry>/<name>`, the full document: the abbreviated one has no
//! publish times) read into version rows.

use serde_json::Value;

use crate::error::SourceError;
use crate::http::{Http, join};
use crate::integrity::sri_from_shasum;
use crate::published::{Artifact, PublishedVersion, Status};

/// The packument URL: a scoped name's `/` is escaped as npm does (`@scope%2fname`).
pub(crate) fn packument_url(registry: &str, name: &str) -> String {
    join(registry, &name.replace('/', "%2f"))
}

/// Every version the packument lists (unfiltered, unordered).
pub(crate) async fn versions(
    http: &Http,
    registry: &str,
    name: &str,
) -> Result<Vec<PublishedVersion>, SourceError> {
    let url = packument_url(registry, name);
    let got = http
        .get(&url, "application/json", http.limits.max_metadata_bytes)
        .await?;
    if got.status == 404 {
        return Err(SourceError::NotFound {
            what: format!("npm package `{name}`"),
            registry: registry.to_owned(),
        });
    }
    if got.status != 200 {
        return Err(SourceError::Http {
            url,
            why: format!("HTTP status {}", got.status),
        });
    }
    let doc: Value = serde_json::from_slice(&got.body).map_err(|e| SourceError::BadMetadata {
        url: url.clone(),
        why: format!("not JSON: {e}"),
    })?;
    parse_packument(&doc, name).map_err(|why| SourceError::BadMetadata { url, why })
}

/// Reads a packument document.
pub(crate) fn parse_packument(doc: &Value, name: &str) -> Result<Vec<PublishedVersion>, String> {
    if let Some(listed) = doc.get("name").and_then(Value::as_str)
        && listed != name
    {
        return Err(format!("it describes `{listed}`, not `{name}`"));
    }
    let versions = doc
        .get("versions")
        .and_then(Value::as_object)
        .ok_or("it has no `versions` object")?;
    let times = doc.get("time").and_then(Value::as_object);
    let mut out = Vec::with_capacity(versions.len());
    for (version, manifest) in versions {
        let dist = manifest.get("dist");
        let url = dist
            .and_then(|d| d.get("tarball"))
            .and_then(Value::as_str)
            .ok_or_else(|| format!("version `{version}` has no `dist.tarball`"))?;
        let integrity = dist
            .and_then(|d| d.get("integrity"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| {
                dist.and_then(|d| d.get("shasum"))
                    .and_then(Value::as_str)
                    .and_then(sri_from_shasum)
            });
        let published_at = times
            .and_then(|t| t.get(version))
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok());
        // `deprecated` is a message; npm treats an empty string as "not deprecated".
        let status = match manifest.get("deprecated") {
            Some(Value::String(m)) if !m.is_empty() => Status::Deprecated { message: m.clone() },
            Some(Value::Bool(true)) => Status::Deprecated {
                message: String::new(),
            },
            _ => Status::Current,
        };
        out.push(PublishedVersion::new(
            version.clone(),
            published_at,
            status,
            Artifact::NpmTarball {
                url: url.to_owned(),
                integrity,
            },
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packument() {
        let doc = serde_json::json!({
            "name": "@s/p",
            "versions": {
                "1.0.0": {"dist": {"tarball": "http://r/p-1.0.0.tgz", "integrity": "sha512-x"}},
                "1.1.0": {"dist": {"tarball": "http://r/p-1.1.0.tgz", "shasum": "a9993e364706816aba3e25717850c26c9cd0d89d"}, "deprecated": "broken"},
                "1.2.0": {"dist": {"tarball": "http://r/p-1.2.0.tgz"}, "deprecated": ""}
            },
            "time": {"1.0.0": "2024-05-01T10:00:00.000Z", "modified": "x"}
        });
        let v = parse_packument(&doc, "@s/p").expect("parses");
        assert_eq!(v.len(), 3);
        assert_eq!(
            v[0].published_at.map(|t| t.to_string()).as_deref(),
            Some("2024-05-01T10:00:00Z")
        );
        assert!(matches!(&v[1].status, Status::Deprecated { message } if message == "broken"));
        assert!(
            matches!(&v[1].artifact, Artifact::NpmTarball { integrity: Some(i), .. } if i.starts_with("sha1-"))
        );
        assert_eq!(v[2].status, Status::Current);
        assert!(parse_packument(&doc, "other").is_err());
        assert!(parse_packument(&serde_json::json!({"name": "x"}), "x").is_err());
        assert_eq!(packument_url("http://r/", "@s/p"), "http://r/@s%2fp");
    }
}
