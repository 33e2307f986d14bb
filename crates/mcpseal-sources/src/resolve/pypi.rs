//! PyPI: the JSON API (`/pypi/<name>/json`) where the index has one, else the simple index
//! (PEP 691 JSON, or PEP 503 HTML), read into version rows.
//!
//! Which: an index URL ending in `/simple/` has its JSON API at the sibling `/pypi/` path
//! (pypi.org, and indexes that copy it); when that answers 404 or something that is not the
//! JSON API, the simple page is read. A version is the group of files whose names carry it; it
//! is yanked when all its files are (PEP 592); its publish time is its earliest upload.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde_json::Value;

use crate::error::SourceError;
use crate::http::{Http, join, resolve_href};
use crate::published::{Artifact, DistFile, Excluded, Exclusion, PublishedVersion, Status};
use crate::source::{PypiProject, normalize_pypi};

const SIMPLE_JSON: &str = "application/vnd.pypi.simple.v1+json";

/// Every version the index lists, plus files whose names could not be read.
pub(crate) async fn versions(
    http: &Http,
    index: &str,
    project: &PypiProject,
) -> Result<(Vec<PublishedVersion>, Vec<Excluded>), SourceError> {
    let name = project.normalized();
    if let Some(base) = index.strip_suffix("/simple/") {
        let url = join(base, &format!("pypi/{name}/json"));
        let got = http
            .get(&url, "application/json", http.limits.max_metadata_bytes)
            .await;
        if let Ok(got) = got
            && got.status == 200
            && let Ok(doc) = serde_json::from_slice::<Value>(&got.body)
            && doc.get("releases").is_some_and(Value::is_object)
        {
            let (files, empty) =
                json_api_files(&doc, &url).map_err(|why| SourceError::BadMetadata {
                    url: url.clone(),
                    why,
                })?;
            let (versions, mut excluded) = group(&name, files);
            excluded.extend(empty.into_iter().map(|version| Excluded {
                version,
                exclusion: Exclusion::NoFiles,
            }));
            return Ok((versions, excluded));
        }
        // Any other answer (404, HTML, an error): the simple index decides.
    }
    let url = join(index, &format!("{name}/"));
    let got = http
        .get(
            &url,
            &format!("{SIMPLE_JSON}, text/html;q=0.1"),
            http.limits.max_metadata_bytes,
        )
        .await?;
    if got.status == 404 {
        return Err(SourceError::NotFound {
            what: format!("PyPI project `{}`", project.name),
            registry: index.to_owned(),
        });
    }
    if got.status != 200 {
        return Err(SourceError::Http {
            url,
            why: format!("HTTP status {}", got.status),
        });
    }
    let files = if got.content_type.contains(SIMPLE_JSON) {
        let doc: Value =
            serde_json::from_slice(&got.body).map_err(|e| SourceError::BadMetadata {
                url: url.clone(),
                why: format!("not JSON: {e}"),
            })?;
        simple_json_files(&doc, &url)
    } else {
        simple_html_files(&String::from_utf8_lossy(&got.body), &url)
    }
    .map_err(|why| SourceError::BadMetadata { url, why })?;
    Ok(group(&name, files))
}

/// The JSON API's `releases`: `{version: [file…]}`; and the versions listed without files.
/// File URLs are resolved against the document's own URL (mirrors answer relative ones).
fn json_api_files(doc: &Value, page: &str) -> Result<(Vec<DistFile>, Vec<String>), String> {
    let releases = doc
        .get("releases")
        .and_then(Value::as_object)
        .ok_or("no `releases` object")?;
    let mut out = Vec::new();
    let mut empty = Vec::new();
    for (version, files) in releases {
        let files = files.as_array().map(Vec::as_slice).unwrap_or_default();
        if files.is_empty() {
            empty.push(version.clone());
        }
        for f in files {
            let filename = f
                .get("filename")
                .and_then(Value::as_str)
                .ok_or("a file without `filename`")?;
            let url = f
                .get("url")
                .and_then(Value::as_str)
                .ok_or("a file without `url`")?;
            out.push(DistFile {
                filename: filename.to_owned(),
                url: strip_fragment(&resolve_href(page, url)),
                sha256: f
                    .pointer("/digests/sha256")
                    .and_then(Value::as_str)
                    .map(str::to_ascii_lowercase),
                wheel: filename.ends_with(".whl"),
                yanked: f.get("yanked").and_then(Value::as_bool).unwrap_or(false),
                uploaded_at: f
                    .get("upload_time_iso_8601")
                    .and_then(Value::as_str)
                    .and_then(|s| s.parse().ok()),
            });
        }
    }
    Ok((out, empty))
}

