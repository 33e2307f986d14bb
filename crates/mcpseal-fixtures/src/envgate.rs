//! `--require-env VAR`: a stdio server whose credential is its environment, as many stdio MCP
//! servers read an API key from a variable. Started without VAR, it refuses every request but
//! the `--env-open-method` ones with a JSON-RPC error (-32001 "Unauthorized"); with VAR set, it
//! serves everything. The anonymous-access measurement of a stdio server (`--anonymous-env-unset
//! VAR`) is tested against it.
//!
//! This is the one knob that looks at the fixture's own environment: that is its point.

use clap::Args;
use serde_json::Value;

use crate::jsonrpc::{self, Outcome, RpcError};

/// The JSON-RPC code of the refusal.
pub const UNAUTHORIZED: i64 = -32001;

/// The knobs of this module (flattened into the fixture's flags).
#[derive(Debug, Clone, Default, Args)]
pub struct EnvGateKnobs {
    /// stdio: refuse every request (-32001) unless the environment variable VAR is set
    #[arg(long, value_name = "VAR")]
    pub require_env: Option<String>,

    /// With --require-env: serve METHOD even without VAR (repeatable)
    #[arg(long, value_name = "METHOD", requires = "require_env")]
    pub env_open_method: Vec<String>,
}

/// The refusal for `msg`, or `None` when it may be served.
pub fn refusal(knobs: &EnvGateKnobs, msg: &Value) -> Option<Outcome> {
    let var = knobs.require_env.as_deref()?;
    if std::env::var_os(var).is_some() {
        return None;
    }
    let id = msg.get("id")?;
    let method = msg.get("method").and_then(Value::as_str)?;
    if knobs.env_open_method.iter().any(|m| m == method) {
        return None;
    }
    let err = RpcError::new(UNAUTHORIZED, format!("Unauthorized: {var} is not set"));
    Some(Outcome::Reply {
        body: jsonrpc::error(id, &err),
        status: 401,
        session: None,
    })
}
