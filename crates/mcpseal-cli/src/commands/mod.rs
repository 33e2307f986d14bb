//! One module per subcommand.

pub mod rpc;
pub mod snapshot;
