//! The distribution packages, built from the binary under test and installed the way users
//! install them: the npm packages (`npm pack`, then `npm install --ignore-scripts --offline`
//! into a clean project) and the PyPI wheel (`maturin build`, then `pip install` into a fresh
//! venv), each running `mcpseal --version` and `mcpseal probe` against the fixture. Also the
//! crates.io side: every crate `cargo install mcpseal` needs can be packaged, and
//! cargo-binstall's metadata names the assets the release workflow uploads.
//!
//! The npm and wheel tests are Linux x64 only (the host's package); the release workflow's
//! smoke job installs the other platforms' packages on their runners.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes package files and starts node and the installed launchers"
)]

mod dist_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use dist_support::{HOST_TARGET, dist_tool, mcpseal_binary, run, run_within, workspace};
use serde_json::Value;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn own_version_line() -> String {
    let ran = run(Command::new(mcpseal_binary()).arg("--version"));
    ran.expect_code(0, "mcpseal --version");
    ran.stdout
}

fn fixture() -> String {
    mcpseal_fixtures::binary().display().to_string()
}

/// `mcpseal probe --format json -- fixture [ARGS]` through `program`: (exit code, report).
fn probe_through(program: &Path, fixture_args: &[&str]) -> (Option<i32>, Value) {
    let ran = run(Command::new(program)
        .args(["probe", "--format", "json", "--timeout", "5s", "--"])
        .arg(fixture())
        .args(fixture_args));
    let report = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("stdout is the JSON report ({e}): {ran:?}"));
    (ran.code, report)
}

fn cargo_metadata() -> Value {
    let ran = run(Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(workspace().join("Cargo.toml")));
    ran.expect_code(0, "cargo metadata");
    serde_json::from_str(&ran.stdout).expect("metadata JSON")
}

#[cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]
#[test]
fn npm_packages_install_offline_without_scripts_and_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("out");
    let ran = run(Command::new("node")
        .arg(workspace().join("packaging/npm/build.mjs"))
        .arg("--out")
        .arg(&out)
        .arg("--binary")
        .arg(format!("{HOST_TARGET}={}", mcpseal_binary().display())));
    ran.expect_code(0, "build.mjs");
    let tarballs: Vec<PathBuf> = ran.stdout.lines().map(PathBuf::from).collect();
    let names: Vec<String> = tarballs
        .iter()
        .map(|t| t.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec![
            format!("mcpseal-{VERSION}.tgz"),
            format!("mcpseal-cli-linux-x64-gnu-{VERSION}.tgz")
        ]
    );

    // The assembled manifests: versions stamped from the workspace, one optional dependency per
    // release target, os/cpu/libc on the platform package, and no scripts anywhere.
    let main: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("mcpseal/package.json")).expect("main package.json"),
    )
    .expect("JSON");
    let platform: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("cli-linux-x64-gnu/package.json"))
            .expect("platform package.json"),
    )
    .expect("JSON");
    assert_eq!(main["version"], VERSION);
    let targets: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace().join("packaging/targets.json")).expect("targets"),
    )
    .expect("JSON");
    let optional = main["optionalDependencies"].as_object().expect("optional");
    let want: Vec<String> = targets["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .map(|t| format!("@mcpseal/cli-{}", t["npm"].as_str().expect("npm")))
        .collect();
    assert_eq!(optional.keys().cloned().collect::<Vec<_>>(), {
        let mut w = want.clone();
        w.sort();
        w
    });
    assert!(optional.values().all(|v| v == VERSION));
    assert_eq!(platform["os"], serde_json::json!(["linux"]));
    assert_eq!(platform["cpu"], serde_json::json!(["x64"]));
    assert_eq!(platform["libc"], serde_json::json!(["glibc"]));
    for m in [&main, &platform] {
        assert!(m.get("scripts").is_none(), "no scripts: {m}");
    }

    // A clean project, an empty npm cache, no network, no scripts.
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&project).expect("project");
    std::fs::write(
        project.join("package.json"),
        r#"{"name":"consumer","version":"1.0.0","private":true}"#,
    )
    .expect("package.json");
    let ran = run(Command::new("npm")
        .args([
            "install",
            "--ignore-scripts",
            "--offline",
            "--no-audit",
            "--no-fund",
        ])
        .arg("--cache")
        .arg(tmp.path().join("npm-cache"))
        .args(&tarballs)
        .current_dir(&project));
    ran.expect_code(0, "npm install --offline");

    let bin = project.join("node_modules/.bin/mcpseal");
    let ran = run(Command::new(&bin).arg("--version"));
    ran.expect_code(0, "npm mcpseal --version");
    assert_eq!(ran.stdout, own_version_line());
    let ran = run(Command::new("npm")
        .args(["exec", "--offline", "--no", "--", "mcpseal", "--version"])
        .current_dir(&project));
    ran.expect_code(0, "npm exec mcpseal");
    assert_eq!(ran.stdout, own_version_line());

    let (code, report) = probe_through(&bin, &[]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["ready"], true);
    let (code, report) = probe_through(&bin, &["--mode", "legacy"]);
    assert_eq!(code, Some(1), "findings are exit 1 through npm too");
    assert_eq!(report["ready"], false);

    // Without its platform package the launcher names the package, the platform and the fix.
    std::fs::remove_dir_all(project.join("node_modules/@mcpseal/cli-linux-x64-gnu"))
        .expect("remove platform package");
    let ran = run(Command::new(&bin).arg("--version"));
    ran.expect_code(2, "missing platform package");
    assert!(
        ran.stderr.contains(
            "error: the package @mcpseal/cli-linux-x64-gnu (the mcpseal binary for this \
             platform, linux-x64-gnu) is not installed"
        ),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(&format!(
            "`npm install @mcpseal/cli-linux-x64-gnu@{VERSION}`"
        )),
        "{}",
        ran.stderr
    );
}

