//! `--request-log FILE`: one line per request received, `PID PGID METHOD`, appended and flushed
//! before the request is answered (or delayed), so a test can wait for "the server has this
//! request" instead of sleeping, and knows which process group the server runs in.

use std::io::Write;
use std::path::Path;

/// Appends the line for `method`; a log that cannot be written is reported on stderr only
/// (the server keeps serving: the test waiting for the line fails on its own deadline).
pub fn record(path: &Path, method: &str) {
    let pid = std::process::id();
    let line = format!("{pid} {} {method}\n", process_group(pid));
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        crate::stdio::log(&format!(
            "cannot append to --request-log `{}`: {e}",
            path.display()
        ));
    }
}

/// The process group of `pid` (field 5 of `/proc/PID/stat`, after the parenthesised command
/// name, which may itself hold spaces and parentheses); `0` where there is no `/proc`.
fn process_group(pid: u32) -> u32 {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let after = stat.rsplit_once(')')?.1;
            after.split_whitespace().nth(2)?.parse().ok()
        })
        .unwrap_or(0)
}

/// `--message-log FILE`: appends `message` as one line of JSON (same failure rule as
/// [`record`]).
pub fn message(path: &Path, message: &serde_json::Value) {
    let line = format!("{message}\n");
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        crate::stdio::log(&format!(
            "cannot append to --message-log `{}`: {e}",
            path.display()
        ));
    }
}
