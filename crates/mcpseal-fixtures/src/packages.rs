//! Published-package fixtures: one tiny stdio MCP server released as several versions on a
//! local npm registry (Verdaccio, from `tests/peers/verdaccio`) and on a local PyPI index (a
//! static PEP 503 + JSON API directory over loopback HTTP), for the package-sources and replay
//! tests.
//!
//! The histories hold, on purpose: a clean additive minor, a schema change under the same
//! version (npm: a patch that still reports the old `serverInfo.version`; PyPI: a `.post1`,
//! which the lock rules treat as the same version), a tool removed in a minor, a version that
//! does not start, a pre-release; on npm a deprecated version and one that tries to connect out
//! (`MCPSEAL_FIXTURE_CONNECT=host:port`), on PyPI an sdist-only version and a yanked one.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The npm fixture package.
pub const NPM_NAME: &str = "@mcpseal-test/echo-server";
/// Its `bin` name.
pub const NPM_BIN: &str = "echo-server";
/// The PyPI fixture project (and its console script).
pub const PYPI_NAME: &str = "mcpseal-test-echo";

/// One release of a fixture package.
#[derive(Debug, Clone)]
pub struct Release {
    /// The version as published.
    pub version: &'static str,
    /// `surface.json`: `serverInfo`, `tools`, optionally `crash` or `connect`.
    pub surface: Value,
    /// What this release is for.
    pub note: &'static str,
    /// PyPI: only an sdist is published.
    pub sdist_only: bool,
    /// PyPI: yanked with this reason. npm: deprecated with this message.
    pub withdrawn: Option<&'static str>,
    /// PyPI: the upload time written into the index (fixed, so outputs are deterministic).
    pub uploaded: &'static str,
}

