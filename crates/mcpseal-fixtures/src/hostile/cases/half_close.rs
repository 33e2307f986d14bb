//! A server that closes its stdout at the trigger (it puts `/dev/null` in its place) and
//! keeps running, ignoring the end of its input: the client sees EOF from a live process and
//! must neither wait for an exit status forever nor leave it running.

/// Replaces stdout by `/dev/null`: the pipe's write end is closed, the process lives on.
pub fn close_stdout() -> std::io::Result<()> {
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    nix::unistd::dup2_stdout(&null).map_err(std::io::Error::from)
}
