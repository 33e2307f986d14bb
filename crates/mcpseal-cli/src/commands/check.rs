//! `mcpseal check`: the CI gate.

use std::fmt::Write as _;

use mcpseal::check::{CheckOptions, CheckReport};
use mcpseal::surface::lock::Relation;
use serde_json::{Value, json};

use crate::commands::drift::{
    Rendered, changes_text, diff_json, need_phrase, render, require_lock, version_request,
    workflow_error,
};
use crate::error::{CliError, Outcome};
use crate::lock_args::CheckArgs;
use crate::{output, settings};

pub async fn run(args: CheckArgs) -> Result<Outcome, CliError> {
    let version = version_request(&args.version)?;
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let check_options = CheckOptions {
        path: args.lock.path.clone(),
        page_cap: args.report.page_cap.max(1),
        rules: settings::rule_options(&args.rules),
        version,
    };
    require_lock(&args.lock.path)?;
    let conn = mcpseal::open(&target, options).await?;
    let result = mcpseal::check::check(&conn, &check_options).await;
    conn.close().await;
    let report = result.map_err(|e| workflow_error(e, &conn.diagnostics()))?;
    let path = args.lock.path.display().to_string();
    let v = report.version.version.to_string();
    let locked = &report.locked_version;
    let verdict = if report.matches {
        format!("ok: the surface is the one locked in `{path}` ({locked})")
    } else {
        format!("drift: the surface differs from the one locked in `{path}` ({locked}) under {v}")
    };
    let mut text = format!("{verdict}\n");
    let _ = writeln!(text, "version  {v} (from {})", report.version.source);
    for p in &report.exclude {
        let _ = writeln!(text, "exclude  {p} (not compared)");
    }
    text.push_str(&changes_text(&report.diff));
    let rendered = Rendered {
        command: "check",
        target: &target.display(),
        verdict,
        text,
        json: json_of(&report, &path),
        diff: &report.diff,
    };
    output::emit(
        &render(args.report.format, &rendered)?,
        args.output.output.as_deref(),
    )?;
    let accepted = report
        .accepted_from
        .as_ref()
        .map_or(String::new(), ToString::to_string);
    let need = need_phrase(report.need, locked);
    let semver = report.diff.required_bump().as_str();
    if report.matches {
        if report.relation == Relation::Higher {
            output::note(&format!(
                "note: the server is at {v}, the lock at {locked}: `mcpseal lock` will re-stamp it, so that a later change under {v} is caught"
            ));
        }
        return Ok(Outcome::Ok);
    }
    let message = match report.relation {
        Relation::Higher if report.lock_would_accept => format!(
            "error: the surface changed and the version went up ({locked} → {v}), but the lock was not rewritten; the bump satisfies the rules\nhint: re-lock with `mcpseal lock` and commit `{path}`"
        ),
        Relation::Higher => format!(
            "error: the surface changed under {v}, and {locked} → {v} does not satisfy the rules: the change needs {need} ({accepted} or higher; semver bump: {semver})\nhint: bump the version to {accepted} or higher, then re-lock with `mcpseal lock`"
        ),
        _ => format!(
            "error: the surface changed but the version is {v} (locked: {locked}); the change needs {need} (semver bump: {semver})\nhint: bump the server's version to {accepted} or higher, then run `mcpseal lock`"
        ),
    };
    output::note(&message);
    Ok(Outcome::Found)
}

fn json_of(r: &CheckReport, path: &str) -> Value {
    json!({
        "schemaVersion": 1,
        "matches": r.matches,
        "lock": path,
        "lockedVersion": r.locked_version,
        "version": r.version.version.to_string(),
        "versionSource": r.version.source,
        "reportedVersion": r.reported_version,
        "relation": match r.relation { Relation::Lower => "lower", Relation::Same => "same", Relation::Higher => "higher" },
        "exclude": r.exclude,
        "acceptedFrom": r.accepted_from.as_ref().map(ToString::to_string),
        "lockWouldAccept": r.lock_would_accept,
        "diff": diff_json(&r.diff),
    })
}
