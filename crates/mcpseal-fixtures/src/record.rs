//! `--credential-log FILE`: the fixture writes down, for every POST to `/mcp`, its JSON-RPC method
//! and whether it carried each credential-looking header, so a test can prove what a client
//! did *not* send (the anonymous-access measurement must strip the user's credential).
//!
//! One line per request: `METHOD authorization=yes|no x-api-key=yes|no cookie=yes|no`. The
//! values are never written (the fixture must not be a place a secret leaks to).

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
}

/// Header names recorded (presence only).
const RECORDED: [&str; 3] = ["authorization", "x-api-key", "cookie"];

/// Appends one line for a POST of JSON-RPC `method` (a no-op without `--credential-log`).
pub fn post(knobs: &RecordKnobs, headers: &HeaderMap, method: Option<&str>) {
    let Some(path) = &knobs.credential_log else {
        return;
    };
    let method = method.unwrap_or("-");
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
    // A log that cannot be written fails the test reading it; the server keeps serving.
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(line.as_bytes());
    }
}
