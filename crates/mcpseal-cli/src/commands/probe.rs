//! `mcpseal probe`: validate everything, probe once, render as many times as asked, exit code
//! from the report (never from a renderer).

use std::fmt::Write as _;
use std::path::PathBuf;

use mcpseal::probe::{ProbeOptions, parse_rule_ids, rule_infos};
use mcpseal::report::{Format, ProbeReport, RenderOptions, RunState, Severity, render_probe};

use crate::args::{FailOn, ProbeArgs};
use crate::error::{CliError, Outcome};
use crate::{output, settings};

/// One `--emit FORMAT:FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emit {
    /// The format.
    pub format: Format,
    /// The file.
    pub path: PathBuf,
}

/// Parses `FORMAT:FILE`, splitting at the first colon (so Windows drive letters survive).
pub fn parse_emit(raw: &str) -> Result<Emit, CliError> {
    let hint = "write it as `--emit json:report.json` (formats: text, json, sarif, markdown)";
    let Some((format, path)) = raw.split_once(':') else {
        return Err(CliError::usage(format!("`--emit {raw}` has no `:`")).hint(hint));
    };
    let format: Format = format
        .parse()
        .map_err(|e: mcpseal::report::ParseFormatError| {
            CliError::usage(e.to_string()).hint(hint)
        })?;
    if path.trim().is_empty() {
        return Err(CliError::usage(format!("`--emit {raw}` names no file")).hint(hint));
    }
    Ok(Emit {
        format,
        path: PathBuf::from(path),
    })
}

/// The exit outcome of a report under `--fail-on`.
pub fn outcome(report: &ProbeReport, fail_on: FailOn) -> Outcome {
    if report.state != RunState::Measured {
        return Outcome::NoVerdict;
    }
    let counts = |s: Severity| report.findings.iter().filter(|f| f.severity == s).count();
    let failing = match fail_on {
        FailOn::Error => counts(Severity::Error),
        FailOn::Warning => counts(Severity::Error) + counts(Severity::Warning),
        FailOn::Never => 0,
    };
    if failing > 0 {
        Outcome::Found
    } else {
        Outcome::Ok
    }
}

fn list_rules(format: Format) -> Result<String, CliError> {
    let rules = rule_infos();
    match format {
        Format::Json => {
            let mut s =
                serde_json::to_string_pretty(&rules).map_err(|e| CliError::usage(e.to_string()))?;
            s.push('\n');
            Ok(s)
        }
        Format::Markdown => Ok(mcpseal_probe_index(&rules)),
        Format::Sarif => Err(CliError::usage("`--list-rules` has no SARIF form")
            .hint("use `--format text`, `json` or `markdown`")),
        Format::Text => {
            let mut s = String::new();
            for r in &rules {
                let _ = writeln!(
                    s,
                    "{:<8} {:<8} {:<12} {:<11} {:<7} {}",
                    r.id,
                    r.severity.as_str(),
                    r.remediation.as_str(),
                    r.transports.join(","),
                    r.anchor_id.as_deref().unwrap_or("-"),
                    r.title
                );
            }
            Ok(s)
        }
    }
}

fn mcpseal_probe_index(rules: &[mcpseal::report::RuleInfo]) -> String {
    let mut s = String::from(
        "| id | mcp-stateless | severity | remediation | transports | title |\n|---|---|---|---|---|---|\n",
    );
    for r in rules {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            r.id,
            r.anchor_id.as_deref().unwrap_or("—"),
            r.severity.as_str(),
            r.remediation.as_str(),
            r.transports.join(", "),
            r.title.replace('|', "\\|")
        );
    }
    s
}

pub async fn run(args: ProbeArgs) -> Result<Outcome, CliError> {
    // Everything that can be wrong with the command line is found before a server starts.
    let emits = args
        .emit
        .iter()
        .map(|e| parse_emit(e))
        .collect::<Result<Vec<_>, _>>()?;
    let unknown = |e: mcpseal::probe::UnknownRules| {
        CliError::usage(e.to_string()).hint("`mcpseal probe --list-rules` lists the rule ids")
    };
    let calls = args
        .calls
        .iter()
        .map(|c| mcpseal::probe::parse_call(c))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            CliError::usage(e.to_string())
                .hint("write it as `--call 'echo={\"message\":\"hi\"}'` (arguments: a JSON object)")
        })?;
    let only = parse_rule_ids(&args.only).map_err(unknown)?;
    let skip = parse_rule_ids(&args.skip).map_err(unknown)?;
    if args.list_rules {
        output::emit(&list_rules(args.format)?, args.output.output.as_deref())?;
        return Ok(Outcome::Ok);
    }
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let probe = ProbeOptions {
        only,
        skip,
        calls,
        ..ProbeOptions::default()
    };
    let report = mcpseal::probe::run(&target, options, &probe).await?;
    let to_file = args.output.output.is_some();
    let opts = RenderOptions {
        verbose: args.verbose,
        color: args.format == Format::Text && settings::color(args.output.color, to_file),
    };
    output::emit(
        &render_probe(&report, args.format, &opts),
        args.output.output.as_deref(),
    )?;
    for emit in &emits {
        let plain = RenderOptions {
            verbose: args.verbose,
            color: false,
        };
        output::emit(
            &render_probe(&report, emit.format, &plain),
            Some(&emit.path),
        )?;
    }
    match (&report.state, &report.unreachable, &report.incomplete) {
        (RunState::Unreachable, Some(reason), _) => {
            output::note(&format!(
                "error: the server is unreachable: {reason}\nhint: {}",
                mcpseal::unreachable_hint(reason)
            ));
        }
        (RunState::Incomplete, _, Some(inc)) => {
            output::note(&format!(
                "error: the probe is incomplete: {} of {} probes unanswered ({})",
                inc.failed, inc.probes, inc.reason
            ));
            // An unanswered probe is never a pass: say what could change the outcome.
            output::note(
                "hint: nothing was judged from the unanswered probes; a slow server may need a longer `--timeout`, a large answer `--max-message-bytes`, a protected one `--header`",
            );
        }
        _ => {}
    }
    Ok(outcome(&report, args.fail_on))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emit_splits_at_the_first_colon() {
        let e = parse_emit("json:C:\\out\\r.json").expect("valid");
        assert_eq!(e.format, Format::Json);
        assert_eq!(e.path, PathBuf::from("C:\\out\\r.json"));
        assert!(parse_emit("json").is_err());
        assert!(parse_emit("yaml:x").is_err());
        assert!(parse_emit("sarif:").is_err());
    }
}
