//! `mcpseal lock`.

use std::fmt::Write as _;

use mcpseal::lock::{LockOptions, LockOutcome, LockReport};
use mcpseal::surface::lock::{Pointer, RefusalReason, Relation};
use serde_json::{Value, json};

use crate::commands::drift::{
    Rendered, changes_text, diff_json, need_phrase, render, version_request, workflow_error,
};
use crate::error::{CliError, Outcome};
use crate::lock_args::LockArgs;
use crate::{output, settings};

pub async fn run(args: LockArgs) -> Result<Outcome, CliError> {
    let exclude = args
        .exclude
        .iter()
        .map(|p| Pointer::parse(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            CliError::usage(e.to_string()).hint(
                "write a JSON Pointer such as `/resources` or `/tools/name=clock/description`",
            )
        })?;
    let version = version_request(&args.version)?;
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let lock_options = LockOptions {
        path: args.lock.path.clone(),
        form: args.form.map(settings::form),
        page_cap: args.report.page_cap.max(1),
        exclude: (!exclude.is_empty()).then_some(exclude),
        rules: settings::rule_options(&args.rules),
        version,
        lock_wait: match &args.lock_timeout {
            Some(text) => settings::parse_duration(text)?,
            None => mcpseal::lock::default_lock_wait(options.timeout),
        },
    };
    let conn = mcpseal::open(&target, options.clone()).await?;
    let reopen = async || mcpseal::open(&target, options.clone()).await;
    let result = mcpseal::lock::lock(&conn, reopen, &lock_options).await;
    conn.close().await;
    let report = result.map_err(|e| workflow_error(e, &conn.diagnostics()))?;
    let verdict = verdict(&report);
    let mut text = format!("{verdict}\n");
    text.push_str(&details(&report));
    text.push_str(&changes_text(&report.diff));
    let rendered = Rendered {
        command: "lock",
        target: &target.display(),
        verdict: verdict.clone(),
        text,
        json: json_of(&report),
        diff: &report.diff,
    };
    output::emit(
        &render(args.report.format, &rendered)?,
        args.output.output.as_deref(),
    )?;
    for w in &report.warnings {
        output::note(&format!("warning: {w}"));
    }
    let security = report.diff.summary().security;
    if report.outcome.written() && security > 0 {
        output::note(&format!(
            "warning: {security} security-class change(s) locked (see SECURITY above): review them; `--deny-security` refuses them"
        ));
    }
    match &report.outcome {
        LockOutcome::Refused(r) => {
            let v = report
                .version
                .as_ref()
                .map_or("?".into(), |v| v.version.to_string());
            let locked = report.locked_version.clone().unwrap_or_default();
            let (message, hint) = match (r.reason, &r.accepted) {
                (RefusalReason::Security, _) => (
                    format!("refused: the surface has security-class changes and `--deny-security` is set; `{}` is untouched", report.path.display()),
                    "review the SECURITY changes; lock without `--deny-security` once they are intended".to_owned(),
                ),
                (reason, accepted) => {
                    let why = match reason {
                        RefusalReason::NotHigher(Relation::Same) => format!("the surface changed but the version is still {v}"),
                        RefusalReason::NotHigher(_) => format!("the surface changed under {v}, lower than the locked {locked}"),
                        RefusalReason::BreakWithoutNewLine => format!("a contract break needs {}, and {locked} → {v} stays on the same compatibility line", need_phrase(r.need, &locked)),
                        _ => format!("`--strict-semver`: additive or security changes need a new minor, and {locked} → {v} is not one"),
                    };
                    let accepted = accepted.as_ref().map_or(String::new(), ToString::to_string);
                    (
                        format!("refused: {why}; `{}` is untouched", report.path.display()),
                        format!("bump the server's version to {accepted} or higher, then run `mcpseal lock` again"),
                    )
                }
            };
            output::note(&format!("error: {message}\nhint: {hint}"));
            Ok(Outcome::Found)
        }
        LockOutcome::Volatile => {
            let items: Vec<String> = report
                .diff
                .changes
                .iter()
                .map(|c| c.item.clone().unwrap_or_else(|| c.path.clone()))
                .collect();
            let first = report
                .diff
                .changes
                .first()
                .map_or("/…".to_owned(), |c| c.path.clone());
            output::note(&format!(
                "error: the surface changed between two captures ({}); a volatile surface cannot be locked\nhint: leave the volatile part out of the hash: `--exclude {first}`",
                dedup(items).join(", ")
            ));
            Ok(Outcome::Found)
        }
        _ => Ok(Outcome::Ok),
    }
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    v.dedup();
    v
}

fn verdict(r: &LockReport) -> String {
    let v = r
        .version
        .as_ref()
        .map_or(String::new(), |v| v.version.to_string());
    let path = r.path.display();
    let locked = r.locked_version.clone().unwrap_or_default();
    match &r.outcome {
        LockOutcome::Created => format!("locked `{path}` at {v}"),
        LockOutcome::Restamped => {
            format!("surface unchanged: re-stamped `{path}` from {locked} to {v}")
        }
        LockOutcome::Accepted => format!("surface changed: locked `{path}` at {v} (was {locked})"),
        LockOutcome::ExclusionsUpdated => {
            format!("surface unchanged: updated the exclusions of `{path}`")
        }
        LockOutcome::UpToDate => format!("up to date: `{path}` already locks this surface at {v}"),
        LockOutcome::KeptHigherStamp => format!(
            "surface unchanged: `{path}` keeps {locked} (never re-stamped downwards to {v})"
        ),
        LockOutcome::Refused(_) => format!("refused: `{path}` is untouched"),
        LockOutcome::Volatile => {
            format!("refused: the surface changed between two captures; `{path}` is untouched")
        }
    }
}

fn details(r: &LockReport) -> String {
    let mut out = String::new();
    if let Some(v) = &r.version {
        let _ = writeln!(out, "version  {} (from {})", v.version, v.source);
    }
    if let Some(rv) = &r.reported_version {
        let _ = writeln!(out, "server   reports {rv}");
    }
    let _ = writeln!(out, "{}  {}", r.form, r.sha256);
    for p in &r.exclude {
        let _ = writeln!(out, "exclude  {p}");
    }
    out
}

fn json_of(r: &LockReport) -> Value {
    let (outcome, accepted) = match &r.outcome {
        LockOutcome::Created => ("created", None),
        LockOutcome::Restamped => ("restamped", None),
        LockOutcome::Accepted => ("accepted", None),
        LockOutcome::ExclusionsUpdated => ("exclusionsUpdated", None),
        LockOutcome::UpToDate => ("upToDate", None),
        LockOutcome::KeptHigherStamp => ("keptHigherStamp", None),
        LockOutcome::Refused(x) => ("refused", x.accepted.as_ref().map(ToString::to_string)),
        LockOutcome::Volatile => ("volatile", None),
    };
    json!({
        "schemaVersion": 1,
        "outcome": outcome,
        "written": r.outcome.written(),
        "lock": r.path.display().to_string(),
        "form": r.form.as_str(),
        "version": r.version.as_ref().map(|v| v.version.to_string()),
        "versionSource": r.version.as_ref().map(|v| v.source.clone()),
        "lockedVersion": r.locked_version,
        "reportedVersion": r.reported_version,
        "sha256": r.sha256,
        "exclude": r.exclude,
        "acceptedFrom": accepted,
        "diff": diff_json(&r.diff),
        "warnings": r.warnings,
    })
}
