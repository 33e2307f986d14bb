//! The GitHub Action (action.yml → action/main.js) run as the runner runs it: `node` with the
//! `INPUT_*`, `GITHUB_*` and `RUNNER_*` variables set, against the binary built here, packed the
//! way the release workflow packs it and served as a release over loopback HTTP. Exercises the
//! download, the SHA-256 check (and its failure), the tool cache, the version sources, one
//! mcpseal run rendered as outputs, summary and annotations, and the exit code passed on.
//!
//! Linux x64 only: the other runners get the same Action in the release workflow's smoke job.
#![cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and runs the packaged action's scripts"
)]

mod dist_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use dist_support::{FileServer, HOST_TARGET, Ran, fake_release, mcpseal_binary, run, workspace};
use serde_json::Value;

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One runner: a workspace, a tool cache and a temp dir, kept across the steps of a test.
struct Runner {
    dir: tempfile::TempDir,
}

/// What one Action step left behind.
struct Step {
    ran: Ran,
    outputs: BTreeMap<String, String>,
    summary: String,
}

impl Runner {
    fn new() -> Runner {
        let runner = Runner {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        for d in ["ws", "cache", "tmp"] {
            std::fs::create_dir_all(runner.path(d)).expect("dir");
        }
        runner
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn cached_binary(&self) -> PathBuf {
        self.path(&format!("cache/mcpseal/{VERSION}/{HOST_TARGET}/mcpseal"))
    }

    /// Runs the Action once with these inputs (`release-url` is the given server).
    fn step(&self, server: &FileServer, inputs: &[(&str, &str)]) -> Step {
        let output = self.path("github_output");
        let summary = self.path("step_summary");
        std::fs::write(&output, "").expect("output file");
        std::fs::write(&summary, "").expect("summary file");
        let mut cmd = Command::new("node");
        cmd.arg(workspace().join("action/main.js"))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path("tmp"))
            .env("GITHUB_WORKSPACE", self.path("ws"))
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("RUNNER_TOOL_CACHE", self.path("cache"))
            .env("RUNNER_TEMP", self.path("tmp"))
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("NO_COLOR", "1")
            .env("INPUT_RELEASE-URL", &server.url)
            .current_dir(self.path("ws"));
        for (name, value) in inputs {
            cmd.env(format!("INPUT_{}", name.to_uppercase()), value);
        }
        let ran = run(&mut cmd);
        Step {
            outputs: parse_outputs(&std::fs::read_to_string(&output).expect("outputs")),
            summary: std::fs::read_to_string(&summary).expect("summary"),
            ran,
        }
    }
}

/// `name<<DELIM` / value lines / `DELIM`, as `$GITHUB_OUTPUT` is written.
fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let (name, delim) = line.split_once("<<").expect("heredoc output");
        let mut value = Vec::new();
        for l in lines.by_ref() {
            if l == delim {
                break;
            }
            value.push(l);
        }
        out.insert(name.to_owned(), value.join("\n"));
    }
    out
}

fn fixture_args(extra: &str) -> String {
    format!("-- {} {extra}", mcpseal_fixtures::binary().display())
}

fn release() -> (tempfile::TempDir, FileServer) {
    let root = tempfile::tempdir().expect("release root");
    fake_release(root.path(), VERSION, &mcpseal_binary());
    let server = FileServer::start(root.path());
    (root, server)
}

fn read_json(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("file")).expect("JSON")
}

fn annotation_lines(stdout: &str, prefix: &str) -> usize {
    stdout.lines().filter(|l| l.starts_with(prefix)).count()
}

