//! The guard as a proxy: a host-side session through `mcpseal guard --lock … -- SERVER`, the
//! host being mcpseal's own client (`snapshot`, `call`) given the guard's command line, as a
//! host's configuration gives it. First the locked server (everything forwarded), then the
//! drifted one (the reworded tools hidden, each decision in the audit log).

use super::time::{DRIFTED, SERVER, with_server};
use super::{Runner, Section};

const INTRO: &str = "The same project, its lock written by `mcpseal lock`: the host (here mcpseal's own client) runs\n`mcpseal guard --lock surface.lock.json -- SERVER` where it would run the server. While the server\nserves what is locked the guard forwards everything; the drifted server's reworded tools are hidden\nfrom the host and each decision is appended to the audit log (`--audit`). Only the log's `time` is\nreplaced (`<time>`).\n";

/// The guard's command line in front of `server`, for a host: `mcpseal guard … -- SERVER`.
fn guarded<'a>(host: &[&'a str], guard: &[&'a str], server: [&'a str; 3]) -> Vec<&'a str> {
    let mut out = host.to_vec();
    out.extend(["--", "mcpseal", "guard", "--lock", "surface.lock.json"]);
    out.extend(guard);
    with_server(&out, server)
}

/// Runs in the main example's project (its `surface.lock.json` is the locked server's).
pub fn proxy(runner: &Runner) -> anyhow::Result<Section> {
    let steps = vec![
        runner.step(&guarded(&["snapshot"], &[], SERVER), 0)?,
        runner.step(
            &guarded(
                &[
                    "call",
                    "convert_time",
                    "--args",
                    r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"Asia/Tokyo"}"#,
                ],
                &[],
                SERVER,
            ),
            0,
        )?,
        runner.step(
            &guarded(&["snapshot"], &["--audit", "guard-audit.jsonl"], DRIFTED),
            0,
        )?,
        runner.file("guard-audit.jsonl", None)?,
    ];
    Ok(Section {
        page: "guard",
        title: "as a proxy",
        intro: INTRO,
        steps,
    })
}