/// A PEP 691 page: `files: [{filename, url, hashes, yanked, upload-time}]`.
fn simple_json_files(doc: &Value, page: &str) -> Result<Vec<DistFile>, String> {
    let files = doc
        .get("files")
        .and_then(Value::as_array)
        .ok_or("no `files` array")?;
    files
        .iter()
        .map(|f| {
            let filename = f
                .get("filename")
                .and_then(Value::as_str)
                .ok_or("a file without `filename`")?;
            let href = f
                .get("url")
                .and_then(Value::as_str)
                .ok_or("a file without `url`")?;
            let yanked = match f.get("yanked") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(_)) => true,
                _ => false,
            };
            Ok(DistFile {
                filename: filename.to_owned(),
                url: strip_fragment(&resolve_href(page, href)),
                sha256: f
                    .pointer("/hashes/sha256")
                    .and_then(Value::as_str)
                    .map(str::to_ascii_lowercase),
                wheel: filename.ends_with(".whl"),
                yanked,
                uploaded_at: f
                    .get("upload-time")
                    .and_then(Value::as_str)
                    .and_then(|s| s.parse::<Timestamp>().ok()),
            })
        })
        .collect()
}

/// A PEP 503 page: one `<a href="URL#sha256=HEX" data-yanked…>FILENAME</a>` per file.
fn simple_html_files(html: &str, page: &str) -> Result<Vec<DistFile>, String> {
    let mut out = Vec::new();
    let lower = html.to_ascii_lowercase();
    let mut at = 0;
    while let Some(start) = lower[at..].find("<a ").or_else(|| lower[at..].find("<a\n")) {
        let open = at + start;
        let Some(tag_end) = lower[open..].find('>').map(|i| open + i) else {
            break;
        };
        let Some(close) = lower[tag_end..].find("</a>").map(|i| tag_end + i) else {
            break;
        };
        let tag = &html[open..tag_end];
        let text = decode_entities(html[tag_end + 1..close].trim());
        at = close + 4;
        let Some(href) = attr(tag, "href") else {
            continue;
        };
        let href = decode_entities(&href);
        let full = resolve_href(page, &href);
        let sha256 = full
            .split_once('#')
            .and_then(|(_, frag)| frag.strip_prefix("sha256="))
            .map(|h| h.split('&').next().unwrap_or(h).to_ascii_lowercase());
        let filename = if text.is_empty() {
            strip_fragment(&full)
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_owned()
        } else {
            text
        };
        out.push(DistFile {
            wheel: filename.ends_with(".whl"),
            filename,
            url: strip_fragment(&full),
            sha256,
            yanked: attr(tag, "data-yanked").is_some() || has_bare_attr(tag, "data-yanked"),
            uploaded_at: None,
        });
    }
    Ok(out)
}

fn strip_fragment(url: &str) -> String {
    url.split('#').next().unwrap_or(url).to_owned()
}

