//! Running the built binaries for the worked examples: one step at a time with a deadline, and
//! servers in the background that are killed whatever happens (drop kills and reaps them).
//!
//! Every process started here is either waited for (a step, killed at its deadline) or owned by
//! a [`Background`] that kills and reaps it when dropped, so an example that fails half-way —
//! an `?` anywhere — leaves nothing running. A server started by `mcpseal` itself (the stdio
//! server of `snapshot -- …`, the guard's upstream) is that process's to stop: it reads EOF when
//! its parent dies, as mcpseal's stdio transport arranges.

use std::ffi::OsString;
use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context as _;

/// The most output one step may print (more is cut off: a runaway server must not fill memory).
const MAX_OUTPUT: u64 = 8 << 20;

/// One finished run: its exit code (`-1` when killed by a signal) and what it printed.
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// How every example process is started: the binaries' directory first on `PATH` (so command
/// lines say `mcpseal`, as a user types them), the pages' width, no colour.
pub fn command(bin_dir: &Path, program: &str, dir: &Path) -> anyhow::Result<Command> {
    anyhow::ensure!(
        bin_dir.join(program).exists(),
        "`{}` is not built",
        bin_dir.join(program).display()
    );
    let mut path = OsString::from(bin_dir);
    if let Some(rest) = std::env::var_os("PATH") {
        path.push(":");
        path.push(rest);
    }
    let mut cmd = Command::new(bin_dir.join(program));
    cmd.current_dir(dir)
        .env("PATH", path)
        // The help text wraps at the terminal's width; the pages at clap's 100 columns.
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .env_remove("MCPSEAL_WORKER_THREADS");
    Ok(cmd)
}

/// Reads a pipe to its end (bounded) on a thread of its own, so neither pipe can fill and
/// stall the child while the other is read.
fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = pipe {
            let _ = p.take(MAX_OUTPUT).read_to_end(&mut buf);
        }
        let _ = tx.send(buf);
    });
    rx
}

/// Runs `cmd` to its end, killing it at `timeout` (an error naming `what`).
pub fn run(mut cmd: Command, what: &str, timeout: Duration) -> anyhow::Result<Ran> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("running `{what}`"))?;
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().context("waiting for a step")? {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            anyhow::bail!(
                "the worked example `{what}` did not finish within {} s (killed)",
                timeout.as_secs()
            );
        }
        // Polling, not synchronisation: std has no wait with a deadline.
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = |rx: mpsc::Receiver<Vec<u8>>| -> anyhow::Result<String> {
        let bytes = rx
            .recv_timeout(Duration::from_secs(10))
            .context("a step's output pipe stayed open after it exited")?;
        String::from_utf8(bytes).context("a step printed non-UTF-8")
    };
    Ok(Ran {
        code: status.code().unwrap_or(-1),
        stdout: text(out)?,
        stderr: text(err)?,
    })
}

/// A server running while the examples talk to it; killed and reaped on drop.
pub struct Background {
    child: Child,
    /// Held open: the registry fixture serves until its stdin reaches EOF.
    _stdin: Option<ChildStdin>,
    /// The first line it printed on stdout (its URL).
    pub first_line: String,
}

impl Background {
    /// Starts `cmd` and waits (at most `timeout`) for the first line of its stdout, which the
    /// servers used here print once they listen (`http://127.0.0.1:PORT…`).
    pub fn start(mut cmd: Command, what: &str, timeout: Duration) -> anyhow::Result<Self> {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting `{what}`"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        // Owned from here: every early return below kills it (drop).
        let mut bg = Background {
            child,
            _stdin: stdin,
            first_line: String::new(),
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            if let Some(out) = stdout {
                let mut reader = BufReader::new(out.take(64 << 10));
                let _ = reader.read_line(&mut line);
                let _ = tx.send(line);
                // Keep reading (and dropping) so the server never blocks on a full pipe.
                let _ = std::io::copy(&mut reader, &mut std::io::sink());
            }
        });
        let line = rx
            .recv_timeout(timeout)
            .with_context(|| format!("`{what}` printed no URL within {} s", timeout.as_secs()))?;
        anyhow::ensure!(
            line.starts_with("http://127.0.0.1:"),
            "`{what}` printed `{}` instead of its URL",
            line.trim_end()
        );
        bg.first_line = line.trim_end().to_owned();
        Ok(bg)
    }

    /// The port of the URL it printed.
    pub fn port(&self) -> anyhow::Result<u16> {
        let rest = self
            .first_line
            .strip_prefix("http://127.0.0.1:")
            .unwrap_or_default();
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits
            .parse()
            .with_context(|| format!("no port in `{}`", self.first_line))
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The directory the cargo build put the binaries in.
pub fn bin_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("debug")
}
