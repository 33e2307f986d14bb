//! `mcpseal lock`.

use mcpseal::lock::LockOptions;
use mcpseal::surface::lock::Pointer;

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
    let version = settings::version_request(&args.version)?;
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let anonymous = if args.no_anonymous {
        None
    } else {
        Some(settings::anonymous_options(
            &args.anonymous_call,
            args.anonymous,
        )?)
    };
    let lock_options = LockOptions {
        path: args.lock.path.clone(),
        profile: args.profile.profile.clone(),
        form: args.form.map(settings::form),
        page_cap: args.report.page_cap.max(1),
        exclude: (!exclude.is_empty()).then_some(exclude),
        rules: settings::rule_options(&args.rules),
        version,
        allow_rename: args.allow_rename,
        lock_wait: match &args.lock_timeout {
            Some(text) => settings::parse_duration(text)?,
            None => mcpseal::lock::lock_wait(options.timeout, anonymous.as_ref()),
        },
        anonymous,
    };
    let report = mcpseal::lock::run(&target, options, &lock_options).await?;
    output::report(&report, &args.report, &args.output)
}