/// The value of `name="…"` (or `'…'`) in a start tag.
fn attr(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(name) {
        let pos = from + i;
        from = pos + name.len();
        let before_ok = pos == 0 || lower.as_bytes()[pos - 1].is_ascii_whitespace();
        let rest = lower[from..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let value_start = tag.len() - rest.len() + 1;
        let v = tag[value_start..].trim_start();
        let quote = v.chars().next()?;
        if quote == '"' || quote == '\'' {
            let end = v[1..].find(quote)?;
            return Some(v[1..=end].to_owned());
        }
        return Some(v.split_whitespace().next().unwrap_or("").to_owned());
    }
    None
}

fn has_bare_attr(tag: &str, name: &str) -> bool {
    tag.to_ascii_lowercase()
        .split(|c: char| c.is_ascii_whitespace() || c == '>')
        .any(|w| w == name)
}

fn decode_entities(s: &str) -> String {
    s.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

/// The version a distribution file name carries (`name-1.0-py3-none-any.whl`,
/// `name-1.0.tar.gz`), matched against the normalised project name.
pub(crate) fn version_of(filename: &str, normalized: &str) -> Option<String> {
    let stem = [".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz"]
        .iter()
        .find_map(|ext| filename.strip_suffix(ext))?;
    let wheel = filename.ends_with(".whl");
    for (i, _) in stem.match_indices('-') {
        if normalize_pypi(&stem[..i]) == normalized {
            let rest = &stem[i + 1..];
            let v = if wheel {
                rest.split('-').next().unwrap_or("")
            } else {
                rest
            };
            return (!v.is_empty()).then(|| v.to_owned());
        }
    }
    None
}

/// Groups files into versions.
fn group(normalized: &str, files: Vec<DistFile>) -> (Vec<PublishedVersion>, Vec<Excluded>) {
    let mut by_version: BTreeMap<String, Vec<DistFile>> = BTreeMap::new();
    let mut unreadable = Vec::new();
    for f in files {
        match version_of(&f.filename, normalized) {
            Some(v) => by_version.entry(v).or_default().push(f),
            None => {
                // Eggs, installers and names of other projects are not versions of this one;
                // only files that look like distributions but cannot be read are reported.
                if f.filename.ends_with(".whl") || f.filename.ends_with(".tar.gz") {
                    unreadable.push(Excluded {
                        version: f.filename.clone(),
                        exclusion: Exclusion::NotSemver {
                            why: "the file name carries no readable version".into(),
                        },
                    });
                }
            }
        }
    }
    let versions = by_version
        .into_iter()
        .map(|(version, files)| {
            let yanked = !files.is_empty() && files.iter().all(|f| f.yanked);
            let published_at = files.iter().filter_map(|f| f.uploaded_at).min();
            let status = if yanked {
                Status::Yanked { reason: None }
            } else {
                Status::Current
            };
            PublishedVersion::new(version, published_at, status, Artifact::PypiFiles { files })
        })
        .collect();
    (versions, unreadable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        assert_eq!(
            version_of("my_pkg-1.0rc1-py3-none-any.whl", "my-pkg").as_deref(),
            Some("1.0rc1")
        );
        assert_eq!(
            version_of("my-pkg-1.0.tar.gz", "my-pkg").as_deref(),
            Some("1.0")
        );
        assert_eq!(
            version_of("My.Pkg-2.0.zip", "my-pkg").as_deref(),
            Some("2.0")
        );
        assert_eq!(version_of("other-1.0.tar.gz", "my-pkg"), None);
        assert_eq!(version_of("my_pkg-1.0-py2.7.egg", "my-pkg"), None);
    }

    #[test]
    fn html_index() {
        let html = r#"<!DOCTYPE html><html><body>
<a href="../../packages/my_pkg-1.0-py3-none-any.whl#sha256=AB12" data-requires-python="&gt;=3.8">my_pkg-1.0-py3-none-any.whl</a><br/>
<a href="/p/my_pkg-1.1-py3-none-any.whl#sha256=cd" data-yanked="">my_pkg-1.1-py3-none-any.whl</a>
<A HREF='my-pkg-1.2.tar.gz'>my-pkg-1.2.tar.gz</A>
</body></html>"#;
        let files = simple_html_files(html, "http://h/simple/my-pkg/").expect("parses");
        assert_eq!(files.len(), 3);
        assert_eq!(
            files[0].url,
            "http://h/packages/my_pkg-1.0-py3-none-any.whl"
        );
        assert_eq!(files[0].sha256.as_deref(), Some("ab12"));
        assert!(files[1].yanked);
        assert!(!files[0].yanked);
        assert!(!files[2].wheel);
        assert_eq!(files[2].url, "http://h/simple/my-pkg/my-pkg-1.2.tar.gz");
        let (v, bad) = group("my-pkg", files);
        assert!(bad.is_empty());
        let names: Vec<_> = v.iter().map(|v| v.version.as_str()).collect();
        assert_eq!(names, ["1.0", "1.1", "1.2"]);
        assert!(matches!(v[1].status, Status::Yanked { .. }));
    }

    #[test]
    fn json_pages() {
        let doc = serde_json::json!({"files": [
            {"filename": "p-1.0-py3-none-any.whl", "url": "../../f/p-1.0-py3-none-any.whl", "hashes": {"sha256": "AA"}, "yanked": "bad", "upload-time": "2024-01-02T03:04:05.123456Z"},
            {"filename": "p-1.0.tar.gz", "url": "https://f/p-1.0.tar.gz", "hashes": {}, "upload-time": "2024-01-01T00:00:00Z"}
        ]});
        let files = simple_json_files(&doc, "http://h/simple/p/").expect("parses");
        assert_eq!(files[0].url, "http://h/f/p-1.0-py3-none-any.whl");
        assert!(files[0].yanked && !files[1].yanked);
        let (v, _) = group("p", files);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].status, Status::Current);
        assert_eq!(
            v[0].published_at.map(|t| t.to_string()).as_deref(),
            Some("2024-01-01T00:00:00Z")
        );
        let api = serde_json::json!({"releases": {"1.0": [
            {"filename": "p-1.0-py3-none-any.whl", "url": "https://f/x.whl", "digests": {"sha256": "ab"}, "yanked": true, "upload_time_iso_8601": "2023-05-01T00:00:00.000000Z"}
        ], "0.9": []}});
        let (files, empty) = json_api_files(&api, "https://h/pypi/p/json").expect("parses");
        assert_eq!(files[0].url, "https://f/x.whl");
        let rel = serde_json::json!({"releases": {"1.0": [{"filename": "p-1.0.tar.gz", "url": "../../packages/p-1.0.tar.gz"}]}});
        let (rel, _) = json_api_files(&rel, "https://h/pypi/p/json").expect("parses");
        assert_eq!(rel[0].url, "https://h/packages/p-1.0.tar.gz");
        assert_eq!(empty, ["0.9"]);
        let (v, _) = group("p", files);
        assert!(matches!(v[0].status, Status::Yanked { .. }));
    }
}
