//! Every process this crate starts, in one place.
//!
//! Why this crate spawns at all (the house rule keeps `Command::new` in the client's stdio
//! transport): installing a published version *is* running its ecosystem's installer — `npm`,
//! `pip` in a venv, `git` — and the sandbox launcher ends by `exec`-ing the server. Nothing else
//! here starts a process. Every installer run is bounded: a deadline (the whole process group
//! is killed when it passes), output kept as the last [`TAIL_LINES`] lines (each cut at
//! [`LINE_BYTES`]), captured stdout capped in bytes. Nothing goes through a shell.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// Lines of installer output kept for an error.
pub const TAIL_LINES: usize = 40;
/// Longest kept line, in bytes (the rest of a longer line is dropped).
pub const LINE_BYTES: usize = 400;

/// Where a run's stdout goes.
#[derive(Debug)]
pub(crate) enum Stdout {
    /// Into the tail with stderr.
    Tail,
    /// Kept whole, up to this many bytes (more is an error).
    Capture(usize),
    /// Written to a file, up to this many bytes (more is an error).
    File(PathBuf, u64),
}

/// One bounded run.
#[derive(Debug)]
pub(crate) struct Run {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub cwd: Option<PathBuf>,
    /// Added to (or overriding) the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// Removed from the inherited environment.
    pub env_remove: Vec<OsString>,
    pub timeout: Duration,
    pub stdout: Stdout,
}

impl Run {
    pub(crate) fn new(program: impl AsRef<OsStr>, timeout: Duration) -> Run {
        Run {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            env_remove: Vec::new(),
            timeout,
            stdout: Stdout::Tail,
        }
    }

    pub(crate) fn arg(mut self, a: impl AsRef<OsStr>) -> Run {
        self.args.push(a.as_ref().to_owned());
        self
    }

