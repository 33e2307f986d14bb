//! Starting the peers of `tests/peers/peers.json` and running `mcpseal` against them.
//!
//! `check_peers.py` is the reference reading of `peers.json`; this is the same reading in Rust:
//! `command[0]` containing `/` is made absolute against `tests/peers/`, placeholders (`{tempdir}`,
//! `{gitrepo}`, `{port}`) get one value per test, stdio peers are started by `mcpseal` itself
//! (`--cwd`, `--env K=V`, `-- <argv>`), HTTP peers are started here and stopped by [`Server`]'s
//! `Drop`. Every wait has a deadline; nothing is skipped: a peer that is not installed fails with
//! a hint to run `bash tests/peers/install.sh`.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Longest any single `mcpseal` invocation may take; past it the run is killed and reported as
/// such. The probe is the longest command: on a stdio peer it starts the server eight times, one
/// after the other, and a Python peer needs an interpreter start and an SDK import each time.
/// Measured at load 15–18 on 2 cores (other builds running): `probe` on py-stdio and git-stdio
/// went past the former 60 s and was killed (`exited None`), one `snapshot` (one start) took 19 s.
/// 300 s leaves more than twice that.
pub const COMMAND_DEADLINE: Duration = Duration::from_secs(300);

/// `--timeout` of every `mcpseal` run: a request unanswered this long fails. Generous because
/// the first request of a fresh Python peer waits for its interpreter and SDK import: up to 19 s
/// measured for a whole `snapshot` at load 15–18 on 2 cores (30 s left less than 2×). A request
/// that times out makes the run incomplete and the test fail, so this is a deadline, not a bound
/// any expectation depends on.
pub const REQUEST_TIMEOUT: &str = "60s";

pub use mcpseal_peers::{Peer, peer, peers_dir, repo_root};

const INSTALL_HINT: &str =
    "run `bash tests/peers/install.sh` (scripts/test and .ci/run do) before the tests";

/// What the suite needs of a peer beyond its `peers.json` entry.
pub trait PeerExt {
    /// Fails loudly when something the peer needs is not installed.
    fn assert_installed(&self);
    /// The version to lock with.
    fn server_version(&self) -> &str;
}

impl PeerExt for Peer {
    /// Fails loudly when something the peer needs is not installed: its program, any
    /// `tests/peers`-relative file in its argv (npm entry points, the venv, the rmcp binary) and
    /// the bare programs it needs on `PATH` (`node`, `git`).
    fn assert_installed(&self) {
        let dir = peers_dir();
        let mut missing = Vec::new();
        for (i, arg) in self.command.iter().enumerate() {
            if arg.contains('{') {
                continue;
            }
            if arg.contains('/') {
                let path = dir.join(arg);
                if !path.exists() {
                    missing.push(format!("`{}`", path.display()));
                }
            } else if i == 0 && which(arg).is_none() {
                missing.push(format!("`{arg}` on PATH"));
            }
        }
        if self.needs.as_deref() == Some("gitrepo") && which("git").is_none() {
            missing.push("`git` on PATH".to_owned());
        }
        assert!(
            missing.is_empty(),
            "peer `{}` is not installed: missing {}\nhint: {INSTALL_HINT}",
            self.id,
            missing.join(", ")
        );
    }

    /// The version to lock with: the version the server reports (PEERS.md: reported versions
    /// differ from package versions for the npm reference servers).
    fn server_version(&self) -> &str {
        &self.server_info.version
    }
}

fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Placeholder values for one test: a temp dir, a git repo, a port (chosen when needed).
pub struct Placeholders {
    tempdir: tempfile::TempDir,
    gitrepo: tempfile::TempDir,
    port: Option<u16>,
}

impl Placeholders {
    /// Fresh directories; `{gitrepo}` gets `git init` when the peer needs it.
    #[expect(
        clippy::disallowed_methods,
        reason = "a peer that needs a git repository gets one made with git"
    )]
    pub fn new(peer: &Peer) -> Placeholders {
        let tempdir = tempfile::tempdir().expect("temp dir");
        let gitrepo = tempfile::tempdir().expect("temp dir");
        if peer.needs.as_deref() == Some("gitrepo") {
            let out = Command::new("git")
                .args(["init", "-q"])
                .arg(gitrepo.path())
                .output()
                .expect("git runs");
            assert!(
                out.status.success(),
                "git init failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Placeholders {
            tempdir,
            gitrepo,
            port: None,
        }
    }

    fn sub(&self, s: &str) -> String {
        let mut out = s
            .replace("{tempdir}", &self.tempdir.path().to_string_lossy())
            .replace("{gitrepo}", &self.gitrepo.path().to_string_lossy());
        if let Some(port) = self.port {
            out = out.replace("{port}", &port.to_string());
        }
        assert!(
            !out.contains("{port}"),
            "`{{port}}` used without a port: {s}"
        );
        out
    }
}

