//! Test support for other crates: where the `mcpseal-fixture` binary is, and how to start it.
//!
//! Cargo only tells a package's own tests where its binaries are (`CARGO_BIN_EXE_*`), so the
//! client, probe and CLI tests find the fixture next to their own test executable (cargo and
//! nextest build every workspace binary before running tests) and build it on demand when it is
//! missing (e.g. `cargo test -p mcpseal-client`).

pub mod group;
pub mod packages;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;

/// The path of the built `mcpseal-fixture` binary, building it if needed.
///
/// # Panics
/// When the binary can neither be found nor built (test support only).
pub fn binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| built("mcpseal-fixture")).clone()
}

/// The path of the built `mcpseal-registry-fixture` binary (a local MCP Registry, see
/// [`RegistryFixture`]), building it if needed.
///
/// # Panics
/// When the binary can neither be found nor built (test support only).
pub fn registry_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| built("mcpseal-registry-fixture"))
        .clone()
}

/// The path of the built `mcpseal-hostile` binary (the hostile-server suite's attacker),
/// building it if needed.
///
/// # Panics
/// When the binary can neither be found nor built (test support only).
pub fn hostile_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| built("mcpseal-hostile")).clone()
}

fn built(bin: &str) -> PathBuf {
    let name = format!("{bin}{}", std::env::consts::EXE_SUFFIX);
    let exe = std::env::current_exe().expect("current test executable");
    // target/<profile>/deps/<test-binary> → target/<profile>/<bin>
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test executable lives in target/<profile>/deps");
    let candidate = profile_dir.join(&name);
    if !candidate.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-p", "mcpseal-fixtures", "--bin", bin])
            .status()
            .expect("run cargo build for the fixture");
        assert!(status.success(), "building {bin} failed");
    }
    assert!(candidate.exists(), "{} not found", candidate.display());
    candidate
}

/// The fixture's argv (binary first) for a stdio target.
pub fn stdio_argv(args: &[&str]) -> Vec<String> {
    std::iter::once(binary().to_string_lossy().into_owned())
        .chain(args.iter().map(|a| (*a).to_owned()))
        .collect()
}

/// The hostile server's argv (binary first) for a stdio target.
pub fn hostile_argv(args: &[&str]) -> Vec<String> {
    std::iter::once(hostile_binary().to_string_lossy().into_owned())
        .chain(args.iter().map(|a| (*a).to_owned()))
        .collect()
}

/// A fixture serving Streamable HTTP on 127.0.0.1; killed when dropped.
pub struct HttpFixture {
    child: Child,
    // Held open: the fixture exits when its stdin reaches EOF.
    _stdin: Option<ChildStdin>,
    /// The endpoint URL (`http://127.0.0.1:PORT/mcp`).
    pub url: String,
}

impl HttpFixture {
    /// Starts `mcpseal-fixture --http ARGS…` and waits for it to print its URL.
    ///
    /// # Panics
    /// When the fixture cannot start (test support only).
    pub fn start(args: &[&str]) -> HttpFixture {
        HttpFixture::start_binary(&binary(), args)
    }

    /// Starts `mcpseal-hostile --http ARGS…` (see [`hostile_binary`]) and waits for its URL.
    ///
    /// # Panics
    /// When it cannot start (test support only).
    pub fn hostile(args: &[&str]) -> HttpFixture {
        HttpFixture::start_binary(&hostile_binary(), args)
    }

    fn start_binary(program: &std::path::Path, args: &[&str]) -> HttpFixture {
        let mut child = Command::new(program)
            .arg("--http")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the HTTP fixture");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("fixture stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the fixture URL");
        let url = line.trim().to_owned();
        assert!(
            url.starts_with("http://127.0.0.1:"),
            "fixture printed {url:?}"
        );
        HttpFixture {
            child,
            _stdin: stdin,
            url,
        }
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A local MCP Registry (`mcpseal-registry-fixture`) on 127.0.0.1; killed when dropped.
pub struct RegistryFixture {
    child: Child,
    _stdin: Option<ChildStdin>,
    /// The base URL (`http://127.0.0.1:PORT`, without `/v0.1`).
    pub url: String,
}

impl RegistryFixture {
    /// Starts `mcpseal-registry-fixture --dir DIR ARGS…` and waits for its URL.
    ///
    /// # Panics
    /// When the registry cannot start (test support only).
    pub fn start(dir: &std::path::Path, args: &[&str]) -> RegistryFixture {
        let mut child = Command::new(registry_binary())
            .arg("--dir")
            .arg(dir)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the registry fixture");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("registry stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the registry URL");
        let url = line.trim().to_owned();
        assert!(
            url.starts_with("http://127.0.0.1:"),
            "registry fixture printed {url:?}"
        );
        RegistryFixture {
            child,
            _stdin: stdin,
            url,
        }
    }
}

impl Drop for RegistryFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