#[test]
fn installs_verifies_caches_and_renders_one_run() {
    let (_root, server) = release();
    let runner = Runner::new();
    let step = runner.step(
        &server,
        &[("command", "probe"), ("args", &fixture_args(""))],
    );
    step.ran.expect_code(0, "probe of a ready server");

    // Downloaded the checksum file and the archive, verified, cached.
    let asset = format!("/v{VERSION}/mcpseal-{VERSION}-{HOST_TARGET}.tar.gz");
    assert_eq!(
        server.requests(),
        vec![format!("/v{VERSION}/SHA256SUMS"), asset.clone()]
    );
    assert!(step.ran.stdout.contains("matches"), "{}", step.ran.stdout);
    assert!(runner.cached_binary().exists());

    // The version defaults to the Action's own release (the workspace version).
    assert!(
        step.ran.stdout.contains(&format!(
            "mcpseal {VERSION} (version from this Action's release)"
        )),
        "{}",
        step.ran.stdout
    );
    assert_eq!(step.outputs["mcpseal-version"], VERSION);
    assert_eq!(step.outputs["exit-code"], "0");

    // One run, three renderings: the JSON report, the SARIF log and the Markdown summary are
    // the same run (same start time and duration), and the summary is the Markdown report.
    let report = read_json(&step.outputs["report-path"]);
    assert_eq!(report["state"], "measured");
    assert_eq!(report["ready"], true);
    let sarif = read_json(&step.outputs["sarif-path"]);
    let run0 = &sarif["runs"][0];
    assert_eq!(run0["invocations"][0]["startTimeUtc"], report["startedAt"]);
    assert_eq!(run0["properties"]["durationMs"], report["durationMs"]);
    let markdown_file = Path::new(&step.outputs["report-path"]).with_file_name("report.md");
    assert_eq!(
        step.summary,
        std::fs::read_to_string(markdown_file).expect("markdown report")
    );
    assert!(step.summary.contains("READY"), "{}", step.summary);
    assert_eq!(annotation_lines(&step.ran.stdout, "::error"), 0);

    // A second step on the same runner uses the cache: nothing is downloaded again.
    let again = runner.step(
        &server,
        &[("command", "probe"), ("args", &fixture_args(""))],
    );
    again.ran.expect_code(0, "cached probe");
    assert!(again.ran.stdout.contains("found in the tool cache"));
    assert_eq!(server.requests().len(), 2, "{:?}", server.requests());
}

#[test]
fn findings_fail_the_step_with_annotations_and_keep_every_rendering() {
    let (_root, server) = release();
    let runner = Runner::new();
    let step = runner.step(
        &server,
        &[
            ("command", "probe"),
            ("args", &fixture_args("--mode legacy")),
            ("sarif", "out/probe.sarif"),
        ],
    );
    // mcpseal's own verdict (default --fail-on error) is the step's: exit 1.
    step.ran.expect_code(1, "probe of a legacy server");
    assert_eq!(step.outputs["exit-code"], "1");

    // The SARIF log is kept where asked, and every result is one annotation of its level.
    let sarif_path = runner.path("ws/out/probe.sarif");
    assert_eq!(step.outputs["sarif-path"], sarif_path.display().to_string());
    let sarif = read_json(&step.outputs["sarif-path"]);
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let level = |l: &str| results.iter().filter(|r| r["level"] == l).count();
    assert!(level("error") > 0);
    assert_eq!(
        annotation_lines(&step.ran.stdout, "::error title=SEAL"),
        level("error")
    );
    assert_eq!(
        annotation_lines(&step.ran.stdout, "::warning title=SEAL"),
        level("warning")
    );
    assert!(
        step.ran
            .stdout
            .contains("::error title=SEAL001%3A server/discover is not implemented::"),
        "{}",
        step.ran.stdout
    );
    // The step's own failure line says why, once.
    assert_eq!(
        annotation_lines(
            &step.ran.stdout,
            "::error title=mcpseal probe::mcpseal probe exited 1"
        ),
        1
    );
    // Findings do not lose the summary or the report.
    assert!(step.summary.contains("NOT READY"), "{}", step.summary);
    assert_eq!(read_json(&step.outputs["report-path"])["ready"], false);
}

#[test]
fn a_checksum_mismatch_installs_and_runs_nothing() {
    let root = tempfile::tempdir().expect("release root");
    fake_release(root.path(), VERSION, &mcpseal_binary());
    // The checksum file names another file's hash: the archive is not the one released.
    let sums = root.path().join(format!("v{VERSION}/SHA256SUMS"));
    std::fs::write(
        &sums,
        format!(
            "{}  mcpseal-{VERSION}-{HOST_TARGET}.tar.gz\n",
            dist_support::sha256_file(&workspace().join("Cargo.toml"))
        ),
    )
    .expect("rewrite SHA256SUMS");
    let server = FileServer::start(root.path());
    let runner = Runner::new();
    let step = runner.step(
        &server,
        &[("command", "probe"), ("args", &fixture_args(""))],
    );
    step.ran.expect_code(2, "checksum mismatch");
    assert!(
        step.ran
            .stdout
            .contains("::error title=mcpseal action::checksum mismatch for mcpseal-"),
        "{}",
        step.ran.stdout
    );
    assert!(!runner.cached_binary().exists(), "nothing installed");
    assert!(step.summary.is_empty(), "nothing ran: {}", step.summary);
    assert!(!step.outputs.contains_key("report-path"));
}