/// The launcher from the source tree, running `binary` in place of mcpseal.
fn launcher(binary: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new("node");
    cmd.arg(workspace().join("packaging/npm/mcpseal/bin/mcpseal.js"))
        .env("MCPSEAL_BINARY", binary);
    cmd
}

#[cfg(target_os = "linux")]
#[test]
fn the_launcher_passes_arguments_stdio_exit_codes_and_signals_through() {
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;

    let out = launcher("/bin/sh")
        .args(["-c", "cat; echo \"$1|$2\" >&2; exit 7", "sh", "a b", "--c"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(b"through stdin\n")?;
            child.wait_with_output()
        })
        .expect("launcher runs");
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(out.stdout, b"through stdin\n");
    assert_eq!(out.stderr, b"a b|--c\n");

    // A child killed by a signal: the launcher dies of the same signal.
    let status = launcher("/bin/sh")
        .args(["-c", "kill -KILL $$"])
        .status()
        .expect("launcher runs");
    assert_eq!(status.signal(), Some(9));

    // SIGTERM sent to the launcher reaches the child (which must not outlive it), and the
    // launcher ends the same way.
    let mut child = launcher("/bin/sh")
        .args(["-c", "echo $$; exec sleep 60"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("launcher runs");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().expect("stdout")),
        &mut line,
    )
    .expect("read");
    let grandchild = line.trim().to_owned();
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(Instant::now() < deadline, "the launcher did not end");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.signal(), Some(15));
    // Gone, or a zombie waiting for init to reap it: not a running orphan.
    let stat = Path::new("/proc").join(&grandchild).join("stat");
    loop {
        let state = std::fs::read_to_string(&stat).ok().and_then(|s| {
            s.rsplit_once(") ")
                .and_then(|(_, rest)| rest.chars().next())
        });
        if matches!(state, None | Some('Z')) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the child {grandchild} outlived the launcher (state {state:?})"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    // A binary that cannot start: exit 2 with the reason.
    let out = launcher("/nonexistent/mcpseal")
        .arg("--version")
        .output()
        .expect("launcher runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: could not start /nonexistent/mcpseal"),
        "{stderr}"
    );
}

