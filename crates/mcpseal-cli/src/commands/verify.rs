//! `mcpseal verify`: the deployed endpoint against the lock.

use mcpseal::report::{render_verify, verify_notes};
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
}

pub async fn run(args: VerifyArgs) -> Result<Outcome, CliError> {
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let retry = Retry {
        attempts: args.attempts.max(1),
        wait: settings::parse_duration(&args.wait)?,
    };
    let verify_options = VerifyOptions {
        path: args.lock.path.clone(),
        profile: args.profile.profile.clone(),
        page_cap: args.report.page_cap.max(1),
        anonymous: if args.no_anonymous {
            None
        } else {
            Some(settings::anonymous_options(&args.anonymous_call, false)?)
        },
    };
    let progress = Notes { wait: &args.wait };
    let report = mcpseal::verify::run(&target, options, &verify_options, retry, &progress).await?;
    output::emit_doc(
        &render_verify(
            &report,
            args.report.format,
            &mcpseal::tool_info(),
            &settings::drift_options(args.report.full),
        ),
        args.report.format == mcpseal::report::Format::Text,
        args.output.output.as_deref(),
    )?;
    output::notes(&verify_notes(&report));
    Ok(Outcome::of_verify(&report))
}
