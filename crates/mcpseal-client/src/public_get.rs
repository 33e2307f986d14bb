//! Header-free GETs of public documents (OAuth metadata, registry entries, server cards),
//! without an MCP connection.
//!
//! Why a separate client: the URLs come from data a server controls, and the user's headers
//! usually carry a token, so none is ever sent — only `Accept` and a `User-Agent` naming
//! mcpseal. Redirects are followed only within the origin first asked (at most five); one to
//! another origin is not followed but reported ([`PublicResponse::redirect`]), so the caller decides. Every
//! fetch is bounded in bytes and time.

use std::time::{Duration, Instant};

use mcpseal_protocol::keys::CLIENT_NAME;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ConnectError, TransportError};
use crate::exchange::Header;
use crate::headers::headers_of;
use crate::support::elapsed_ms;

/// Same-origin redirects followed before giving up.
const MAX_REDIRECTS: usize = 5;

/// The `User-Agent` of public fetches: `mcpseal/<version>`.
pub fn user_agent() -> String {
    format!("{CLIENT_NAME}/{}", env!("CARGO_PKG_VERSION"))
}

/// A fetched public JSON document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataResponse {
    /// The URL fetched.
    pub url: String,
    /// The status, when one arrived.
    pub status: Option<u16>,
    /// The JSON body, when it was JSON within the size limit.
    pub body: Option<Value>,
    /// Why there is no body.
    pub error: Option<String>,
}

/// What a public GET brought back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicResponse {
    /// The URL asked for.
    pub url: String,
    /// The URL that answered (differs after same-origin redirects).
    pub final_url: String,
    /// The status, when one arrived.
    pub status: Option<u16>,
    /// Response headers, verbatim.
    pub headers: Vec<Header>,
    /// The body (empty when there is an error).
    pub body: Vec<u8>,
    /// The `Location` of a redirect that was not followed — to another origin, or one hop past
    /// the five same-origin ones followed (the status is then the 3xx).
    pub redirect: Option<String>,
    /// Why there is no (whole) body: no answer, too large, timeout.
    pub error: Option<String>,
    /// Milliseconds until the body was read (or the failure).
    pub duration_ms: u64,
}

impl PublicResponse {
    /// A response header by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// `Content-Type`.
    pub fn content_type(&self) -> Option<&str> {
        self.header("content-type")
    }

    /// `ETag`.
    pub fn etag(&self) -> Option<&str> {
        self.header("etag")
    }

    /// `Cache-Control`.
    pub fn cache_control(&self) -> Option<&str> {
        self.header("cache-control")
    }

    /// The body as JSON.
    ///
    /// # Errors
    /// The reason there is no JSON: the fetch error, the refused redirect, or the parse error.
    pub fn json(&self) -> Result<Value, String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if let Some(location) = &self.redirect {
            return Err(format!(
                "redirected to {location}, not followed (another origin, or too many redirects)"
            ));
        }
        serde_json::from_slice(&self.body).map_err(|e| format!("not JSON: {e}"))
    }

    /// Why there is no usable answer, for messages: the error, else the status.
    pub fn failure(&self) -> String {
        match (&self.error, self.status) {
            (Some(e), _) => e.clone(),
            (None, Some(s)) => format!("HTTP {s}"),
            (None, None) => "no answer".into(),
        }
    }
}

/// A client for public GETs. Cheap to clone.
#[derive(Debug, Clone)]
pub struct PublicClient {
    client: reqwest::Client,
    timeout: Duration,
    max_bytes: usize,
}

impl PublicClient {
    /// A client whose fetches take at most `timeout` and `max_bytes` of body each.
    ///
    /// # Errors
    /// When the HTTP client cannot be built (TLS set-up).
    pub fn new(timeout: Duration, max_bytes: usize) -> Result<PublicClient, ConnectError> {
        let policy = reqwest::redirect::Policy::custom(|attempt| {
            let same_origin = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if same_origin && attempt.previous().len() <= MAX_REDIRECTS {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        let client = reqwest::Client::builder()
            // Like the MCP client: no proxy from the environment (loopback tests, probing).
            .no_proxy()
            .connect_timeout(timeout)
            .redirect(policy)
            .user_agent(user_agent())
            .build()
            .map_err(|e| ConnectError::HttpClient(e.to_string()))?;
        Ok(PublicClient {
            client,
            timeout,
            max_bytes,
        })
    }

    /// GETs `url` with `Accept: accept` and no other header than the `User-Agent`.
    pub async fn get(&self, url: &str, accept: &str) -> PublicResponse {
        self.fetch(url, accept, None).await
    }

    /// Revalidates `url`: the GET of [`PublicClient::get`] plus `If-None-Match: etag` (the
    /// `ETag` an earlier answer gave), so a server that honours it answers `304 Not Modified`
    /// with an empty body. Same bounds, same redirect rule, still no user header.
    pub async fn revalidate(&self, url: &str, accept: &str, etag: &str) -> PublicResponse {
        self.fetch(url, accept, Some(etag)).await
    }

    async fn fetch(&self, url: &str, accept: &str, if_none_match: Option<&str>) -> PublicResponse {
        let started = Instant::now();
        let mut out = PublicResponse {
            url: url.to_owned(),
            final_url: url.to_owned(),
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
            let mut response = request
                .send()
                .await
                .map_err(|e| TransportError::network(&e).message)?;
            out.status = Some(response.status().as_u16());
            out.final_url = response.url().to_string();
            out.headers = headers_of(response.headers());
            if response.status().is_redirection() {
                out.redirect = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .map(|l| String::from_utf8_lossy(l.as_bytes()).into_owned());
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
        out.duration_ms = elapsed_ms(started);
        out
    }

    /// GETs a JSON document (`Accept: application/json`).
    pub async fn get_json(&self, url: &str) -> MetadataResponse {
        let response = self.get(url, "application/json").await;
        let (body, error) = match response.json() {
            Ok(v) => (Some(v), None),
            Err(e) => (None, Some(e)),
        };
        MetadataResponse {
            url: response.url,
            status: response.status,
            body,
            error,
        }
    }
}
