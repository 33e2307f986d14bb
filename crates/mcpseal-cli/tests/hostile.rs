//! The hostile-server suite end to end (issue 11 item 3): for every attack of
//! `mcpseal-hostile`, `snapshot`, `lock` and `probe` (real mcpseal processes) end with a clear
//! error (exit 2, an `error:` line and a `hint:`) within `--timeout` + 1 s (or the page/size
//! cap, whose own deadline is given per case), the peak RSS of the mcpseal process (VmHWM from
//! `/proc/<pid>/status`, sampled until it exits — the high-water mark only grows) stays under
//! `--max-message-bytes` + 64 MiB, and no process of the stdio server's process group is left
//! (the hostile server appends `PID PGID` of itself and every grandchild to `--pid-file`; each
//! must be gone or a zombie afterwards, read from `/proc`).
//!
//! One test per attack, so nextest runs them in parallel; the timeouts and caps are small so
//! the whole suite stays within a few minutes of CI on a loaded 2-core machine.
#![expect(
    clippy::disallowed_methods,
    reason = "the test starts the hostile server directly for some cases"
)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcpseal_fixtures::{HttpFixture, hostile_argv};

/// `--timeout` of every run.
const TIMEOUT: Duration = Duration::from_secs(2);
/// `--max-message-bytes` of every run: the RSS bound is this + 64 MiB.
const MAX_MESSAGE: u64 = 1024 * 1024;
const RSS_BOUND_KIB: u64 = (MAX_MESSAGE + 64 * 1024 * 1024) / 1024;
/// Slack for starting a debug binary (and the stdio server) on a loaded machine, on top of
/// the issue's `--timeout` + 1 s.
const START_SLACK: Duration = Duration::from_secs(2);
/// One graceful close of a stdio server that ignores end of input and SIGTERM: 500 ms for it
/// to exit on its own, 300 ms after SIGTERM, then SIGKILL. The probe's fresh processes close
/// together in the background while the rules run; the last may still be closing when the
/// run ends, so against such a server the probe may take one grace more than `snapshot`.
const CLOSE_GRACE: Duration = Duration::from_millis(800);
/// The hard stop of a run that never ends (a failure, reported as such).
const HARD_STOP: Duration = Duration::from_secs(60);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Over {
    Stdio,
    Http,
}

/// What one mcpseal run did.
struct Run {
    code: Option<i32>,
    stderr: String,
    took: Duration,
    peak_kib: u64,
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs mcpseal, sampling its VmHWM every 10 ms until it exits (polling a measurement, not
/// waiting for an event: the run's end is `try_wait`).
fn run_mcpseal(args: &[String], err_file: &Path) -> Run {
    let err = std::fs::File::create(err_file).expect("stderr file");
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpseal"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .expect("spawn mcpseal");
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = vm_hwm_kib(pid) {
            peak = peak.max(kib);
        }
        match child.try_wait().expect("wait") {
            Some(s) => break Some(s),
            None if start.elapsed() > HARD_STOP => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    Run {
        code: status.and_then(|s| s.code()),
        // Lossy: a stderr that is not UTF-8 must show up in the failure, not read as empty.
        stderr: std::fs::read(err_file)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_else(|e| format!("(stderr file unreadable: {e})")),
        took: start.elapsed(),
        peak_kib: peak,
    }
}

/// A live (not zombie) process whose pid is one the server recorded.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state follows the parenthesised command name.
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next());
            state != Some("Z") && state != Some("X")
        }
        Err(_) => false,
    }
}

