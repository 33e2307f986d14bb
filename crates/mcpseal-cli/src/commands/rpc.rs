//! `mcpseal rpc`.

use std::fmt::Write as _;

use mcpseal::client::Era;
use mcpseal::{RpcCall, RpcOutcome};

use crate::args::{DocFormat, RpcArgs};
use crate::error::{CliError, Outcome};
use crate::{output, settings};

pub async fn run(args: RpcArgs) -> Result<Outcome, CliError> {
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let params = match &args.params {
        Some(raw) => Some(serde_json::from_str(raw).map_err(|e| {
            CliError::usage(format!("`--params` is not valid JSON: {e}"))
                .hint(r#"pass a JSON object, e.g. --params '{"name":"echo"}'"#)
        })?),
        None => None,
    };
    let era = Era::from_revision(&args.era).unwrap_or(Era::Modern);
    let conn = mcpseal::open(&target, options).await?;
    let outcome = mcpseal::rpc(
        &conn,
        RpcCall {
            method: args.method.clone(),
            params,
            era,
            handshake: args.handshake,
        },
    )
    .await;
    conn.close().await;
    let text = match args.format {
        DocFormat::Json => {
            let mut s = serde_json::to_string_pretty(&outcome)
                .map_err(|e| CliError::usage(e.to_string()))?;
            s.push('\n');
            s
        }
        DocFormat::Text => render_text(&outcome),
    };
    output::emit(&text, args.output.output.as_deref())?;
    if let Some(err) = &outcome.exchange.transport_error {
        output::note(&format!("error: no answer: {}", err.message));
        for line in outcome.diagnostics.iter().rev().take(5).rev() {
            output::note(&format!("  {line}"));
        }
        return Ok(Outcome::NoVerdict);
    }
    Ok(Outcome::Ok)
}

fn render_text(outcome: &RpcOutcome) -> String {
    let mut s = String::new();
    for ex in outcome
        .handshake
        .iter()
        .chain(std::iter::once(&outcome.exchange))
    {
        let _ = writeln!(s, "{}", ex.summary());
        let _ = writeln!(s, "→ {}", ex.request);
        if let Some(r) = &ex.response {
            let _ = writeln!(
                s,
                "← {}",
                serde_json::to_string_pretty(r).unwrap_or_else(|_| r.to_string())
            );
        }
    }
    s
}
