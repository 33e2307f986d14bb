//! One module per subcommand: resolve the arguments, call the facade once, render, and say
//! which [`Outcome`](crate::error::Outcome) it was.

pub mod call;
pub mod card;
pub mod check;
pub mod diff;
pub mod guard;
pub mod index;
pub mod init;
pub mod lock;
pub mod probe;
pub mod registry;
pub mod replay;
pub mod rpc;
pub mod sandbox;
pub mod serve;
pub mod snapshot;
pub mod verify;