#[test]
fn the_launcher_names_an_unsupported_platform_and_the_way_out() {
    // The source package lists no platform packages (the build adds them), so every platform
    // is "unsupported" here: exactly the message a user on, say, FreeBSD gets.
    let out = std::process::Command::new("node")
        .arg(workspace().join("packaging/npm/mcpseal/bin/mcpseal.js"))
        .arg("--version")
        .env_remove("MCPSEAL_BINARY")
        .output()
        .expect("launcher runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: mcpseal has no prebuilt binary for this platform"),
        "{stderr}"
    );
    assert!(stderr.contains("hint: build it from source with `cargo install mcpseal`"));
}

/// Runs alone (`.config/nextest.toml`): maturin may relink `target/debug/mcpseal`.
#[cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]
#[test]
fn the_wheel_reuses_the_build_and_installs_into_a_fresh_venv() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let wheels = tmp.path().join("wheels");
    // scripts/test builds `-p mcpseal` before the suite, so this is mostly a relink; from a bare
    // `cargo nextest run` it compiles the crates whose features differ (minutes under load).
    let ran = run_within(
        Command::new(dist_tool("maturin"))
            .args(["build", "--profile", "dev", "--locked", "--out"])
            .arg(&wheels)
            .current_dir(workspace().join("packaging/pypi")),
        Duration::from_secs(540),
    );
    ran.expect_code(0, "maturin build");
    // The wheel shares the workspace's target directory. It cannot be a pure no-op after the
    // test build (cargo unifies features differently for `-p mcpseal` alone than for the
    // workspace with its dev-dependencies, so the few crates whose features differ, and the
    // CLI, are built once more), but nothing else is: the most expensive unit of the graph,
    // whose features do not differ, is never compiled again.
    assert!(
        !ran.stderr.contains("Compiling aws-lc-sys"),
        "maturin rebuilt the dependency graph: it is not using the workspace's target dir\n{}",
        ran.stderr
    );
    let wheel: Vec<PathBuf> = std::fs::read_dir(&wheels)
        .expect("wheels")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(wheel.len(), 1, "{wheel:?}");
    let name = wheel[0].file_name().expect("name").to_string_lossy();
    assert!(
        name.starts_with(&format!("mcpseal_cli-{VERSION}-py3-none-manylinux_"))
            && name.ends_with("_x86_64.whl"),
        "{name}"
    );

    // A fresh venv (no pip of its own: the tools venv's pip installs into it, which is what
    // `pip --python` is for and saves ensurepip's seconds), offline.
    let venv = tmp.path().join("venv");
    run(Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv))
    .expect_code(0, "python3 -m venv");
    run(Command::new(dist_tool("python"))
        .args(["-m", "pip", "--python"])
        .arg(venv.join("bin/python"))
        .args([
            "install",
            "--no-index",
            "--disable-pip-version-check",
            "--quiet",
        ])
        .arg(&wheel[0]))
    .expect_code(0, "pip install wheel");

    let bin = venv.join("bin/mcpseal");
    let ran = run(Command::new(&bin).arg("--version"));
    ran.expect_code(0, "wheel mcpseal --version");
    assert_eq!(ran.stdout, own_version_line());
    let (code, report) = probe_through(&bin, &[]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["ready"], true);
}

