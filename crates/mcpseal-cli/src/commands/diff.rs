//! `mcpseal diff A B`: the semantic diff of two surfaces.

use std::path::Path;

use mcpseal::client::Target;
use mcpseal::diff::{Side, diff_sides, load_file, server_side};
use mcpseal::surface::Form;
use mcpseal::{SnapshotOptions, capture_trusted};

use crate::commands::drift::{Rendered, changes_text, diff_json, render};
use crate::error::{CliError, Outcome};
use crate::lock_args::DiffArgs;
use crate::{output, settings};

enum Input {
    File(String),
    Server(Target),
}

fn classify(raw: &str) -> Input {
    if raw.starts_with("http://") || raw.starts_with("https://") {
        Input::Server(Target::http(raw.to_owned()))
    } else {
        Input::File(raw.to_owned())
    }
}

pub async fn run(args: DiffArgs) -> Result<Outcome, CliError> {
    let b = match (&args.b, args.command.is_empty()) {
        (Some(b), true) => classify(b),
        (None, false) => Input::Server(Target::stdio(args.command.iter().cloned())),
        (Some(_), false) => {
            return Err(CliError::usage("give B or `-- COMMAND`, not both")
                .hint("`mcpseal diff old.lock.json -- node server.js` compares a lock with a running server"));
        }
        (None, true) => {
            return Err(CliError::usage("`mcpseal diff` needs two sides")
                .hint("`mcpseal diff A B`: each a lock file, snapshot JSON or http(s) URL; B may be `-- COMMAND ARGS...`"));
        }
    };
    let a = classify(&args.a);
    let options = settings::options(&args.connect)?;
    // Files first: their form decides the form a live side is captured in.
    let load = |i: &Input| -> Result<Option<Side>, CliError> {
        match i {
            Input::File(p) => load_file(Path::new(p)).map(Some).map_err(|e| {
                let hint = e.hint();
                CliError::usage(e.to_string()).hint(hint)
            }),
            Input::Server(_) => Ok(None),
        }
    };
    let (fa, fb) = (load(&a)?, load(&b)?);
    let form = fa
        .as_ref()
        .or(fb.as_ref())
        .map_or(Form::McpSeal1, |s| s.form);
    let mut sides = Vec::new();
    for (input, file) in [(&a, fa), (&b, fb)] {
        match (input, file) {
            (_, Some(side)) => sides.push(side),
            (Input::Server(target), None) => {
                let conn = mcpseal::open(target, options.clone()).await?;
                let captured = capture_trusted(
                    &conn,
                    &SnapshotOptions {
                        form,
                        page_cap: args.page_cap.max(1),
                    },
                )
                .await;
                conn.close().await;
                let captured = captured.map_err(|e| {
                    let hint = e.hint();
                    CliError::usage(format!(
                        "no trustworthy surface from `{}`: {e}",
                        target.display()
                    ))
                    .hint(hint)
                })?;
                sides.push(server_side(&captured.surface, form));
            }
            (Input::File(_), None) => {
                return Err(CliError::usage("internal: file side not loaded"));
            }
        }
    }
    let diff = diff_sides(&sides[0], &sides[1]).map_err(|e| {
        let hint = e.hint();
        CliError::usage(e.to_string()).hint(hint)
    })?;
    let verdict = if diff.is_empty() {
        "no surface change".to_owned()
    } else {
        format!(
            "{} change(s); semver bump needed: {}",
            diff.changes.len(),
            diff.required_bump().as_str()
        )
    };
    let text = if diff.is_empty() {
        format!("{verdict}\n")
    } else {
        changes_text(&diff)
    };
    let target = match &b {
        Input::File(p) => p.clone(),
        Input::Server(t) => t.display(),
    };
    let rendered = Rendered {
        command: "diff",
        target: &target,
        verdict,
        text,
        json: diff_json(&diff),
        diff: &diff,
    };
    output::emit(
        &render(args.format, &rendered)?,
        args.output.output.as_deref(),
    )?;
    Ok(if diff.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Found
    })
}
