//! `mcpseal snapshot`.

use mcpseal::SnapshotOptions;
use mcpseal::report::render_snapshot;

use crate::args::SnapshotArgs;
use crate::error::{CliError, Outcome};
use crate::{output, settings};

pub async fn run(args: SnapshotArgs) -> Result<Outcome, CliError> {
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let snapshot_options = SnapshotOptions {
        form: settings::form(args.form),
        page_cap: args.page_cap.max(1),
    };
    let anonymous = if args.no_anonymous {
        None
    } else {
        let mut a = settings::anonymous_options(&args.anonymous_call, args.anonymous)?;
        a.only = args.anonymous_only;
        Some(a)
    };
    let text = args.format == mcpseal::report::DocFormat::Text;
    let snapshot = mcpseal::snapshot::run(
        &target,
        options,
        &snapshot_options,
        anonymous.as_ref(),
        args.save_capture.as_deref(),
        !text,
    )
    .await?;
    let to_file = args.output.output.is_some();
    output::emit_doc(
        &render_snapshot(
            &snapshot,
            args.format,
            text && !to_file && output::stdout_color(),
        ),
        text,
        args.output.output.as_deref(),
    )?;
    for w in &snapshot.warnings {
        output::note(&format!("warning: {w}"));
    }
    Ok(Outcome::Ok)
}
