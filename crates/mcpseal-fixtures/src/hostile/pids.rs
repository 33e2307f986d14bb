//! The pid file: one `PID PGID` line per process of the server, so a test can check through
//! `/proc` that none of them outlives the client, and that they ran in their own group.

use std::io::Write;
use std::path::Path;

/// Appends this process's `PID PGID` line to `file`.
pub fn record(file: &Path) -> std::io::Result<()> {
    let pid = std::process::id();
    let pgid = nix::unistd::getpgrp();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    writeln!(f, "{pid} {pgid}")
}