fn echo() -> Value {
    json!({"name": "echo", "description": "Echo the text back",
           "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}})
}

fn add(strict: bool) -> Value {
    if strict {
        json!({"name": "add", "description": "Add numbers",
               "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "c": {"type": "number"}}, "required": ["a", "b", "c"]}})
    } else {
        json!({"name": "add", "description": "Add numbers",
               "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}})
    }
}

fn time_tool() -> Value {
    json!({"name": "time", "description": "The current time", "inputSchema": {"type": "object"}})
}

fn surface(name: &str, reports: &str, tools: Vec<Value>) -> Value {
    json!({"serverInfo": {"name": name, "version": reports}, "tools": tools})
}

fn release(version: &'static str, surface: Value, note: &'static str) -> Release {
    Release {
        version,
        surface,
        note,
        sdist_only: false,
        withdrawn: None,
        uploaded: "",
    }
}

/// The npm history, in publish order.
pub fn npm_history() -> Vec<Release> {
    let n = "echo-server";
    let mut crash = surface(n, "1.3.0", vec![]);
    crash["crash"] = json!("Dynamic require of \"events\" is not supported");
    let mut connect = surface(n, "1.4.0", vec![add(true), time_tool()]);
    connect["connect"] = json!(true);
    vec![
        release(
            "1.0.0",
            surface(n, "1.0.0", vec![echo(), add(false)]),
            "baseline",
        ),
        release(
            "1.1.0",
            surface(n, "1.1.0", vec![echo(), add(false), time_tool()]),
            "clean additive minor",
        ),
        release(
            "1.1.1",
            surface(n, "1.1.0", vec![echo(), add(true), time_tool()]),
            "schema change in a patch, still reporting 1.1.0",
        ),
        release(
            "1.2.0",
            surface(n, "1.2.0", vec![add(true), time_tool()]),
            "tool removed in a minor",
        ),
        Release {
            withdrawn: Some("does not start"),
            ..release("1.3.0", crash, "does not start")
        },
        release("1.4.0", connect, "tries to connect out at startup"),
        release(
            "2.0.0-rc.1",
            surface(n, "2.0.0-rc.1", vec![time_tool()]),
            "pre-release",
        ),
    ]
}

/// The PyPI history, in upload order.
pub fn pypi_history() -> Vec<Release> {
    let n = PYPI_NAME;
    let mut crash = surface(n, "1.3.0", vec![]);
    crash["crash"] = json!("cannot import name 'Server'");
    let at = |r: Release, uploaded: &'static str| Release { uploaded, ..r };
    vec![
        at(
            release(
                "1.0.0",
                surface(n, "1.0.0", vec![echo(), add(false)]),
                "baseline",
            ),
            "2024-01-01T10:00:00Z",
        ),
        at(
            release(
                "1.1.0",
                surface(n, "1.1.0", vec![echo(), add(false), time_tool()]),
                "clean additive minor",
            ),
            "2024-02-01T10:00:00Z",
        ),
        at(
            release(
                "1.1.0.post1",
                surface(n, "1.1.0.post1", vec![echo(), add(true), time_tool()]),
                "schema change under the same version (a post-release)",
            ),
            "2024-02-15T10:00:00Z",
        ),
        at(
            release(
                "1.2.0",
                surface(n, "1.2.0", vec![add(true), time_tool()]),
                "tool removed in a minor",
            ),
            "2024-03-01T10:00:00Z",
        ),
        at(
            release("1.3.0", crash, "does not start"),
            "2024-04-01T10:00:00Z",
        ),
        Release {
            sdist_only: true,
            ..at(
                release(
                    "1.4.0",
                    surface(n, "1.4.0", vec![add(true), time_tool()]),
                    "sdist only",
                ),
                "2024-05-01T10:00:00Z",
            )
        },
        Release {
            withdrawn: Some("broken tool schema"),
            ..at(
                release("1.5.0", surface(n, "1.5.0", vec![time_tool()]), "yanked"),
                "2024-06-01T10:00:00Z",
            )
        },
        at(
            release(
                "2.0.0rc1",
                surface(n, "2.0.0rc1", vec![time_tool()]),
                "pre-release",
            ),
            "2024-07-01T10:00:00Z",
        ),
    ]
}

fn packages_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("packages")
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// Writes the npm package of `release` into `dir` (package.json, server.js, surface.json).
///
/// # Panics
/// On I/O errors (test support only).
pub fn write_npm_package(dir: &Path, release: &Release) {
    std::fs::create_dir_all(dir).expect("package dir");
    let manifest = json!({
        "name": NPM_NAME,
        "version": release.version,
        "description": release.note,
        "license": "MIT",
        "bin": {NPM_BIN: "server.js"},
        "files": ["server.js", "surface.json"],
    });
    std::fs::write(
        dir.join("package.json"),
        serde_json::to_string_pretty(&manifest).expect("json"),
    )
    .expect("package.json");
    std::fs::copy(packages_dir().join("server.js"), dir.join("server.js")).expect("server.js");
    std::fs::write(
        dir.join("surface.json"),
        serde_json::to_string_pretty(&release.surface).expect("json"),
    )
    .expect("surface.json");
}

/// A free loopback port (bound and released; the caller retries if it is taken meanwhile).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `GET path` over HTTP/1.0 on 127.0.0.1:port; the status code, or `None` when nothing answers.
fn http_status(port: u16, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut head = [0u8; 16];
    let n = s.read(&mut head).ok()?;
    std::str::from_utf8(&head[..n])
        .ok()?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Waits until `GET path` answers 200 or the child exits; `false` when it exited or 60 s
/// passed.
fn wait_ready(child: &mut Child, port: u16, path: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if http_status(port, path) == Some(200) {
            return true;
        }
        if matches!(child.try_wait(), Ok(Some(_))) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// A Verdaccio registry on 127.0.0.1 with no uplinks; killed when dropped.
pub struct Verdaccio {
    child: Child,
    port: u16,
    work: PathBuf,
}

impl Verdaccio {
    /// Starts Verdaccio with its storage under `work`.
    ///
    /// # Panics
    /// When `tests/peers/install.sh` has not installed it, or it does not start (test support).
    pub fn start(work: &Path) -> Verdaccio {
        let bin = workspace_root().join("tests/peers/verdaccio/node_modules/.bin/verdaccio");
        assert!(
            bin.exists(),
            "{} is missing: run tests/peers/install.sh",
            bin.display()
        );
        std::fs::create_dir_all(work.join("storage")).expect("storage dir");
        let config = format!(
            "storage: {w}/storage\nplugins: {w}/plugins\nweb:\n  enable: false\nauth:\n  htpasswd:\n    file: {w}/htpasswd\n    max_users: -1\nuplinks: {{}}\npackages:\n  '@*/*':\n    access: $all\n    publish: $all\n    unpublish: $all\n  '**':\n    access: $all\n    publish: $all\n    unpublish: $all\nsecurity:\n  api:\n    legacy: true\nlog: {{ type: stdout, format: pretty, level: warn }}\n",
            w = work.display()
        );
        std::fs::write(work.join("config.yaml"), config).expect("config");
        for _attempt in 0..3 {
            let port = free_port();
            let log = std::fs::File::create(work.join("verdaccio.log")).expect("log");
            let mut child = Command::new(&bin)
                .arg("--config")
                .arg(work.join("config.yaml"))
                .arg("--listen")
                .arg(format!("127.0.0.1:{port}"))
                .stdin(Stdio::null())
                .stdout(log.try_clone().expect("log"))
                .stderr(log)
                .spawn()
                .expect("spawn verdaccio");
            if wait_ready(&mut child, port, "/-/ping") {
                std::fs::write(
                    work.join("npmrc"),
                    format!(
                        "registry=http://127.0.0.1:{port}/\n//127.0.0.1:{port}/:_authToken=dummy-token-for-tests\n"
                    ),
                )
                .expect("npmrc");
                return Verdaccio {
                    child,
                    port,
                    work: work.to_owned(),
                };
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        let log = std::fs::read_to_string(work.join("verdaccio.log")).unwrap_or_default();
        panic!("verdaccio did not start:\n{log}");
    }

    /// The registry URL (`http://127.0.0.1:PORT/`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// The environment that keeps npm's configuration and cache private to this test.
    pub fn npm_env(&self) -> Vec<(String, String)> {
        vec![
            (
                "npm_config_userconfig".into(),
                self.work.join("npmrc").to_string_lossy().into_owned(),
            ),
            (
                "npm_config_cache".into(),
                self.work.join("npm-cache").to_string_lossy().into_owned(),
            ),
            ("npm_config_update_notifier".into(), "false".into()),
        ]
    }

    fn npm(&self, args: &[&str], cwd: &Path) {
        let out = Command::new("npm")
            .args(args)
            .arg("--registry")
            .arg(self.url())
            .current_dir(cwd)
            .envs(self.npm_env())
            .stdin(Stdio::null())
            .output()
            .expect("run npm");
        assert!(
            out.status.success(),
            "npm {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `npm publish` of the package in `dir` (a pre-release goes under the `next` tag).
    pub fn publish(&self, dir: &Path, prerelease: bool) {
        if prerelease {
            self.npm(&["publish", "--tag", "next"], dir);
        } else {
            self.npm(&["publish"], dir);
        }
    }

    /// `npm deprecate SPEC MESSAGE`.
    pub fn deprecate(&self, spec: &str, message: &str) {
        self.npm(&["deprecate", spec, message], &self.work);
    }

    /// Publishes the whole [`npm_history`] in order, deprecating what it withdraws.
    pub fn publish_history(&self) {
        for r in npm_history() {
            let dir = self.work.join("src").join(r.version);
            write_npm_package(&dir, &r);
            self.publish(&dir, r.version.contains('-'));
            if let Some(message) = r.withdrawn {
                self.deprecate(&format!("{NPM_NAME}@{}", r.version), message);
            }
        }
    }
}

impl Drop for Verdaccio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A PyPI index as a static directory over loopback HTTP (`python3 -m http.server`):
/// `simple/` (PEP 503 HTML with hashes and `data-yanked`) and, unless disabled, the JSON API
/// (`pypi/<name>/json` with upload times and yanked flags). Killed when dropped.
pub struct PypiIndex {
    child: Child,
    port: u16,
    /// The directory served.
    pub root: PathBuf,
}

/// One file placed in a [`PypiIndex`].
#[derive(Debug, Clone)]
pub struct IndexedFile {
    /// The version.
    pub version: String,
    /// The file name.
    pub filename: String,
    /// Its SHA-256 (hex).
    pub sha256: String,
    /// A wheel.
    pub wheel: bool,
    /// Yanked with this reason.
    pub yanked: Option<String>,
    /// Upload time (RFC 3339).
    pub uploaded: String,
}

impl PypiIndex {
    /// Serves `root` (created if needed) on a free loopback port.
    ///
    /// # Panics
    /// When python3 cannot serve it (test support).
    pub fn start(root: &Path) -> PypiIndex {
        std::fs::create_dir_all(root.join("packages")).expect("index root");
        for _attempt in 0..3 {
            let port = free_port();
            let mut child = Command::new("python3")
                .args([
                    "-m",
                    "http.server",
                    &port.to_string(),
                    "--bind",
                    "127.0.0.1",
                    "--directory",
                ])
                .arg(root)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn python3 -m http.server");
            if wait_ready(&mut child, port, "/") {
                return PypiIndex {
                    child,
                    port,
                    root: root.to_owned(),
                };
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("python3 -m http.server did not start");
    }

    /// The origin (`http://127.0.0.1:PORT`).
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The simple index URL (`…/simple/`).
    pub fn simple_url(&self) -> String {
        format!("{}/simple/", self.origin())
    }

    /// Builds the [`pypi_history`] distributions into `packages/` and writes the index pages
    /// (and the JSON API when `json_api`). Returns the files, in upload order.
    ///
    /// # Panics
    /// When a distribution cannot be built (test support).
    pub fn publish_history(&self, json_api: bool) -> Vec<IndexedFile> {
        let mut files = Vec::new();
        let scratch = self.root.join(".surfaces");
        std::fs::create_dir_all(&scratch).expect("scratch");
        for r in pypi_history() {
            let surface = scratch.join(format!("{}.json", r.version));
            std::fs::write(&surface, r.surface.to_string()).expect("surface");
            let kind = if r.sdist_only { "sdist" } else { "wheel" };
            let out = Command::new("python3")
                .arg(packages_dir().join("make_dist.py"))
                .arg(kind)
                .arg(self.root.join("packages"))
                .arg(PYPI_NAME)
                .arg(r.version)
                .arg(&surface)
                .arg(packages_dir().join("server.py"))
                .output()
                .expect("run make_dist.py");
            assert!(
                out.status.success(),
                "make_dist.py failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let filename = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            let bytes = std::fs::read(self.root.join("packages").join(&filename)).expect("dist");
            files.push(IndexedFile {
                version: r.version.into(),
                sha256: sha256_hex(&bytes),
                wheel: !r.sdist_only,
                filename,
                yanked: r.withdrawn.map(str::to_owned),
                uploaded: r.uploaded.into(),
            });
        }
        self.write_pages(&files, json_api);
        files
    }

    /// Writes `simple/` (and `pypi/<name>/json` when `json_api`) for `files`.
    pub fn write_pages(&self, files: &[IndexedFile], json_api: bool) {
        let norm = PYPI_NAME;
        let simple = self.root.join("simple").join(norm);
        std::fs::create_dir_all(&simple).expect("simple dir");
        std::fs::write(
            self.root.join("simple/index.html"),
            format!("<!DOCTYPE html><html><body><a href=\"{norm}/\">{norm}</a></body></html>\n"),
        )
        .expect("index");
        let mut html = String::from("<!DOCTYPE html>\n<html><body>\n");
        for f in files {
            let yanked = f
                .yanked
                .as_ref()
                .map(|r| format!(" data-yanked=\"{r}\""))
                .unwrap_or_default();
            html.push_str(&format!(
                "<a href=\"../../packages/{fname}#sha256={sha}\"{yanked}>{fname}</a><br/>\n",
                fname = f.filename,
                sha = f.sha256
            ));
        }
        html.push_str("</body></html>\n");
        std::fs::write(simple.join("index.html"), html).expect("project page");
        let api = self.root.join("pypi").join(norm);
        if json_api {
            let mut releases = serde_json::Map::new();
            for f in files {
                let entry = releases
                    .entry(f.version.clone())
                    .or_insert_with(|| json!([]));
                if let Some(list) = entry.as_array_mut() {
                    list.push(json!({
                        "filename": f.filename,
                        "url": format!("{}/packages/{}", self.origin(), f.filename),
                        "digests": {"sha256": f.sha256},
                        "packagetype": if f.wheel { "bdist_wheel" } else { "sdist" },
                        "yanked": f.yanked.is_some(),
                        "yanked_reason": f.yanked,
                        "upload_time_iso_8601": f.uploaded,
                    }));
                }
            }
            let doc = json!({"info": {"name": PYPI_NAME}, "releases": releases});
            std::fs::create_dir_all(&api).expect("api dir");
            std::fs::write(api.join("json"), doc.to_string()).expect("json api");
        } else {
            let _ = std::fs::remove_dir_all(&api);
        }
    }
}

impl Drop for PypiIndex {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
