//! `mcpseal call`: parse, one facade call, render, exit code from the report.
#![expect(
    clippy::disallowed_methods,
    reason = "asking the person at the terminal: the question goes to stderr, beside the output module"
)]

use std::io::{BufRead, IsTerminal, Read, Write};
use std::sync::Arc;

use mcpseal::call::{Asker, Call, example_answer, parse_answer, parse_args};
use mcpseal::report::RenderOptions;
use mcpseal::report::call::{InputRequest, render_call};
use serde_json::Value;

use crate::args::{CallArgs, TargetArgs};
use crate::error::{CliError, Outcome};
use crate::{output, settings};

/// Asks the person at the terminal (stderr for the question, stdin for the answer).
struct Terminal;

/// The longest answer line read.
const MAX_ANSWER: u64 = 1024 * 1024;

impl Asker for Terminal {
    fn ask(&self, request: &InputRequest) -> Option<Value> {
        let mut err = std::io::stderr().lock();
        let message = request
            .params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("");
        let _ = writeln!(
            err,
            "The server asks `{}` ({}): {message}",
            request.key, request.method
        );
        if let Some(schema) = request.params.get("requestedSchema") {
            let _ = writeln!(err, "  form: {schema}");
        }
        let _ = writeln!(
            err,
            "Answer with the whole result as one line of JSON, e.g. {}\n(an empty line gives no answer)",
            example_answer(request)
        );
        drop(err);
        for _ in 0..3 {
            let _ = write!(std::io::stderr(), "> ");
            let mut line = String::new();
            let read = std::io::stdin()
                .lock()
                .take(MAX_ANSWER)
                .read_line(&mut line)
                .ok()?;
            if read == 0 || line.trim().is_empty() {
                return None;
            }
            match serde_json::from_str::<Value>(line.trim()) {
                Ok(v) if v.is_object() => return Some(v),
                _ => output::note("not a JSON object; try again"),
            }
        }
        None
    }
}

/// With `--prompt`/`--resource` there is no TOOL, so the first positional is the URL.
fn target_args(args: &CallArgs) -> Result<(Option<String>, TargetArgs), CliError> {
    let mut target = args.target.clone();
    let reading = args.prompt.is_some() || args.resource.is_some();
    match (&args.tool, reading) {
        (Some(t), true) if target.url.is_none() => {
            target.url = Some(t.clone());
            Ok((None, target))
        }
        (Some(_), true) => Err(CliError::usage(
            "a TOOL and `--prompt`/`--resource` were both given",
        )
        .hint("call a tool, or read a prompt or resource: one per run")),
        (None, false) => Err(CliError::usage("no TOOL named").hint(
            "`mcpseal call TOOL [--args JSON] TARGET`, or `--prompt NAME` / `--resource URI`",
        )),
        (tool, _) => Ok((tool.clone(), target)),
    }
}

pub async fn run(args: CallArgs) -> Result<Outcome, CliError> {
    let (tool, target_args) = target_args(&args)?;
    let arguments = parse_args(&args.args)?;
    let answers = args
        .answers
        .iter()
        .map(|a| parse_answer(a))
        .collect::<Result<Vec<_>, _>>()?;
    let target = settings::target(&target_args)?;
    let options = settings::options(&args.connect)?;
    let mut call = match (&tool, &args.prompt, &args.resource) {
        (Some(t), _, _) => Call::new(target, t.clone(), arguments),
        (None, Some(p), _) => Call::prompt(target, p.clone(), arguments),
        (None, None, Some(uri)) => Call::resource(target, uri.clone()),
        (None, None, None) => return Err(CliError::usage("nothing to call")),
    };
    call = call
        .options(options)
        .negative_controls(args.negative_controls)
        .expect_error(args.expect_error)
        .input_check(!args.no_input_check)
        .max_rounds(args.max_rounds);
    for (key, value) in answers {
        call = call.answer(key, value);
    }
    if !args.no_ask && std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        call = call.asker(Arc::new(Terminal));
    }
    let report = call.run().await?;
    let to_file = args.output.output.is_some();
    let opts = RenderOptions {
        verbose: args.verbose,
        color: args.format == mcpseal::report::Format::Text && !to_file && output::stdout_color(),
        docs_url: crate::settings::docs_url(),
    };
    output::emit_doc(
        &render_call(&report, args.format, &opts),
        args.format == mcpseal::report::Format::Text,
        args.output.output.as_deref(),
    )?;
    if let Some(e) = &report.error {
        let mut note = format!("error: {}", e.message);
        if let Some(h) = &e.hint {
            note.push_str(&format!("\nhint: {h}"));
        }
        output::note(&note);
    }
    Ok(match report.exit_code() {
        0 => Outcome::Ok,
        1 => Outcome::Found,
        _ => Outcome::NoVerdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(tool: Option<&str>, url: Option<&str>, prompt: bool) -> CallArgs {
        use clap::Parser;
        let mut argv = vec!["mcpseal".to_owned(), "call".to_owned()];
        if prompt {
            argv.extend(["--prompt".to_owned(), "greet".to_owned()]);
        }
        argv.extend(tool.map(str::to_owned));
        argv.extend(url.map(str::to_owned));
        match crate::args::Cli::parse_from(argv).command {
            crate::args::Command::Call(a) => a,
            _ => unreachable!("parsed as call"),
        }
    }

    #[test]
    fn the_first_positional_is_the_url_when_reading_a_prompt() {
        let (tool, t) = target_args(&args(Some("http://x/mcp"), None, true)).expect("ok");
        assert_eq!((tool, t.url.as_deref()), (None, Some("http://x/mcp")));
        let (tool, t) =
            target_args(&args(Some("forecast"), Some("http://x/mcp"), false)).expect("ok");
        assert_eq!(
            (tool.as_deref(), t.url.as_deref()),
            (Some("forecast"), Some("http://x/mcp"))
        );
        assert!(target_args(&args(Some("a"), Some("http://x/mcp"), true)).is_err());
        assert!(target_args(&args(None, None, false)).is_err());
    }
}
