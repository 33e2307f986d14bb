//! Shared set-up of the guard end-to-end tests (`guard_forwarding.rs`, `guard_passthrough.rs`):
//! the binary, a lock of a real server, and an HTTP guard kept running between a client and a
//! real upstream.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The request timeout of every run: a deadline on a loaded machine, not a bound any assertion
/// depends on.
pub const TIMEOUT: &str = "60s";

/// The `mcpseal` binary under test.
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("mcpseal")
}

/// `mcpseal` in `dir`, uncoloured.
#[expect(
    clippy::disallowed_methods,
    reason = "the tests start the guard and the processes around it"
)]
pub fn command(dir: &Path) -> Command {
    let mut c = Command::new(bin());
    c.current_dir(dir).env("NO_COLOR", "1");
    c
}

/// `mcpseal lock --lock LOCK TARGET…` in `dir`, which must succeed.
pub fn lock(dir: &Path, lock: &Path, target: &[String]) {
    let out = assert_cmd::Command::from_std(command(dir))
        .timeout(Duration::from_secs(180))
        .args(["lock", "--timeout", TIMEOUT, "--lock"])
        .arg(lock)
        .args(target)
        .output()
        .expect("lock runs");
    assert!(
        out.status.success(),
        "lock: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `mcpseal guard [EXTRA…] --lock LOCK --upstream URL --listen 127.0.0.1:0`, kept running
/// (killed on drop); its URL.
pub struct HttpGuard {
    pub child: Child,
    pub url: String,
}

impl HttpGuard {
    pub fn start(dir: &Path, lock: &Path, upstream: &str, extra: &[&str]) -> HttpGuard {
        let mut child = command(dir)
            .args(["guard", "--timeout", TIMEOUT])
            .args(extra)
            .arg("--lock")
            .arg(lock)
            .args(["--upstream", upstream, "--listen", "127.0.0.1:0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the guard starts");
        let mut line = String::new();
        // The URL line is printed once the listener is bound (after the start-up listing).
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the URL");
        let url = line.trim().to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "no URL: {url:?}");
        HttpGuard { child, url }
    }
}

impl Drop for HttpGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
