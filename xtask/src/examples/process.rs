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
        if let Some(mut p) = pipe {
            let _ = (&mut p).take(MAX_OUTPUT).read_to_end(&mut buf);
            // Past the cap the rest is dropped, still read so the writer never blocks.
            let _ = std::io::copy(&mut p, &mut std::io::sink());
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
    /// Its command line, as shown.
    pub shown: String,
}

impl Background {
    /// Starts `cmd` and waits (at most `timeout`) for the first line of its stdout, which the
    /// servers used here print once they listen (`http://127.0.0.1:PORT…`).
    pub fn start(mut cmd: Command, what: &str, timeout: Duration) -> anyhow::Result<Self> {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting `{what}`"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = drain(child.stderr.take());
        // Owned from here: every early return below kills it (drop).
        let mut bg = Background {
            child,
            _stdin: stdin,
            first_line: String::new(),
            shown: what.to_owned(),
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            if let Some(out) = stdout {
                let mut reader = BufReader::new(out);
                let _ = (&mut reader).take(64 << 10).read_line(&mut line);
                let _ = tx.send(line);
                // Keep reading (and dropping) so the server never blocks on a full pipe.
                let _ = std::io::copy(&mut reader, &mut std::io::sink());
            }
        });
        let line = match rx.recv_timeout(timeout) {
            Ok(line) if line.starts_with("http://127.0.0.1:") => line,
            Ok(line) => {
                let said = format!("printed `{}` instead of its URL", line.trim_end());
                return Err(bg.failed(what, &said, &stderr));
            }
            Err(_) => {
                let said = format!("printed no URL within {} s", timeout.as_secs());
                return Err(bg.failed(what, &said, &stderr));
            }
        };
        bg.first_line = line.trim_end().to_owned();
        Ok(bg)
    }

    /// Stops it and says why, with what it printed on stderr (its error, if it had one).
    fn failed(mut self, what: &str, said: &str, stderr: &mpsc::Receiver<Vec<u8>>) -> anyhow::Error {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let printed = stderr
            .recv_timeout(Duration::from_secs(5))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        anyhow::anyhow!("`{what}` {said}; its stderr:\n{printed}")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_past_its_deadline_is_killed_and_named() {
        let mut cmd = Command::new("sleep");
        cmd.arg("60");
        let err = run(cmd, "sleep 60", Duration::from_millis(300))
            .err()
            .expect("killed at the deadline");
        assert!(
            err.to_string()
                .contains("`sleep 60` did not finish within 0 s (killed)"),
            "{err}"
        );
    }

    #[test]
    fn a_server_that_prints_no_url_is_an_error_not_a_wait() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo listening; exec sleep 60"]);
        let err = Background::start(cmd, "sh", Duration::from_secs(30))
            .err()
            .expect("not a URL");
        assert!(
            err.to_string()
                .contains("printed `listening` instead of its URL"),
            "{err}"
        );
        let mut silent = Command::new("sleep");
        silent.arg("60");
        let err = Background::start(silent, "sleep 60", Duration::from_millis(300))
            .err()
            .expect("no URL in time");
        assert!(err.to_string().contains("printed no URL"), "{err}");
    }

    #[test]
    fn a_finished_step_gives_its_code_and_both_streams() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        let ran = run(cmd, "sh", Duration::from_secs(60)).expect("runs");
        assert_eq!(
            (ran.code, ran.stdout.as_str(), ran.stderr.as_str()),
            (3, "out\n", "err\n")
        );
    }
}
