//! `--credential-log FILE`: the fixture writes down, for every POST to `/mcp`, its JSON-RPC method
//! and whether it carried each credential-looking header, so a test can prove what a client
//! did *not* send (the anonymous-access measurement must strip the user's credential).
//!
//! One line per request: `METHOD authorization=yes|no x-api-key=yes|no cookie=yes|no`. The
//! values are never written (the fixture must not be a place a secret leaks to).
//!
//! `--header-log FILE`: every header of every POST, for forwarding tests (what a proxy in front
//! of the fixture passed on): `METHOD` then `name=value` per header, tab-separated, names
//! lower-case and sorted, a credential's value written as `<set>`.
//!
//! `--redirect-calls URL`: every `tools/call` POST is answered `307 Temporary Redirect` to URL (a
//! client or proxy that followed it would re-send the request, and its headers, there).

use std::io::Write;
use std::path::PathBuf;

use axum::http::HeaderMap;
use clap::Args;

/// The knobs of this module (flattened into the fixture's flags).
#[derive(Debug, Clone, Default, Args)]
pub struct RecordKnobs {
    /// HTTP: append `METHOD authorization=yes|no x-api-key=yes|no cookie=yes|no` per POST to
    /// FILE (the anonymous-access credential test)
    #[arg(long, value_name = "FILE", requires = "http")]
    pub credential_log: Option<PathBuf>,

    /// HTTP: append `METHOD<TAB>name=value…` (every header, credential values as `<set>`) per POST
    /// to FILE (header forwarding tests)
    #[arg(long, value_name = "FILE", requires = "http")]
    pub header_log: Option<PathBuf>,

    /// HTTP: answer every `tools/call` POST with `307 Temporary Redirect` to URL (redirect and
    /// credential-origin tests)
    #[arg(long, value_name = "URL", requires = "http")]
    pub redirect_calls: Option<String>,
}

/// Header names recorded (presence only).
const RECORDED: [&str; 3] = ["authorization", "x-api-key", "cookie"];

/// Header names whose value `--header-log` never writes.
const SECRET: [&str; 4] = [
    "authorization",
    "x-api-key",
    "cookie",
    "proxy-authorization",
];

/// Appends the lines for a POST of JSON-RPC `method` (a no-op without `--credential-log` and
/// `--header-log`).
pub fn post(knobs: &RecordKnobs, headers: &HeaderMap, method: Option<&str>) {
    let method = method.unwrap_or("-");
    if let Some(path) = &knobs.header_log {
        let mut all: Vec<String> = headers
            .iter()
            .map(|(n, v)| {
                let value = if SECRET.contains(&n.as_str()) {
                    "<set>".to_owned()
                } else {
                    String::from_utf8_lossy(v.as_bytes()).into_owned()
                };
                format!("{}={value}", n.as_str())
            })
            .collect();
        all.sort();
        append(path, &format!("{method}\t{}\n", all.join("\t")));
    }
    let Some(path) = &knobs.credential_log else {
        return;
    };
    let mut line = method.to_owned();
    for name in RECORDED {
        let yes = if headers.contains_key(name) {
            "yes"
        } else {
            "no"
        };
        line.push_str(&format!(" {name}={yes}"));
    }
    line.push('\n');
    append(path, &line);
}

/// The `307` answer of `--redirect-calls` to a POST of JSON-RPC `method`, if it applies.
pub fn redirect(knobs: &RecordKnobs, method: Option<&str>) -> Option<axum::response::Response> {
    let to = knobs.redirect_calls.as_deref()?;
    if method != Some("tools/call") {
        return None;
    }
    let mut r = axum::response::Response::new(axum::body::Body::empty());
    *r.status_mut() = axum::http::StatusCode::TEMPORARY_REDIRECT;
    let location = axum::http::HeaderValue::from_str(to).ok()?;
    r.headers_mut()
        .insert(axum::http::header::LOCATION, location);
    Some(r)
}

/// Appends `line` to `path`. A log that cannot be written fails the test reading it; the server
/// keeps serving.
fn append(path: &std::path::Path, line: &str) {
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(line.as_bytes());
    }
}
