//! The launcher for real: a child that tries to connect to a loopback listener this test runs,
//! and one that reads a file outside its allowed paths; each with isolation on (it must fail)
//! and off (it must work), so the test can fail both ways. What isolation the machine gives is
//! asked of the launcher itself (`--probe`); on this project's machines (Linux ≥ 5.13, user
//! namespaces allowed, or root) both kinds are on, and the test requires it there.

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcpseal_sources::sandbox::{self, SYSTEM_READ_ONLY};
use mcpseal_sources::{
    FilesystemIsolation, Isolation, IsolationReport, Launcher, NetworkIsolation,
};

fn launcher() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcpseal-sandbox"))
}

fn node() -> String {
    for dir in std::env::var("PATH").unwrap_or_default().split(':') {
        let p = Path::new(dir).join("node");
        if p.is_file() {
            return std::fs::canonicalize(&p)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned();
        }
    }
    panic!("node is not on PATH (the test peers need it too)");
}

/// The node installation's prefix (`…/bin/node` → `…`), which the child must be able to read.
fn node_prefix() -> String {
    let n = PathBuf::from(node());
    n.parent()
        .and_then(Path::parent)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|| "/usr".into())
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the launcher with `flags`, then `-- node -e script`, bounded at 60 s.
fn run(flags: &[String], script: &str, extra_env: &[(&str, &str)]) -> Ran {
    let mut cmd = Command::new(launcher());
    cmd.args(flags)
        .arg("--")
        .arg(node())
        .arg("-e")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn the launcher");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the launched child did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .map(|mut s| s.read_to_string(&mut stdout));
    child
        .stderr
        .take()
        .map(|mut s| s.read_to_string(&mut stderr));
    Ran {
        code: status.code(),
        stdout,
        stderr,
    }
}

fn base_flags(extra_ro: &[&Path], rw: &Path) -> Vec<String> {
    let mut f = Vec::new();
    for p in SYSTEM_READ_ONLY
        .iter()
        .map(|s| s.to_string())
        .chain([node_prefix()])
        .chain(extra_ro.iter().map(|p| p.to_string_lossy().into_owned()))
    {
        f.push("--ro".into());
        f.push(p);
    }
    f.push("--rw".into());
    f.push(rw.to_string_lossy().into_owned());
    f.push("--rw".into());
    f.push("/dev/null".into());
    f.push("--keep-env".into());
    f.push("PATH".into());
    f
}

fn probe_report(isolation: &Isolation) -> IsolationReport {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(sandbox::probe(&Launcher::standalone(launcher()), isolation))
        .expect("the launcher reports")
}

const CONNECT: &str = r#"
const port = Number(process.argv[1]);
const s = require('net').connect({host: '127.0.0.1', port}, () => { console.log('CONNECTED'); s.end(); process.exit(0); });
s.on('error', (e) => { console.log('FAILED ' + e.code); process.exit(3); });
setTimeout(() => { console.log('FAILED timeout'); process.exit(4); }, 20000);
"#;

#[test]
fn network_isolation_cuts_even_loopback() {
    let report = probe_report(&Isolation::default());
    assert!(
        matches!(report.network, NetworkIsolation::Isolated { .. }),
        "this machine allows network namespaces, the launcher must use them: {:?}",
        report.lines()
    );
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port().to_string();
    // Accept in the background so an allowed connection completes.
    std::thread::spawn(move || {
        for s in listener.incoming().take(2) {
            drop(s);
        }
    });
    let tmp = tempfile::tempdir().expect("tmp");
    let script = CONNECT.replace("process.argv[1]", &port);

    // Isolated: the connection fails (a new network namespace has its own, down, loopback).
    let mut flags = base_flags(&[], tmp.path());
    flags.insert(0, "--no-network".into());
    let isolated = run(&flags, &script, &[]);
    assert!(
        isolated.stdout.starts_with("FAILED"),
        "connected from inside the sandbox: {} {}",
        isolated.stdout,
        isolated.stderr
    );
    assert_eq!(isolated.code, Some(3), "{}", isolated.stderr);

    // Control: same launcher, network allowed: it connects.
    let open = run(&base_flags(&[], tmp.path()), &script, &[]);
    assert_eq!(open.stdout.trim(), "CONNECTED", "{}", open.stderr);
}

#[test]
fn landlock_keeps_the_child_inside_its_paths() {
    let report = probe_report(&Isolation::default());
    assert!(
        matches!(report.filesystem, FilesystemIsolation::Enforced { .. }),
        "this kernel has Landlock, the launcher must enforce it: {:?}",
        report.lines()
    );
    let outside = tempfile::tempdir().expect("outside dir");
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "s3cret").expect("write secret");
    let home = tempfile::tempdir().expect("home");
    let script = format!(
        r#"
const fs = require('fs');
let out = [];
try {{ out.push('read:' + fs.readFileSync({secret:?}, 'utf8')); }} catch (e) {{ out.push('read:' + e.code); }}
try {{ fs.writeFileSync({home_file:?}, 'x'); out.push('home:ok'); }} catch (e) {{ out.push('home:' + e.code); }}
try {{ fs.writeFileSync({outside_file:?}, 'x'); out.push('outside:ok'); }} catch (e) {{ out.push('outside:' + e.code); }}
console.log(out.join(' '));
"#,
        secret = secret.to_string_lossy(),
        home_file = home.path().join("w.txt").to_string_lossy(),
        outside_file = outside.path().join("w.txt").to_string_lossy(),
    );
    let mut flags = base_flags(&[], home.path());
    flags.insert(0, "--landlock".into());
    let restricted = run(&flags, &script, &[]);
    assert_eq!(
        restricted.stdout.trim(),
        "read:EACCES home:ok outside:EACCES",
        "{}",
        restricted.stderr
    );
    // Control: the same paths readable once allowed, and without Landlock at all.
    let mut flags = base_flags(&[outside.path()], home.path());
    flags.insert(0, "--landlock".into());
    let allowed = run(&flags, &script, &[]);
    assert_eq!(
        allowed.stdout.trim(),
        "read:s3cret home:ok outside:EACCES",
        "{}",
        allowed.stderr
    );
    let open = run(&base_flags(&[], home.path()), &script, &[]);
    assert_eq!(
        open.stdout.trim(),
        "read:s3cret home:ok outside:ok",
        "{}",
        open.stderr
    );
}

