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
    let params = args
        .params
        .as_deref()
        .map(mcpseal::rpc::params)
        .transpose()?;
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