/// The processes of the server's group left alive, waiting a bounded while for the kernel to
/// finish what mcpseal's SIGKILL started.
fn survivors(pid_file: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(pid_file).unwrap_or_default();
    let pids: Vec<u32> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left: Vec<u32> = pids.iter().copied().filter(|&p| alive(p)).collect();
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs `snapshot`, `lock` and `probe` against the attack over one transport and returns the
/// violations (empty when every bound held), with a line of figures per run on stderr.
fn attack(case: &str, over: Over, deadline: Duration) -> Vec<String> {
    let mut violations = Vec::new();
    for command in ["snapshot", "lock", "probe"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let pid_file = dir.path().join("pids");
        let pid_arg = pid_file.to_string_lossy().into_owned();
        let mut args: Vec<String> = vec![
            command.into(),
            "--timeout".into(),
            format!("{}s", TIMEOUT.as_secs()),
            "--max-message-bytes".into(),
            MAX_MESSAGE.to_string(),
            "--max-capture-bytes".into(),
            (8 * 1024 * 1024).to_string(),
        ];
        if command == "lock" {
            args.push("--lock".into());
            args.push(
                dir.path()
                    .join("surface.lock.json")
                    .to_string_lossy()
                    .into(),
            );
        }
        let _fx;
        match over {
            Over::Stdio => {
                args.push("--".into());
                args.extend(hostile_argv(&["--case", case, "--pid-file", &pid_arg]));
            }
            Over::Http => {
                let fx = HttpFixture::hostile(&["--case", case]);
                args.push(fx.url.clone());
                _fx = fx;
            }
        }
        let run = run_mcpseal(&args, &dir.path().join("stderr"));
        let label = format!(
            "{case} over {} / {command}",
            if over == Over::Stdio { "stdio" } else { "HTTP" }
        );
        // The figures of each run, for the record (nextest shows them with --no-capture).
        #[expect(
            clippy::print_stderr,
            reason = "progress of a long hostile case on the test's stderr"
        )]
        {
            eprintln!(
                "{label}: exit {:?}, {:.2} s, peak RSS {} KiB",
                run.code,
                run.took.as_secs_f64(),
                run.peak_kib
            );
        }
        // The probe judges what the server answered: a cursor loop is a finding (exit 1, the
        // probe's verdict), not a capture failure; every other outcome must be a refusal.
        let finding = command == "probe" && run.code == Some(1);
        if run.code != Some(2) && !finding {
            violations.push(format!(
                "{label}: exit {:?}, not 2: {}",
                run.code, run.stderr
            ));
        }
        if !finding && (!run.stderr.contains("error:") || !run.stderr.contains("hint:")) {
            violations.push(format!("{label}: no clear error: {:?}", run.stderr));
        }
        // Every command is held to the case's bound (`--timeout` + 1 s, or the page/size
        // cap's) and to the RSS bound; the probe's dead method costs one timeout in the run
        // (the memo), and its fresh processes' closes overlap: one close grace at most. A
        // stdio server flooding instead of answering is killed at the timeout, so its flood is
        // no longer paid once per request; an oversize (bomb) answer is not asked again.
        let deadline = match command {
            "probe" if case == "ignore-sigterm" => deadline + CLOSE_GRACE,
            _ => deadline,
        };
        if run.took > deadline + START_SLACK {
            violations.push(format!(
                "{label}: took {:?}, past {deadline:?} (+{START_SLACK:?} to start)",
                run.took
            ));
        }
        if run.peak_kib == 0 || run.peak_kib > RSS_BOUND_KIB {
            violations.push(format!(
                "{label}: peak RSS {} KiB, bound {RSS_BOUND_KIB} KiB",
                run.peak_kib
            ));
        }
        if command == "lock" && dir.path().join("surface.lock.json").exists() {
            violations.push(format!("{label}: a lock was written"));
        }
        if over == Over::Stdio {
            let left = survivors(&pid_file);
            if !left.is_empty() {
                violations.push(format!("{label}: server processes left alive: {left:?}"));
            }
        }
    }
    violations
}

