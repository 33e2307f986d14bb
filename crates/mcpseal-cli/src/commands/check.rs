//! `mcpseal check`: the CI gate.

use mcpseal::check::CheckOptions;

use crate::error::{CliError, Outcome};
use crate::lock_args::CheckArgs;
use crate::{output, settings};

pub async fn run(args: CheckArgs) -> Result<Outcome, CliError> {
    let version = settings::version_request(&args.version)?;
    if args.profile.profile.is_none()
        && let Some(names) = mcpseal::profiles::lock_profiles(&args.lock.path)
    {
        return every_profile(args, version, &names).await;
    }
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let check_options = options_of(&args, version)?;
    let report = mcpseal::check::run(&target, options, &check_options).await?;
    output::report(&report, &args.report, &args.output)
}

/// No `--profile` on a lock of profiles: every profile, each against its `[profiles.NAME]`.
async fn every_profile(
    args: CheckArgs,
    version: mcpseal::version_source::VersionRequest,
    names: &[String],
) -> Result<Outcome, CliError> {
    args.profile
        .config
        .no_command_line_target(&args.target, &args.lock.path, names)?;
    let targets = args.profile.config.targets(&args.connect)?;
    let check_options = options_of(&args, version)?;
    let report = mcpseal::profiles::check_all(&targets, &check_options).await?;
    output::report(&report, &args.report, &args.output)
}

fn options_of(
    args: &CheckArgs,
    version: mcpseal::version_source::VersionRequest,
) -> Result<CheckOptions, CliError> {
    Ok(CheckOptions {
        path: args.lock.path.clone(),
        profile: args.profile.profile.clone(),
        page_cap: args.report.page_cap.max(1),
        rules: settings::rule_options(&args.rules),
        version,
        anonymous: if args.no_anonymous {
            None
        } else {
            Some(settings::anonymous_options(&args.anonymous_call, false)?)
        },
        allow_rename: args.allow_rename,
        strict_version: args.strict_version,
    })
}
