//! Shared by the HTTP rules SEAL030–SEAL035: when they apply, and how an answer is described.

use mcpseal_client::{Exchange, TransportKind};

use crate::context::ProbeContext;
use crate::prelude::{ClientPath, ObservedEra};
use crate::removed::describe;

/// HTTP, the 2026 path works and `server/discover` answered: the server claims 2026-07-28,
/// so its transport behaviour is judged against it. Never true when a root cause (SEAL013,
/// SEAL014) was isolated: those need a failing path.
pub(crate) fn modern_http(ctx: &ProbeContext<'_>) -> bool {
    let p = ctx.prelude();
    ctx.transport() == TransportKind::Http
        && p.path == Some(ClientPath::Modern)
        && p.discover.result().is_some()
        && p.root_cause.is_none()
}

/// [`modern_http`] and `initialize` was refused: a modern-only server (a dual-era server may
/// legitimately serve 2025 behaviour: GET streams, header-less 2025 requests).
pub(crate) fn modern_only_http(ctx: &ProbeContext<'_>) -> bool {
    modern_http(ctx) && ctx.prelude().era() == ObservedEra::Modern
}

/// `describe`, plus the HTTP status when no JSON-RPC body came back.
pub(crate) fn answer(ex: &Exchange) -> String {
    match (&ex.transport_error, ex.http_status) {
        (Some(e), Some(s)) => format!("`{}` → HTTP {s} ({})", ex.method(), e.message),
        _ => describe(ex),
    }
}
