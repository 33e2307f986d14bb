//! The pid file: one `PID PGID` line per process of the server, so a test can check through
//! `/proc` that none of them outlives the client, and that they ran in their own group.

use std::io::Write;
use std::path::Path;

/// Appends this process's `PID PGID` line to `file`, whole in one `write`: the server and its
/// grandchildren record at the same moment, and `writeln!` would issue one `write` per
/// formatted piece, so two processes' lines could interleave (`2191021909 2190821908`).
pub fn record(file: &Path) -> std::io::Result<()> {
    let pid = std::process::id();
    let pgid = nix::unistd::getpgrp();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    f.write_all(format!("{pid} {pgid}\n").as_bytes())
}