#[test]
fn the_checksum_input_must_match_as_well() {
    let (_root, server) = release();
    let runner = Runner::new();
    let wrong = "0".repeat(64);
    let step = runner.step(
        &server,
        &[
            ("command", "probe"),
            ("args", &fixture_args("")),
            ("checksum", &wrong),
        ],
    );
    step.ran.expect_code(2, "checksum input mismatch");
    assert!(
        step.ran.stdout.contains("the `checksum` input says 0000"),
        "{}",
        step.ran.stdout
    );
    assert!(!runner.cached_binary().exists());

    let archive = _root
        .path()
        .join(format!("v{VERSION}/mcpseal-{VERSION}-{HOST_TARGET}.tar.gz"));
    let right = dist_support::sha256_file(&archive);
    let ok = runner.step(
        &server,
        &[
            ("command", "probe"),
            ("args", &fixture_args("")),
            ("checksum", &right),
        ],
    );
    ok.ran.expect_code(0, "checksum input match");
    assert!(ok.ran.stdout.contains("and the checksum input"));
}

#[test]
fn a_tampered_cached_binary_is_downloaded_again() {
    let (_root, server) = release();
    let runner = Runner::new();
    runner
        .step(
            &server,
            &[("command", "probe"), ("args", &fixture_args(""))],
        )
        .ran
        .expect_code(0, "first install");
    std::fs::write(runner.cached_binary(), b"#!/bin/sh\nexit 0\n").expect("tamper");
    let step = runner.step(
        &server,
        &[("command", "probe"), ("args", &fixture_args(""))],
    );
    step.ran.expect_code(0, "reinstalled");
    assert!(
        step.ran
            .stdout
            .contains("does not match what was verified; downloading again"),
        "{}",
        step.ran.stdout
    );
    assert_eq!(server.requests().len(), 4, "{:?}", server.requests());
    assert_eq!(
        dist_support::sha256_file(&runner.cached_binary()),
        dist_support::sha256_file(&mcpseal_binary())
    );
}

#[test]
fn the_version_is_the_input_else_the_repository_pin_else_the_actions_own() {
    let (_root, server) = release();
    let runner = Runner::new();
    std::fs::write(
        runner.path("ws/mcpseal.toml"),
        "# pinned\nrequired-version = \"9.9.9\"\n\n[server]\ncommand = [\"x\"]\n\n[server.env]\n\"required-version\" = \"1.0.0\"\n",
    )
    .expect("mcpseal.toml");
    // The pin wins over the Action's own version: 9.9.9 was never released here.
    let pinned = runner.step(
        &server,
        &[("command", "probe"), ("args", &fixture_args(""))],
    );
    pinned.ran.expect_code(2, "unreleased pinned version");
    let toml = runner.path("ws/mcpseal.toml");
    assert!(
        pinned
            .ran
            .stdout
            .contains(&format!("mcpseal 9.9.9 (version from {})", toml.display())),
        "{}",
        pinned.ran.stdout
    );
    assert!(
        pinned
            .ran
            .stdout
            .contains("v9.9.9/SHA256SUMS does not exist (HTTP 404)"),
        "{}",
        pinned.ran.stdout
    );
    assert_eq!(pinned.outputs["mcpseal-version"], "9.9.9");

    // The input wins over the pin for what is installed; the installed mcpseal then enforces
    // the repository's pin itself (exit 2 naming both versions).
    let (args, version) = (fixture_args(""), format!("v{VERSION}"));
    let with_input = [
        ("command", "probe"),
        ("args", args.as_str()),
        ("version", version.as_str()),
    ];
    let input = runner.step(&server, &with_input);
    input.ran.expect_code(2, "version input against the pin");
    assert_eq!(input.outputs["mcpseal-version"], VERSION);
    assert!(
        input.ran.stderr.contains(&format!(
            "mcpseal.toml requires mcpseal 9.9.9, but this is mcpseal {VERSION}"
        )),
        "{}",
        input.ran.stderr
    );
    // A requirement the installed version satisfies: the run goes through (a range is the
    // binary's to judge; the Action refuses one only as what to install).
    let pinned_toml = std::fs::read_to_string(runner.path("ws/mcpseal.toml")).expect("read");
    std::fs::write(
        runner.path("ws/mcpseal.toml"),
        pinned_toml.replacen("\"9.9.9\"", &format!("\">={VERSION}\""), 1),
    )
    .expect("mcpseal.toml");
    let input = runner.step(&server, &with_input);
    input.ran.expect_code(0, "version input satisfying the pin");
    assert_eq!(input.outputs["mcpseal-version"], VERSION);
    std::fs::write(runner.path("ws/mcpseal.toml"), pinned_toml).expect("mcpseal.toml");

    // Two config files that disagree are refused before anything is downloaded.
    std::fs::write(
        runner.path("ws/pyproject.toml"),
        "[project]\nname = \"x\"\n\n[tool.mcpseal]\nrequired-version = \"0.0.1\"\n",
    )
    .expect("pyproject.toml");
    let before = server.requests().len();
    let clash = runner.step(
        &server,
        &[("command", "probe"), ("args", &fixture_args(""))],
    );
    clash.ran.expect_code(2, "disagreeing pins");
    assert!(
        clash.ran.stdout.contains("required-version disagrees"),
        "{}",
        clash.ran.stdout
    );
    assert_eq!(server.requests().len(), before);
}