#[test]
fn environment_is_only_what_is_kept_and_the_report_is_written() {
    let tmp = tempfile::tempdir().expect("tmp");
    let report_path = tmp.path().join("report.json");
    let mut flags = base_flags(&[], tmp.path());
    flags.extend([
        "--no-network".into(),
        "--landlock".into(),
        "--keep-env".into(),
        "KEPT".into(),
        "--report".into(),
        report_path.to_string_lossy().into_owned(),
    ]);
    let ran = run(
        &flags,
        "console.log(Object.keys(process.env).sort().join(','))",
        &[("KEPT", "yes"), ("MCPSEAL_TEST_SECRET", "hunter2")],
    );
    assert_eq!(ran.stdout.trim(), "KEPT,PATH", "{}", ran.stderr);
    let report = IsolationReport::read(&report_path).expect("report written before exec");
    assert!(report.environment_scrubbed);
    assert!(matches!(report.network, NetworkIsolation::Isolated { .. }));
    let FilesystemIsolation::Enforced { read_write, .. } = &report.filesystem else {
        panic!("not enforced: {:?}", report.lines());
    };
    assert!(read_write.iter().any(|p| Path::new(p) == tmp.path()));
}

#[test]
fn the_server_cannot_rewrite_its_report() {
    let run_dir = tempfile::tempdir().expect("run dir");
    let home = run_dir.path().join("home");
    std::fs::create_dir(&home).expect("home");
    let report_path = run_dir.path().join("isolation.json");
    let mut flags = base_flags(&[], &home);
    flags.extend([
        "--landlock".into(),
        "--report".into(),
        report_path.to_string_lossy().into_owned(),
    ]);
    let script = format!(
        "try {{ require('fs').writeFileSync({:?}, '{{}}'); console.log('rewritten') }} catch (e) {{ console.log(e.code) }}",
        report_path.to_string_lossy()
    );
    let ran = run(&flags, &script, &[]);
    assert_eq!(ran.stdout.trim(), "EACCES", "{}", ran.stderr);
    assert!(IsolationReport::read(&report_path).is_ok());
}

#[test]
fn launcher_failures_have_their_own_statuses() {
    let missing = Command::new(launcher())
        .args(["--keep-env", "PATH", "--", "/nonexistent/program"])
        .output()
        .expect("runs");
    assert_eq!(missing.status.code(), Some(127));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("mcpseal sandbox: error: cannot execute")
    );
    let bad = Command::new(launcher())
        .args(["--frobnicate"])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(125));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("unknown launcher argument `--frobnicate`")
    );
    // --require with everything available goes through to the program.
    let ok = Command::new(launcher())
        .args(["--no-network", "--landlock", "--require"])
        .args(SYSTEM_READ_ONLY.iter().flat_map(|p| ["--ro", p]))
        .args(["--", "/bin/true"])
        .output()
        .expect("runs");
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

#[test]
fn probe_reports_what_was_not_asked_for() {
    let off = Isolation {
        network: false,
        filesystem: false,
        ..Isolation::default()
    };
    let r = probe_report(&off);
    assert_eq!(r.network, NetworkIsolation::NotRequested);
    assert_eq!(r.filesystem, FilesystemIsolation::NotRequested);
    assert_eq!(
        r.lines(),
        [
            "network isolation: off (network allowed)",
            "filesystem isolation: off"
        ]
    );
}

/// Where namespaces are denied (here: inside a user namespace without a uid map, made by
/// util-linux `unshare --user`), the launcher says so and falls back to Landlock's TCP rules:
/// the connection still fails, now with EACCES, and the report says "partial" and why.
#[test]
fn without_namespaces_landlock_still_denies_tcp() {
    let Ok(unshare) = which("unshare") else {
        panic!("util-linux `unshare` is not on PATH");
    };
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port().to_string();
    std::thread::spawn(move || {
        for s in listener.incoming().take(1) {
            drop(s);
        }
    });
    let tmp = tempfile::tempdir().expect("tmp");
    let report_path = tmp.path().join("r.json");
    let out = Command::new(unshare)
        .arg("--user")
        .arg("--")
        .arg(launcher())
        .args(["--no-network", "--report"])
        .arg(&report_path)
        .args(["--keep-env", "PATH", "--", &node(), "-e"])
        .arg(CONNECT.replace("process.argv[1]", &port))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.trim(),
        "FAILED EACCES",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = IsolationReport::read(&report_path).expect("report");
    let NetworkIsolation::Partial { method, reason } = &report.network else {
        panic!("expected the Landlock fallback: {:?}", report.lines());
    };
    assert!(method.contains("TCP"), "{method}");
    assert!(
        reason.contains("EPERM on unshare(CLONE_NEWUSER|CLONE_NEWNET)"),
        "{reason}"
    );
}

fn which(name: &str) -> Result<PathBuf, ()> {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
        .ok_or(())
}
