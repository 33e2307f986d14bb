//! Header-free GETs of public documents (registry entries, server cards, AI Catalogs).
//!
//! The URLs come from data third parties control (a registry entry, a catalog), so no user
//! header is ever sent: only `Accept`, a `User-Agent` naming mcpseal and, for revalidation,
//! `If-None-Match`. Redirects are followed only within the origin first asked (at most five);
//! one to another origin is reported, not followed. Every fetch is bounded in bytes and time.
//!
//! Seam: this mirrors `mcpseal_client::PublicClient` (the header-free public GET landing with
//! the transport split); when it lands with conditional requests, [`PublicGet::get`] becomes a
//! call to it and nothing else here changes.

use std::time::{Duration, Instant};

/// What a public GET brought back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The URL asked for.
    pub url: String,
    /// The status, when one arrived.
    pub status: Option<u16>,
    /// Response headers (names lower-cased).
    pub headers: Vec<(String, String)>,
    /// The body (empty on error).
    pub body: Vec<u8>,
    /// A cross-origin redirect that was not followed.
    pub redirect: Option<String>,
    /// Why there is no (whole) answer.
    pub error: Option<String>,
    /// Milliseconds taken.
    pub duration_ms: u64,
}

impl Fetched {
    /// A header by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON, or why not.
    ///
    /// # Errors
    /// The fetch error, the refused redirect, or the parse error.
    pub fn json(&self) -> Result<serde_json::Value, String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if let Some(l) = &self.redirect {
            return Err(format!("redirected to {l}, another origin: not followed"));
        }
        serde_json::from_slice(&self.body).map_err(|e| format!("not JSON: {e}"))
    }

    /// Why there is no usable answer, for messages: the error, or the status.
    pub fn failure(&self) -> String {
        match (&self.error, self.status) {
            (Some(e), _) => e.clone(),
            (None, Some(s)) => format!("HTTP {s}"),
            (None, None) => "no answer".into(),
        }
    }
}

/// A header-free public GET client (see the module docs).
#[derive(Debug, Clone)]
pub struct PublicGet {
    client: reqwest::Client,
    timeout: Duration,
    max_bytes: usize,
}

impl PublicGet {
    /// Fetches take at most `timeout` and `max_bytes` of body each.
    ///
    /// # Errors
    /// When the HTTP client cannot be built (TLS set-up).
    pub fn new(timeout: Duration, max_bytes: usize) -> Result<PublicGet, String> {
        let policy = reqwest::redirect::Policy::custom(|attempt| {
            let same = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if same && attempt.previous().len() <= 5 {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        let client = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(timeout)
            .redirect(policy)
            .user_agent(format!("mcpseal/{}", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(PublicGet {
            client,
            timeout,
            max_bytes,
        })
    }

    /// GETs `url` with `Accept: accept` (and `If-None-Match` when revalidating).
    pub async fn get(&self, url: &str, accept: &str, if_none_match: Option<&str>) -> Fetched {
        let started = Instant::now();
        let mut out = Fetched {
            url: url.to_owned(),
            status: None,
            headers: Vec::new(),
            body: Vec::new(),
            redirect: None,
            error: None,
            duration_ms: 0,
        };
        let max = self.max_bytes;
        let fetch = async {
            let mut request = self.client.get(url).header(reqwest::header::ACCEPT, accept);
            if let Some(tag) = if_none_match {
                request = request.header(reqwest::header::IF_NONE_MATCH, tag);
            }
            let mut response = request.send().await.map_err(|e| {
                if e.is_connect() {
                    format!("could not connect: {e}")
                } else {
                    e.to_string()
                }
            })?;
            out.status = Some(response.status().as_u16());
            out.headers = response
                .headers()
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_owned(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect();
            if response.status().is_redirection() {
                out.redirect = out.header("location").map(str::to_owned);
            }
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
                if body.len() + chunk.len() > max {
                    return Err(format!("the document exceeded {max} bytes"));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(body)
        };
        match tokio::time::timeout(self.timeout, fetch).await {
            Ok(Ok(body)) => out.body = body,
            Ok(Err(e)) => out.error = Some(e),
            Err(_) => out.error = Some("no response within the timeout".into()),
        }
        out.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        out
    }
}