#[test]
fn bad_inputs_are_refused_with_a_hint_before_any_download() {
    let (_root, server) = release();
    let runner = Runner::new();
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[("command", "lock")],
            "command \"lock\" is not one the Action runs",
        ),
        (
            &[("command", "probe"), ("version", "^0.1")],
            "asks for mcpseal version \"^0.1\", which is not one exact version",
        ),
        (
            &[("command", "probe"), ("version", "latest")],
            "which is not one exact version",
        ),
        (&[("command", "probe"), ("args", "'unclosed")], "unclosed '"),
        (
            &[("command", "probe"), ("working-directory", "no/such/dir")],
            "is not a directory",
        ),
    ];
    for (inputs, want) in cases {
        let step = runner.step(&server, inputs);
        step.ran.expect_code(2, want);
        assert!(
            step.ran.stdout.contains(want),
            "{want}: {}",
            step.ran.stdout
        );
        assert!(step.ran.stdout.contains("\nhint: "), "{}", step.ran.stdout);
    }
    assert!(server.requests().is_empty(), "{:?}", server.requests());

    // Plain http is only for loopback mirrors.
    let mut cmd = Command::new("node");
    cmd.arg(workspace().join("action/main.js"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("RUNNER_TOOL_CACHE", runner.path("cache"))
        .env("RUNNER_TEMP", runner.path("tmp"))
        .env("GITHUB_WORKSPACE", runner.path("ws"))
        .env("INPUT_COMMAND", "probe")
        .env("INPUT_RELEASE-URL", "http://example.invalid/releases");
    let ran = run(&mut cmd);
    ran.expect_code(2, "plain http");
    assert!(ran.stdout.contains("is not https"), "{}", ran.stdout);
}

/// Runs a snippet with `require`d Action modules; stdout is its answer.
fn node_eval(script: &str, args: &[&str]) -> Ran {
    let mut cmd = Command::new("node");
    // `--` ends node's own options, so arguments that look like options reach the script.
    cmd.arg("-e")
        .arg(script)
        .arg("--")
        .args(args)
        .current_dir(workspace().join("action"));
    run(&mut cmd)
}

#[test]
fn sarif_results_with_file_positions_become_pinned_annotations() {
    let sarif = serde_json::json!({
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "mcpseal", "rules": [
                {"id": "LOCK001", "shortDescription": {"text": "tool removed"}, "defaultConfiguration": {"level": "error"}}
            ]}},
            "results": [
                {"ruleId": "LOCK001", "ruleIndex": 0, "level": "error",
                 "message": {"text": "tool `add` was removed: 100% gone,\nbump major"},
                 "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": "surface.lock.json"},
                    "region": {"startLine": 12, "startColumn": 5, "endLine": 14}}}]},
                {"ruleId": "SEAL001", "level": "warning", "message": {"text": "live"},
                 "locations": [{"physicalLocation": {"artifactLocation": {"uri": "https://x.test/mcp"}}}]},
                {"ruleId": "LOCK001", "ruleIndex": 0, "message": {"text": "default level"}}
            ],
            "invocations": [{"executionSuccessful": false,
                "toolExecutionNotifications": [{"level": "error", "message": {"text": "server unreachable"}}]}]
        }]
    });
    let ran = node_eval(
        "const {annotations} = require('./lib/report'); \
         process.stdout.write(annotations(JSON.parse(process.argv[1])).join('\\n'))",
        &[&sarif.to_string()],
    );
    ran.expect_code(0, "annotations");
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(
        lines,
        vec![
            "::error file=surface.lock.json,line=12,endLine=14,col=5,title=LOCK001%3A tool removed::tool `add` was removed: 100%25 gone,%0Abump major",
            "::warning title=SEAL001::live",
            "::error title=LOCK001%3A tool removed::default level",
            "::error title=mcpseal run::server unreachable",
        ]
    );
}

