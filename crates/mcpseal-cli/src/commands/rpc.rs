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
    let params = args.params.as_deref().map(params).transpose()?;
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

/// `--params`: inline JSON, or `@FILE` naming a file that holds it (large params do not fit
/// on a command line).
fn params(raw: &str) -> Result<serde_json::Value, CliError> {
    let Some(path) = raw.strip_prefix('@') else {
        return serde_json::from_str(raw).map_err(|e| {
            CliError::usage(format!("`--params` is not valid JSON: {e}"))
                .hint(r#"pass a JSON object, e.g. --params '{"name":"echo"}', or @FILE"#)
        });
    };
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::usage(format!("`--params @{path}`: cannot read `{path}`: {e}"))
            .hint("name a readable file holding the params JSON, e.g. --params @params.json")
    })?;
    serde_json::from_str(&text).map_err(|e| {
        CliError::usage(format!(
            "`--params @{path}`: `{path}` is not valid JSON: {e}"
        ))
        .hint("the file must hold one JSON value, e.g. {\"name\":\"echo\"}")
    })
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
