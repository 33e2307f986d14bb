//! A server that starts two grandchildren (itself again, with `--grandchild`) which inherit
//! its stdout and stderr and live forever with SIGTERM blocked; at the trigger the server
//! exits with code 3 without answering. Its stdout stays open (the grandchildren hold it), so a
//! client that waits for EOF to notice the death waits forever; and a client that kills only
//! the process it started leaves the grandchildren running.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::Args;

/// Grandchildren started.
pub const COUNT: usize = 2;

/// Starts the grandchildren (they record their pids in the same pid file).
pub fn start(args: &Args) -> std::io::Result<()> {
    let exe = std::env::current_exe()?;
    for _ in 0..COUNT {
        let mut cmd = Command::new(&exe);
        cmd.args(["--case", "grandchildren", "--grandchild"]);
        if let Some(file) = &args.pid_file {
            cmd.arg("--pid-file").arg(file);
        }
        // stdout and stderr inherited: the pipe to the client stays open while they live.
        cmd.stdin(Stdio::null()).spawn()?;
    }
    Ok(())
}

/// The grandchild's life: SIGTERM blocked, then sleep forever.
pub fn linger() -> ! {
    let _ = super::sigterm::block();
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}
