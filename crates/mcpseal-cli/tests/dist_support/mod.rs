//! Shared by the packaging and Action tests: where things are, the distribution tools that
//! `tests/peers/install.sh` installs, running a program with a deadline, and a loopback file
//! server that plays the GitHub release.

#![allow(dead_code, reason = "each test file uses its own part")]
#![expect(
    clippy::disallowed_methods,
    reason = "test support: writes release assets for the tests to install"
)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use assert_cmd::Command;

/// The host's release target: these tests build and install the Linux x64 (glibc) packages;
/// the release workflow's smoke jobs install the others on their own runners.
pub const HOST_TARGET: &str = "x86_64-unknown-linux-gnu";

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// The built `mcpseal` binary under test.
pub fn mcpseal_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcpseal"))
}

/// A tool from `tests/peers/.venv-dist` (maturin, actionlint, shellcheck, python).
pub fn dist_tool(name: &str) -> PathBuf {
    let path = workspace().join("tests/peers/.venv-dist/bin").join(name);
    assert!(
        path.exists(),
        "{} is missing\nhint: run `bash tests/peers/install.sh` (step dist installs the \
         distribution tools)",
        path.display()
    );
    path
}

/// What a finished program did.
#[derive(Debug)]
pub struct Ran {
    /// Exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// Panics with both streams unless the exit code is `want`.
    pub fn expect_code(&self, want: i32, what: &str) -> &Self {
        assert_eq!(
            self.code,
            Some(want),
            "{what}: exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code,
            self.stdout,
            self.stderr
        );
        self
    }
}

/// Runs `cmd` to completion (killed after two minutes: a hang fails instead of stalling CI).
pub fn run(cmd: &mut Command) -> Ran {
    run_within(cmd, Duration::from_secs(120))
}

/// Runs `cmd` to completion, killed after `deadline` (for builds, which take minutes on a loaded
/// 2-core machine where a hang of a protocol tool would take seconds).
pub fn run_within(cmd: &mut Command, deadline: Duration) -> Ran {
    let out = cmd.timeout(deadline).output().expect("program starts");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Lowercase hex SHA-256 of a file (coreutils' `sha256sum`, an implementation independent of
/// the Action's).
pub fn sha256_file(path: &Path) -> String {
    let ran = run(Command::new("sha256sum").arg(path));
    ran.expect_code(0, "sha256sum");
    ran.stdout
        .split_whitespace()
        .next()
        .expect("a hash")
        .to_owned()
}

/// Writes a release as the release workflow lays it out: `<root>/v<version>/` holding
/// `mcpseal-<version>-<target>.tar.gz` (with `mcpseal-<version>-<target>/mcpseal` inside) and
/// `SHA256SUMS`. Returns the archive's path.
pub fn fake_release(root: &Path, version: &str, binary: &Path) -> PathBuf {
    let name = format!("mcpseal-{version}-{HOST_TARGET}");
    let dir = root.join(format!("v{version}"));
    std::fs::create_dir_all(&dir).expect("release dir");
    let stage = tempfile::tempdir().expect("stage");
    std::fs::create_dir_all(stage.path().join(&name)).expect("stage dir");
    std::fs::copy(binary, stage.path().join(&name).join("mcpseal")).expect("copy binary");
    let archive = dir.join(format!("{name}.tar.gz"));
    // gzip -1: the same format as the release's archives, a quarter of the CPU time.
    run(Command::new("tar")
        .args(["-I", "gzip -1", "-cf"])
        .arg(&archive)
        .arg("-C")
        .arg(stage.path())
        .arg(&name))
    .expect_code(0, "tar");
    let sums = format!("{}  {name}.tar.gz\n", sha256_file(&archive));
    std::fs::write(dir.join("SHA256SUMS"), sums).expect("SHA256SUMS");
    archive
}

/// A static file server on 127.0.0.1 (HTTP/1.1, GET only, one connection at a time) that
/// records every path asked for. Stops when dropped.
pub struct FileServer {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    addr: std::net::SocketAddr,
    thread: Option<JoinHandle<()>>,
}

impl FileServer {
    /// Serves the files under `root`.
    pub fn start(root: &Path) -> FileServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("addr");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (root, log, flag) = (root.to_path_buf(), requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = conn {
                    serve(stream, &root, &log);
                }
            }
        });
        FileServer {
            url: format!("http://{addr}"),
            requests,
            stop,
            addr,
            thread: Some(thread),
        }
    }

    /// The paths requested so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("log").clone()
    }
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr); // wakes the accept loop
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(mut stream: TcpStream, root: &Path, log: &Mutex<Vec<String>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.split_whitespace();
    let (Some("GET"), Some(path)) = (words.next(), words.next()) else {
        let _ = stream.write_all(
            b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        return;
    };
    log.lock().expect("log").push(path.to_owned());
    let rel = path.trim_start_matches('/');
    let file = root.join(rel);
    let body = if rel.split('/').any(|p| p == ".." || p.is_empty()) {
        None
    } else {
        std::fs::read(&file).ok()
    };
    let response = match body {
        Some(bytes) => {
            let mut r = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                bytes.len()
            )
            .into_bytes();
            r.extend_from_slice(&bytes);
            r
        }
        None => {
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec()
        }
    };
    let _ = stream.write_all(&response);
}
