//! `mcpseal rpc`.

use mcpseal::RpcCall;
use mcpseal::client::Era;
use mcpseal::report::{render_rpc, rpc_notes};

use crate::args::RpcArgs;
use crate::error::{CliError, Outcome};
use crate::{output, settings};

pub async fn run(args: RpcArgs) -> Result<Outcome, CliError> {
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let params = args.params.as_deref().map(params).transpose()?;
    let era = Era::from_revision(&args.era).unwrap_or(Era::Modern);
    let call = RpcCall {
        method: args.method.clone(),
        params,
        era,
        handshake: args.handshake,
    };
    let report = mcpseal::rpc::run(&target, options, call).await?;
    output::emit(
        &render_rpc(&report, args.format),
        args.output.output.as_deref(),
    )?;
    output::notes(&rpc_notes(&report));
    Ok(Outcome::of_rpc(&report))
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
