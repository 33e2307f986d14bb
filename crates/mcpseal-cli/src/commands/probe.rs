//! `mcpseal probe`: validate everything, probe once, render as many times as asked, exit code
//! from the report (never from a renderer).

use std::path::PathBuf;

use mcpseal::probe::{ProbeOptions, parse_rule_ids, rule_infos};
use mcpseal::report::{Format, RenderOptions, probe_notes, render_probe, render_rule_list};

use crate::args::ProbeArgs;
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
        let list = render_rule_list(&rule_infos(), args.format).ok_or_else(|| {
            CliError::usage("`--list-rules` has no SARIF form")
                .hint("use `--format text`, `json` or `markdown`")
        })?;
        output::emit(&list, args.output.output.as_deref())?;
        return Ok(Outcome::Ok);
    }
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let probe = ProbeOptions {
        only,
        skip,
        calls,
        jobs: args
            .jobs
            .map_or_else(mcpseal::probe::default_jobs, usize::from),
        ..ProbeOptions::default()
    };
    let report = mcpseal::probe::run(&target, options, &probe).await?;
    let to_file = args.output.output.is_some();
    let opts = RenderOptions {
        verbose: args.verbose,
        color: args.format == Format::Text && !to_file && output::stdout_color(),
        docs_url: crate::settings::docs_url(),
    };
    output::emit_doc(
        &render_probe(&report, args.format, &opts),
        args.format == Format::Text,
        args.output.output.as_deref(),
    )?;
    for emit in &emits {
        let plain = RenderOptions {
            verbose: args.verbose,
            color: false,
            docs_url: opts.docs_url.clone(),
        };
        output::emit(
            &render_probe(&report, emit.format, &plain),
            Some(&emit.path),
        )?;
    }
    output::notes(&probe_notes(&report));
    Ok(Outcome::of_probe(&report, args.fail_on))
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