/// A free TCP port on 127.0.0.1: bind port 0, read it, release it.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local addr").port()
}

/// How `mcpseal` reaches a peer in one test.
pub enum Target {
    /// `mcpseal` starts the peer itself: `--cwd`, `--env`, `-- argv`.
    Stdio {
        cwd: PathBuf,
        env: Vec<(String, String)>,
        argv: Vec<String>,
    },
    /// A running HTTP peer (stopped when dropped).
    Http(Server),
}

/// Everything one test needs to speak to its peer; drop it to stop the peer and clean up.
pub struct PeerRun {
    pub target: Target,
    /// `mcpseal`'s own working directory: empty, so no manifest (`Cargo.toml`, `package.json`)
    /// is picked up as the server's version, and relative outputs stay out of the repository.
    pub work: tempfile::TempDir,
    // Dropped after `target`: the server may still be writing there until it is killed.
    _placeholders: Placeholders,
}

impl PeerRun {
    /// Prepares the peer: stdio peers are only described (each `mcpseal` command starts its own
    /// process); HTTP peers are started and waited for.
    pub fn start(peer: &Peer) -> PeerRun {
        peer.assert_installed();
        let mut ph = Placeholders::new(peer);
        let dir = peers_dir();
        let cwd = dir.join(&peer.cwd);
        let target = match peer.transport.as_str() {
            "stdio" => {
                let env = peer
                    .env
                    .iter()
                    .map(|(k, v)| (k.clone(), ph.sub(v)))
                    .collect();
                Target::Stdio {
                    cwd,
                    env,
                    argv: argv(peer, &ph),
                }
            }
            "http" => Target::Http(Server::start(peer, &mut ph, &cwd)),
            other => panic!("peer `{}`: unknown transport `{other}`", peer.id),
        };
        PeerRun {
            target,
            work: tempfile::tempdir().expect("temp dir"),
            _placeholders: ph,
        }
    }

    /// Runs `mcpseal <args> <target>` with the deadline; never panics on a non-zero exit.
    pub fn mcpseal(&self, args: &[&str]) -> CmdOutput {
        let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mcpseal"));
        cmd.timeout(COMMAND_DEADLINE)
            .current_dir(self.work.path())
            .args(args)
            .args(["--timeout", REQUEST_TIMEOUT]);
        match &self.target {
            Target::Stdio { cwd, env, argv } => {
                cmd.arg("--cwd").arg(cwd);
                for (k, v) in env {
                    cmd.arg(format!("--env={k}={v}"));
                }
                cmd.arg("--").args(argv);
            }
            Target::Http(server) => {
                cmd.arg(&server.url);
            }
        }
        let line = format!("mcpseal {}", args.join(" "));
        let started = Instant::now();
        // On the deadline assert_cmd kills the run and returns its output (no exit code).
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("`{line}` could not be run: {e}"));
        let elapsed = started.elapsed();
        CmdOutput {
            line,
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed,
            killed_at_deadline: out.status.code().is_none() && elapsed >= COMMAND_DEADLINE,
        }
    }

    /// The server's recent output (HTTP peers), for failure messages.
    pub fn server_log(&self) -> String {
        match &self.target {
            Target::Http(server) => server.log_tail(),
            Target::Stdio { .. } => String::new(),
        }
    }
}

fn argv(peer: &Peer, ph: &Placeholders) -> Vec<String> {
    let dir = peers_dir();
    peer.command
        .iter()
        .enumerate()
        .map(|(i, a)| {
            if i == 0 && a.contains('/') {
                dir.join(a).to_string_lossy().into_owned()
            } else {
                ph.sub(a)
            }
        })
        .collect()
}

/// The result of one `mcpseal` run.
pub struct CmdOutput {
    pub line: String,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// Killed by the test at [`COMMAND_DEADLINE`], not by anything else.
    pub killed_at_deadline: bool,
}

impl CmdOutput {
    /// How the run ended: its exit code, or that the test's deadline killed it.
    fn ending(&self) -> String {
        if self.killed_at_deadline {
            format!(
                "was killed at the test's {COMMAND_DEADLINE:?} deadline (after {:.1?})",
                self.elapsed
            )
        } else {
            format!("exited {:?} after {:.1?}", self.code, self.elapsed)
        }
    }

    /// The stdout JSON document, or `Err` describing the run.
    pub fn json(&self) -> Result<Value, String> {
        serde_json::from_str(&self.stdout).map_err(|e| {
            format!(
                "`{}` {}, stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.line,
                self.ending(),
                truncate(&self.stdout, 2000),
                truncate(&self.stderr, 2000)
            )
        })
    }

