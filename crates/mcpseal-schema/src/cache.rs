//! The process-wide cache of compiled schemas.
//!
//! Why a bound: the probe compiles every tool schema a server lists, and a server may list
//! thousands. The first [`MAX_ENTRIES`] distinct schemas (at most [`MAX_KEY_BYTES`] of schema
//! text in all) stay compiled for the process; any later one is compiled on every call, so
//! memory stays bounded whatever the server sends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::compile::{CompileError, Options, Schema};

/// The most schemas kept compiled.
pub(crate) const MAX_ENTRIES: usize = 1024;
/// The most schema bytes (the keys) kept in all.
pub(crate) const MAX_KEY_BYTES: usize = 8 * 1024 * 1024;

pub(crate) type Compiled = Result<Arc<Schema>, CompileError>;

#[derive(Default)]
struct Cache {
    entries: HashMap<(Vec<u8>, Options), Compiled>,
    key_bytes: usize,
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// The cached outcome for `key`, or `make()`'s, kept when there is room. The lock is not held
/// while compiling: two threads may compile the same schema once each, never block each other.
pub(crate) fn get_or_compile(
    key: Vec<u8>,
    options: Options,
    make: impl FnOnce() -> Compiled,
) -> Compiled {
    let key = (key, options);
    if let Some(hit) = lock().entries.get(&key) {
        return hit.clone();
    }
    let compiled = make();
    let mut cache = lock();
    let room = cache.entries.len() < MAX_ENTRIES && cache.key_bytes + key.0.len() <= MAX_KEY_BYTES;
    if room && !cache.entries.contains_key(&key) {
        cache.key_bytes += key.0.len();
        cache.entries.insert(key, compiled.clone());
    }
    compiled
}

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    cache().lock().unwrap_or_else(PoisonError::into_inner)
}
