//! `mcpseal verify`: the deployed endpoint against the lock.

use mcpseal::verify::{Retry, VerifyOptions, VerifyProgress};

use crate::error::{CliError, Outcome};
use crate::lock_args::VerifyArgs;
use crate::{output, settings};

/// A note on stderr per retry, with the wait as the user wrote it.
struct Notes<'a> {
    wait: &'a str,
}

impl VerifyProgress for Notes<'_> {
    fn retrying(&self, attempt: u32, attempts: u32) {
        output::note(&format!(
            "note: attempt {attempt}/{attempts}: the surface differs from the lock; asking again in {}",
            self.wait
        ));
    }

    fn retrying_profile(&self, profile: &str, attempt: u32, attempts: u32) {
        output::note(&format!(
            "note: profile `{profile}`: attempt {attempt}/{attempts}: the surface differs from the lock; asking again in {}",
            self.wait
        ));
    }
}

pub async fn run(args: VerifyArgs) -> Result<Outcome, CliError> {
    if args.profile.profile.is_none()
        && let Some(names) = mcpseal::profiles::lock_profiles(&args.lock.path)
    {
        return every_profile(args, &names).await;
    }
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let retry = retry_of(&args)?;
    let verify_options = options_of(&args)?;
    let progress = Notes { wait: &args.wait };
    let report = mcpseal::verify::run(&target, options, &verify_options, retry, &progress).await?;
    output::report(&report, &args.report, &args.output)
}

/// No `--profile` on a lock of profiles: every profile, each against its `[profiles.NAME]`.
async fn every_profile(args: VerifyArgs, names: &[String]) -> Result<Outcome, CliError> {
    args.profile
        .config
        .no_command_line_target(&args.target, &args.lock.path, names)?;
    let targets = args.profile.config.targets(&args.connect)?;
    let retry = retry_of(&args)?;
    let verify_options = options_of(&args)?;
    let progress = Notes { wait: &args.wait };
    let report = mcpseal::profiles::verify_all(&targets, &verify_options, retry, &progress).await?;
    output::report(&report, &args.report, &args.output)
}

fn retry_of(args: &VerifyArgs) -> Result<Retry, CliError> {
    Ok(Retry {
        attempts: args.attempts.max(1),
        wait: settings::parse_duration(&args.wait)?,
    })
}

fn options_of(args: &VerifyArgs) -> Result<VerifyOptions, CliError> {
    Ok(VerifyOptions {
        path: args.lock.path.clone(),
        profile: args.profile.profile.clone(),
        page_cap: args.report.page_cap.max(1),
        anonymous: if args.no_anonymous {
            None
        } else {
            Some(settings::anonymous_options(&args.anonymous_call, false)?)
        },
    })
}
