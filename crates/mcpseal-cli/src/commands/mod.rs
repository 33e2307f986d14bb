//! One module per subcommand.

pub mod check;
pub mod diff;
pub mod drift;
pub mod lock;
pub mod probe;
pub mod rpc;
pub mod sandbox;
pub mod serve;
pub mod snapshot;
pub mod verify;