    /// A one-paragraph description for failure messages.
    pub fn describe(&self) -> String {
        format!(
            "`{}` {}\nstdout:\n{}\nstderr:\n{}",
            self.line,
            self.ending(),
            truncate(&self.stdout, 2000),
            truncate(&self.stderr, 2000)
        )
    }
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// A running HTTP peer; killed and reaped on drop.
pub struct Server {
    child: Child,
    /// The MCP endpoint.
    pub url: String,
    log: Arc<Mutex<Vec<String>>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    Stdout,
    Stderr,
}

impl Server {
    /// Starts the peer and waits for its readiness signal (bounded by `ready.timeout_ms`).
    /// A peer that needs `{port}` gets a fresh free port and up to three attempts (another
    /// process may take the port between our release and its bind).
    fn start(peer: &Peer, ph: &mut Placeholders, cwd: &Path) -> Server {
        let needs_port = peer.command.iter().any(|a| a.contains("{port}"))
            || peer.env.values().any(|v| v.contains("{port}"))
            || peer.url.as_deref().is_some_and(|u| u.contains("{port}"));
        let attempts = if needs_port { 3 } else { 1 };
        let mut errors = Vec::new();
        for _ in 0..attempts {
            if needs_port {
                ph.port = Some(free_port());
            }
            match Server::try_start(peer, ph, cwd) {
                Ok(server) => return server,
                Err(e) => errors.push(e),
            }
        }
        panic!(
            "peer `{}` did not become ready:\n{}",
            peer.id,
            errors.join("\n---\n")
        );
    }

    #[expect(
        clippy::disallowed_methods,
        reason = "HTTP peers are processes the tests start"
    )]
    fn try_start(peer: &Peer, ph: &Placeholders, cwd: &Path) -> Result<Server, String> {
        let argv = argv(peer, ph);
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &peer.env {
            cmd.env(k, ph.sub(v));
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("spawning {argv:?}: {e}\nhint: {INSTALL_HINT}"))?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        for (stream, reader) in [
            (
                Stream::Stdout,
                Box::new(child.stdout.take().expect("piped stdout")) as Box<dyn Read + Send>,
            ),
            (
                Stream::Stderr,
                Box::new(child.stderr.take().expect("piped stderr")),
            ),
        ] {
            let tx = tx.clone();
            let log = Arc::clone(&log);
            // Drains the pipe until the server exits, so a chatty server never blocks on it.
            thread::spawn(move || {
                for line in BufReader::new(reader).lines() {
                    let Ok(line) = line else { break };
                    if let Ok(mut log) = log.lock() {
                        log.push(format!(
                            "{}: {line}",
                            if stream == Stream::Stdout {
                                "out"
                            } else {
                                "err"
                            }
                        ));
                    }
                    let _ = tx.send((stream, line));
                }
            });
        }
        drop(tx);
        let mut server = Server {
            child,
            url: String::new(),
            log,
        };
        match server.wait_ready(peer, ph, &rx) {
            Ok(url) => {
                server.url = url;
                Ok(server)
            }
            // `server` is dropped here: killed and reaped.
            Err(e) => Err(format!("{e}\nserver output:\n{}", server.log_tail())),
        }
    }

    fn wait_ready(
        &mut self,
        peer: &Peer,
        ph: &Placeholders,
        rx: &Receiver<(Stream, String)>,
    ) -> Result<String, String> {
        let timeout = Duration::from_millis(peer.ready.timeout_ms);
        let deadline = Instant::now() + timeout;
        let want = peer.ready.text.as_deref().map(|t| ph.sub(t));
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left.min(Duration::from_millis(200))) {
                Ok((stream, line)) => match peer.ready.kind.as_str() {
                    "stdout_url" if stream == Stream::Stdout => {
                        let url = line.trim().to_owned();
                        return if url.starts_with("http://") {
                            Ok(url)
                        } else {
                            Err(format!("first stdout line is not a URL: {line:?}"))
                        };
                    }
                    "stderr_contains" if stream == Stream::Stderr => {
                        if want.as_deref().is_some_and(|w| line.contains(w)) {
                            let url = peer.url.as_deref().ok_or("`url` missing in peers.json")?;
                            return Ok(ph.sub(url));
                        }
                    }
                    "stdout_url" | "stderr_contains" => {}
                    other => return Err(format!("unknown ready kind `{other}`")),
                },
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().map_err(|e| e.to_string())?;
                    return Err(format!("exited before it was ready: {status}"));
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("exited before it was ready: {status}"));
            }
            if Instant::now() >= deadline {
                return Err(format!("no readiness signal within {timeout:?}"));
            }
        }
    }

    /// The last lines the server wrote (stdout and stderr, interleaved as read).
    pub fn log_tail(&self) -> String {
        let log = self.log.lock().map(|l| l.clone()).unwrap_or_default();
        let start = log.len().saturating_sub(40);
        log[start..].join("\n")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
