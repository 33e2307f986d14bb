//! `mcpseal verify`: the deployed endpoint against the lock.

use std::fmt::Write as _;

use mcpseal::verify::{VerifyOptions, VerifyReport};
use serde_json::{Value, json};

use crate::commands::drift::{
    Rendered, changes_text, diff_json, render, require_lock, workflow_error,
};
use crate::error::{CliError, Outcome};
use crate::lock_args::VerifyArgs;
use crate::{output, settings};

pub async fn run(args: VerifyArgs) -> Result<Outcome, CliError> {
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    require_lock(&args.lock.path)?;
    let wait = settings::parse_duration(&args.wait)?;
    let attempts = args.attempts.max(1);
    let mut attempt = 1;
    let report = loop {
        let conn = mcpseal::open(&target, options.clone()).await?;
        let result = mcpseal::verify::verify(
            &conn,
            &VerifyOptions {
                path: args.lock.path.clone(),
                page_cap: args.report.page_cap.max(1),
            },
        )
        .await;
        conn.close().await;
        let report = result.map_err(|e| workflow_error(e, &conn.diagnostics()))?;
        if report.matches || attempt >= attempts {
            break report;
        }
        // Right after a deploy, an edge may still serve old instances: ask again.
        output::note(&format!(
            "note: attempt {attempt}/{attempts}: the surface differs from the lock; asking again in {}",
            args.wait
        ));
        tokio::time::sleep(wait).await;
        attempt += 1;
    };
    let path = args.lock.path.display().to_string();
    let shown = target.display();
    let verdict = if report.matches {
        format!(
            "verified: `{shown}` serves the surface locked in `{path}` ({})",
            report.locked_version
        )
    } else {
        format!(
            "drift: `{shown}` does not serve the surface locked in `{path}` ({})",
            report.locked_version
        )
    };
    let mut text = format!("{verdict}\n");
    let _ = writeln!(text, "version  {}", version_line(&report));
    let _ = writeln!(text, "locked   {}", report.locked_sha256);
    let _ = writeln!(text, "live     {}", report.live_sha256);
    for p in &report.exclude {
        let _ = writeln!(text, "exclude  {p} (not compared)");
    }
    text.push_str(&changes_text(&report.diff));
    let rendered = Rendered {
        command: "verify",
        target: &shown,
        verdict,
        text,
        json: json_of(&report, &path),
        diff: &report.diff,
    };
    output::emit(
        &render(args.report.format, &rendered)?,
        args.output.output.as_deref(),
    )?;
    if report.matches {
        Ok(Outcome::Ok)
    } else {
        output::note(&format!(
            "error: the deployed surface drifted from the lock ({} change(s))\nhint: deploy the locked build, or bump the version and run `mcpseal lock` for the new surface",
            report.diff.changes.len().max(1)
        ));
        Ok(Outcome::Found)
    }
}

fn version_line(r: &VerifyReport) -> String {
    match (&r.reported_version, r.reported_is_locked) {
        (Some(v), Some(true)) => format!("the server reports {v}, the locked version"),
        (Some(v), Some(false)) => format!(
            "the server reports {v}, not the locked {}",
            r.locked_version
        ),
        (Some(v), None) => format!(
            "the server reports `{v}` (not semver; locked: {})",
            r.locked_version
        ),
        (None, _) => format!(
            "the server reports no version (locked: {})",
            r.locked_version
        ),
    }
}

fn json_of(r: &VerifyReport, path: &str) -> Value {
    json!({
        "schemaVersion": 1,
        "matches": r.matches,
        "lock": path,
        "lockedVersion": r.locked_version,
        "reportedVersion": r.reported_version,
        "reportedIsLocked": r.reported_is_locked,
        "lockedSha256": r.locked_sha256,
        "liveSha256": r.live_sha256,
        "exclude": r.exclude,
        "diff": diff_json(&r.diff),
    })
}
