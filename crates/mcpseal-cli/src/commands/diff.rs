//! `mcpseal diff A B`: the semantic diff of two surfaces.

use mcpseal::client::Target;
use mcpseal::diff::SideSpec;
use mcpseal::report::render_diff;

use crate::error::{CliError, Outcome};
use crate::lock_args::DiffArgs;
use crate::{output, settings};

pub async fn run(args: DiffArgs) -> Result<Outcome, CliError> {
    let b = match (&args.b, args.command.is_empty()) {
        (Some(b), true) => SideSpec::parse(b),
        (None, false) => SideSpec::Server(Target::stdio(args.command.iter().cloned())),
        (Some(_), false) => {
            return Err(CliError::usage("give B or `-- COMMAND`, not both")
                .hint("`mcpseal diff old.lock.json -- node server.js` compares a lock with a running server"));
        }
        (None, true) => {
            return Err(CliError::usage("`mcpseal diff` needs two sides")
                .hint("`mcpseal diff A B`: each a lock file, snapshot JSON or http(s) URL; B may be `-- COMMAND ARGS...`"));
        }
    };
    let a = SideSpec::parse(&args.a);
    let options = settings::options(&args.connect)?;
    let report = mcpseal::diff::run(&a, &b, options, args.page_cap.max(1)).await?;
    output::emit_doc(
        &render_diff(
            &report,
            args.format,
            &mcpseal::tool_info(),
            &settings::drift_options(args.full),
        ),
        args.format == mcpseal::report::Format::Text,
        args.output.output.as_deref(),
    )?;
    Ok(Outcome::of_diff(&report))
}