fn suite(case: &str, overs: &[Over], deadline: Duration) {
    let mut violations = Vec::new();
    for &over in overs {
        violations.extend(attack(case, over, deadline));
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The bound: one `--timeout` and a second.
fn timed() -> Duration {
    TIMEOUT + Duration::from_secs(1)
}

const BOTH: &[Over] = &[Over::Stdio, Over::Http];
const STDIO: &[Over] = &[Over::Stdio];
const HTTP: &[Over] = &[Over::Http];

macro_rules! hostile {
    ($($name:ident: $case:literal over $overs:expr, within $deadline:expr;)*) => {$(
        #[test]
        fn $name() {
            suite($case, $overs, $deadline);
        }
    )*};
}

hostile! {
    notification_flood: "notification-flood" over BOTH, within timed();
    huge_message_without_newline: "huge-message" over BOTH, within timed();
    slowloris: "slowloris" over BOTH, within timed();
    invalid_utf8_in_a_string: "invalid-utf8" over BOTH, within timed();
    json_nested_100000_levels: "deep-json" over BOTH, within timed();
    a_result_without_the_list_array: "no-list-array" over BOTH, within timed();
    a_cursor_loop: "cursor-loop" over BOTH, within timed();
    // The page cap (1000 pages) ends it, not a timeout: its own deadline.
    a_cursor_that_changes_forever: "cursor-forever" over BOTH, within Duration::from_secs(30);
    // The capture cap (8 MiB here) ends it.
    a_million_tools: "many-tools" over BOTH, within Duration::from_secs(30);
    one_mb_of_response_headers: "huge-headers" over HTTP, within timed();
    ten_thousand_header_lines: "many-headers" over HTTP, within timed();
    a_503_html_page: "server-error" over HTTP, within timed();
    a_gzip_bomb: "gzip-bomb" over HTTP, within timed();
    a_deflate_bomb: "deflate-bomb" over HTTP, within timed();
    a_redirect_loop: "redirect-loop" over HTTP, within timed();
    a_child_that_ignores_sigterm: "ignore-sigterm" over STDIO, within timed();
    grandchildren_holding_stdout_open: "grandchildren" over STDIO, within timed();
    stdout_half_closed: "half-close" over STDIO, within timed();
}

/// A listing page too large to quote (1,000 tools, about 360 KB) is quoted cut in the probe's
/// JSON report, saying what was left out (the `tools` member, its item count, the whole
/// result's size and SHA-256), and the report still validates against its schema. The
/// control: the same report's small exchanges are quoted whole (no `truncated` member).
#[test]
fn a_huge_listing_is_quoted_cut_and_says_so() {
    let args: Vec<String> = [
        "probe",
        "--format",
        "json",
        "--timeout",
        "2s",
        "--max-message-bytes",
        &MAX_MESSAGE.to_string(),
        "--",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .chain(hostile_argv(&["--case", "many-tools"]))
    .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpseal"))
        .args(&args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run mcpseal");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let schema: serde_json::Value =
        serde_json::from_str(mcpseal::report::PROBE_REPORT_SCHEMA).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let invalid: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(invalid.is_empty(), "{invalid:?}");
    let evidence: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .flat_map(|f| f["evidence"].as_array().into_iter().flatten())
        .collect();
    let cut: Vec<&&serde_json::Value> = evidence
        .iter()
        .filter(|e| e.get("truncated").is_some())
        .collect();
    assert!(!cut.is_empty(), "no cut quote: {report:#}");
    for e in &cut {
        let omitted = &e["truncated"]["response"];
        assert_eq!(omitted["members"]["tools"]["items"], 1000, "{e:#}");
        assert!(omitted["bytes"].as_u64().is_some_and(|b| b > 256 * 1024));
        assert_eq!(omitted["sha256"].as_str().map(str::len), Some(64));
        assert!(e["response"]["result"].get("tools").is_none());
        assert_eq!(e["request"]["method"], "tools/list");
    }
    assert!(
        evidence.len() > cut.len(),
        "the small exchanges are quoted whole"
    );
}
