//! Manners toward other people's servers (`url:` targets, and `registry:` entries expanded
//! into their remote):
//!
//! * **one target per host at a time** by default (`HostLimits`; `--per-host N`), so a
//!   cohort listing many endpoints of one operator never hits it with `--jobs` connections;
//!   the target's budget starts once it holds its host's turn, not while it waits for it;
//! * a **`User-Agent` naming mcpseal and its version** on every request ([`user_agent`]), so
//!   the operator can tell who is asking;
//! * **`Retry-After` honoured**: when a capture fails, one handshake asks whether the server
//!   is rate-limiting (429 or 503 with `Retry-After`); if so the capture is tried again after
//!   that wait — at most [`MAX_RETRY_AFTER`] each time, [`MAX_ATTEMPTS`] captures in all, and
//!   never past the target's budget; a longer wait is not waited and the row says so;
//! * **never a tool call**: the probe rules that send any `tools/call` (even of a tool that
//!   does not exist) are left out ([`TOOL_CALLING_RULES`]) and the row lists them.
//!
//! No request is added when the server answers: the handshake of the third point happens
//! only after a failed capture.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpseal_client::{Options, Target};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The probe rules that send a `tools/call` (SEAL030: of a non-existent tool, when nothing
/// else is listed; SEAL034 and SEAL043: of `mcpseal-probe-no-such-tool`). Sorted.
pub const TOOL_CALLING_RULES: [&str; 3] = ["SEAL030", "SEAL034", "SEAL043"];

/// The longest `Retry-After` waited (longer asks end the target's attempts).
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Captures tried in all on one target when the server asks to wait.
pub const MAX_ATTEMPTS: u32 = 3;

/// The `User-Agent` of every request to a remote target: `mcpseal/VERSION`.
pub fn user_agent() -> String {
    mcpseal_client::user_agent()
}

/// `http://HOST…` names a loopback host (`localhost`, 127.0.0.0/8, `[::1]`).
pub(crate) fn loopback(url: &str) -> bool {
    reqwest::Url::parse(url).is_ok_and(|u| {
        let host = u.host_str().unwrap_or("");
        let host = host.trim_start_matches('[').trim_end_matches(']');
        host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    })
}

/// The host a URL's requests go to (`scheme://host:port`); the URL itself when it does not
/// parse (it then fails on its own, alone).
fn host_key(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => format!(
            "{}://{}:{}",
            u.scheme(),
            u.host_str().unwrap_or(""),
            u.port_or_known_default().unwrap_or(0)
        ),
        Err(_) => url.to_owned(),
    }
}

/// How many targets of one host are measured at once.
#[derive(Debug)]
pub(crate) struct HostLimits {
    per_host: usize,
    hosts: Mutex<HashMap<String, Arc<Semaphore>>>,
}

impl HostLimits {
    pub(crate) fn new(per_host: usize) -> HostLimits {
        HostLimits {
            per_host: per_host.max(1),
            hosts: Mutex::new(HashMap::new()),
        }
    }

    /// Waits for a turn at `url`'s host; the turn lasts as long as the permit.
    pub(crate) async fn turn(&self, url: &str) -> Option<OwnedSemaphorePermit> {
        let semaphore = {
            // A poisoned lock only means another target panicked while inserting: the map is
            // still whole.
            let mut hosts = self
                .hosts
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(
                hosts
                    .entry(host_key(url))
                    .or_insert_with(|| Arc::new(Semaphore::new(self.per_host))),
            )
        };
        semaphore.acquire_owned().await.ok()
    }
}

/// A `Retry-After` value (delta-seconds or an HTTP date) as a wait.
pub(crate) fn retry_after_value(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// After a failed capture: one handshake; the wait the server asks for when it answers 429 or
/// 503 with a `Retry-After`.
pub(crate) async fn asked_to_wait(target: &Target, options: &Options) -> Option<Duration> {
    let conn = crate::open(target, options.clone()).await.ok()?;
    let (first, _) = conn.handshake().await;
    conn.close().await;
    if !matches!(first.http_status, Some(429 | 503)) {
        return None;
    }
    first
        .response_headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("retry-after"))
        .and_then(|h| retry_after_value(&h.value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_loopback() {
        assert_eq!(
            host_key("https://a.example/x/mcp"),
            host_key("https://a.example:443/y")
        );
        assert_ne!(
            host_key("http://127.0.0.1:1/mcp"),
            host_key("http://127.0.0.1:2/mcp")
        );
        assert!(loopback("http://127.0.0.1:9/mcp") && loopback("http://[::1]/"));
        assert!(!loopback("http://127.0.0.1.example.com/") && !loopback("http://10.0.0.1/"));
    }

    #[test]
    fn retry_after_values() {
        assert_eq!(retry_after_value(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(
            retry_after_value("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after_value("later"), None);
    }

    #[tokio::test]
    async fn one_turn_per_host_by_default() {
        let limits = HostLimits::new(1);
        let held = limits.turn("http://127.0.0.1:5/a").await;
        assert!(held.is_some());
        // Another host is not held up; the same host is.
        assert!(limits.turn("http://127.0.0.1:6/a").await.is_some());
        let same = tokio::time::timeout(Duration::ZERO, limits.turn("http://127.0.0.1:5/b")).await;
        assert!(same.is_err(), "the host's one turn is taken");
        drop(held);
        assert!(limits.turn("http://127.0.0.1:5/b").await.is_some());
    }
}