#[test]
fn each_runner_gets_its_release_target() {
    let script = "const {runnerTarget} = require('./lib/install'); \
                  try { process.stdout.write(runnerTarget('..').target) } \
                  catch (e) { process.stdout.write('error: ' + e.message) }";
    let cases = [
        ("Linux", "X64", "x86_64-unknown-linux-gnu"),
        ("Linux", "ARM64", "aarch64-unknown-linux-gnu"),
        ("macOS", "ARM64", "aarch64-apple-darwin"),
        ("macOS", "X64", "x86_64-apple-darwin"),
        ("Windows", "X64", "x86_64-pc-windows-msvc"),
        (
            "Windows",
            "ARM64",
            "error: mcpseal has no release binary for this runner (win32 arm64)",
        ),
    ];
    for (os, arch, want) in cases {
        let mut cmd = Command::new("node");
        cmd.arg("-e")
            .arg(script)
            .current_dir(workspace().join("action"))
            .env("RUNNER_OS", os)
            .env("RUNNER_ARCH", arch);
        let ran = run(&mut cmd);
        ran.expect_code(0, os);
        assert_eq!(ran.stdout, want, "{os} {arch}");
    }
}

#[test]
fn args_split_like_a_shell_without_expansion() {
    let ran = node_eval(
        "const {splitWords} = require('./lib/words'); \
         process.stdout.write(JSON.stringify(splitWords(process.argv[1])))",
        &[
            r#"--fail-on warning -- node 'my server.js' "a \"b\" \\c" d\ e $HOME ''
--x"#,
        ],
    );
    ran.expect_code(0, "split");
    let words: Vec<String> = serde_json::from_str(&ran.stdout).expect("JSON");
    assert_eq!(
        words,
        vec![
            "--fail-on",
            "warning",
            "--",
            "node",
            "my server.js",
            r#"a "b" \c"#,
            "d e",
            "$HOME",
            "",
            "--x"
        ]
    );
}

#[test]
fn an_asset_whose_binary_is_another_version_is_refused() {
    // A correctly checksummed archive for "9.9.9" that holds this build (which says VERSION).
    let root = tempfile::tempdir().expect("release root");
    fake_release(root.path(), "9.9.9", &mcpseal_binary());
    let server = FileServer::start(root.path());
    let runner = Runner::new();
    let step = runner.step(
        &server,
        &[
            ("command", "probe"),
            ("version", "9.9.9"),
            ("args", &fixture_args("")),
        ],
    );
    step.ran.expect_code(2, "mislabelled asset");
    assert!(
        step.ran
            .stdout
            .contains(&format!("says \"mcpseal {VERSION} (")),
        "{}",
        step.ran.stdout
    );
    assert!(step.ran.stdout.contains("not mcpseal 9.9.9"));
    assert!(
        !runner
            .path(&format!("cache/mcpseal/9.9.9/{HOST_TARGET}"))
            .exists(),
        "nothing cached"
    );
    assert!(step.summary.is_empty());
}
