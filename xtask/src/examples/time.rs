//! The main worked example: `mcp-server-time` 2026.10.19, pinned in
//! `tests/peers/python/requirements.txt` and installed by `tests/peers/install.sh` into
//! `tests/peers/.venv`, run with `--local-timezone UTC` so its descriptions do not depend on the
//! machine. It runs in a fresh temp project whose `.venv` is that venv, so the pages show exactly
//! what a user of that project sees. The drift examples run the same server with
//! `--local-timezone Europe/Paris`, which rewords three descriptions.

use std::path::Path;

use anyhow::Context as _;

use super::{Runner, Section, guard};

/// The server, as `init` is given it.
pub const SERVER: [&str; 3] = [".venv/bin/mcp-server-time", "--local-timezone", "UTC"];
/// The same server with three descriptions reworded (they name the local timezone).
pub const DRIFTED: [&str; 3] = [
    ".venv/bin/mcp-server-time",
    "--local-timezone",
    "Europe/Paris",
];

pub const INTRO: &str = "A project whose server is `mcp-server-time` 2026.10.19 from PyPI (pinned in\n`tests/peers/python/requirements.txt`), installed in the project's `.venv` and set up by\n`mcpseal init -- .venv/bin/mcp-server-time --local-timezone UTC`; with `--local-timezone\nEurope/Paris` the same server rewords three descriptions. Run by `cargo xtask generate\ncommands`; only the probe's clock (`<time>`) and today's date (`<date>`, `<day>`) are replaced.\n";

/// `mcpseal ARGS… -- SERVER`.
pub fn with_server<'a>(args: &[&'a str], server: [&'a str; 3]) -> Vec<&'a str> {
    let mut out = args.to_vec();
    out.push("--");
    out.extend(server);
    out
}

/// One step of the plan: the page it is shown on, the arguments, the exit code it must have
/// and how many lines of its output to show (`None`: all).
struct Planned {
    page: &'static str,
    args: Vec<&'static str>,
    expect: i32,
    head: Option<usize>,
}

fn step(page: &'static str, args: Vec<&'static str>, expect: i32) -> Planned {
    Planned {
        page,
        args,
        expect,
        head: None,
    }
}

/// Links the pinned venv into a fresh temp project as `.venv`.
pub fn project(root: &Path) -> anyhow::Result<tempfile::TempDir> {
    let venv = root.join("tests/peers/.venv");
    anyhow::ensure!(
        venv.join("bin/mcp-server-time").exists(),
        "{} has no mcp-server-time\nhint: run `tests/peers/install.sh` (the worked examples run the pinned PyPI server)",
        venv.display()
    );
    let project = tempfile::tempdir().context("a temp project")?;
    #[cfg(unix)]
    std::os::unix::fs::symlink(&venv, project.path().join(".venv")).context("linking .venv")?;
    Ok(project)
}

/// The project set up by `init`, then the other commands with no arguments, then the commands
/// that take a server, a file or a tool; then the guard in front of the server.
pub fn sections(root: &Path, bins: &Path) -> anyhow::Result<Vec<Section>> {
    let project = project(root)?;
    let runner = Runner::new(bins, project.path());
    let plan = [
        step("init", with_server(&["init"], SERVER), 0),
        step("config", vec!["config"], 0),
        step("snapshot", vec!["snapshot"], 0),
        step("lock", vec!["lock"], 0),
        step("check", vec!["check"], 0),
        step("probe", vec!["probe"], 0),
        step("init", vec!["init"], 0),
        step("verify", vec!["verify"], 0),
        step("verify", with_server(&["verify"], DRIFTED), 1),
        step(
            "diff",
            with_server(&["snapshot", "--format", "json", "-o", "utc.json"], SERVER),
            0,
        ),
        step(
            "diff",
            with_server(
                &["snapshot", "--format", "json", "-o", "paris.json"],
                DRIFTED,
            ),
            0,
        ),
        step("diff", vec!["diff", "utc.json", "paris.json"], 1),
        step(
            "diff",
            with_server(&["diff", "surface.lock.json"], SERVER),
            0,
        ),
        step(
            "call",
            with_server(
                &[
                    "call",
                    "convert_time",
                    "--args",
                    r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"Asia/Tokyo"}"#,
                ],
                SERVER,
            ),
            0,
        ),
        step("rpc", with_server(&["rpc", "prompts/list"], SERVER), 0),
        step("guard", with_server(&["guard", "review"], DRIFTED), 1),
        step("card", vec!["card", "emit", "--shape", "smithery"], 0),
        Planned {
            page: "completions",
            args: vec!["completions", "bash"],
            expect: 0,
            head: Some(12),
        },
    ];
    let mut out: Vec<Section> = Vec::new();
    for p in plan {
        let step = runner.step_head(&p.args, p.expect, p.head)?;
        match out.iter_mut().find(|s| s.page == p.page) {
            Some(section) => section.steps.push(step),
            None => out.push(Section {
                page: p.page,
                title: "",
                intro: INTRO,
                steps: vec![step],
            }),
        }
    }
    out.push(guard::proxy(&runner)?);
    Ok(out)
}
