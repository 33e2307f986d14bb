//! Two small helpers every module of the crate needs (a leaf: it imports nothing of the crate).

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// Locks `m`; a poisoned lock is still usable (a panic elsewhere must not wedge a connection).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Milliseconds since `started`, saturating.
pub(crate) fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}