    pub(crate) fn args<I, S>(mut self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub(crate) fn cwd(mut self, dir: &Path) -> Run {
        self.cwd = Some(dir.to_owned());
        self
    }

    pub(crate) fn env(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> Run {
        self.env
            .push((k.as_ref().to_owned(), v.as_ref().to_owned()));
        self
    }

    pub(crate) fn env_remove(mut self, k: impl AsRef<OsStr>) -> Run {
        self.env_remove.push(k.as_ref().to_owned());
        self
    }

    pub(crate) fn stdout(mut self, s: Stdout) -> Run {
        self.stdout = s;
        self
    }

    /// The command line for messages (program and arguments, lossily decoded).
    pub(crate) fn display(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What a finished run left.
#[derive(Debug)]
pub(crate) struct Output {
    /// Exited with status 0.
    pub success: bool,
    /// The exit code, or `None` when a signal ended it.
    pub code: Option<i32>,
    /// Captured stdout ([`Stdout::Capture`] only).
    pub stdout: Vec<u8>,
    /// The last lines of output.
    pub tail: Vec<String>,
}

impl Output {
    /// `how it ended` for a message.
    pub(crate) fn status_text(&self) -> String {
        match self.code {
            Some(c) => format!("exit status {c}"),
            None => "killed by a signal".into(),
        }
    }
}

/// Why a run gave no [`Output`].
#[derive(Debug)]
pub(crate) enum RunError {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It outlived its deadline and was killed.
    Timeout { tail: Vec<String> },
    /// Its stdout passed the byte cap; it was killed.
    TooMuchOutput { limit: u64, tail: Vec<String> },
    /// Reading its output failed.
    Io(std::io::Error),
}

impl RunError {
    pub(crate) fn message(&self, run_display: &str, timeout: Duration) -> String {
        match self {
            RunError::Spawn(e) => format!("cannot start `{run_display}`: {e}"),
            RunError::Timeout { .. } => format!(
                "`{run_display}` did not finish within {} s and was killed",
                timeout.as_secs()
            ),
            RunError::TooMuchOutput { limit, .. } => {
                format!("`{run_display}` wrote more than {limit} bytes and was killed")
            }
            RunError::Io(e) => format!("reading the output of `{run_display}`: {e}"),
        }
    }

    pub(crate) fn tail(&self) -> Vec<String> {
        match self {
            RunError::Timeout { tail } | RunError::TooMuchOutput { tail, .. } => tail.clone(),
            _ => Vec::new(),
        }
    }
}

type Tail = Arc<Mutex<VecDeque<String>>>;

fn push_line(tail: &Tail, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\r', '\n']);
    if text.trim().is_empty() {
        return;
    }
    let mut cut: String = text.chars().take(LINE_BYTES).collect();
    if cut.len() > LINE_BYTES {
        let mut end = LINE_BYTES;
        while !cut.is_char_boundary(end) {
            end -= 1;
        }
        cut.truncate(end);
    }
    if let Ok(mut t) = tail.lock() {
        if t.len() == TAIL_LINES {
            t.pop_front();
        }
        t.push_back(cut);
    }
}

fn tail_of(tail: &Tail) -> Vec<String> {
    tail.lock()
        .map(|t| t.iter().cloned().collect())
        .unwrap_or_default()
}

/// Reads `r` to its end, feeding lines to the tail; bounded memory (a line longer than
/// [`LINE_BYTES`] is cut).
async fn pump_lines<R: AsyncRead + Unpin>(mut r: R, tail: Tail) -> std::io::Result<()> {
    let mut buf = vec![0u8; 8192];
    let mut line: Vec<u8> = Vec::new();
    loop {
        let n = r.read(&mut buf).await?;
        if n == 0 {
            if !line.is_empty() {
                push_line(&tail, &line);
            }
            return Ok(());
        }
        for &b in &buf[..n] {
            if b == b'\n' {
                push_line(&tail, &line);
                line.clear();
            } else if line.len() < LINE_BYTES * 4 {
                line.push(b);
            }
        }
    }
}

enum Sink {
    Memory(Vec<u8>),
    File(tokio::fs::File),
}

/// Reads stdout into a sink, up to `limit` bytes; `Ok(false)` when the limit was passed.
async fn pump_capture<R: AsyncRead + Unpin>(
    mut r: R,
    mut sink: Sink,
    limit: u64,
) -> std::io::Result<(bool, Sink)> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut total: u64 = 0;
    loop {
        let n = r.read(&mut buf).await?;
        if n == 0 {
            if let Sink::File(f) = &mut sink {
                f.flush().await?;
            }
            return Ok((true, sink));
        }
        total += n as u64;
        if total > limit {
            return Ok((false, sink));
        }
        match &mut sink {
            Sink::Memory(v) => v.extend_from_slice(&buf[..n]),
            Sink::File(f) => f.write_all(&buf[..n]).await?,
        }
    }
}

#[cfg(unix)]
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        // The child leads its own process group (process_group(0)): this reaches whatever it
        // started too. An error means the group is already gone.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

#[cfg(not(unix))]
fn kill_group(_pid: Option<u32>) {}

/// Runs `spec` to its end or its deadline. Stdin is closed (`/dev/null`): an installer that
/// asks a question gets EOF instead of hanging.
pub(crate) async fn run(spec: Run) -> Result<Output, RunError> {
    let mut cmd = tokio::process::Command::new(&spec.program);
    cmd.args(&spec.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    if let Some(dir) = &spec.cwd {
        cmd.current_dir(dir);
    }
    for k in &spec.env_remove {
        cmd.env_remove(k);
    }
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().map_err(RunError::Spawn)?;
    let pid = child.id();
    let tail: Tail = Arc::new(Mutex::new(VecDeque::new()));
    let stderr = child.stderr.take().map(|e| {
        let t = tail.clone();
        tokio::spawn(pump_lines(e, t))
    });
    let stdout = child.stdout.take();
    let (limit, sink) = match &spec.stdout {
        Stdout::Tail => (0, None),
        Stdout::Capture(max) => (*max as u64, Some(Sink::Memory(Vec::new()))),
        Stdout::File(path, max) => {
            let f = tokio::fs::File::create(path).await.map_err(RunError::Io)?;
            (*max, Some(Sink::File(f)))
        }
    };
    let out_task = stdout.map(|o| {
        let t = tail.clone();
        tokio::spawn(async move {
            match sink {
                None => pump_lines(o, t).await.map(|()| (true, None)),
                Some(s) => pump_capture(o, s, limit).await.map(|(ok, s)| (ok, Some(s))),
            }
        })
    });
    let waited = tokio::time::timeout(spec.timeout, async {
        let status = child.wait().await;
        let out = match out_task {
            Some(t) => Some(t.await),
            None => None,
        };
        (status, out)
    })
    .await;
    let Ok((status, out)) = waited else {
        kill_group(pid);
        let _ = child.kill().await;
        return Err(RunError::Timeout {
            tail: tail_of(&tail),
        });
    };
    // Whatever the installer left running in its group goes with it.
    kill_group(pid);
    if let Some(e) = stderr {
        // Bounded: a grandchild outside the group holding stderr open must not stall us.
        let _ = tokio::time::timeout(Duration::from_secs(2), e).await;
    }
    let status = status.map_err(RunError::Io)?;
    let mut captured = Vec::new();
    match out {
        Some(Ok(Ok((true, Some(Sink::Memory(v)))))) => captured = v,
        Some(Ok(Ok((true, _)))) => {}
        Some(Ok(Ok((false, _)))) => {
            return Err(RunError::TooMuchOutput {
                limit,
                tail: tail_of(&tail),
            });
        }
        Some(Ok(Err(e))) => return Err(RunError::Io(e)),
        Some(Err(e)) => return Err(RunError::Io(std::io::Error::other(e))),
        None => {}
    }
    Ok(Output {
        success: status.success(),
        code: status.code(),
        stdout: captured,
        tail: tail_of(&tail),
    })
}

/// Replaces the current process with `program` (the sandbox launcher's last step), with
/// exactly `env` as its environment. Returns only on failure.
#[cfg(unix)]
pub(crate) fn exec(
    program: &OsStr,
    args: &[OsString],
    env: &[(OsString, OsString)],
) -> std::io::Error {
    use std::os::unix::process::CommandExt;
    std::process::Command::new(program)
        .args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .exec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tail_timeout_and_caps() {
        let out = run(Run::new("sh", Duration::from_secs(20)).args([
            "-c",
            "i=0; while [ $i -lt 100 ]; do echo line$i; i=$((i+1)); done; echo err >&2; exit 3",
        ]))
        .await
        .expect("runs");
        assert!(!out.success);
        assert_eq!(out.code, Some(3));
        assert_eq!(out.tail.len(), TAIL_LINES);
        assert!(out.tail.iter().any(|l| l == "err"));
        assert!(out.tail.iter().any(|l| l == "line99"));

        let slow = run(Run::new("sleep", Duration::from_millis(300)).arg("30")).await;
        assert!(matches!(slow, Err(RunError::Timeout { .. })));

        let big = run(Run::new("head", Duration::from_secs(20))
            .args(["-c", "100000", "/dev/zero"])
            .stdout(Stdout::Capture(1000)))
        .await;
        assert!(matches!(
            big,
            Err(RunError::TooMuchOutput { limit: 1000, .. })
        ));

        let small = run(Run::new("printf", Duration::from_secs(20))
            .arg("abc")
            .stdout(Stdout::Capture(1000)))
        .await
        .expect("runs");
        assert_eq!(small.stdout, b"abc");

        let missing = run(Run::new("/nonexistent/prog", Duration::from_secs(5))).await;
        assert!(matches!(missing, Err(RunError::Spawn(_))));
    }
}
