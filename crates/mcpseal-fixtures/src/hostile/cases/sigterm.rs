//! A server that will not stop politely: SIGTERM blocked (the mask is inherited, so nothing
//! it starts would die of it either), end of input ignored, and the trigger never answered.
//! Only SIGKILL ends it; a client that stops at SIGTERM leaves it running.

use nix::sys::signal::{SigSet, SigmaskHow, Signal, sigprocmask};

/// Blocks SIGTERM for this process.
pub fn block() -> std::io::Result<()> {
    let mut set = SigSet::empty();
    set.add(Signal::SIGTERM);
    sigprocmask(SigmaskHow::SIG_BLOCK, Some(&set), None).map_err(std::io::Error::from)
}
