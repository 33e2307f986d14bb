//! `mcpseal card emit|check`: parse, one facade call, render, exit code.

use mcpseal::publish::card::{CardCheckOptions, EmitOptions, EmitShape};
use mcpseal_report::publish::card::CardVerdict;

use crate::commands::registry::emit;
use crate::error::{CliError, Outcome};
use crate::publish_args::{CardArgs, CardCheckArgs, CardCommand, CardEmitArgs, ShapeArg};
use crate::{output, settings};

pub async fn run(args: CardArgs) -> Result<Outcome, CliError> {
    match args.command {
        CardCommand::Emit(a) => emit_card(a),
        CardCommand::Check(a) => check(a).await,
    }
}

fn emit_card(a: CardEmitArgs) -> Result<Outcome, CliError> {
    let text = mcpseal::publish::card::emit_card(&EmitOptions {
        lock: a.lock.clone(),
        server_json: a.server_json.clone(),
        shape: match a.shape {
            ShapeArg::V1 => EmitShape::V1,
            ShapeArg::Smithery => EmitShape::Smithery,
        },
    })?;
    output::emit(&text, a.output.output.as_deref())?;
    Ok(Outcome::Ok)
}

async fn check(a: CardCheckArgs) -> Result<Outcome, CliError> {
    let options = CardCheckOptions {
        url: a.url.clone(),
        connect: settings::options(&a.connect)?,
        page_cap: a.page_cap.max(1),
    };
    let report = mcpseal::publish::card::check(&options).await?;
    emit(&report, a.report.format, &a.output)?;
    Ok(match report.verdict {
        CardVerdict::Consistent => Outcome::Ok,
        CardVerdict::Mismatch => {
            output::note(
                "error: a card is invalid or contradicts the live server\nhint: the failing checks name the card and what differs; regenerate it with `mcpseal card emit`",
            );
            Outcome::Found
        }
        CardVerdict::NoCard => {
            output::note(
                "error: no server card at any place\nhint: serve one at `<mcp-url>/server-card` (`mcpseal card emit > card.json`)",
            );
            Outcome::NoVerdict
        }
        CardVerdict::Unreachable => {
            output::note(
                "error: the live server could not be reached or trusted, so no card was reconciled\nhint: check the URL and the credentials (`--header`)",
            );
            Outcome::NoVerdict
        }
    })
}