/// Every crate `cargo install mcpseal` builds is published, and each can be packaged.
#[test]
fn published_crates_package_and_need_only_published_crates() {
    let meta = cargo_metadata();
    let packages = meta["packages"].as_array().expect("packages");
    let published = |p: &Value| p["publish"] != serde_json::json!([]);
    let by_name = |n: &str| {
        packages
            .iter()
            .find(|p| p["name"] == n)
            .unwrap_or_else(|| panic!("no package {n}"))
    };
    let cli = by_name("mcpseal");
    assert!(published(cli), "the CLI package is published as `mcpseal`");
    // Walk the normal and build dependencies that are workspace members.
    let mut todo = vec![cli];
    let mut seen = Vec::new();
    while let Some(p) = todo.pop() {
        let name = p["name"].as_str().expect("name").to_owned();
        if seen.contains(&name) {
            continue;
        }
        assert!(
            published(p),
            "{name} is needed by `cargo install mcpseal` but has publish = false\nhint: set \
             publish = true and give its path dependency a version"
        );
        for field in ["license", "description", "repository", "readme"] {
            assert!(p[field].is_string(), "{name} has no {field}");
        }
        assert!(
            !p["categories"].as_array().expect("categories").is_empty()
                && !p["keywords"].as_array().expect("keywords").is_empty(),
            "{name} needs categories and keywords"
        );
        for dep in p["dependencies"].as_array().expect("deps") {
            if dep["kind"] == "dev" || dep["path"].is_null() {
                continue;
            }
            let dep_name = dep["name"].as_str().expect("dep name");
            assert!(
                dep["req"] != "*",
                "{name} depends on {dep_name} by path only\nhint: add a version to its \
                 [workspace.dependencies] entry"
            );
            todo.push(by_name(dep_name));
        }
        seen.push(name);
    }
    for name in &seen {
        let ran = run(Command::new(env!("CARGO"))
            .args([
                "package",
                "--list",
                "--allow-dirty",
                "-p",
                name,
                "--manifest-path",
            ])
            .arg(workspace().join("Cargo.toml")));
        ran.expect_code(0, &format!("cargo package --list -p {name}"));
        let files: Vec<&str> = ran.stdout.lines().collect();
        for f in ["Cargo.toml", "README.md", "src/lib.rs"] {
            if f == "src/lib.rs" && name == "mcpseal" {
                continue;
            }
            assert!(files.contains(&f), "{name} package lacks {f}: {files:?}");
        }
    }
    assert!(seen.len() >= 7, "{seen:?}");
}

#[test]
fn binstall_metadata_names_the_release_assets() {
    let meta = cargo_metadata();
    let cli = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|p| p["name"] == "mcpseal")
        .expect("mcpseal");
    let binstall = &cli["metadata"]["binstall"];
    let targets: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace().join("packaging/targets.json")).expect("targets"),
    )
    .expect("JSON");
    // binstall fills { repo }, { version }, { target }, { bin }, { binary-ext }.
    let expand = |template: &str, target: &str, exe: &str| {
        template
            .replace("{ repo }", cli["repository"].as_str().expect("repository"))
            .replace("{ version }", "1.2.3")
            .replace("{ target }", target)
            .replace("{ bin }", "mcpseal")
            .replace("{ binary-ext }", exe)
    };
    for t in targets["targets"].as_array().expect("targets") {
        let target = t["target"].as_str().expect("target");
        let exe = t["exe"].as_str().expect("exe");
        let archive = t["archive"].as_str().expect("archive");
        let over = &binstall["overrides"][target];
        let pick = |k: &str| over[k].as_str().or(binstall[k].as_str()).expect(k);
        assert_eq!(
            expand(pick("pkg-url"), target, exe),
            format!(
                "https://github.com/mcpseal/mcpseal/releases/download/v1.2.3/mcpseal-1.2.3-{target}.{archive}"
            ),
            "{target}"
        );
        assert_eq!(
            pick("pkg-fmt"),
            if archive == "zip" { "zip" } else { "tgz" },
            "{target}"
        );
        assert_eq!(
            expand(pick("bin-dir"), target, exe),
            format!("mcpseal-1.2.3-{target}/mcpseal{exe}")
        );
    }
}
