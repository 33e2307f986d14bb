//! Anonymous, bounded GETs of public package metadata and artifacts.
//!
//! The rules (the same as the client's header-free public GET, which this will switch to when
//! it lands): no credentials ever — no `Authorization`, no cookies, a URL with user-info is
//! refused before anything is sent; a `User-Agent` naming mcpseal; a deadline per request;
//! bodies capped in bytes (a larger body is an error, never truncated silently); at most 5
//! redirects. Proxies from the environment (`HTTPS_PROXY`) are honoured as reqwest does.

use std::time::Duration;

use crate::error::SourceError;

/// The `User-Agent` sent on every request.
pub const USER_AGENT: &str = concat!(
    "mcpseal/",
    env!("CARGO_PKG_VERSION"),
    " (+https://github.com/mcpseal/mcpseal)"
);

/// Limits on metadata and artifact fetches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Deadline for one request, body included. Default 60 s.
    pub timeout: Duration,
    /// Largest metadata document (packument, PyPI JSON, simple index page). Default 64 MiB:
    /// full npm packuments of long-lived packages are tens of MiB.
    pub max_metadata_bytes: u64,
    /// Largest artifact (tarball, wheel). Default 256 MiB.
    pub max_artifact_bytes: u64,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            timeout: Duration::from_secs(60),
            max_metadata_bytes: 64 * 1024 * 1024,
            max_artifact_bytes: 256 * 1024 * 1024,
        }
    }
}

/// A fetched body.
#[derive(Debug)]
pub(crate) struct Fetched {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

/// The anonymous fetcher.
#[derive(Debug, Clone)]
pub(crate) struct Http {
    client: reqwest::Client,
    pub limits: HttpLimits,
}

impl Http {
    pub(crate) fn new(limits: HttpLimits) -> Result<Http, SourceError> {
        let client = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .redirect(reqwest::redirect::Policy::limited(5))
            .connect_timeout(Duration::from_secs(15).min(limits.timeout))
            .build()
            .map_err(|e| SourceError::Http {
                url: String::new(),
                why: format!("cannot build the HTTP client: {e}"),
            })?;
        Ok(Http { client, limits })
    }

    /// GETs `url` with `accept`, reading at most `max` bytes. Any status is returned (the
    /// caller decides what a 404 means); transport failures and oversize bodies are errors.
    pub(crate) async fn get(
        &self,
        url: &str,
        accept: &str,
        max: u64,
    ) -> Result<Fetched, SourceError> {
        check_url(url)?;
        let err = |why: String| SourceError::Http {
            url: url.to_owned(),
            why,
        };
        let work = async {
            let mut resp = self
                .client
                .get(url)
                .header(reqwest::header::ACCEPT, accept)
                .send()
                .await
                .map_err(|e| err(describe(&e)))?;
            let status = resp.status().as_u16();
            let content_type = resp
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_ascii_lowercase();
            if let Some(len) = resp.content_length()
                && len > max
            {
                return Err(err(format!(
                    "the body is {len} bytes, over the {max}-byte limit"
                )));
            }
            let mut body = Vec::new();
            while let Some(chunk) = resp.chunk().await.map_err(|e| err(describe(&e)))? {
                if body.len() as u64 + chunk.len() as u64 > max {
                    return Err(err(format!("the body passed the {max}-byte limit")));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(Fetched {
                status,
                content_type,
                body,
            })
        };
        tokio::time::timeout(self.limits.timeout, work)
            .await
            .map_err(|_| {
                err(format!(
                    "no complete answer within {} s",
                    self.limits.timeout.as_secs()
                ))
            })?
    }
}

/// The error's chain in one line (reqwest's top-level message alone says little).
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// Refuses anything but `http(s)://` and URLs with user-info.
pub(crate) fn check_url(url: &str) -> Result<(), SourceError> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(SourceError::Http {
            url: url.to_owned(),
            why: "not an absolute `http://` or `https://` URL".into(),
        });
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(SourceError::Http {
            url: url.to_owned(),
            why: format!("the `{scheme}` scheme is not fetched (http and https are)"),
        });
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if let Some((_, host)) = authority.rsplit_once('@') {
        return Err(SourceError::CredentialsInUrl {
            url: format!("{scheme}://[redacted]@{host}{}", &rest[authority.len()..]),
        });
    }
    Ok(())
}

/// `base` joined with `path` (one `/` between them).
pub(crate) fn join(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

/// Resolves a possibly relative `href` found in the document at `base_url`.
pub(crate) fn resolve_href(base_url: &str, href: &str) -> String {
    if href.contains("://") {
        return href.to_owned();
    }
    let (scheme, rest) = base_url.split_once("://").unwrap_or(("http", base_url));
    let host_end = rest.find('/').unwrap_or(rest.len());
    let origin = format!("{scheme}://{}", &rest[..host_end]);
    if let Some(abs) = href.strip_prefix("//") {
        return format!("{scheme}://{abs}");
    }
    if href.starts_with('/') {
        return format!("{origin}{href}");
    }
    // Relative to the directory of base_url.
    let path = &rest[host_end..];
    let path = path.split(['?', '#']).next().unwrap_or("");
    let dir = match path.rfind('/') {
        Some(i) => &path[..=i],
        None => "/",
    };
    let mut segments: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    let mut rel = href;
    loop {
        if let Some(r) = rel.strip_prefix("../") {
            segments.pop();
            rel = r;
        } else if let Some(r) = rel.strip_prefix("./") {
            rel = r;
        } else {
            break;
        }
    }
    let mut out = origin;
    for s in segments {
        out.push('/');
        out.push_str(s);
    }
    out.push('/');
    out.push_str(rel);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert!(check_url("https://registry.npmjs.org/").is_ok());
        assert!(matches!(
            check_url("https://u:p@host/x"),
            Err(SourceError::CredentialsInUrl { url }) if url == "https://[redacted]@host/x"
        ));
        assert!(check_url("file:///etc/passwd").is_err());
        assert!(check_url("registry").is_err());
        assert_eq!(join("http://h/simple/", "/x/"), "http://h/simple/x/");
        assert_eq!(
            resolve_href("http://h:1/simple/pkg/", "../../packages/a.whl#sha256=1"),
            "http://h:1/packages/a.whl#sha256=1"
        );
        assert_eq!(
            resolve_href("http://h/simple/pkg/", "a.whl"),
            "http://h/simple/pkg/a.whl"
        );
        assert_eq!(
            resolve_href("http://h/simple/pkg/", "/p/a.whl"),
            "http://h/p/a.whl"
        );
        assert_eq!(
            resolve_href("https://h/s/", "//cdn/a.whl"),
            "https://cdn/a.whl"
        );
    }
}
