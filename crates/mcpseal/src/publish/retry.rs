//! Asking a registry again: 5xx and 429 answers are retried with exponential backoff, waiting
//! what `Retry-After` says when it says (seconds or an HTTP date), capped so a hostile answer
//! cannot stall a run; anything else (200, 404, a network error) is final.

use std::time::{Duration, SystemTime};

use mcpseal_client::{PublicClient, PublicResponse};

/// The longest single wait, whatever `Retry-After` says.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// Whether a status is worth asking again.
pub fn retryable(status: Option<u16>) -> bool {
    matches!(status, Some(429) | Some(500..=599))
}

/// The wait a `Retry-After` header asks for (delta-seconds or an HTTP date).
pub fn retry_after(f: &PublicResponse) -> Option<Duration> {
    let v = f.header("retry-after")?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// GETs `url` up to `attempts` times (see the module docs); returns the last answer and the
/// number of attempts used. `wait` is the first backoff step (doubled each time).
pub async fn get_with_retry(
    client: &PublicClient,
    url: &str,
    accept: &str,
    attempts: u32,
    wait: Duration,
) -> (PublicResponse, u32) {
    let attempts = attempts.max(1);
    let mut step = wait;
    let mut n = 1;
    loop {
        let answer = client.get(url, accept).await;
        if n >= attempts || !retryable(answer.status) {
            return (answer, n);
        }
        let pause = retry_after(&answer).unwrap_or(step).min(MAX_WAIT);
        tokio::time::sleep(pause).await;
        step = (step * 2).min(MAX_WAIT);
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpseal_client::Header;

    fn with(header: &str) -> PublicResponse {
        PublicResponse {
            url: String::new(),
            final_url: String::new(),
            status: Some(503),
            headers: vec![Header {
                name: "Retry-After".into(),
                value: header.into(),
            }],
            body: Vec::new(),
            redirect: None,
            error: None,
            duration_ms: 0,
        }
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(retry_after(&with("3")), Some(Duration::from_secs(3)));
        assert_eq!(
            retry_after(&with("Wed, 21 Oct 2015 07:28:00 GMT")),
            Some(Duration::ZERO),
            "a date in the past means now"
        );
        assert_eq!(retry_after(&with("soon")), None);
        assert!(retryable(Some(503)) && retryable(Some(429)));
        assert!(!retryable(Some(404)) && !retryable(None));
    }
}
